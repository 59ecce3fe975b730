package conformance

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
)

// auditLog is the security event log with its purge.
type auditLog interface {
	audit.Store
	audit.Purger
}

// kindsOf lists the kinds of events, in order.
func kindsOf(events []audit.Event) []audit.Kind {
	out := make([]audit.Kind, len(events))
	for i, e := range events {
		out[i] = e.Kind
	}
	return out
}

func testSecurityEvents(t *testing.T, s storage.Store) {
	as := narrow[auditLog](t, s)
	ctxA, ctxB, member := oauthSetup(t, s)

	full := audit.Event{
		Kind: audit.KindConsentApproved, Result: audit.ResultSuccess, At: at(1, 8),
		Actor: audit.ActorMember, ActorID: member, SubjectID: member,
		ClientID: "app", Scopes: []string{"openid", "profile", "courses.read"},
		ClientAddr: "192.0.2.7", UserAgent: "Browser/1.0", RequestID: "req-1", Detail: "a note",
	}
	must(t, "AppendSecurityEvent", as.AppendSecurityEvent(ctxA, full))
	// Nobody named: a failed sign-in with an unknown address, a key rotated at the command line.
	// The zero Result is a success.
	anon := audit.Event{Kind: audit.KindSignIn, Result: audit.ResultFailure, At: at(1, 9), Actor: audit.ActorMember}
	must(t, "AppendSecurityEvent without ids", as.AppendSecurityEvent(ctxA, anon))
	key := audit.Event{Kind: audit.KindSigningKeyRotated, At: at(1, 10), Actor: audit.ActorCLI, Detail: "kid-2"}
	must(t, "AppendSecurityEvent without a result", as.AppendSecurityEvent(ctxA, key))
	// Members who do not exist (any more) may be named: the log outlives them.
	gone := audit.Event{Kind: audit.KindRoleChanged, At: at(1, 11), Actor: audit.ActorOperator, ActorID: member, SubjectID: member + 1000, Detail: "student -> admin"}
	must(t, "AppendSecurityEvent naming a removed member", as.AppendSecurityEvent(ctxA, gone))
	must(t, "AppendSecurityEvent at B", as.AppendSecurityEvent(ctxB, audit.Event{Kind: audit.KindSignIn, At: at(2, 8), Actor: audit.ActorMember, ActorID: member, SubjectID: member}))

	wantErr(t, "AppendSecurityEvent without a kind", as.AppendSecurityEvent(ctxA, audit.Event{Actor: audit.ActorMember}), storage.ErrInvalidArgument)
	wantErr(t, "AppendSecurityEvent without an actor", as.AppendSecurityEvent(ctxA, audit.Event{Kind: audit.KindSignIn}), storage.ErrInvalidArgument)
	wantErr(t, "AppendSecurityEvent without a school", as.AppendSecurityEvent(t.Context(), full), school.ErrNoSchool)
	_, err := as.ListSecurityEvents(t.Context(), audit.Filter{})
	wantErr(t, "ListSecurityEvents without a school", err, school.ErrNoSchool)

	got, err := as.ListSecurityEvents(ctxA, audit.Filter{Limit: 10})
	must(t, "ListSecurityEvents", err)
	if len(got) != 4 {
		t.Fatalf("ListSecurityEvents at A: %d events, want 4: %+v", len(got), got)
	}
	anon.Result, key.Result, gone.Result = audit.ResultFailure, audit.ResultSuccess, audit.ResultSuccess
	for i, want := range []audit.Event{gone, key, anon, full} {
		if got[i].ID == 0 || (i > 0 && got[i].ID >= got[i-1].ID) {
			t.Errorf("event %d: id %d, want newest (highest) first", i, got[i].ID)
		}
		want.ID, want.SchoolID = got[i].ID, schoolA.SchoolID
		wantEqual(t, fmt.Sprintf("event %d, newest first", i), got[i], want)
	}
	got, err = as.ListSecurityEvents(ctxB, audit.Filter{Limit: 10})
	must(t, "ListSecurityEvents at B", err)
	if len(got) != 1 || got[0].SchoolID != schoolB.SchoolID || !got[0].At.Equal(at(2, 8)) {
		t.Errorf("events at B: %+v", got)
	}

	// The store's clock dates an event without a time.
	must(t, "AppendSecurityEvent without a time", as.AppendSecurityEvent(ctxB, audit.Event{Kind: audit.KindSessionEnded, Actor: audit.ActorMember, ActorID: member}))
	got, err = as.ListSecurityEvents(ctxB, audit.Filter{Limit: 1})
	must(t, "ListSecurityEvents", err)
	if len(got) != 1 || got[0].Kind != audit.KindSessionEnded || got[0].At.IsZero() {
		t.Errorf("event without a time: %+v", got)
	}
}

func testSecurityEventFilters(t *testing.T, s storage.Store) {
	as := narrow[auditLog](t, s)
	ctxA, ctxB, ada := oauthSetup(t, s)
	grace := otherMember(t, s)
	bob := grace.ID
	add := func(ctx context.Context, kind audit.Kind, actor audit.Actor, actorID, subjectID int64, when time.Time) {
		t.Helper()
		must(t, "AppendSecurityEvent", as.AppendSecurityEvent(ctx, audit.Event{Kind: kind, Actor: actor, ActorID: actorID, SubjectID: subjectID, At: when}))
	}
	add(ctxA, audit.KindSignIn, audit.ActorMember, ada, ada, at(1, 8))          // 1
	add(ctxA, audit.KindRoleChanged, audit.ActorOperator, ada, bob, at(2, 8))   // 2: ada acts on bob
	add(ctxA, audit.KindSignIn, audit.ActorMember, bob, bob, at(3, 8))          // 3
	add(ctxA, audit.KindGrantRevoked, audit.ActorSystem, 0, ada, at(4, 8))      // 4
	add(ctxA, audit.KindClientCreated, audit.ActorCLI, 0, 0, at(5, 8))          // 5
	add(ctxA, audit.KindPasswordChanged, audit.ActorMember, ada, ada, at(6, 8)) // 6
	add(ctxB, audit.KindSignIn, audit.ActorMember, ada, ada, at(3, 9))          // another school's
	add(ctxB, audit.KindPasswordChanged, audit.ActorMember, ada, ada, at(6, 9)) // another school's
	list := func(what string, f audit.Filter, want ...audit.Kind) []audit.Event {
		t.Helper()
		got, err := as.ListSecurityEvents(ctxA, f)
		must(t, what, err)
		wantEqual(t, what, kindsOf(got), append([]audit.Kind{}, want...))
		for _, e := range got {
			if e.SchoolID != schoolA.SchoolID {
				t.Errorf("%s: an event of school %d", what, e.SchoolID)
			}
		}
		return got
	}
	all := list("every event", audit.Filter{Limit: 100}, audit.KindPasswordChanged, audit.KindClientCreated,
		audit.KindGrantRevoked, audit.KindSignIn, audit.KindRoleChanged, audit.KindSignIn)
	// A member's events are those they did and those done to them.
	list("ada's events", audit.Filter{MemberID: ada, Limit: 100}, audit.KindPasswordChanged, audit.KindGrantRevoked, audit.KindRoleChanged, audit.KindSignIn)
	list("bob's events", audit.Filter{MemberID: bob, Limit: 100}, audit.KindSignIn, audit.KindRoleChanged)
	list("nobody's events", audit.Filter{MemberID: bob + 1000, Limit: 100})
	list("sign-ins", audit.Filter{Kinds: []audit.Kind{audit.KindSignIn}, Limit: 100}, audit.KindSignIn, audit.KindSignIn)
	list("sign-ins and role changes of bob", audit.Filter{MemberID: bob, Kinds: []audit.Kind{audit.KindSignIn, audit.KindRoleChanged}, Limit: 100},
		audit.KindSignIn, audit.KindRoleChanged)
	// Since is inclusive, Until exclusive.
	list("days 2 to 4", audit.Filter{Since: at(2, 8), Until: at(4, 8), Limit: 100}, audit.KindSignIn, audit.KindRoleChanged)
	list("since day 5", audit.Filter{Since: at(5, 8), Limit: 100}, audit.KindPasswordChanged, audit.KindClientCreated)
	list("until day 2", audit.Filter{Until: at(2, 8), Limit: 100}, audit.KindSignIn)

	// Paging backwards by id: each page starts below the last id of the previous one.
	var pages [][]audit.Kind
	before := int64(0)
	for range 10 {
		got, err := as.ListSecurityEvents(ctxA, audit.Filter{BeforeID: before, Limit: 4})
		must(t, "ListSecurityEvents page", err)
		if len(got) == 0 {
			break
		}
		pages = append(pages, kindsOf(got))
		before = got[len(got)-1].ID
	}
	wantEqual(t, "pages of 4", pages, [][]audit.Kind{kindsOf(all[:4]), kindsOf(all[4:])})
	list("below the newest, sign-ins", audit.Filter{BeforeID: all[0].ID, Kinds: []audit.Kind{audit.KindSignIn}, Limit: 1}, audit.KindSignIn)
	if got := list("below the newest, sign-ins", audit.Filter{BeforeID: all[0].ID, Kinds: []audit.Kind{audit.KindSignIn}, Limit: 1}, audit.KindSignIn); got[0].ID != all[3].ID {
		t.Errorf("first sign-in below the newest: id %d, want %d", got[0].ID, all[3].ID)
	}

	// The limit is brought into 1..MaxPage.
	list("limit 0", audit.Filter{}, audit.KindPasswordChanged)
	list("limit -5", audit.Filter{Limit: -5}, audit.KindPasswordChanged)
	for i := range audit.MaxPage + 5 {
		add(ctxB, audit.KindSignIn, audit.ActorMember, bob, bob, at(7, 0).Add(time.Duration(i)*time.Second))
	}
	got, err := as.ListSecurityEvents(ctxB, audit.Filter{Limit: audit.MaxPage * 3})
	must(t, "ListSecurityEvents with a large limit", err)
	if len(got) != audit.MaxPage || !got[0].At.Equal(at(7, 0).Add((audit.MaxPage+4)*time.Second)) {
		t.Errorf("ListSecurityEvents with limit %d: %d events, want %d", audit.MaxPage*3, len(got), audit.MaxPage)
	}
	// School A's list is untouched by B's many.
	list("every event at A again", audit.Filter{Limit: audit.MaxPage}, kindsOf(all)...)
}

func testSecurityEventTransactions(t *testing.T, s storage.Store) {
	as := narrow[auditLog](t, s)
	ctxA, _, member := oauthSetup(t, s)
	event := audit.Event{Kind: audit.KindPasswordChanged, Actor: audit.ActorMember, ActorID: member, SubjectID: member, At: at(1, 8)}

	tx, err := s.BeginTx(ctxA)
	must(t, "BeginTx", err)
	must(t, "AppendSecurityEvent in the transaction", as.AppendSecurityEvent(tx, event))
	if got, err := as.ListSecurityEvents(tx, audit.Filter{Limit: 10}); err != nil || len(got) != 1 {
		t.Errorf("events inside the transaction: %d, %v", len(got), err)
	}
	must(t, "Rollback", s.Rollback(tx))
	if got, err := as.ListSecurityEvents(ctxA, audit.Filter{Limit: 10}); err != nil || len(got) != 0 {
		t.Errorf("events after Rollback: %+v, %v", got, err)
	}

	tx, err = s.BeginTx(ctxA)
	must(t, "BeginTx", err)
	must(t, "AppendSecurityEvent in the transaction", as.AppendSecurityEvent(tx, event))
	must(t, "Commit", s.Commit(tx))
	if got, err := as.ListSecurityEvents(ctxA, audit.Filter{Limit: 10}); err != nil || len(got) != 1 {
		t.Errorf("events after Commit: %+v, %v", got, err)
	}
}

func testSecurityEventPurge(t *testing.T, s storage.Store) {
	as := narrow[auditLog](t, s)
	ctxA, ctxB, member := oauthSetup(t, s)
	before := at(10, 0)
	add := func(ctx context.Context, when time.Time) {
		must(t, "AppendSecurityEvent", as.AppendSecurityEvent(ctx, audit.Event{Kind: audit.KindSignIn, Actor: audit.ActorMember, ActorID: member, At: when}))
	}
	add(ctxA, before.Add(-time.Hour)) // old
	add(ctxA, before.Add(-48*time.Hour))
	add(ctxB, before.Add(-time.Hour)) // old, at another school: the purge is deployment-wide
	add(ctxA, before)                 // kept: at `before` is not before it
	add(ctxB, before.Add(time.Hour))  // kept

	_, err := as.PurgeSecurityEvents(t.Context(), before, 0)
	wantErr(t, "PurgeSecurityEvents with batch 0", err, storage.ErrInvalidArgument)
	// Bounded batches: two, then one, then none.
	for i, want := range []int{2, 1, 0} {
		n, err := as.PurgeSecurityEvents(t.Context(), before, 2)
		must(t, "PurgeSecurityEvents", err)
		if n != want {
			t.Errorf("purge %d deleted %d events, want %d", i+1, n, want)
		}
	}
	for _, c := range []struct {
		ctx  context.Context
		name string
		at   time.Time
	}{{ctxA, "A", before}, {ctxB, "B", before.Add(time.Hour)}} {
		got, err := as.ListSecurityEvents(c.ctx, audit.Filter{Limit: 10})
		must(t, "ListSecurityEvents", err)
		if len(got) != 1 || !got[0].At.Equal(c.at) {
			t.Errorf("events left at %s: %+v", c.name, got)
		}
	}
	// The token purge leaves the log alone: its retention is the server's setting.
	add(ctxA, at(1, 0))
	if _, err := s.PurgeExpired(t.Context(), before, 100); err != nil {
		t.Fatal(err)
	}
	if got, err := as.ListSecurityEvents(ctxA, audit.Filter{Limit: 10}); err != nil || len(got) != 2 {
		t.Errorf("events after PurgeExpired: %d, %v", len(got), err)
	}
}
