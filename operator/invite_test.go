package operator

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/proctorhq/proctor/account"
	"github.com/proctorhq/proctor/mail"
	"github.com/proctorhq/proctor/resource"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/scope"
	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/gormstore/storetest"
	"github.com/proctorhq/proctor/templates"
)

// withInviter gives the API an inviter built as the server builds it: account.Service over the
// test's store, with a mail queue over the same store (so the invitation and its e-mail share
// a transaction).
func withInviter(e *env, d *Deps) {
	e.t.Helper()
	tpl, err := templates.New()
	if err != nil {
		e.t.Fatal(err)
	}
	secret := []byte("0123456789abcdef0123456789abcdef")
	q, err := mail.NewQueue(e.store, secret, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	svc, err := account.NewService(account.ServiceDeps{Store: e.store, Mail: q, Templates: tpl, Secret: secret})
	if err != nil {
		e.t.Fatal(err)
	}
	d.Inviter = svc
}

// outboxKinds claims every entry of the outbox (as a worker would, without sending) and returns
// the kinds of school 1's entries.
func outboxKinds(t *testing.T, e *env) []string {
	t.Helper()
	entries, err := e.store.ClaimMail(t.Context(), time.Now().Add(time.Hour), time.Hour, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, en := range entries {
		if en.SchoolID == e.tn.SchoolID {
			kinds = append(kinds, en.Kind)
		}
	}
	return kinds
}

// responseValidator checks answers against the API's own OpenAPI document.
type responseValidator struct {
	t      *testing.T
	tn     *school.School
	router routers.Router
}

func newResponseValidator(t *testing.T, tn *school.School) *responseValidator {
	t.Helper()
	_, raw := fetchDocument(t, tn)
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		t.Fatal(err)
	}
	r, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	return &responseValidator{t: t, tn: tn, router: r}
}

// check fails unless the answer (status, header, body) to method path is one the document
// describes for that operation.
func (v *responseValidator) check(method, path string, status int, h http.Header, body []byte) {
	v.t.Helper()
	req := httptest.NewRequest(method, v.tn.Origin+path, nil)
	route, params, err := v.router.FindRoute(req)
	if err != nil {
		v.t.Fatalf("%s %s is not in the document: %v", method, path, err)
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 status, Header: h, Body: io.NopCloser(bytes.NewReader(body)),
		Options: &openapi3filter.Options{IncludeResponseStatus: true},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		v.t.Errorf("%s %s: the %d answer does not match the document: %v\n%s", method, path, status, err, body)
	}
}

func TestInviteMember(t *testing.T) {
	for _, backend := range storetest.Backends() {
		t.Run(backend, func(t *testing.T) {
			e := newEnv(t, backend, withInviter)
			v := newResponseValidator(t, e.tn)
			invite := func(token string, body any) (int, http.Header, []byte) {
				t.Helper()
				status, h, raw := e.request(http.MethodPost, "/api/v1/members", token, body)
				v.check(http.MethodPost, "/api/v1/members", status, h, raw)
				return status, h, raw
			}

			t.Run("a new address", func(t *testing.T) {
				status, h, raw := invite(allScopes, map[string]any{"email": "New.Person@Example.test", "name": "New Person", "roles": []string{"lecturer", "student"}})
				if status != http.StatusCreated {
					t.Fatalf("invite: %d\n%s", status, raw)
				}
				if h.Get("Cache-Control") != "no-store" {
					t.Errorf("Cache-Control %q", h.Get("Cache-Control"))
				}
				m := schools.DecodeJSON[Member](t, raw)
				if m.ID == 0 || m.Email != "new.person@example.test" || m.Name != "New Person" || !slices.Equal(m.Roles, []string{"lecturer", "student"}) {
					t.Errorf("invited member: %+v", m)
				}
				stored, err := e.store.GetMember(e.ctx, m.ID)
				if err != nil || stored.PasswordHash != "" {
					t.Errorf("the new identity: %+v %v, want one without a password", stored, err)
				}
				if kinds := outboxKinds(t, e); !slices.Equal(kinds, []string{"invitation"}) {
					t.Errorf("outbox of the school: %q, want one invitation", kinds)
				}
			})

			t.Run("an identity of another school keeps its password", func(t *testing.T) {
				synced, _ := schools.Sync(t, e.store, schools.File(2, "lumen", "Lumen", "https://lumen.example:8443"))
				other := synced[0]
				have := schools.Member(t, e.store, "lumen@example.test", "Lumen Learner", schools.At(other, storage.RoleLecturer))
				status, _, raw := invite(allScopes, map[string]any{"email": "lumen@example.test", "name": "Another Name"})
				if status != http.StatusCreated {
					t.Fatalf("invite: %d\n%s", status, raw)
				}
				m := schools.DecodeJSON[Member](t, raw)
				if m.ID != have.ID || m.Name != "Lumen Learner" || !slices.Equal(m.Roles, []string{"student"}) {
					t.Errorf("invited member: %+v, want the existing identity %d as a student", m, have.ID)
				}
				after, err := e.store.GetMember(e.ctx, have.ID)
				if err != nil || after.PasswordHash != have.PasswordHash || after.Name != have.Name {
					t.Errorf("the identity changed: %+v %v", after, err)
				}
				if roles, err := e.store.GetRoles(schools.Ctx(t, other), have.ID); err != nil || !slices.Equal(roles, []storage.Role{storage.RoleLecturer}) {
					t.Errorf("roles at the other school: %v %v", roles, err)
				}
				if kinds := outboxKinds(t, e); !slices.Equal(kinds, []string{"invitation"}) {
					t.Errorf("outbox of the school: %q, want one invitation", kinds)
				}
			})

			t.Run("an admin cannot invite an owner", func(t *testing.T) {
				admin := schools.Member(t, e.store, "admin@example.test", "Admin", schools.At(e.tn, storage.RoleAdmin))
				e.tokens["admin"] = resource.Grant{MemberID: admin.ID, Scopes: scope.NamesFor(scope.Operator)}
				status, h, raw := invite("admin", map[string]any{"email": "would-be-owner@example.test", "roles": []string{"owner"}})
				wantProblem(t, "admin invites an owner", status, h, raw, http.StatusForbidden, "")
				if _, err := e.store.GetMemberByEmail(e.ctx, "would-be-owner@example.test"); !errors.Is(err, storage.ErrNotFound) {
					t.Errorf("the refused invitation created an identity (%v)", err)
				}
				if kinds := outboxKinds(t, e); len(kinds) != 0 {
					t.Errorf("the refused invitation queued %q", kinds)
				}
				// The control: an admin may invite a lecturer.
				if status, _, raw := invite("admin", map[string]any{"email": "lecturer@example.test", "roles": []string{"lecturer"}}); status != http.StatusCreated {
					t.Errorf("admin invites a lecturer: %d\n%s", status, raw)
				}
				outboxKinds(t, e)
			})

			t.Run("bad e-mail", func(t *testing.T) {
				for _, bad := range []string{"not-an-address", "", "two@@example.test", "single@label", "Ada <ada@example.test>"} {
					status, h, raw := invite(allScopes, map[string]any{"email": bad})
					wantProblem(t, "e-mail "+bad, status, h, raw, http.StatusUnprocessableEntity, "")
				}
				if kinds := outboxKinds(t, e); len(kinds) != 0 {
					t.Errorf("refused invitations queued %q", kinds)
				}
			})

			t.Run("members:read is not enough", func(t *testing.T) {
				e.tokens["members-read"] = resource.Grant{MemberID: e.owner, Scopes: []string{"members:read"}}
				status, h, raw := invite("members-read", map[string]any{"email": "reader@example.test"})
				if status != http.StatusForbidden {
					t.Errorf("members:read token: %d, want 403\n%s", status, raw)
				}
				if ch := h.Get("WWW-Authenticate"); !bytes.Contains([]byte(ch), []byte(`error="insufficient_scope"`)) || !bytes.Contains([]byte(ch), []byte(`scope="members:write"`)) {
					t.Errorf("challenge %q", ch)
				}
				if _, err := e.store.GetMemberByEmail(e.ctx, "reader@example.test"); !errors.Is(err, storage.ErrNotFound) {
					t.Errorf("the refused invitation created an identity (%v)", err)
				}
			})
		})
	}
}

// TestInviteMemberWithoutInviter: a server without the account pages answers 503, and creates
// nothing.
func TestInviteMemberWithoutInviter(t *testing.T) {
	e := newEnv(t, "sqlite")
	status, h, raw := e.request(http.MethodPost, "/api/v1/members", allScopes, map[string]any{"email": "x@example.test"})
	wantProblem(t, "invite without an inviter", status, h, raw, http.StatusServiceUnavailable, "")
	if _, err := e.store.GetMemberByEmail(e.ctx, "x@example.test"); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("created an identity (%v)", err)
	}
}
