package server

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/school"
)

// TestLockoutsAndPurgeCounted checks the counters derived from the security event log
// (sign-ins by result, lockouts, grant revocations) and the purge job's count by what it
// purged, and that every school's counters start at zero.
func TestLockoutsAndPurgeCounted(t *testing.T) {
	const retention = 24 * time.Hour
	f := newFixture(t, func(c *config.Server) { c.SecurityEvents.Retention = retention })
	_, body := f.internalGet(t, "/metrics", nil)
	for _, want := range []string{
		`proctor_sign_in_lockouts_total{school="2"} 0`,
		`proctor_tokens_issued_total{grant_type="refresh_token",school="1"} 0`,
		`proctor_cimd_fetches_total{result="limited"} 0`,
		`proctor_purged_rows_total{what="security_events"} 0`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics at start lacks %s", want)
		}
	}

	now := time.Now()
	ctxA := school.NewContext(t.Context(), f.a)
	for _, e := range []audit.Event{
		{Kind: audit.KindSignIn, Result: audit.ResultThrottled, Actor: audit.ActorMember, At: now.Add(-2 * retention)},
		{Kind: audit.KindSignIn, Result: audit.ResultThrottled, Actor: audit.ActorMember, At: now.Add(-2 * retention)},
		{Kind: audit.KindSignIn, Result: audit.ResultFailure, Actor: audit.ActorMember, At: now},
		{Kind: audit.KindGrantRevoked, Actor: audit.ActorMember, ActorID: 1, At: now},
	} {
		if err := f.srv.audit.Record(ctxA, e); err != nil {
			t.Fatal(err)
		}
	}
	if n := f.srv.purgeOnce(t.Context(), now); n != 2 {
		t.Fatalf("purge deleted %d rows, want 2", n)
	}
	_, body = f.internalGet(t, "/metrics", nil)
	for _, want := range []string{
		`proctor_sign_ins_total{result="throttled",school="1"} 2`,
		`proctor_sign_ins_total{result="failure",school="1"} 1`,
		`proctor_sign_in_lockouts_total{school="1"} 2`,
		`proctor_grant_revocations_total{school="1"} 1`,
		`proctor_purged_rows_total{what="security_events"} 2`,
		`proctor_purged_rows_total{what="expired_rows"} 0`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// poolStore is a stand-in store that offers its connection pool and counts its outbox.
type poolStore struct {
	db    *sql.DB
	depth int
}

func (p poolStore) SQLDB() *sql.DB                               { return p.db }
func (p poolStore) MailOutboxDepth(context.Context) (int, error) { return p.depth, nil }

// TestPoolAndOutboxCollectors checks that a store offering its pool and outbox count gets the
// connection pool statistics and the outbox depth gauge.
func TestPoolAndOutboxCollectors(t *testing.T) {
	db, err := sql.Open("sqlite", "file::memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	reg := prometheus.NewRegistry()
	newMetrics(reg, poolStore{db: db, depth: 7})
	got, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]float64{}
	for _, mf := range got {
		if m := mf.GetMetric(); len(m) > 0 && m[0].GetGauge() != nil {
			seen[mf.GetName()] = m[0].GetGauge().GetValue()
		} else {
			seen[mf.GetName()] = 0
		}
	}
	if v, ok := seen["proctor_mail_outbox_depth"]; !ok || v != 7 {
		t.Errorf("proctor_mail_outbox_depth = %v (present %v), want 7", v, ok)
	}
	if _, ok := seen["go_sql_open_connections"]; !ok {
		t.Error("no connection pool statistics")
	}
}
