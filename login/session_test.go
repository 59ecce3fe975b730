package login

import (
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/templates"
)

func TestSessionIdleTimeout(t *testing.T) {
	e := newEnv(t, nil)
	b := e.browser(hostA, false)
	token := b.mustLogin()

	// Each use within the idle timeout keeps the session alive...
	for i := 0; i < 4; i++ {
		e.clock.Advance(DefaultIdleTimeout - time.Minute)
		if _, ok := b.current(); !ok {
			t.Fatalf("session idle-expired after use %d", i)
		}
	}
	// ...and a pause of the idle timeout ends it, on the server, and removes it.
	e.clock.Advance(DefaultIdleTimeout)
	if _, ok := b.current(); ok {
		t.Fatal("session survived the idle timeout")
	}
	if _, _, err := e.store.GetLoginSession(e.ctx(hostA), e.h.sessionID(token)); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("expired session not deleted: %v", err)
	}
}

func TestSessionAbsoluteTimeout(t *testing.T) {
	e := newEnv(t, func(d *Deps) { d.IdleTimeout, d.AbsoluteTimeout = 30*time.Minute, time.Hour })
	b := e.browser(hostA, false)
	b.mustLogin()
	for _, step := range []time.Duration{25 * time.Minute, 25 * time.Minute, 9 * time.Minute} {
		e.clock.Advance(step)
		if _, ok := b.current(); !ok {
			t.Fatal("session ended early")
		}
	}
	e.clock.Advance(time.Minute) // one hour after sign-in, used a minute ago
	if _, ok := b.current(); ok {
		t.Error("session survived the absolute timeout")
	}
}

func TestSessionTouchedAtMostOncePerMinute(t *testing.T) {
	e := newEnv(t, nil)
	b := e.browser(hostA, false)
	b.mustLogin()
	start := e.clock.Now()
	for _, tc := range []struct {
		after   time.Duration
		touches int64
	}{
		{30 * time.Second, 0},
		{59 * time.Second, 0},
		{61 * time.Second, 1},
		{90 * time.Second, 1},
		{120 * time.Second, 1}, // 59s after the last touch
		{121 * time.Second, 2},
	} {
		e.clock.Advance(start.Add(tc.after).Sub(e.clock.Now()))
		s, ok := b.current()
		if !ok {
			t.Fatal("no session")
		}
		if got := e.store.touches.Load(); got != tc.touches {
			t.Errorf("after %v: %d touches, want %d", tc.after, got, tc.touches)
		}
		if tc.touches > 0 && !s.LastSeenAt.After(start) {
			t.Errorf("LastSeenAt %v not moved", s.LastSeenAt)
		}
	}
}

func TestSessionBelongsToItsSchool(t *testing.T) {
	e := newEnv(t, nil)
	a := e.browser(hostA, false)
	token := a.mustLogin()

	// The same cookie presented at school B's host (a browser would not even send it).
	b := e.browser(hostB, false)
	b.cookies[SessionCookie] = &http.Cookie{Name: SessionCookie, Value: token}
	if _, ok := b.current(); ok {
		t.Error("school A's session is valid at school B")
	}
	if res := b.do(http.MethodGet, DonePath, nil); res.StatusCode != http.StatusSeeOther {
		t.Errorf("school B's signed-in page: %d", res.StatusCode)
	}
	if res := b.do(http.MethodGet, "/oauth/authorize?client_id=x", nil); res.StatusCode != http.StatusSeeOther ||
		!strings.HasPrefix(res.Header.Get("Location"), LoginPath+"?return_to=") {
		t.Errorf("school B's authorize: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	// Logging out at B cannot end A's session.
	b.do(http.MethodPost, LogoutPath, url.Values{CSRFField: {"x"}})
	if _, ok := a.current(); !ok {
		t.Error("school A's session ended by a request to school B")
	}
}

func TestLogout(t *testing.T) {
	for _, secure := range []bool{false, true} {
		e := newEnv(t, nil)
		b := e.browser(hostA, secure)
		token := b.mustLogin()
		name := sessionCookieName(secure)

		confirm := b.do(http.MethodGet, LogoutPath, nil)
		if confirm.StatusCode != http.StatusOK || confirm.cookie(name) != nil {
			t.Fatalf("GET /logout: %d, cookies %v", confirm.StatusCode, confirm.Cookies())
		}
		if _, ok := b.current(); !ok {
			t.Fatal("GET /logout signed the member out")
		}

		// Missing or wrong CSRF token: refused, session intact.
		for _, form := range []url.Values{{}, {CSRFField: {"wrong"}}, {CSRFField: {e.h.loginCSRFToken(NewToken())}}} {
			res := b.do(http.MethodPost, LogoutPath, form)
			if res.StatusCode != http.StatusForbidden {
				t.Errorf("logout with %v: %d", form, res.StatusCode)
			}
			if _, ok := b.current(); !ok {
				t.Fatal("a forged logout ended the session")
			}
		}

		res := b.do(http.MethodPost, LogoutPath, url.Values{CSRFField: {csrfFrom(t, confirm.body)}})
		if res.StatusCode != http.StatusOK || !strings.Contains(res.body, "signed out") {
			t.Fatalf("logout: %d\n%s", res.StatusCode, res.body)
		}
		c := res.cookie(name)
		if c == nil || c.MaxAge >= 0 || c.Value != "" || c.Path != "/" || c.Secure != secure {
			t.Errorf("cookie not cleared: %+v", c)
		}
		if _, _, err := e.store.GetLoginSession(e.ctx(hostA), e.h.sessionID(token)); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("session row survived logout: %v", err)
		}
		// A browser that kept the cookie is signed out all the same.
		b.cookies[name] = &http.Cookie{Name: name, Value: token}
		if _, ok := b.current(); ok {
			t.Error("the old cookie still works")
		}
		// Signed out, both routes simply say so.
		if res := b.do(http.MethodGet, LogoutPath, nil); res.StatusCode != http.StatusOK || !strings.Contains(res.body, "signed out") {
			t.Errorf("GET /logout signed out: %d", res.StatusCode)
		}
		if res := b.do(http.MethodPost, LogoutPath, url.Values{}); res.StatusCode != http.StatusOK {
			t.Errorf("POST /logout signed out: %d", res.StatusCode)
		}
	}
}

func TestLoginReplacesSession(t *testing.T) {
	e := newEnv(t, nil)
	b := e.browser(hostA, false)
	first := b.mustLogin()
	second := b.mustLogin()
	if first == second {
		t.Fatal("a new sign-in kept the old token")
	}
	if _, _, err := e.store.GetLoginSession(e.ctx(hostA), e.h.sessionID(first)); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("the replaced session still exists: %v", err)
	}
}

func TestMalformedSessionCookie(t *testing.T) {
	e := newEnv(t, nil)
	b := e.browser(hostA, false)
	for _, v := range []string{"", "x", strings.Repeat("A", 43) + "=", strings.Repeat("*", 43), strings.Repeat("A", 4000)} {
		b.cookies[SessionCookie] = &http.Cookie{Name: SessionCookie, Value: v}
		if _, ok := b.current(); ok {
			t.Errorf("cookie %q accepted", v)
		}
	}
}

func TestRedirectToLogin(t *testing.T) {
	e := newEnv(t, nil)
	b := e.browser(hostA, false)
	res := b.do(http.MethodGet, "/oauth/authorize?client_id=x&scope=openid+account%3Aread&state=s", nil)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("%d", res.StatusCode)
	}
	loc, err := url.Parse(res.Header.Get("Location"))
	if err != nil || loc.Path != LoginPath {
		t.Fatalf("Location %q", res.Header.Get("Location"))
	}
	if got := loc.Query().Get("return_to"); got != "/oauth/authorize?client_id=x&scope=openid+account%3Aread&state=s" {
		t.Errorf("return_to = %q", got)
	}
}

func TestNewChecksDeps(t *testing.T) {
	tpl, err := templates.New()
	if err != nil {
		t.Fatal(err)
	}
	secret := config.Secret(make([]byte, 32))
	store := &countingStore{}
	for _, tc := range []struct {
		name string
		d    Deps
	}{
		{"no store", Deps{Secret: secret, Templates: tpl}},
		{"no templates", Deps{Store: store, Secret: secret}},
		{"short secret", Deps{Store: store, Secret: secret[:16], Templates: tpl}},
		{"idle beyond absolute", Deps{Store: store, Secret: secret, Templates: tpl, IdleTimeout: 2 * time.Hour, AbsoluteTimeout: time.Hour}},
		{"negative idle", Deps{Store: store, Secret: secret, Templates: tpl, IdleTimeout: -time.Minute}},
		{"zero-budget limit", Deps{Store: store, Secret: secret, Templates: tpl, AccountLimit: Limit{Window: time.Minute}}},
	} {
		if _, err := New(tc.d); err == nil {
			t.Errorf("%s: New accepted it", tc.name)
		}
	}
	h, err := New(Deps{Store: store, Secret: secret, Templates: tpl})
	if err != nil {
		t.Fatal(err)
	}
	if h.idle != DefaultIdleTimeout || h.absolute != DefaultAbsoluteTimeout || h.accountLimit != DefaultAccountLimit || h.addressLimit != DefaultAddressLimit {
		t.Errorf("defaults not applied: %+v", h)
	}
}

// The whole browser flow through a real HTTP server and client: authorize, sign in, consent,
// decide.
func TestFlowThroughServer(t *testing.T) {
	e := newEnv(t, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Host = hostA
		e.ServeHTTP(w, r)
	}))
	defer srv.Close()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Jar: jar}
	read := func(res *http.Response, err error) (int, string) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		return res.StatusCode, string(b)
	}
	get := func(path string) (int, string) {
		t.Helper()
		return read(client.Get(srv.URL + path))
	}
	post := func(path string, form url.Values) (int, string) {
		t.Helper()
		return read(client.PostForm(srv.URL+path, form))
	}

	authorize := "/oauth/authorize?client_id=tool&client_name=Tool&state=s1"
	status, page := get(authorize) // 303 to /login, followed
	if status != http.StatusOK || !strings.Contains(page, `name="password"`) || !strings.Contains(page, `value="/oauth/authorize?client_id=tool&amp;client_name=Tool&amp;state=s1"`) {
		t.Fatalf("expected the sign-in form carrying return_to: %d\n%s", status, page)
	}
	status, page = post(LoginPath, url.Values{
		"email": {annEmail}, "password": {annPassword}, "return_to": {authorize}, CSRFField: {csrfFrom(t, page)},
	}) // 303 back to authorize, followed: the consent page
	if status != http.StatusOK || !strings.Contains(page, `value="approve"`) {
		t.Fatalf("expected the consent page: %d\n%s", status, page)
	}
	status, page = post(authorize, url.Values{"decision": {"approve"}, CSRFField: {csrfFrom(t, page)}})
	if status != http.StatusOK || page != "decision=approve member="+strconv.FormatInt(e.ann.ID, 10) {
		t.Fatalf("decision: %d %q", status, page)
	}
	status, _ = post(authorize, url.Values{"decision": {"approve"}, CSRFField: {"forged"}})
	if status != http.StatusForbidden {
		t.Errorf("forged decision: %d", status)
	}
}

// An owner or an admin at the school is its operator, whatever other roles they hold.
func TestSessionOperator(t *testing.T) {
	for _, c := range []struct {
		roles []storage.Role
		want  bool
	}{
		{nil, false},
		{[]storage.Role{storage.RoleStudent}, false},
		{[]storage.Role{storage.RoleOwner}, true},
		{[]storage.Role{storage.RoleAdmin, storage.RoleStudent}, true},
	} {
		if got := (Session{Roles: c.roles}).Operator(); got != c.want {
			t.Errorf("roles %v: Operator() = %v, want %v", c.roles, got, c.want)
		}
	}
}
