package audit_test

import (
	"net/http/httptest"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage/gormstore"
	"github.com/proctorhq/proctor/storage/gormstore/storetest"
)

func TestNilRecorderRecordsNothing(t *testing.T) {
	var rec *audit.Recorder
	if err := rec.Record(t.Context(), audit.Event{Kind: audit.KindSignIn}); err != nil {
		t.Errorf("Record on a nil recorder: %v", err)
	}
	rec.Note(t.Context(), audit.Event{Kind: audit.KindSignIn}) // does not panic
}

// The recorder fills in the school, the time, the request's id and address, and a success,
// and counts what the store accepted only.
func TestRecorderFillsAndCounts(t *testing.T) {
	s := storetest.Open(t, gormstore.DriverSQLite)
	tn := &school.School{SchoolID: 1, Subdomain: "a", Name: "A"}
	if err := s.SyncSchool(t.Context(), tn.SchoolID, tn.Subdomain, tn.Name); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, time.May, 1, 9, 0, 0, 0, time.UTC)
	type count struct {
		school int64
		kind   audit.Kind
		result audit.Result
	}
	var counted []count
	rec := audit.NewRecorder(s, nil, audit.WithClock(func() time.Time { return now }),
		audit.WithCounter(func(school int64, k audit.Kind, r audit.Result) { counted = append(counted, count{school, k, r}) }))

	ctx := edge.NewContext(school.NewContext(t.Context(), tn), &edge.Info{ID: "req-7", ClientAddr: netip.MustParseAddr("::ffff:192.0.2.4")})
	r := httptest.NewRequest("GET", "/", nil).WithContext(ctx)
	r.Header.Set("User-Agent", strings.Repeat("x", 600))
	if err := rec.Record(ctx, audit.FromRequest(r, audit.Event{Kind: audit.KindSignIn, Actor: audit.ActorMember})); err != nil {
		t.Fatal(err)
	}
	rec.Note(ctx, audit.Event{Kind: audit.KindSignIn}) // no actor: refused by the store, logged, not counted
	got, err := s.ListSecurityEvents(ctx, audit.Filter{Limit: 10})
	if err != nil || len(got) != 1 {
		t.Fatalf("events %+v, %v", got, err)
	}
	e := got[0]
	if e.SchoolID != 1 || !e.At.Equal(now) || e.Result != audit.ResultSuccess || e.RequestID != "req-7" || e.ClientAddr != "192.0.2.4" || len(e.UserAgent) != 512 {
		t.Errorf("event %+v", e)
	}
	if len(counted) != 1 || counted[0] != (count{1, audit.KindSignIn, audit.ResultSuccess}) {
		t.Errorf("counted %+v", counted)
	}
}

func TestRoleChange(t *testing.T) {
	for _, c := range []struct {
		before, after []string
		want          string
	}{
		{[]string{"student"}, []string{"admin"}, "student -> admin"},
		{nil, []string{"admin", "student"}, "none -> admin, student"},
		{[]string{"owner"}, nil, "owner -> none"},
	} {
		if detail, changed := audit.RoleChange(c.before, c.after); detail != c.want || !changed {
			t.Errorf("RoleChange(%v, %v) = %q, %v", c.before, c.after, detail, changed)
		}
	}
	if detail, changed := audit.RoleChange([]string{"admin"}, []string{"admin"}); changed || detail != "admin -> admin" {
		t.Errorf("no change: %q, changed %v", detail, changed)
	}
}

func TestKinds(t *testing.T) {
	seen := map[audit.Kind]bool{}
	for _, k := range audit.Kinds {
		if seen[k] || !audit.KnownKind(k) {
			t.Errorf("kind %q listed twice or unknown", k)
		}
		seen[k] = true
	}
	if audit.KnownKind("nonsense") {
		t.Error("an unknown kind is known")
	}
}

// A member's own event names the member as actor and subject and carries the request's
// User-Agent, and nothing else: the rest is the caller's or the Recorder's.
func TestMemberEvent(t *testing.T) {
	r := httptest.NewRequest("POST", "/account", nil)
	r.Header.Set("User-Agent", "TestBrowser/1.0")
	got := audit.MemberEvent(r, 42, audit.KindFactorEnrolled, "totp")
	want := audit.Event{Kind: audit.KindFactorEnrolled, Actor: audit.ActorMember, ActorID: 42, SubjectID: 42, UserAgent: "TestBrowser/1.0", Detail: "totp"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("MemberEvent = %+v, want %+v", got, want)
	}
	if got := audit.MemberEvent(r, 0, audit.KindSignIn, ""); got.ActorID != 0 || got.SubjectID != 0 || got.Actor != audit.ActorMember {
		t.Errorf("MemberEvent of nobody = %+v", got)
	}
}
