package config

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
)

// redisPassword appears in the URLs below; no message or log line may show it.
const redisPassword = "hunter2-redis"

// writeRedisServer lays out a school directory and a server file whose remaining keys are body.
func writeRedisServer(t *testing.T, body string) string {
	t.Helper()
	return writeServer(t, map[string]string{"schools/a.yaml": validSchool}, body)
}

func TestRedisSection(t *testing.T) {
	cfg, err := Load(writeRedisServer(t, "redis:\n  url: rediss://proctor:"+redisPassword+"@cache.internal:6380/2\n  key_prefix: \"north:login:\"\n"))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if r := cfg.Server.Redis; string(r.URL) != "rediss://proctor:"+redisPassword+"@cache.internal:6380/2" || r.KeyPrefix != "north:login:" {
		t.Errorf("redis = %q, %q", string(r.URL), r.KeyPrefix)
	}

	// Without the section: no Redis, and the default prefix ready for when one is given.
	cfg, err = Load(writeRedisServer(t, ""))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if r := cfg.Server.Redis; len(r.URL) != 0 || r.KeyPrefix != DefaultRedisKeyPrefix {
		t.Errorf("default redis = %q, %q", string(r.URL), r.KeyPrefix)
	}
}

func TestRedisEnvironmentOverrides(t *testing.T) {
	t.Setenv("PROCTOR_REDIS_URL", "redis://:"+redisPassword+"@127.0.0.1:6379/0")
	t.Setenv("PROCTOR_REDIS_KEY_PREFIX", "env:")
	cfg, err := Load(writeRedisServer(t, "redis: {url: \"redis://file.example:6379/0\"}\n"))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if r := cfg.Server.Redis; string(r.URL) != "redis://:"+redisPassword+"@127.0.0.1:6379/0" || r.KeyPrefix != "env:" {
		t.Errorf("redis = %q, %q; want the environment's", string(r.URL), r.KeyPrefix)
	}
}

// TestRedisProblemsListed: each bad value is reported under its field, and no message shows
// the URL's password.
func TestRedisProblemsListed(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		fields     []string
	}{
		{"scheme", "redis: {url: \"http://u:" + redisPassword + "@h:6379\"}\n", []string{"redis.url"}},
		{"no URL", "redis: {url: \"127.0.0.1:6379\"}\n", []string{"redis.url"}},
		{"unparsable", "redis: {url: \"redis://u:" + redisPassword + "@h:port/0\"}\n", []string{"redis.url"}},
		{"database", "redis: {url: \"redis://u:" + redisPassword + "@h:6379/zero\"}\n", []string{"redis.url"}},
		{"option", "redis: {url: \"redis://u:" + redisPassword + "@h:6379/0?colour=blue\"}\n", []string{"redis.url"}},
		{"no host", "redis: {url: \"redis:///0\"}\n", []string{"redis.url"}},
		{"empty prefix", "redis: {url: \"redis://h:6379/0\", key_prefix: \"\"}\n", []string{"redis.key_prefix"}},
		{"spaced prefix", "redis: {url: \"redis://h:6379/0\", key_prefix: \"my app:\"}\n", []string{"redis.key_prefix"}},
		{"both", "redis: {url: \"ftp://h\", key_prefix: \"" + strings.Repeat("p", 65) + "\"}\nlog: {level: loud}\n",
			[]string{"redis.url", "redis.key_prefix", "log.level"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(writeRedisServer(t, tc.body))
			var problems Errors
			if !errors.As(err, &problems) {
				t.Fatalf("Load error = %v, want Errors", err)
			}
			if len(problems) != len(tc.fields) {
				t.Errorf("%d problems, want %d:\n%v", len(problems), len(tc.fields), err)
			}
			for _, f := range tc.fields {
				found := false
				for _, p := range problems {
					if p.Field == f && filepath.Base(p.File) == "proctor.yaml" {
						found = true
					}
				}
				if !found {
					t.Errorf("no problem reported for %s:\n%v", f, err)
				}
			}
			if strings.Contains(err.Error(), redisPassword) {
				t.Errorf("the password is shown:\n%v", err)
			}
		})
	}
}

// TestRedisURLNeverPrints: however the server settings are printed or logged, the Redis URL
// (and so its password) is redacted.
func TestRedisURLNeverPrints(t *testing.T) {
	srv := DefaultServer()
	srv.Redis.URL = Secret("redis://proctor:" + redisPassword + "@cache.internal:6379/0")
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("x", "server", srv, "redis", srv.Redis, "url", srv.Redis.URL)
	for _, out := range []string{fmt.Sprintf("%v %+v %#v %s", srv, srv, srv.Redis, srv.Redis.URL), buf.String()} {
		if strings.Contains(out, redisPassword) || strings.Contains(out, "cache.internal") {
			t.Errorf("redis URL leaked: %s", out)
		}
	}
}
