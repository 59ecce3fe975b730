package config

import (
	"errors"
	"testing"
	"time"
)

func TestSecurityEventsSection(t *testing.T) {
	cfg, err := Load(writeRedisServer(t, ""))
	if err != nil || cfg.Server.SecurityEvents.Retention != DefaultSecurityEventRetention {
		t.Fatalf("default retention: %+v, %v", cfg.Server.SecurityEvents, err)
	}
	cfg, err = Load(writeRedisServer(t, "security_events: {retention: 2160h}\n"))
	if err != nil || cfg.Server.SecurityEvents.Retention != 90*24*time.Hour {
		t.Fatalf("retention 2160h: %+v, %v", cfg.Server.SecurityEvents, err)
	}
	t.Setenv("PROCTOR_SECURITY_EVENTS_RETENTION", "720h")
	if cfg, err = Load(writeRedisServer(t, "")); err != nil || cfg.Server.SecurityEvents.Retention != 30*24*time.Hour {
		t.Fatalf("environment: %+v, %v", cfg.Server.SecurityEvents, err)
	}
}

func TestSecurityEventsRetentionBounds(t *testing.T) {
	for _, v := range []string{"0s", "-24h", "23h", "87601h"} {
		_, err := Load(writeRedisServer(t, "security_events: {retention: "+v+"}\n"))
		var problems Errors
		if !errors.As(err, &problems) || len(problems) != 1 || problems[0].Field != "security_events.retention" {
			t.Errorf("retention %s: %v, want one problem with security_events.retention", v, err)
		}
	}
	for _, v := range []string{"24h", "87600h"} {
		if _, err := Load(writeRedisServer(t, "security_events: {retention: "+v+"}\n")); err != nil {
			t.Errorf("retention %s: %v", v, err)
		}
	}
}
