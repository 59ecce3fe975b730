package resource_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ory/fosite"
	"github.com/ory/fosite/token/hmac"

	"github.com/proctorhq/proctor/resource"
	"github.com/proctorhq/proctor/resource/verifier"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/gormstore"
	"github.com/proctorhq/proctor/storage/gormstore/storetest"
)

// doorEnv is one school on a real SQLite store, a verifier.Verifier keyed like the authorization
// server, and a way to mint tokens straight into the store.
type doorEnv struct {
	t        *testing.T
	store    *gormstore.Store
	school   *school.School
	ctx      context.Context
	strategy *hmac.HMACStrategy
	verifier *verifier.Verifier
	log      *bytes.Buffer
}

func newDoorEnv(t *testing.T) *doorEnv {
	t.Helper()
	st := storetest.Open(t, gormstore.DriverSQLite)
	synced, _ := schools.Sync(t, st,
		schools.File(1, "north", "Northwind", "https://north.example/"),
		schools.File(2, "south", "South", "https://south.example/"))
	tn := synced[0]
	ctx := school.NewContext(t.Context(), tn)
	if _, err := st.CreateClient(ctx, storage.Client{
		ID: "app", Kind: storage.ClientMember, TokenEndpointAuthMethod: storage.AuthMethodNone,
		ApplicationType: "native", RedirectURIs: []string{"http://127.0.0.1/cb"},
	}); err != nil {
		t.Fatal(err)
	}
	key := bytes.Repeat([]byte{7}, 32)
	return &doorEnv{
		t: t, store: st, school: tn, ctx: ctx,
		strategy: &hmac.HMACStrategy{Config: &fosite.Config{GlobalSecret: key}},
		verifier: verifier.New(st, key, nil),
		log:      &bytes.Buffer{},
	}
}

// pair is what token mints a pair from.
type pair struct {
	member   int64
	scopes   []string
	school   int64 // the school the grant names; 1 if zero
	revoked  bool
	resource string // the school's origin if ""
}

// token stores a live token pair and returns its access token.
func (e *doorEnv) token(p pair) string {
	e.t.Helper()
	token, signature, err := e.strategy.Generate(e.ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	if p.school == 0 {
		p.school = e.school.SchoolID
	}
	if p.resource == "" {
		p.resource = e.school.Origin
	}
	now := time.Now()
	tp := storage.TokenPair{
		RequestID: "grant-" + signature[:12], ClientID: "app", MemberID: p.member, AccessSignature: signature,
		Resource: p.resource, Scopes: p.scopes, SchoolID: p.school,
		RequestedAt: now, AccessExpiresAt: now.Add(time.Hour), FirstUsedAt: &now,
	}
	if p.revoked {
		tp.RevokedAt = &now
	}
	if _, err := e.store.CreateTokenPair(e.ctx, tp); err != nil {
		e.t.Fatal(err)
	}
	return token
}

func (e *doorEnv) door(roles resource.RoleReader) resource.Door {
	return resource.Door{
		Name: "test api", Verifier: e.verifier, Roles: roles,
		Log: slog.New(slog.NewTextHandler(e.log, &slog.HandlerOptions{
			ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
				if a.Key == slog.TimeKey {
					return slog.Attr{}
				}
				return a
			},
		})),
	}
}

// request is a request to the school's origin carrying the Authorization header given ("" for
// none).
func (e *doorEnv) request(authorization string) *http.Request {
	r := httptest.NewRequestWithContext(e.ctx, http.MethodPost, "https://north.example/api", nil)
	if authorization != "" {
		r.Header.Set("Authorization", authorization)
	}
	return r
}

// failingRoles is a RoleReader whose database is down; it counts its calls.
type failingRoles struct{ calls *int }

func (f failingRoles) GetRoles(context.Context, int64) ([]storage.Role, error) {
	*f.calls++
	return nil, fmt.Errorf("%w: connection refused", storage.ErrUnavailable)
}

// TestDoor: every way through the door and every refusal, against a real verifier.Verifier.
func TestDoor(t *testing.T) {
	e := newDoorEnv(t)
	// Members without a password: the door reads only their roles.
	student := schools.Member(t, e.store, "student@example.com", "", schools.NoPassword(), schools.At(e.school, storage.RoleStudent)).ID
	owner := schools.Member(t, e.store, "owner@example.com", "", schools.NoPassword(), schools.At(e.school, storage.RoleOwner)).ID
	demoted := schools.Member(t, e.store, "demoted@example.com", "", schools.NoPassword(), schools.At(e.school, storage.RoleStudent)).ID
	var failedReads int
	failing := failingRoles{&failedReads}

	read := e.token(pair{member: student, scopes: []string{"account:read"}})
	write := e.token(pair{member: student, scopes: []string{"account:write"}})
	ownerToken := e.token(pair{member: owner, scopes: []string{"courses:read"}})
	demotedToken := e.token(pair{member: demoted, scopes: []string{"courses:read"}})
	studentOperatorScope := e.token(pair{member: student, scopes: []string{"courses:read", "account:read"}})
	noMember := e.token(pair{scopes: []string{"account:read"}})
	otherSchool := e.token(pair{member: student, school: 2, scopes: []string{"account:read"}})
	revoked := e.token(pair{member: student, scopes: []string{"account:read"}, revoked: true})
	elsewhere := e.token(pair{member: student, scopes: []string{"account:read"}, resource: "https://south.example/"})
	forged := read[:len(read)-2] + "xx"

	member := resource.Policy{Scopes: []string{"account:read", "account:write"}}
	operator := resource.Policy{Scopes: []string{"courses:read"}, Operator: true}
	perCall := resource.Policy{Anonymous: true, RolesFor: []string{"courses:read"}}
	for _, tc := range []struct {
		name          string
		authorization string
		policy        resource.Policy
		roles         resource.RoleReader
		// want is the refusal's kind, 0 to be let in.
		want      resource.RefusalKind
		wantErr   error // what Refusal.Err must be (errors.Is)
		wantScope string
		member    int64
		wantRoles []storage.Role
		operator  bool
	}{
		{name: "no header", policy: member, want: resource.NoToken, wantErr: resource.ErrNoToken},
		{name: "no header, anonymous allowed", policy: perCall},
		{name: "malformed header", authorization: "Basic abc", policy: member, want: resource.InvalidToken, wantErr: resource.ErrInvalidToken},
		{name: "malformed header, anonymous allowed", authorization: "Bearer a b", policy: perCall, want: resource.InvalidToken, wantErr: resource.ErrInvalidToken},
		{name: "forged token", authorization: "Bearer " + forged, policy: member, want: resource.InvalidToken, wantErr: resource.ErrInvalidToken},
		{name: "revoked token", authorization: "Bearer " + revoked, policy: member, want: resource.InvalidToken, wantErr: resource.ErrInvalidToken},
		{name: "token bound to another origin", authorization: "Bearer " + elsewhere, policy: member, want: resource.InvalidToken, wantErr: resource.ErrInvalidToken},
		{name: "other organization", authorization: "Bearer " + otherSchool, policy: member, want: resource.OtherOrganization, wantErr: resource.ErrOtherOrganization},
		{name: "no member", authorization: "Bearer " + noMember, policy: member, want: resource.NoMember, wantErr: resource.ErrInvalidToken},
		{name: "no member, anonymous allowed", authorization: "Bearer " + noMember, policy: perCall, want: resource.NoMember, wantErr: resource.ErrInvalidToken},
		{name: "one of the scopes", authorization: "Bearer " + write, policy: member, member: student},
		{name: "missing scope", authorization: "Bearer " + read, policy: operator, want: resource.MissingScope, wantScope: "courses:read"},
		{name: "the empty scope is never held", authorization: "Bearer " + read, policy: resource.Policy{Scopes: []string{""}}, want: resource.MissingScope},
		{name: "operator", authorization: "Bearer " + ownerToken, policy: operator, roles: e.store,
			member: owner, wantRoles: []storage.Role{storage.RoleOwner}, operator: true},
		{name: "role refused", authorization: "Bearer " + demotedToken, policy: operator, roles: e.store, want: resource.RoleRefused},
		{name: "roles unavailable", authorization: "Bearer " + ownerToken, policy: operator, roles: failing,
			want: resource.RolesUnavailable, wantErr: resource.ErrNoVerdict},
		{name: "roles read for a scope", authorization: "Bearer " + studentOperatorScope, policy: perCall, roles: e.store,
			member: student, wantRoles: []storage.Role{storage.RoleStudent}},
		{name: "roles read for a scope, operator", authorization: "Bearer " + ownerToken, policy: perCall, roles: e.store,
			member: owner, wantRoles: []storage.Role{storage.RoleOwner}, operator: true},
		{name: "roles unavailable for a scope", authorization: "Bearer " + ownerToken, policy: perCall, roles: failing,
			want: resource.RolesUnavailable, wantErr: resource.ErrNoVerdict},
		// failing proves the roles are not read: the call would be refused.
		{name: "roles not read without the scope", authorization: "Bearer " + read, policy: perCall, roles: failing, member: student},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := failedReads
			a, rf := e.door(tc.roles).Authenticate(e.request(tc.authorization), tc.policy)
			if tc.want == 0 {
				if rf != nil {
					t.Fatalf("refused: %+v", rf)
				}
				if a.Grant.MemberID != tc.member || a.Anonymous() != (tc.member == 0) ||
					!slices.Equal(a.Roles, tc.wantRoles) || a.Operator() != tc.operator {
					t.Errorf("let in as %+v", a)
				}
				if failedReads != before {
					t.Error("the roles were read")
				}
				return
			}
			if rf == nil {
				t.Fatalf("let in as %+v, want %v", a, tc.want)
			}
			if rf.Kind != tc.want || rf.Scope != tc.wantScope || rf.Err == nil ||
				(tc.wantErr != nil && !errors.Is(rf.Err, tc.wantErr)) {
				t.Errorf("refusal %+v, want kind %v, scope %q, error %v", rf, tc.want, tc.wantScope, tc.wantErr)
			}
			if !errors.Is(rf.Err, resource.ErrNoVerdict) && tc.want == resource.RolesUnavailable {
				t.Errorf("roles unavailable is not a missing verdict: %v", rf.Err)
			}
		})
	}
	if got := e.log.String(); strings.Count(got, `msg="test api: role check failed"`) != 2 || strings.Contains(got, "token check failed") {
		t.Errorf("log:\n%s", got)
	}
}

// TestDoorNoVerdict: a store that cannot be asked is a missing verdict, logged under the
// surface's name, never an invalid token.
func TestDoorNoVerdict(t *testing.T) {
	e := newDoorEnv(t)
	student := schools.Member(t, e.store, "student@example.com", "", schools.NoPassword()).ID
	token := e.token(pair{member: student, scopes: []string{"account:read"}})
	if err := e.store.Close(); err != nil {
		t.Fatal(err)
	}
	_, rf := e.door(nil).Authenticate(e.request("Bearer "+token), resource.Policy{Scopes: []string{"account:read"}})
	if rf == nil || rf.Kind != resource.NoVerdict || !errors.Is(rf.Err, resource.ErrNoVerdict) || errors.Is(rf.Err, resource.ErrInvalidToken) {
		t.Fatalf("refusal %+v", rf)
	}
	if got := e.log.String(); !strings.Contains(got, `level=ERROR msg="test api: token check failed" error=`) {
		t.Errorf("log: %q", got)
	}
}
