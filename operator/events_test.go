package operator

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/resource"
	"github.com/proctorhq/proctor/scope"
	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/gormstore/storetest"
)

// withAudit records the API's security events, as the server's one recorder does.
func withAudit(e *env, d *Deps) { d.Audit = audit.NewRecorder(e.store, nil) }

// The API records invitations and role changes as the operator's, with the token's client; a
// refused or empty change records nothing.
func TestSecurityEvents(t *testing.T) {
	for _, backend := range storetest.Backends() {
		t.Run(backend, func(t *testing.T) {
			e := newEnv(t, backend, withAudit, withInviter)
			e.tokens["ops"] = resource.Grant{MemberID: e.owner, ClientID: "ops-app", Scopes: scope.NamesFor(scope.Operator)}
			status, _, raw := e.request(http.MethodPost, "/api/v1/members", "ops", map[string]any{"email": "ivy@example.test", "roles": []string{"student"}})
			if status != http.StatusCreated {
				t.Fatalf("invite: %d %s", status, raw)
			}
			ivy := schools.DecodeJSON[Member](t, raw)
			roles := func(token string, rs ...string) int {
				t.Helper()
				status, _, _ := e.request(http.MethodPut, fmt.Sprintf("/api/v1/members/%d/roles", ivy.ID), token, map[string]any{"roles": rs})
				return status
			}
			if s := roles("ops", "admin", "student"); s != http.StatusOK {
				t.Fatalf("set roles: %d", s)
			}
			if s := roles("ops", "admin", "student"); s != http.StatusOK { // the same again: no event
				t.Fatalf("set the same roles: %d", s)
			}
			admin := schools.Member(t, e.store, "admin@example.test", "Admin", schools.At(e.tn, storage.RoleAdmin))
			e.tokens["admin"] = resource.Grant{MemberID: admin.ID, ClientID: "ops-app", Scopes: scope.NamesFor(scope.Operator)}
			if s := roles("admin", "owner"); s != http.StatusForbidden { // refused: no event
				t.Fatalf("admin makes an owner: %d", s)
			}

			events, err := e.store.ListSecurityEvents(e.ctx, audit.Filter{Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			if len(events) != 2 {
				t.Fatalf("%d events, want 2: %+v", len(events), events)
			}
			changed, invited := events[0], events[1]
			if changed.Kind != audit.KindRoleChanged || changed.Detail != "student -> admin, student" {
				t.Errorf("role change: %+v", changed)
			}
			if invited.Kind != audit.KindInvitationSent || invited.Detail != "student" {
				t.Errorf("invitation: %+v", invited)
			}
			for _, ev := range events {
				if ev.Actor != audit.ActorOperator || ev.ActorID != e.owner || ev.SubjectID != ivy.ID || ev.ClientID != "ops-app" {
					t.Errorf("event %+v", ev)
				}
			}
		})
	}
}
