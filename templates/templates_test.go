package templates

import (
	"bytes"
	"io/fs"
	"strings"
	"testing"
)

func TestNewParsesEveryPage(t *testing.T) {
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	// Every page file is wired to a render method: a new file must be added to New.
	files, err := fs.Glob(pageFiles, "html/*.html")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(files), 7; got != want { // layout + six pages
		t.Errorf("%d page files, want %d: %v", got, want, files)
	}
	if !strings.HasPrefix(s.StylesheetPath(), AssetsPrefix) || !strings.HasSuffix(s.StylesheetPath(), ".css") {
		t.Errorf("stylesheet path %q", s.StylesheetPath())
	}
	if len(s.Stylesheet()) == 0 {
		t.Error("empty stylesheet")
	}
}

func TestPages(t *testing.T) {
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	const hostile = `<script>alert("x")</script>`
	for _, tc := range []struct {
		name   string
		render func(*bytes.Buffer) error
		want   []string
	}{
		{"login", func(b *bytes.Buffer) error {
			return s.Login(b, LoginPage{School: hostile, CSRFToken: "tok", ReturnTo: "/oauth/authorize?a=1&b=2", Message: "The e-mail or password is not right."})
		}, []string{
			`name="email"`, `name="password"`, `name="csrf_token" value="tok"`,
			`name="return_to" value="/oauth/authorize?a=1&amp;b=2"`, `action="/login"`,
			"The e-mail or password is not right.", "&lt;script&gt;", `<label for="email">`, `<label for="password">`,
		}},
		{"consent", func(b *bytes.Buffer) error {
			return s.Consent(b, ConsentPage{
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
			return s.Error(b, ErrorPage{Title: "Service unavailable", Message: "Try later.", RequestID: "req-1"})
		}, []string{"Service unavailable", "Try later.", "req-1"}},
		{"signed in", func(b *bytes.Buffer) error {
			return s.SignedIn(b, SignedInPage{School: "A", MemberEmail: "ann@example.com", CSRFToken: "tok"})
		}, []string{"ann@example.com", `action="/logout"`, `value="tok"`}},
		{"signed out", func(b *bytes.Buffer) error { return s.SignedOut(b, SignedOutPage{School: "A"}) }, []string{"signed out", `href="/login"`}},
		{"logout", func(b *bytes.Buffer) error {
			return s.Logout(b, LogoutPage{School: "A", MemberName: "Ann", MemberEmail: "ann@example.com", CSRFToken: "tok"})
		}, []string{`action="/logout"`, `value="tok"`, "Ann"}},
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
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := s.Consent(&b, ConsentPage{FormAction: "javascript:alert(1)"}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "javascript:") {
		t.Error("javascript: URL written into the form action")
	}
}
