package server_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/scope"
	"github.com/proctorhq/proctor/server/servertest"
)

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
