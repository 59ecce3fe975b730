package gormstore

import (
	"errors"
	"testing"
	"time"

	"github.com/proctorhq/proctor/storage"
)

func TestLoginUnlocks(t *testing.T) {
	for _, backend := range doctorBackends() {
		t.Run(backend, func(t *testing.T) {
			s := openDoctorStore(t, backend)
			ctx := t.Context()
			if at, err := s.AccountUnlockedAt(ctx, "k1"); err != nil || !at.IsZero() {
				t.Fatalf("never unlocked: %v, %v", at, err)
			}
			first := time.Date(2030, 1, 2, 3, 4, 5, 678_901_000, time.FixedZone("x", 3600))
			if err := s.UnlockAccount(ctx, "k1", first); err != nil {
				t.Fatal(err)
			}
			if at, err := s.AccountUnlockedAt(ctx, "k1"); err != nil || !at.Equal(first) || at.Location() != time.UTC {
				t.Fatalf("after unlock: %v, %v; want %v in UTC", at, err, first)
			}
			// A second unlock replaces the first (an upsert, not a second row).
			second := first.Add(time.Hour)
			if err := s.UnlockAccount(ctx, "k1", second); err != nil {
				t.Fatal(err)
			}
			if at, err := s.AccountUnlockedAt(ctx, "k1"); err != nil || !at.Equal(second) {
				t.Fatalf("after the second unlock: %v, %v; want %v", at, err, second)
			}
			if at, err := s.AccountUnlockedAt(ctx, "k2"); err != nil || !at.IsZero() {
				t.Errorf("another account: %v, %v", at, err)
			}
			for _, bad := range []struct {
				key string
				at  time.Time
			}{{"", first}, {"k3", time.Time{}}} {
				if err := s.UnlockAccount(ctx, bad.key, bad.at); !errors.Is(err, storage.ErrInvalidArgument) {
					t.Errorf("UnlockAccount(%q, %v) = %v, want ErrInvalidArgument", bad.key, bad.at, err)
				}
			}
		})
	}
}
