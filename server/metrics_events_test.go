package server

import (
	"context"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/school"
)

// TestSecurityEventsCounter checks that the server's one Recorder counts what it records on
// the internal listener's /metrics, by school, kind and result, and counts nothing the store
// refused.
func TestSecurityEventsCounter(t *testing.T) {
	f := newFixture(t, nil)
	if f.srv.audit == nil {
		t.Fatal("the server built no recorder over a store that keeps the log")
	}
	ctxA, ctxB := school.NewContext(t.Context(), f.a), school.NewContext(t.Context(), f.b)
	for _, c := range []struct {
		ctx context.Context
		e   audit.Event
	}{
		{ctxA, audit.Event{Kind: audit.KindSignIn, Result: audit.ResultFailure, Actor: audit.ActorMember}},
		{ctxA, audit.Event{Kind: audit.KindSignIn, Result: audit.ResultFailure, Actor: audit.ActorMember}},
		{ctxA, audit.Event{Kind: audit.KindSignIn, Actor: audit.ActorMember, ActorID: 1}},
		{ctxB, audit.Event{Kind: audit.KindClientDeleted, Actor: audit.ActorCLI}},
	} {
		if err := f.srv.audit.Record(c.ctx, c.e); err != nil {
			t.Fatal(err)
		}
	}
	// Refused by the store (no actor): not counted.
	if err := f.srv.audit.Record(ctxA, audit.Event{Kind: audit.KindRoleChanged}); err == nil {
		t.Fatal("an event without an actor was recorded")
	}
	_, body := f.internalGet(t, "/metrics", nil)
	for _, want := range []string{
		`proctor_security_events_total{kind="sign_in",result="failure",school="1"} 2`,
		`proctor_security_events_total{kind="sign_in",result="success",school="1"} 1`,
		`proctor_security_events_total{kind="client_deleted",result="success",school="2"} 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if strings.Contains(body, `kind="role_changed"`) {
		t.Error("/metrics counts an event the store refused")
	}
}
