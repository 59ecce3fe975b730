package login

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/proctorhq/proctor/i18n"
	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/storage"
)

func TestLoginSetsSessionCookie(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		secure                bool
		sessionName, csrfName string
	}{
		{"http", false, "proctor_session", "proctor_csrf"},
		{"https", true, "__Host-proctor_session", "__Host-proctor_csrf"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, nil)
			b := e.browser(hostA, tc.secure)

			form := b.do(http.MethodGet, LoginPath, nil)
			cc := form.cookie(tc.csrfName)
			if cc == nil {
				t.Fatalf("GET /login set no %s cookie", tc.csrfName)
			}
			if !cc.HttpOnly || cc.SameSite != http.SameSiteStrictMode || cc.Secure != tc.secure || cc.Path != "/" || cc.Domain != "" || cc.MaxAge <= 0 {
				t.Errorf("login CSRF cookie flags: %+v", cc)
			}
			for _, want := range []string{"School A", `name="email"`, `name="password"`, `name="return_to"`} {
				if !strings.Contains(form.body, want) {
					t.Errorf("login page lacks %q", want)
				}
			}

			res := b.do(http.MethodPost, LoginPath, url.Values{
				"email": {" Ann@Example.com "}, "password": {annPassword}, "return_to": {"/oauth/authorize?client_id=x"},
				CSRFField: {csrfFrom(t, form.body)},
			})
			if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/oauth/authorize?client_id=x" {
				t.Fatalf("login: %d to %q\n%s", res.StatusCode, res.Header.Get("Location"), res.body)
			}
			c := res.cookie(tc.sessionName)
			if c == nil {
				t.Fatalf("no %s cookie; got %v", tc.sessionName, res.Cookies())
			}
			if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Secure != tc.secure || c.Path != "/" || c.Domain != "" {
				t.Errorf("session cookie flags: %+v", c)
			}
			if c.MaxAge != int((12 * time.Hour).Seconds()) {
				t.Errorf("session cookie Max-Age = %d, want the absolute timeout", c.MaxAge)
			}
			if !WellFormedToken(c.Value) {
				t.Errorf("session token %q is not 256 bits of base64url", c.Value)
			}
			if cc := res.cookie(tc.csrfName); cc == nil || cc.MaxAge >= 0 {
				t.Error("login CSRF cookie not cleared after sign-in")
			}

			// The store holds the token's keyed hash, never the token.
			if _, _, err := e.store.GetLoginSession(e.ctx(hostA), c.Value); !errors.Is(err, storage.ErrNotFound) {
				t.Errorf("session found by its raw token: %v", err)
			}
			ls, _, err := e.store.GetLoginSession(e.ctx(hostA), e.h.sessionID(c.Value))
			if err != nil {
				t.Fatal(err)
			}
			if ls.MemberID != e.ann.ID || !ls.ExpiresAt.Equal(e.clock.Now().Add(12*time.Hour)) {
				t.Errorf("stored session %+v", ls)
			}
			s, ok := b.current()
			if !ok || s.Member.ID != e.ann.ID || s.Member.PasswordHash != "" || s.ID != ls.ID {
				t.Errorf("Current = %+v, %v", s, ok)
			}
			// The other scheme's cookie name is not read.
			other := e.browser(hostA, tc.secure)
			other.cookies[sessionCookieName(!tc.secure)] = &http.Cookie{Name: sessionCookieName(!tc.secure), Value: c.Value}
			if _, ok := other.current(); ok {
				t.Error("session cookie accepted under the other scheme's name")
			}
		})
	}
}

func TestLoginWithoutRole(t *testing.T) {
	// Signing in asks nothing about roles: Ann has none at school B, and signs in there.
	e := newEnv(t, nil)
	b := e.browser(hostB, false)
	b.mustLogin()
	if _, ok := b.current(); !ok {
		t.Error("no session at school B")
	}
}

// The answer to an unknown e-mail and to a wrong password is the same, byte for byte, in every
// language: no page, in any language, tells who has an account.
func TestLoginFailureIsUniform(t *testing.T) {
	cat := schools.Catalogue(t)
	for _, lang := range i18n.Tags() {
		t.Run(lang, func(t *testing.T) {
			e := newEnv(t, nil)
			b := e.browser(hostA, false)
			b.lang = lang
			token := b.loginForm()
			post := func(email, pw string) response {
				return b.do(http.MethodPost, LoginPath, url.Values{"email": {email}, "password": {pw}, "return_to": {"/x"}, CSRFField: {token}})
			}
			wrong := post(annEmail, "not the password")
			unknown := post("nobody@example.com", "not the password")
			if wrong.StatusCode != unknown.StatusCode || wrong.body != unknown.body {
				t.Errorf("wrong password (%d) and unknown e-mail (%d) differ:\n%s\n---\n%s", wrong.StatusCode, unknown.StatusCode, wrong.body, unknown.body)
			}
			if got := schools.HTMLLang(wrong.body); got != lang {
				t.Errorf("the failure page is in %q", got)
			}
			msg := cat.Localizer(lang, nil).Text("signin.failed")
			if !strings.Contains(wrong.body, msg) {
				t.Errorf("failure page lacks %q", msg)
			}
			if lang == i18n.Default && msg != MsgLoginFailed {
				t.Errorf("the English failure message is %q, not %q", msg, MsgLoginFailed)
			}
			for _, r := range []response{wrong, unknown} {
				if r.cookie(SessionCookie) != nil {
					t.Error("failed sign-in set a session cookie")
				}
				if r.Header.Get("Content-Security-Policy") != PagePolicy || r.Header.Get("Cache-Control") != "no-store" {
					t.Errorf("headers %v", r.Header)
				}
			}
			if got := e.store.lookups.Load(); got != 2 {
				t.Errorf("%d member lookups, want 2", got)
			}
		})
	}
}

func TestLoginIncompleteForm(t *testing.T) {
	e := newEnv(t, nil)
	b := e.browser(hostA, false)
	res := b.login(annEmail, "", "")
	if res.StatusCode != http.StatusOK || !strings.Contains(res.body, MsgLoginIncomplete) {
		t.Errorf("%d\n%s", res.StatusCode, res.body)
	}
	if e.store.lookups.Load() != 0 {
		t.Error("an empty password was checked")
	}
}

func TestLoginRateLimitPerAccount(t *testing.T) {
	e := newEnv(t, nil)
	b := e.browser(hostA, false)
	// Failures from several addresses all count against the account.
	for i := 0; i < DefaultAccountLimit.Max; i++ {
		b.addr = []string{"192.0.2.10", "192.0.2.11", "2001:db8::1"}[i%3]
		if res := b.login(annEmail, "guess", ""); res.StatusCode != http.StatusOK || !strings.Contains(res.body, MsgLoginFailed) {
			t.Fatalf("attempt %d: %d", i+1, res.StatusCode)
		}
	}
	lookups := e.store.lookups.Load()
	b.addr = "198.51.100.7"
	res := b.login(annEmail, annPassword, "")
	if res.StatusCode != http.StatusTooManyRequests || !strings.Contains(res.body, MsgLoginLimited) {
		t.Fatalf("limited account: %d\n%s", res.StatusCode, res.body)
	}
	if !strings.Contains(res.body, `name="password"`) || res.Header.Get("Retry-After") == "" {
		t.Error("429 is not the sign-in page with Retry-After")
	}
	if res.cookie(SessionCookie) != nil {
		t.Error("limited sign-in set a session cookie")
	}
	if e.store.lookups.Load() != lookups {
		t.Error("the password was checked while the account was limited")
	}
	// The e-mail is matched however it is typed.
	if res := b.login("  ANN@example.COM", annPassword, ""); res.StatusCode != http.StatusTooManyRequests {
		t.Errorf("differently cased e-mail: %d", res.StatusCode)
	}
	// Another account from the same address is not affected.
	if res := b.login("someone@example.com", "guess", ""); res.StatusCode != http.StatusOK {
		t.Errorf("other account: %d", res.StatusCode)
	}

	e.clock.Advance(DefaultAccountLimit.Window)
	b.mustLogin()
	// Success reset the account's count: the next failures start from zero.
	b = e.browser(hostA, false)
	for i := 0; i < DefaultAccountLimit.Max; i++ {
		if res := b.login(annEmail, "guess", ""); res.StatusCode != http.StatusOK {
			t.Fatalf("after reset, attempt %d: %d", i+1, res.StatusCode)
		}
	}
	if res := b.login(annEmail, "guess", ""); res.StatusCode != http.StatusTooManyRequests {
		t.Errorf("after reset, attempt %d: %d", DefaultAccountLimit.Max+1, res.StatusCode)
	}
}

func TestLoginRateLimitPerAddress(t *testing.T) {
	limit := Limit{Max: 3, Window: 15 * time.Minute}
	e := newEnv(t, func(d *Deps) { d.AddressLimit = limit })
	b := e.browser(hostA, false)
	b.addr = "2001:db8:1:2::10"
	for i := 0; i < limit.Max; i++ {
		b.addr = []string{"2001:db8:1:2::10", "2001:db8:1:2::11", "2001:db8:1:2:ffff::1"}[i] // one /64
		if res := b.login("x"+string(rune('a'+i))+"@example.com", "guess", ""); res.StatusCode != http.StatusOK {
			t.Fatalf("attempt %d: %d", i+1, res.StatusCode)
		}
	}
	lookups := e.store.lookups.Load()
	b.addr = "2001:db8:1:2::99"
	if res := b.login(annEmail, annPassword, ""); res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("limited /64: %d", res.StatusCode)
	}
	if e.store.lookups.Load() != lookups {
		t.Error("the password was checked while the address was limited")
	}
	// Another address is not limited, and Ann's own count was never touched.
	b.addr = "2001:db8:1:3::1"
	b.mustLogin()
	// Nor is an IPv4 client.
	c := e.browser(hostA, false)
	c.addr = "192.0.2.200"
	c.mustLogin()
}

func TestLoginStoreOutage(t *testing.T) {
	e := newEnv(t, nil)
	b := e.browser(hostA, false)
	e.store.failLookups.Store(true)
	res := b.login(annEmail, annPassword, "")
	if res.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("%d\n%s", res.StatusCode, res.body)
	}
	if strings.Contains(res.body, "connection refused") || strings.Contains(res.body, "gormstore") {
		t.Error("the error page shows debug detail")
	}
	if !strings.Contains(res.body, "req-test") || res.Header.Get("Cache-Control") != "no-store" {
		t.Error("the error page lacks the request id or no-store")
	}
}

func TestLoginCSRF(t *testing.T) {
	e := newEnv(t, nil)
	for _, tc := range []struct {
		name  string
		setup func(b *browser) url.Values
	}{
		{"missing token", func(b *browser) url.Values {
			b.loginForm()
			return url.Values{}
		}},
		{"wrong token", func(b *browser) url.Values {
			b.loginForm()
			return url.Values{CSRFField: {"AAAA"}}
		}},
		{"no cookie", func(b *browser) url.Values {
			token := b.loginForm()
			b.cookies = map[string]*http.Cookie{}
			return url.Values{CSRFField: {token}}
		}},
		{"another browser's token", func(b *browser) url.Values {
			b.loginForm()
			return url.Values{CSRFField: {e.browser(hostA, false).loginForm()}}
		}},
		{"a session's token", func(b *browser) url.Values {
			b.loginForm()
			return url.Values{CSRFField: {e.h.CSRFToken(Session{ID: "x"})}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := e.browser(hostA, false)
			form := tc.setup(b)
			form.Set("email", annEmail)
			form.Set("password", annPassword)
			before := e.store.lookups.Load()
			res := b.do(http.MethodPost, LoginPath, form)
			if res.StatusCode != http.StatusForbidden {
				t.Fatalf("%d", res.StatusCode)
			}
			if res.cookie(SessionCookie) != nil || e.store.lookups.Load() != before {
				t.Error("a sign-in without a valid CSRF token went ahead")
			}
			// The page offers a fresh, working form.
			if !strings.Contains(res.body, MsgLoginExpired) {
				t.Error("no explanation")
			}
			retry := b.do(http.MethodPost, LoginPath, url.Values{"email": {annEmail}, "password": {annPassword}, CSRFField: {csrfFrom(t, res.body)}})
			if retry.StatusCode != http.StatusSeeOther {
				t.Errorf("retry with the new form: %d", retry.StatusCode)
			}
		})
	}
}

func TestReturnToNeverLeavesOrigin(t *testing.T) {
	e := newEnv(t, nil)
	for _, tc := range []struct {
		returnTo, want string
	}{
		{"/oauth/authorize?client_id=x&state=y", "/oauth/authorize?client_id=x&state=y"},
		{"/", "/"},
		{"", DefaultReturnTo},
		{"//evil.example", DefaultReturnTo},
		{"//evil.example/path", DefaultReturnTo},
		{"https://evil.example", DefaultReturnTo},
		{"http://a.test/ok", DefaultReturnTo}, // absolute, even to ourselves
		{"/\\evil.example", DefaultReturnTo},
		{"\\\\evil.example", DefaultReturnTo},
		{"javascript:alert(1)", DefaultReturnTo},
		{"/\t/evil.example", DefaultReturnTo},
		{"/\n/evil.example", DefaultReturnTo},
		{" /evil", DefaultReturnTo},
		{"/%2F%2Fevil.example", DefaultReturnTo},
		{"/%5Cevil.example", DefaultReturnTo},
		{"/..//evil.example", DefaultReturnTo},
		{"evil.example", DefaultReturnTo},
		{"https:evil.example", DefaultReturnTo},
	} {
		t.Run(tc.returnTo, func(t *testing.T) {
			b := e.browser(hostA, false)
			// The form's hidden field already carries only the safe value...
			page := b.do(http.MethodGet, LoginPath+"?return_to="+url.QueryEscape(tc.returnTo), nil)
			if tc.want == DefaultReturnTo && strings.Contains(page.body, "evil.example") {
				t.Errorf("login form carries the hostile return_to:\n%s", page.body)
			}
			// ...and a forged POST is checked again.
			res := b.login(annEmail, annPassword, tc.returnTo)
			if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != tc.want {
				t.Fatalf("%d to %q, want %q", res.StatusCode, res.Header.Get("Location"), tc.want)
			}
			loc, err := url.Parse(res.Header.Get("Location"))
			if err != nil || loc.Host != "" || loc.Scheme != "" {
				t.Errorf("Location %q leaves the origin", res.Header.Get("Location"))
			}
			// Already signed in, GET /login forwards at once, through the same check.
			again := b.do(http.MethodGet, LoginPath+"?return_to="+url.QueryEscape(tc.returnTo), nil)
			if again.StatusCode != http.StatusSeeOther || again.Header.Get("Location") != tc.want {
				t.Errorf("signed-in GET /login: %d to %q", again.StatusCode, again.Header.Get("Location"))
			}
		})
	}
}

func TestSignedInPage(t *testing.T) {
	e := newEnv(t, nil)
	b := e.browser(hostA, false)
	if res := b.do(http.MethodGet, DonePath, nil); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != LoginPath {
		t.Errorf("signed out: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	b.mustLogin()
	res := b.do(http.MethodGet, DonePath, nil)
	s, _ := b.current()
	if res.StatusCode != http.StatusOK || !strings.Contains(res.body, "Ann Example") || csrfFrom(t, res.body) != e.h.CSRFToken(s) ||
		!strings.Contains(res.body, `action="/logout"`) {
		t.Errorf("%d\n%s", res.StatusCode, res.body)
	}
}
