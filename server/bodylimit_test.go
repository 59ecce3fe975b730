package server_test

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"unicode"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/i18n"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/server/servertest"
)

// bodyLimit is the body limit of the tests below.
const bodyLimit = 1024

// TestTooLargeFormIsAPageInTheMembersLanguage: a form posted to a page with a body over
// http.max_body_bytes is answered 413 with the error page in the member's language (here
// Japanese, from Accept-Language), whether the body declared its length (refused before any
// handler runs) or came chunked (refused by the handler that read past the limit).
func TestTooLargeFormIsAPageInTheMembersLanguage(t *testing.T) {
	e := servertest.New(t, servertest.Options{Configure: func(c *config.Server) { c.HTTP.MaxBodyBytes = bodyLimit }})
	cat, err := i18n.Load()
	if err != nil {
		t.Fatal(err)
	}
	ja := cat.Localizer("ja", nil)
	title, message := ja.Text("errors.too_large.title"), ja.Text("errors.too_large.message")
	huge := url.Values{"email": {strings.Repeat("a", 4*bodyLimit)}, "password": {"x"}}.Encode()

	pages := []string{login.LoginPath, "/login/forgot", endpoint.Authorize + "?client_id=north-member-app", "/account/security/totp", "/admin/developers/oauth-applications"}
	for _, path := range pages {
		for _, chunked := range []bool{false, true} {
			var body io.Reader = strings.NewReader(huge)
			if chunked {
				// A reader of unknown length: sent chunked, without Content-Length.
				body = io.MultiReader(strings.NewReader(huge))
			}
			req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, e.A.URL(path), body)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")
			req.Header.Set("Accept-Language", "ja,en;q=0.5")
			r := e.Do(e.Client(), req)
			if chunked && r.Status != http.StatusRequestEntityTooLarge {
				// Not every page reads its form before it checks the session; those that
				// answer otherwise never read the body at all.
				continue
			}
			if r.Status != http.StatusRequestEntityTooLarge || !r.IsHTML() ||
				!strings.Contains(r.Body, `<html lang="ja"`) || !strings.Contains(r.Body, title) || !strings.Contains(r.Body, message) {
				t.Errorf("POST %s (chunked %v): %d %s, want 413 with the Japanese error page:\n%s", path, chunked, r.Status, r.Header.Get("Content-Type"), r.Body)
			}
		}
	}
}

// TestTooLargeAPIBodyIsJSON: the OAuth endpoints, the protected resources and a script that asks
// for JSON get the RFC 6749 section 5.2 JSON for a body over the limit, in ASCII English whatever
// the language asked for (error_description allows ASCII only).
func TestTooLargeAPIBodyIsJSON(t *testing.T) {
	e := servertest.New(t, servertest.Options{Configure: func(c *config.Server) { c.HTTP.MaxBodyBytes = bodyLimit }})
	huge := strings.Repeat("a", 4*bodyLimit)
	for _, c := range []struct{ path, contentType, accept string }{
		{endpoint.Token, "application/x-www-form-urlencoded", ""},
		{endpoint.Register, "application/json", "application/json"},
		{endpoint.Revoke, "application/x-www-form-urlencoded", ""},
		{endpoint.MemberGraphQL, "application/json", "application/json"},
		{endpoint.MCP, "application/json", "application/json, text/event-stream"},
		{"/api/v1/courses", "application/json", "application/json"},
		{"/login/passkey/begin", "application/x-www-form-urlencoded", "application/json"},
	} {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, e.A.URL(c.path), strings.NewReader(huge))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", c.contentType)
		if c.accept != "" {
			req.Header.Set("Accept", c.accept)
		}
		req.Header.Set("Accept-Language", "ja")
		r := e.Do(e.Client(), req)
		var body edge.ErrorBody
		if r.Status != http.StatusRequestEntityTooLarge || r.Header.Get("Content-Type") != "application/json" || !r.JSON(&body) ||
			body.Error != "invalid_request" || body.Description == "" || strings.IndexFunc(body.Description, func(c rune) bool { return c > unicode.MaxASCII }) >= 0 {
			t.Errorf("POST %s: %d %s %s, want 413 with an ASCII RFC 6749 error", c.path, r.Status, r.Header.Get("Content-Type"), r.Body)
		}
	}
}
