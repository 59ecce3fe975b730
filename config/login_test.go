package config

import (
	"errors"
	"testing"
	"time"
)

func TestLoginSection(t *testing.T) {
	cfg, err := Load(writeRedisServer(t, "login: {hash_concurrency: 3, hash_wait: 250ms}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Server.Login != (Login{HashConcurrency: 3, HashWait: 250 * time.Millisecond}) {
		t.Errorf("login = %+v", cfg.Server.Login)
	}
	cfg, err = Load(writeRedisServer(t, ""))
	if err != nil || cfg.Server.Login != (Login{}) {
		t.Fatalf("defaults: %+v, %v", cfg.Server.Login, err)
	}
	t.Setenv("PROCTOR_LOGIN_HASH_CONCURRENCY", "2")
	if cfg, err = Load(writeRedisServer(t, "")); err != nil || cfg.Server.Login.HashConcurrency != 2 {
		t.Fatalf("environment: %+v, %v", cfg.Server.Login, err)
	}
}

func TestLoginProblemsListed(t *testing.T) {
	_, err := Load(writeRedisServer(t, "login: {hash_concurrency: 65, hash_wait: 11s}\n"))
	var problems Errors
	if !errors.As(err, &problems) || len(problems) != 2 {
		t.Fatalf("Load error = %v, want 2 problems", err)
	}
	for i, f := range []string{"login.hash_concurrency", "login.hash_wait"} {
		if problems[i].Field != f {
			t.Errorf("problem %d is for %s, want %s", i, problems[i].Field, f)
		}
	}
	if _, err := Load(writeRedisServer(t, "login: {hash_concurrency: -1}\n")); !errors.As(err, &problems) {
		t.Errorf("a negative hash_concurrency was accepted")
	}
}
