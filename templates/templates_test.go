package templates

import (
	"bytes"
	"context"
	"io/fs"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/endpoint"
)

// newSet parses the templates as the server does at start-up; a template that does not parse
// fails the test.
func newSet(t *testing.T) *Set {
	t.Helper()
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestNewParsesEveryPage(t *testing.T) {
	s := newSet(t)
	// Every page file is wired to a render method: a new file must be added to New.
	files, err := fs.Glob(pageFiles, "html/*.html")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(files), 12+len(extraPages()); got != want { // layout, eleven pages and the named ones
		t.Errorf("%d page files, want %d: %v", got, want, files)
	}
	if !strings.HasPrefix(s.StylesheetPath(), endpoint.Assets) || !strings.HasSuffix(s.StylesheetPath(), ".css") {
		t.Errorf("stylesheet path %q", s.StylesheetPath())
	}
	if len(s.Stylesheet()) == 0 {
		t.Error("empty stylesheet")
	}
}

// hostile is what the page tests put in every field a school, an operator or a member fills
// in: it must come out escaped, never as markup.
const hostile = `<script>alert("x")</script>`

func TestPages(t *testing.T) {
	s := newSet(t)
	op := Operator{MemberName: "Ann", MemberEmail: "ann@example.com", CSRFToken: "tok"}
	app := OAuthAppDetails{Name: hostile, ClientID: "pc_1", Confidential: true, RedirectURIs: []string{"https://a.example/cb"},
		Scopes: []ScopeItem{{"account:read", "See your own courses"}}, CreatedAt: "2030-01-02"}
	for _, tc := range []struct {
		name   string
		render func(*bytes.Buffer) error
		want   []string
	}{
		{"login", func(b *bytes.Buffer) error {
			return s.Login(context.Background(), b, LoginPage{School: hostile, CSRFToken: "tok", ReturnTo: "/oauth/authorize?a=1&b=2", Message: "The e-mail or password is not right."})
		}, []string{
			`name="email"`, `name="password"`, `name="csrf_token" value="tok"`,
			`name="return_to" value="/oauth/authorize?a=1&amp;b=2"`, `action="/login"`,
			"The e-mail or password is not right.", "&lt;script&gt;", `<label for="email">`, `<label for="password">`,
		}},
		{"consent", func(b *bytes.Buffer) error {
			return s.Consent(context.Background(), b, ConsentPage{
				School: "A", ClientName: hostile, RedirectHost: "cb.example", ClientIDHost: "tool.example", LoopbackOnly: true,
				Scopes: []ScopeItem{{"account:read", "See your own courses"}}, MemberName: "Ann", MemberEmail: "ann@example.com",
				FormAction: "/oauth/authorize?client_id=x&state=y", CSRFToken: "tok",
			})
		}, []string{
			`name="decision" value="approve"`, `name="decision" value="deny"`, `name="csrf_token" value="tok"`,
			`action="/oauth/authorize?client_id=x&amp;state=y"`, "See your own courses", "account:read",
			"tool.example", "cb.example", "loopback", "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;", "Ann", "ann@example.com",
			`action="/logout"`,
		}},
		{"error", func(b *bytes.Buffer) error {
			return s.Error(context.Background(), b, ErrorPage{Title: "Service unavailable", Message: "Try later.", RequestID: "req-1"})
		}, []string{"Service unavailable", "Try later.", "req-1"}},
		{"signed in", func(b *bytes.Buffer) error {
			return s.SignedIn(context.Background(), b, SignedInPage{School: "A", MemberEmail: "ann@example.com", CSRFToken: "tok"})
		}, []string{"ann@example.com", `action="/logout"`, `value="tok"`}},
		{"signed out", func(b *bytes.Buffer) error { return s.SignedOut(context.Background(), b, SignedOutPage{School: "A"}) }, []string{"signed out", `href="/login"`}},
		{"logout", func(b *bytes.Buffer) error {
			return s.Logout(context.Background(), b, LogoutPage{School: "A", MemberName: "Ann", MemberEmail: "ann@example.com", CSRFToken: "tok"})
		}, []string{`action="/logout"`, `value="tok"`, "Ann"}},
		{"oauth apps", func(b *bytes.Buffer) error {
			return s.OAuthApps(context.Background(), b, OAuthAppsPage{School: "A", Operator: op, NewURL: "/admin/new", NextURL: "/admin?after=c%3D",
				Apps: []OAuthAppItem{{Name: hostile, ClientID: "pc_1", Confidential: true, URL: "/admin/pc_1", CreatedAt: "2030-01-02"}}})
		}, []string{`href="/admin/new"`, `href="/admin/pc_1"`, "pc_1", "Confidential", "&lt;script&gt;", `href="/admin?after=c%3D"`, `action="/logout"`, "Ann"}},
		{"oauth app form", func(b *bytes.Buffer) error {
			return s.OAuthAppNew(context.Background(), b, OAuthAppNewPage{School: "A", Operator: op, FormAction: "/admin", ListURL: "/admin",
				Name: hostile, RedirectURIs: "https://a.example/cb\nhttp://127.0.0.1/cb",
				Scopes:       []ScopeChoice{{"openid", "Confirm who you are", true}, {"account:read", "See your own courses", false}},
				Confidential: true, MaxName: 100, MaxRedirectURIs: 10, Invalid: true, NameErrors: []string{"name problem"},
				RedirectURIErrors: []string{"uri problem"}, ScopeErrors: []string{"scope problem"}})
		}, []string{`action="/admin"`, `name="csrf_token" value="tok"`, `name="name"`, `value="&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;"`,
			`name="redirect_uris"`, "https://a.example/cb\nhttp://127.0.0.1/cb</textarea>", `name="scope" value="openid" checked`,
			`name="scope" value="account:read">`, "See your own courses", `name="confidential" value="yes" id="confidential" checked`,
			"name problem", "uri problem", "scope problem", `<label for="name">`, `<label for="redirect_uris">`}},
		{"oauth app", func(b *bytes.Buffer) error {
			return s.OAuthApp(context.Background(), b, OAuthAppPage{School: "A", Operator: op, App: app, ListURL: "/admin", RotateURL: "/admin/pc_1/rotate", DeleteURL: "/admin/pc_1/delete"})
		}, []string{"pc_1", "https://a.example/cb", "See your own courses", `href="/admin/pc_1/rotate"`, `href="/admin/pc_1/delete"`, "&lt;script&gt;"}},
		{"oauth app secret", func(b *bytes.Buffer) error {
			return s.OAuthAppSecret(context.Background(), b, OAuthAppSecretPage{School: "A", Operator: op, App: app, Secret: "s3cr3t-value", AppURL: "/admin/pc_1", ListURL: "/admin"})
		}, []string{`id="client-secret"`, "s3cr3t-value", `id="client-id"`, "pc_1", "shown only this once", `href="/admin/pc_1"`}},
		{"oauth app confirm", func(b *bytes.Buffer) error {
			return s.OAuthAppConfirm(context.Background(), b, OAuthAppConfirmPage{School: "A", Operator: op, AppName: hostile, ClientID: "pc_1",
				Confirmation: Confirmation{Title: "Delete " + hostile + "?", Explanation: "Tokens stop working.",
					FormAction: "/admin/pc_1/delete", Button: "Delete", Danger: true, CancelURL: "/admin/pc_1", ListURL: "/admin"}})
		}, []string{`action="/admin/pc_1/delete"`, `name="csrf_token" value="tok"`, `class="danger"`, "Tokens stop working.", "&lt;script&gt;", `href="/admin/pc_1"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tc.render(&b); err != nil {
				t.Fatal(err)
			}
			body := b.String()
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("page lacks %q", w)
				}
			}
			for _, bad := range []string{"<script", "style=", "<style", "remember"} {
				if strings.Contains(strings.ToLower(body), bad) {
					t.Errorf("page contains %q", bad)
				}
			}
			if !strings.Contains(body, `href="`+s.StylesheetPath()+`"`) {
				t.Error("page does not link the stylesheet")
			}
		})
	}
}

// A form action that is not a URL html/template trusts is neutralised, not written.
func TestConsentFormActionIsSanitised(t *testing.T) {
	s := newSet(t)
	var b bytes.Buffer
	if err := s.Consent(context.Background(), &b, ConsentPage{FormAction: "javascript:alert(1)"}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "javascript:") {
		t.Error("javascript: URL written into the form action")
	}
}
