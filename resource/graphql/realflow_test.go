package graphql_test

import (
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/oauth2"

	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/storage"
)

// TestWithIssuedTokens runs the real authorization code flow (login, consent, code exchange,
// refresh) and calls the Member API with what the authorization server issued, so that the
// minted tokens of the other tests cannot drift from real ones unnoticed.
func TestWithIssuedTokens(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		seeded(e)
		const pass = "correct horse battery"
		hash := schools.Hash(t, pass)
		ctx := e.Ctx(e.A)
		m, err := e.Store.GetMemberByEmail(ctx, sam)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Store.UpdateMember(ctx, m.ID, func(m storage.Member) (storage.Member, error) {
			m.PasswordHash = hash
			return m, nil
		}); err != nil {
			t.Fatal(err)
		}
		const redirect = "http://127.0.0.1/callback"
		if _, err := e.Store.CreateClient(ctx, storage.Client{ID: "study-app", Kind: storage.ClientMember, Name: "Study App",
			TokenEndpointAuthMethod: storage.AuthMethodNone, RedirectURIs: []string{redirect},
			Scopes: []string{"openid", "account:read", "account:write"}}); err != nil {
			t.Fatal(err)
		}

		jar, _ := cookiejar.New(nil)
		browser := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		submit := func(pageURL string, fill url.Values) *http.Response {
			t.Helper()
			resp, err := browser.Get(pageURL)
			if err != nil {
				t.Fatal(err)
			}
			page, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			action, values := csrfForm(t, string(page))
			for k, v := range fill {
				values[k] = v
			}
			base, _ := url.Parse(pageURL)
			ref, _ := url.Parse(action)
			resp, err = browser.PostForm(base.ResolveReference(ref).String(), values)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			return resp
		}
		submit(e.A.URL("/login"), url.Values{"email": {sam}, "password": {pass}})

		verifier := oauth2.GenerateVerifier()
		sum := sha256.Sum256([]byte(verifier))
		authorize := e.A.URL(endpoint.Authorize) + "?" + url.Values{
			"response_type": {"code"}, "client_id": {"study-app"}, "redirect_uri": {redirect},
			"scope": {"account:read account:write"}, "state": {"state-0123456789"}, "resource": {e.A.Origin},
			"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"},
		}.Encode()
		loc, err := submit(authorize, url.Values{"decision": {"approve"}}).Location()
		if err != nil || loc.Query().Get("code") == "" {
			t.Fatalf("no code: %v %v", loc, err)
		}

		cfg := &oauth2.Config{ClientID: "study-app", RedirectURL: redirect, Endpoint: oauth2.Endpoint{
			TokenURL: e.A.URL(endpoint.Token), AuthStyle: oauth2.AuthStyleInParams}}
		tok, err := cfg.Exchange(t.Context(), loc.Query().Get("code"), oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", e.A.Origin))
		if err != nil {
			t.Fatal(err)
		}
		r := e.post(e.A, tok.AccessToken, `{ viewer { email payments(first: 1) { nodes { tradeNo } } } }`, nil)
		if string(r.Data) != `{"viewer":{"email":"sam@example.test","payments":{"nodes":[{"tradeNo":"A-ATM-OPEN"}]}}}` {
			t.Errorf("with the issued token: %d %s", r.status, r.raw)
		}
		// The same token at school B's origin: bound elsewhere.
		if r := e.post(e.B, tok.AccessToken, viewerID, nil); r.status != http.StatusUnauthorized {
			t.Errorf("issued token at school B: %d %s", r.status, r.raw)
		}

		// A refreshed token carries the school over (spec, Authentication 8).
		tok.Expiry = time.Now().Add(-time.Minute) // makes the token source refresh
		fresh, err := cfg.TokenSource(t.Context(), tok).Token()
		if err != nil || fresh.AccessToken == tok.AccessToken {
			t.Fatalf("refresh: %v", err)
		}
		r = e.post(e.A, fresh.AccessToken, `mutation { markAllNotificationsRead { markedCount } }`, nil)
		if string(r.Data) != `{"markAllNotificationsRead":{"markedCount":2}}` {
			t.Errorf("with the refreshed token: %d %s", r.status, r.raw)
		}
	})
}

// csrfForm returns the action and the inputs of the page's form carrying csrf_token.
func csrfForm(t *testing.T, page string) (string, url.Values) {
	t.Helper()
	var action string
	var values url.Values
	z := html.NewTokenizer(strings.NewReader(page))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		tok := z.Token()
		attr := func(name string) string {
			for _, a := range tok.Attr {
				if a.Key == name {
					return a.Val
				}
			}
			return ""
		}
		switch {
		case tok.Data == "form" && tt == html.StartTagToken:
			if values != nil && values.Has("csrf_token") {
				return action, values
			}
			action, values = attr("action"), url.Values{}
		case tok.Data == "input" && values != nil && attr("name") != "" && attr("type") != "submit":
			values.Set(attr("name"), attr("value"))
		}
	}
	if values == nil || !values.Has("csrf_token") {
		t.Fatalf("no form with csrf_token on the page:\n%s", page)
	}
	return action, values
}
