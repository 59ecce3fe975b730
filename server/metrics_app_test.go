package server

import (
	"strings"
	"testing"
	"time"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/mail"
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

// TestPoolAndOutboxCollectors checks the connection pool statistics and the outbox depth gauge
// of a server on a real store: the depth counts what the outbox has not sent.
func TestPoolAndOutboxCollectors(t *testing.T) {
	f := newFixture(t, nil)
	due := time.Now().Add(time.Hour) // not due yet: the server's mail worker leaves them
	for i, school := range []int64{1, 2} {
		e := mail.Entry{SchoolID: school, Kind: "invitation", Payload: []byte{byte(i)}, State: mail.StatePending, NextAttemptAt: due}
		if _, err := f.store.EnqueueMail(t.Context(), e); err != nil {
			t.Fatal(err)
		}
	}
	_, body := f.internalGet(t, "/metrics", nil)
	for _, want := range []string{"\nproctor_mail_outbox_depth 2\n", "\ngo_sql_open_connections{db_name=\"proctor\"} "} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", strings.TrimSpace(want))
		}
	}
}
