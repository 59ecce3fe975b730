package server_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/scope"
	"github.com/proctorhq/proctor/server/servertest"
)

// TestUserinfoClaimsAsAuthDocSays checks what the served /auth.md says UserInfo returns
// against what it returns: sub, org_id and roles always (and amr, how the member signed in),
// name and picture with profile, email with email; openid account:read gets no more.
func TestUserinfoClaimsAsAuthDocSays(t *testing.T) {
	e := servertest.New(t, servertest.Options{})
	s := e.A
	doc := e.Send(http.MethodGet, s.URL("/auth.md"), nil)
	text := strings.Join(strings.Fields(doc.Body), " ")
	for _, said := range []string{
		"Always: `sub` (the person's id), `org_id` (this school's id) and `roles`.",
		"The `profile` scope adds `name` and `picture`; the `email` scope adds `email`.",
		"`openid account:read` therefore gets `sub`, `org_id` and `roles` only.",
	} {
		if doc.Status != http.StatusOK || !strings.Contains(text, said) {
			t.Errorf("/auth.md (%d) does not say %q", doc.Status, said)
		}
	}
	for _, c := range []struct {
		scopes []string
		claims []string
	}{
		{[]string{scope.OpenID, scope.AccountRead}, []string{"amr", "org_id", "roles", "sub"}},
		{[]string{scope.OpenID, "profile"}, []string{"amr", "name", "org_id", "picture", "roles", "sub"}},
		{[]string{scope.OpenID, "email"}, []string{"amr", "email", "org_id", "roles", "sub"}},
		{[]string{scope.OpenID, "profile", "email", scope.AccountRead}, []string{"amr", "email", "name", "org_id", "picture", "roles", "sub"}},
	} {
		token := e.Tokens(s, s.Student.Email, c.scopes...).AccessToken
		r := e.Bearer(http.MethodGet, s.URL(endpoint.Userinfo), token, "", "")
		var claims map[string]any
		if r.Status != http.StatusOK || !r.JSON(&claims) {
			t.Fatalf("%v: userinfo %d %s", c.scopes, r.Status, r.Body)
		}
		var got []string
		for k := range claims {
			got = append(got, k)
		}
		slices.Sort(got)
		if !slices.Equal(got, c.claims) {
			t.Errorf("%v: userinfo returns %v, want %v", c.scopes, got, c.claims)
		}
	}
}

// TestStateAndNonceLengthsAsAuthDocSays checks the lengths the served /auth.md gives: state at
// least 8 characters, a nonce 8 to 512; a shorter (or longer) value is refused with
// invalid_request, and the bounds themselves are accepted.
func TestStateAndNonceLengthsAsAuthDocSays(t *testing.T) {
	e := servertest.New(t, servertest.Options{ConfigureSchool: func(c *config.School) { c.Features.IDTokens = true }})
	s, c := e.A, e.A.MemberClient
	doc := e.Send(http.MethodGet, s.URL("/auth.md"), nil)
	text := strings.Join(strings.Fields(doc.Body), " ")
	if !strings.Contains(text, "`state` is required and must be at least 8 characters; a `nonce`, when sent, must be 8 to 512 printable characters. A shorter value is refused with `invalid_request`.") {
		t.Errorf("/auth.md (%d) does not give the state and nonce lengths", doc.Status)
	}
	b := e.Browser()
	b.SignIn(s, s.Student.Email)
	for _, tc := range []struct {
		param, value string
		refused      bool
	}{
		{"state", "1234567", true},
		{"state", "12345678", false},
		{"nonce", "1234567", true},
		{"nonce", "12345678", false},
		{"nonce", strings.Repeat("n", 512), false},
		{"nonce", strings.Repeat("n", 513), true},
	} {
		q := servertest.AuthorizeParams(s, c, servertest.NewPKCE(), scope.OpenID)
		q.Set(tc.param, tc.value)
		r := b.Get(s.URL(endpoint.Authorize) + "?" + q.Encode())
		loc, _ := url.Parse(r.Location())
		refused := loc != nil && loc.Query().Get("error") == "invalid_request"
		if refused != tc.refused || !refused && r.Status != http.StatusOK {
			t.Errorf("%s of %d characters: %d, Location %q; want refused %v", tc.param, len(tc.value), r.Status, r.Location(), tc.refused)
		}
	}
}
