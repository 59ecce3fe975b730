package authz_test

import (
	"net/http"
	"testing"
	"time"
)

// TestExpiresInIsTheLifetime: expires_in is the school's access-token lifetime exactly, at the
// code exchange and at every refresh. fosite's own figure is off by one second in about half of
// all answers, so many answers are checked: the old code cannot pass them all by chance.
func TestExpiresInIsTheLifetime(t *testing.T) {
	for _, lifetime := range []time.Duration{2 * time.Hour, 15 * time.Minute} {
		e := newEnv(t, "sqlite", withAccessTokenLifetime(lifetime))
		want := int64(lifetime / time.Second)
		for i := range 3 {
			tr := e.tokens("account:read")
			if tr.ExpiresIn != want {
				t.Errorf("%s: exchange %d: expires_in %d, want %d", lifetime, i, tr.ExpiresIn, want)
			}
			for j := range 10 {
				status, next := e.refresh(e.a, publicClient, tr.RefreshToken)
				if status != http.StatusOK {
					t.Fatalf("refresh: %d %+v", status, next)
				}
				if next.ExpiresIn != want {
					t.Errorf("%s: refresh %d.%d: expires_in %d, want %d", lifetime, i, j, next.ExpiresIn, want)
				}
				tr = next
			}
		}
	}
}
