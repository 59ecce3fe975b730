package operator

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/proctorhq/proctor/resource"
	"github.com/proctorhq/proctor/scope"
	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/gormstore"
	"github.com/proctorhq/proctor/storage/gormstore/storetest"
)

// setRoles sends set-member-roles for member with token and returns the status and problem
// detail (empty on success).
func (e *env) setRoles(token string, member int64, roles ...string) (int, string) {
	e.t.Helper()
	if roles == nil {
		roles = []string{}
	}
	status, _, raw := e.request(http.MethodPut, fmt.Sprintf("/api/v1/members/%d/roles", member), token, map[string]any{"roles": roles})
	if status == http.StatusOK {
		return status, ""
	}
	return status, schools.DecodeJSON[problem](e.t, raw).Detail
}

// wantRoles fails unless member holds exactly want at the school.
func (e *env) wantRoles(t *testing.T, what string, member int64, want ...storage.Role) {
	t.Helper()
	got, err := e.store.GetRoles(e.ctx, member)
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("%s: roles %v (%v), want %v", what, got, err, want)
	}
}

// The API asks storage.RoleChangeRefusal: an admin changes nothing of an owner's roles, the
// owner role or any other, and gives no one the owner role; an owner may do all of it.
func TestRoleChangeRule(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		second := schools.Member(t, e.store, "second@example.test", "Second", schools.At(e.tn, storage.RoleOwner, storage.RoleAdmin)).ID
		student := schools.Member(t, e.store, "student@example.test", "Student", schools.At(e.tn, storage.RoleStudent)).ID
		admin := schools.Member(t, e.store, "admin@example.test", "Admin", schools.At(e.tn, storage.RoleAdmin)).ID
		e.tokens["admin"] = resource.Grant{MemberID: admin, Scopes: scope.NamesFor(scope.Operator)}

		const ownersRoles, ownerGrant = "Only an owner may change an owner's roles.", "Only an owner may grant or take the owner role."
		for _, tc := range []struct {
			name   string
			member int64
			roles  []string
			detail string
		}{
			{"an owner's other roles, keeping owner", second, []string{"owner", "lecturer"}, ownersRoles},
			{"an owner's roles, unchanged", second, []string{"owner", "admin"}, ownersRoles},
			{"taking owner", second, []string{"admin"}, ownersRoles},
			{"removing an owner", second, nil, ownersRoles},
			{"granting owner", student, []string{"owner", "student"}, ownerGrant},
			{"making themself owner", admin, []string{"owner", "admin"}, ownerGrant},
		} {
			status, detail := e.setRoles("admin", tc.member, tc.roles...)
			if status != http.StatusForbidden || detail != tc.detail {
				t.Errorf("admin, %s: %d %q, want 403 %q", tc.name, status, detail, tc.detail)
			}
		}
		e.wantRoles(t, "the owner after the refusals", second, storage.RoleOwner, storage.RoleAdmin)
		e.wantRoles(t, "the student after the refusals", student, storage.RoleStudent)
		e.wantRoles(t, "the admin after the refusals", admin, storage.RoleAdmin)

		// What an admin may: everyone else, themself included.
		if status, detail := e.setRoles("admin", student, "lecturer", "student"); status != http.StatusOK {
			t.Errorf("admin changes a student: %d %s", status, detail)
		}
		if status, detail := e.setRoles("admin", admin, "admin", "lecturer"); status != http.StatusOK {
			t.Errorf("admin changes their own roles: %d %s", status, detail)
		}
		// What an owner may: an owner's other roles, and ownership.
		if status, detail := e.setRoles(allScopes, second, "owner", "lecturer"); status != http.StatusOK {
			t.Errorf("owner changes an owner's other roles: %d %s", status, detail)
		}
		e.wantRoles(t, "the second owner", second, storage.RoleOwner, storage.RoleLecturer)
		if status, detail := e.setRoles(allScopes, student, "owner"); status != http.StatusOK {
			t.Errorf("owner grants owner: %d %s", status, detail)
		}
		if status, detail := e.setRoles(allScopes, second, "lecturer"); status != http.StatusOK {
			t.Errorf("owner takes owner: %d %s", status, detail)
		}
		e.wantRoles(t, "the former owner", second, storage.RoleLecturer)
	})
}

// promoting is the API's Directory over a real store that makes a member an owner just before
// each transaction begins (as a concurrent request would after this one was authorized and read
// nothing else yet), and notes whether the member's roles were read inside the transaction.
type promoting struct {
	*gormstore.Store
	ctx       context.Context // the school's, for the promotion
	member    int64
	promoted  bool
	readInTx  bool
	readOutTx bool
}

type inTxKey struct{}

func (p *promoting) BeginTx(ctx context.Context) (context.Context, error) {
	if !p.promoted {
		p.promoted = true
		if _, err := p.Store.SetSchoolRoles(p.ctx, p.member, []storage.Role{storage.RoleOwner, storage.RoleStudent}); err != nil {
			return ctx, err
		}
	}
	ctx, err := p.Store.BeginTx(ctx)
	return context.WithValue(ctx, inTxKey{}, true), err
}

func (p *promoting) GetRoles(ctx context.Context, member int64) ([]storage.Role, error) {
	if member == p.member {
		if ctx.Value(inTxKey{}) != nil {
			p.readInTx = true
		} else {
			p.readOutTx = true
		}
	}
	return p.Store.GetRoles(ctx, member)
}

// The rule is checked on the roles read in the write's transaction: a member made an owner
// after the admin's request began is not changed by it. The promotion is placed at the start
// of the transaction by the store itself, so the test does not depend on timing.
func TestRoleChangeCheckedInTransaction(t *testing.T) {
	for _, backend := range storetest.Backends() {
		t.Run(backend, func(t *testing.T) {
			var p *promoting
			e := newEnv(t, backend, func(e *env, d *Deps) {
				p = &promoting{Store: e.store, ctx: e.ctx}
				d.Directory = p
			})
			p.member = schools.Member(t, e.store, "student@example.test", "Student", schools.At(e.tn, storage.RoleStudent)).ID
			admin := schools.Member(t, e.store, "admin@example.test", "Admin", schools.At(e.tn, storage.RoleAdmin)).ID
			e.tokens["admin"] = resource.Grant{MemberID: admin, Scopes: scope.NamesFor(scope.Operator)}

			status, detail := e.setRoles("admin", p.member, "admin", "student")
			if status != http.StatusForbidden || detail != "Only an owner may change an owner's roles." {
				t.Errorf("admin changes a member made owner meanwhile: %d %q, want 403", status, detail)
			}
			if !p.promoted || !p.readInTx || p.readOutTx {
				t.Errorf("promoted %v; the member's roles read in the transaction %v, outside it %v", p.promoted, p.readInTx, p.readOutTx)
			}
			e.wantRoles(t, "the member made owner", p.member, storage.RoleOwner, storage.RoleStudent)
		})
	}
}
