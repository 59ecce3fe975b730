package login

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/proctorhq/proctor/server/servertest/schools"
)

// redisURLEnv names the Redis the tests may write to; without it they are skipped (CI sets it).
const redisURLEnv = "PROCTOR_TEST_REDIS_URL"

func testRedisURL(t *testing.T) string {
	t.Helper()
	u := os.Getenv(redisURLEnv)
	if u == "" {
		t.Skipf("%s is not set", redisURLEnv)
	}
	return u
}

// scanKeys lists the keys under prefix.
func scanKeys(ctx context.Context, c *redis.Client, prefix string) ([]string, error) {
	var keys []string
	it := c.Scan(ctx, 0, prefix+"*", 100).Iterator()
	for it.Next(ctx) {
		keys = append(keys, it.Val())
	}
	return keys, it.Err()
}

func newRedisLimiter(t *testing.T, rawURL string, o RedisOptions) *RedisLimiter {
	t.Helper()
	l, err := NewRedisLimiter(rawURL, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	return l
}

// redisWithLimiter returns a client of the test Redis and a limiter keeping its counts under
// this test's own prefix (schools.Redis).
func redisWithLimiter(t *testing.T) (*redis.Client, *RedisLimiter) {
	t.Helper()
	u := testRedisURL(t)
	c, prefix := schools.Redis(t, u)
	return c, newRedisLimiter(t, u, RedisOptions{KeyPrefix: prefix})
}

// warnings counts the warnings in a JSON log.
func warnings(logs *schools.LogBuffer) int { return strings.Count(logs.String(), `"level":"WARN"`) }

// mustTake calls Take and checks whether it charged.
func mustTake(t *testing.T, l Limiter, key string, lim Limit, want bool) {
	t.Helper()
	ok, err := l.Take(t.Context(), key, lim)
	if err != nil {
		t.Fatalf("Take(%s): %v", key, err)
	}
	if ok != want {
		t.Fatalf("Take(%s) = %v, want %v", key, ok, want)
	}
}

// TestRedisLimiterContract runs the Limiter contract on Redis: its concurrent-burst case is
// the check that the take script checks and charges atomically.
func TestRedisLimiterContract(t *testing.T) {
	u := testRedisURL(t)
	limiterSuite(t, func(t *testing.T) Limiter {
		_, prefix := schools.Redis(t, u)
		return newRedisLimiter(t, u, RedisOptions{KeyPrefix: prefix})
	})
}

// TestRedisLimiterFallbackContract: while Redis does not answer, the fallback keeps the same
// contract. Needs no Redis.
func TestRedisLimiterFallbackContract(t *testing.T) {
	limiterSuite(t, func(t *testing.T) Limiter {
		return newRedisLimiter(t, "redis://127.0.0.1:1/0", RedisOptions{})
	})
}

// TestRedisLimiterCountsInRedis: the charges are the key's value in Redis, and Reset deletes
// it. (The contract itself is limiterSuite's.)
func TestRedisLimiterCountsInRedis(t *testing.T) {
	t.Parallel()
	c, l := redisWithLimiter(t)
	lim := Limit{Max: 3, Window: time.Minute}
	key := annKey

	for i := 0; i < lim.Max+2; i++ {
		mustTake(t, l, key, lim, i < lim.Max)
	}
	if n, err := c.Get(t.Context(), l.redisKey(key)).Int(); err != nil || n != lim.Max {
		t.Fatalf("count in Redis = %d, %v; want %d", n, err, lim.Max)
	}
	if err := l.Refund(t.Context(), key); err != nil {
		t.Fatal(err)
	}
	if n, err := c.Get(t.Context(), l.redisKey(key)).Int(); err != nil || n != lim.Max-1 {
		t.Fatalf("count in Redis after Refund = %d, %v; want %d", n, err, lim.Max-1)
	}
	if err := l.Reset(t.Context(), key); err != nil {
		t.Fatal(err)
	}
	if n, err := c.Exists(t.Context(), l.redisKey(key)).Result(); err != nil || n != 0 {
		t.Errorf("key still in Redis after Reset: %d, %v", n, err)
	}
}

// TestRedisLimiterKeysAreHashed: Redis holds neither e-mails nor addresses, only the prefix and
// a SHA-256.
func TestRedisLimiterKeysAreHashed(t *testing.T) {
	t.Parallel()
	u := testRedisURL(t)
	c, prefix := schools.Redis(t, u)
	l := newRedisLimiter(t, u, RedisOptions{KeyPrefix: prefix})
	lim := Limit{Max: 5, Window: time.Minute}
	mustTake(t, l, "address:192.0.2.77", lim, true)
	mustTake(t, l, "account:ann@example.com", lim, true)
	keys, err := scanKeys(t.Context(), c, prefix)
	if err != nil {
		t.Fatal(err)
	}
	hashed := regexp.MustCompile(`^` + regexp.QuoteMeta(prefix) + `[0-9a-f]{64}$`)
	if len(keys) != 2 {
		t.Fatalf("keys = %v, want 2", keys)
	}
	for _, k := range keys {
		if !hashed.MatchString(k) || strings.Contains(k, "192.0.2.77") || strings.Contains(k, "ann@") {
			t.Errorf("key %q is not the prefix and a hex SHA-256", k)
		}
	}
}

// TestRedisLimiterExpiryOnFirstFailureOnly: the window starts at the first failure; later
// failures do not move it. Later calls pass a much longer Window: had they set the expiry, the
// key would now live for an hour.
func TestRedisLimiterExpiryOnFirstFailureOnly(t *testing.T) {
	t.Parallel()
	c, l := redisWithLimiter(t)
	first := Limit{Max: 10, Window: 10 * time.Second}
	later := Limit{Max: 10, Window: time.Hour}
	key := "account:expiry"

	mustTake(t, l, key, first, true)
	for i := 0; i < 4; i++ {
		mustTake(t, l, key, later, true)
	}
	ttl, err := c.PTTL(t.Context(), l.redisKey(key)).Result()
	if err != nil {
		t.Fatal(err)
	}
	if ttl <= 0 || ttl > first.Window {
		t.Errorf("PTTL after 5 failures = %v, want in (0, %v]", ttl, first.Window)
	}
	if n, _ := c.Get(t.Context(), l.redisKey(key)).Int(); n != 5 {
		t.Errorf("count = %d, want 5", n)
	}

	// A key that somehow lost its expiry gets one back at the next attempt instead of counting
	// forever, whether the attempt is charged or refused.
	for _, tc := range []struct {
		key     string
		count   int
		allowed bool
		what    string
	}{
		{"account:stale", 7, true, "a key"},
		{"account:stale-full", 10, false, "a spent key"},
	} {
		if err := c.Set(t.Context(), l.redisKey(tc.key), tc.count, 0).Err(); err != nil {
			t.Fatal(err)
		}
		mustTake(t, l, tc.key, first, tc.allowed)
		if ttl, err := c.PTTL(t.Context(), l.redisKey(tc.key)).Result(); err != nil || ttl <= 0 || ttl > first.Window {
			t.Errorf("PTTL of %s found without expiry = %v, %v", tc.what, ttl, err)
		}
	}
}

// TestRedisLimiterExpires: a spent budget comes back when the window ends. The one test that
// waits, for a 300 ms window.
func TestRedisLimiterExpires(t *testing.T) {
	t.Parallel()
	_, l := redisWithLimiter(t)
	lim := Limit{Max: 1, Window: 300 * time.Millisecond}
	start := time.Now()
	mustTake(t, l, "k", lim, true)
	ok, err := l.Take(t.Context(), "k", lim)
	if err != nil {
		t.Fatal(err)
	}
	// Refused within the window; on a machine so busy that the window ended between the two
	// calls, the second was rightly charged and only the expiry below is checked.
	if ok && time.Since(start) < lim.Window {
		t.Fatal("a second attempt within the window was charged")
	}
	// A generous bound: the window is 300ms, the rest is how busy the machine is.
	deadline := time.Now().Add(time.Minute)
	for {
		if ok, _ := l.Take(t.Context(), "k", lim); ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("still refused long after the window ended")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestRedisLimiterSharedByReplicas: two limiters with clients of their own, as two replicas
// would have, spend one budget together.
func TestRedisLimiterSharedByReplicas(t *testing.T) {
	t.Parallel()
	u := testRedisURL(t)
	_, prefix := schools.Redis(t, u)
	a := newRedisLimiter(t, u, RedisOptions{KeyPrefix: prefix})
	b := newRedisLimiter(t, u, RedisOptions{KeyPrefix: prefix})
	lim := Limit{Max: 4, Window: time.Minute}
	key := annKey

	for i := 0; i < lim.Max; i++ {
		mustTake(t, []*RedisLimiter{a, b}[i%2], key, lim, true)
	}
	mustTake(t, a, key, lim, false)
	mustTake(t, b, key, lim, false)

	if err := b.Reset(t.Context(), key); err != nil {
		t.Fatal(err)
	}
	mustTake(t, a, key, lim, true)

	// Another prefix is another deployment: it shares nothing.
	_, otherPrefix := schools.Redis(t, u)
	other := newRedisLimiter(t, u, RedisOptions{KeyPrefix: otherPrefix})
	mustTake(t, a, "k", Limit{Max: 1, Window: time.Minute}, true)
	mustTake(t, other, "k", Limit{Max: 1, Window: time.Minute}, true)
}

// TestRedisLimiterFallsBackWhenUnreachable: with nothing listening, calls return no error and
// count in the process, so the budget still holds; one warning is logged, not one per call,
// and it does not show the URL's password. Needs no Redis.
func TestRedisLimiterFallsBackWhenUnreachable(t *testing.T) {
	t.Parallel()
	logs, logger := schools.NewLog()
	l := newRedisLimiter(t, "redis://proctor:s3cret-pass@127.0.0.1:1/0", RedisOptions{Logger: logger})
	lim := Limit{Max: 3, Window: time.Minute}
	key := annKey

	for i := 0; i < lim.Max; i++ {
		mustTake(t, l, key, lim, true)
	}
	mustTake(t, l, key, lim, false)
	mustTake(t, l, "address:192.0.2.9", lim, true)
	if err := l.Reset(t.Context(), key); err != nil {
		t.Fatal(err)
	}
	mustTake(t, l, key, lim, true)

	if n := warnings(logs); n != 1 {
		t.Errorf("%d warnings, want 1:\n%s", n, logs.String())
	}
	if strings.Contains(logs.String(), "s3cret") {
		t.Errorf("the Redis password reached the log:\n%s", logs.String())
	}
}

// TestRedisLimiterIgnoresCallerCancellation: a request whose browser went away ends its own
// context; that says nothing about Redis, so it neither warns nor sends later calls to the
// fallback.
func TestRedisLimiterIgnoresCallerCancellation(t *testing.T) {
	t.Parallel()
	logs, logger := schools.NewLog()
	l := newRedisLimiter(t, "redis://127.0.0.1:1/0", RedisOptions{Logger: logger})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if ok, err := l.Take(ctx, "k", Limit{Max: 1, Window: time.Minute}); !ok || err != nil {
		t.Errorf("Take = %v, %v", ok, err)
	}
	if l.isDown() || logs.String() != "" {
		t.Errorf("a cancelled caller marked Redis down (down %v):\n%s", l.isDown(), logs.String())
	}
}

// TestLoginWithUnreachableRedis: the sign-in page neither fails nor stops limiting when Redis
// is down.
func TestLoginWithUnreachableRedis(t *testing.T) {
	t.Parallel()
	l := newRedisLimiter(t, "redis://127.0.0.1:1/0", RedisOptions{})
	e := newEnv(t, func(d *Deps) { d.Limiter = l })
	b := e.browser(hostA, false)
	for i := 0; i < DefaultAccountLimit.Max; i++ {
		res := b.login(annEmail, "not the password", "/x")
		if res.StatusCode != http.StatusOK || !strings.Contains(res.body, MsgLoginFailed) {
			t.Fatalf("attempt %d: %d\n%s", i+1, res.StatusCode, res.body)
		}
	}
	res := b.login(annEmail, annPassword, "/x")
	if res.StatusCode != http.StatusTooManyRequests || !strings.Contains(res.body, MsgLoginLimited) {
		t.Fatalf("after the budget: %d\n%s", res.StatusCode, res.body)
	}
}

// TestRedisLimiterRecovers: when Redis stops answering the limiter counts in memory; when it
// answers again the limiter goes back to it by itself. The outage is a TCP proxy in front of
// the real Redis that drops every connection while it is down.
func TestRedisLimiterRecovers(t *testing.T) {
	t.Parallel()
	u := testRedisURL(t)
	c, prefix := schools.Redis(t, u)
	p := startFlakyProxy(t, c.Options().Addr)
	proxied, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	proxied.Host = p.addr()
	logs, logger := schools.NewLog()
	clk := schools.NewClock(time.Now())
	l := newRedisLimiter(t, proxied.String(), RedisOptions{KeyPrefix: prefix, Logger: logger, Now: clk.Now})
	lim := Limit{Max: 3, Window: time.Minute}
	key := annKey
	count := func() int {
		t.Helper()
		n, err := c.Get(t.Context(), l.redisKey(key)).Int()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	mustTake(t, l, key, lim, true)
	if n := count(); n != 1 {
		t.Fatalf("count in Redis = %d, want 1", n)
	}

	p.setDown(true)
	mustTake(t, l, key, lim, true)
	mustTake(t, l, key, lim, true)
	if n := count(); n != 1 {
		t.Fatalf("count in Redis during the outage = %d, want 1", n)
	}
	// The process's own count holds during the outage: 2 charges, so a budget of 2 is spent.
	mustTake(t, l, key, Limit{Max: 2, Window: time.Minute}, false)
	if n := warnings(logs); n != 1 {
		t.Errorf("%d warnings during the outage, want 1:\n%s", n, logs.String())
	}

	p.setDown(false)
	deadline := time.Now().Add(time.Minute)
	for l.isDown() {
		if time.Now().After(deadline) {
			t.Fatalf("the limiter did not go back to Redis:\n%s", logs.String())
		}
		clk.Advance(DefaultRedisRetryInterval)
		_, _ = l.Take(t.Context(), "probe", lim)
		time.Sleep(20 * time.Millisecond)
	}
	mustTake(t, l, key, lim, true)
	if n := count(); n != 2 {
		t.Fatalf("count in Redis after the outage = %d, want 2", n)
	}
	if !strings.Contains(logs.String(), "answers again") {
		t.Errorf("recovery not logged:\n%s", logs.String())
	}
}

func (r *RedisLimiter) isDown() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.outage.Down()
}

// flakyProxy forwards TCP connections to target; while down it drops every connection, open
// or new, as a Redis that died would.
type flakyProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	down   bool
	conns  map[net.Conn]struct{}
}

func startFlakyProxy(t *testing.T, target string) *flakyProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &flakyProxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	go p.serve()
	t.Cleanup(func() {
		ln.Close()
		p.setDown(true)
	})
	return p
}

func (p *flakyProxy) addr() string { return p.ln.Addr().String() }

func (p *flakyProxy) serve() {
	for {
		in, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		down := p.down
		p.mu.Unlock()
		if down {
			in.Close()
			continue
		}
		out, err := net.Dial("tcp", p.target)
		if err != nil {
			in.Close()
			continue
		}
		p.mu.Lock()
		p.conns[in], p.conns[out] = struct{}{}, struct{}{}
		p.mu.Unlock()
		pipe := func(dst, src net.Conn) {
			_, _ = io.Copy(dst, src)
			dst.Close()
			src.Close()
		}
		go pipe(out, in)
		go pipe(in, out)
	}
}

func (p *flakyProxy) setDown(down bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = down
	if down {
		for c := range p.conns {
			c.Close()
		}
		clear(p.conns)
	}
}

func TestNewRedisLimiterRejectsBadURLs(t *testing.T) {
	for _, u := range []string{"", "http://127.0.0.1:6379", "127.0.0.1:6379", "redis://:pa ss@host:bad port/0", "redis://127.0.0.1:6379/notadb"} {
		_, err := NewRedisLimiter(u, RedisOptions{})
		if !errors.Is(err, ErrRedisURL) {
			t.Errorf("%q: err = %v, want ErrRedisURL", u, err)
		}
		if err != nil && strings.Contains(err.Error(), "pa ss") {
			t.Errorf("%q: the error shows the password: %v", u, err)
		}
	}
}

// testRedisURLOrEmpty is the test Redis's URL, or "" when none is set.
func testRedisURLOrEmpty() string { return os.Getenv(redisURLEnv) }
