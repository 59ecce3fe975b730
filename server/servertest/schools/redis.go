package schools

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"

	"github.com/redis/go-redis/v9"
)

// Redis returns a client of the test Redis at rawURL and a key prefix of this test's own, whose
// keys are deleted when the test ends, so that tests running at the same time never meet.
func Redis(t testing.TB, rawURL string) (*redis.Client, string) {
	t.Helper()
	opt, err := redis.ParseURL(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opt)
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	prefix := "proctor-test:" + hex.EncodeToString(b) + ":"
	t.Cleanup(func() {
		defer c.Close()
		// The test's context is done by now.
		ctx := context.Background()
		var keys []string
		it := c.Scan(ctx, 0, prefix+"*", 100).Iterator()
		for it.Next(ctx) {
			keys = append(keys, it.Val())
		}
		if err := it.Err(); err != nil {
			t.Errorf("list test keys: %v", err)
			return
		}
		if len(keys) > 0 {
			if err := c.Del(ctx, keys...).Err(); err != nil {
				t.Errorf("delete test keys: %v", err)
			}
		}
	})
	if err := c.Ping(t.Context()).Err(); err != nil {
		t.Fatalf("Redis at %s does not answer: %v", opt.Addr, err)
	}
	return c, prefix
}
