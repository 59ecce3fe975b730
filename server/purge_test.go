package server

import (
	"testing"
	"time"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/school"
)

// TestPurgeSecurityEvents checks that the purge job deletes the security events older than
// security_events.retention, at every school, in batches, and keeps the rest.
func TestPurgeSecurityEvents(t *testing.T) {
	const retention = 30 * 24 * time.Hour
	f := newFixture(t, func(c *config.Server) { c.SecurityEvents.Retention = retention })
	now := time.Date(2026, time.June, 1, 12, 0, 0, 0, time.UTC)
	add := func(tn *school.School, at time.Time, n int) {
		ctx := school.NewContext(t.Context(), tn)
		for range n {
			if err := f.store.AppendSecurityEvent(ctx, audit.Event{Kind: audit.KindSignIn, Actor: audit.ActorMember, At: at}); err != nil {
				t.Fatal(err)
			}
		}
	}
	// More old events than one batch, so the job must loop.
	add(f.a, now.Add(-retention-time.Hour), purgeBatch+3)
	add(f.b, now.Add(-retention-time.Minute), 2)
	add(f.a, now.Add(-retention+time.Minute), 4)
	add(f.b, now, 1)

	if n := f.srv.purgeOnce(t.Context(), now); n != purgeBatch+5 {
		t.Errorf("purge deleted %d rows, want %d", n, purgeBatch+5)
	}
	for _, c := range []struct {
		tn   *school.School
		want int
	}{{f.a, 4}, {f.b, 1}} {
		got, err := f.store.ListSecurityEvents(school.NewContext(t.Context(), c.tn), audit.Filter{Limit: audit.MaxPage})
		if err != nil || len(got) != c.want {
			t.Errorf("events left at %s: %d, %v; want %d", c.tn.Subdomain, len(got), err, c.want)
		}
	}
	if n := f.srv.purgeOnce(t.Context(), now); n != 0 {
		t.Errorf("second purge deleted %d rows", n)
	}
}
