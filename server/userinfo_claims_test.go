package server_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

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
