package login

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/mux"

	"github.com/proctorhq/proctor/bench/flow"
	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/scope"
	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/gormstore"
	"github.com/proctorhq/proctor/storage/gormstore/storetest"
	"github.com/proctorhq/proctor/templates"
)

// cheap keeps argon2id fast in tests; Verify reads the parameters from the hash.
var cheap = schools.Cheap

const (
	annEmail    = "ann@example.com"
	annPassword = schools.Password
	hostA       = "a.test"
	hostB       = "b.test"
	addrDefault = "192.0.2.1"
)

// countingStore counts the calls a test wants to see (or not see) and can fail member lookups
// as an unreachable database would.
type countingStore struct {
	storage.Store
	lookups     atomic.Int64
	touches     atomic.Int64
	failLookups atomic.Bool
}

func (s *countingStore) GetMemberByEmail(ctx context.Context, email string) (storage.Member, error) {
	s.lookups.Add(1)
	if s.failLookups.Load() {
		return storage.Member{}, fmt.Errorf("gormstore: get member: connection refused: %w", storage.ErrUnavailable)
	}
	return s.Store.GetMemberByEmail(ctx, email)
}

func (s *countingStore) TouchLoginSession(ctx context.Context, id string, at time.Time) error {
	s.touches.Add(1)
	return s.Store.TouchLoginSession(ctx, id, at)
}

type env struct {
	t       *testing.T
	store   *countingStore
	h       *Handler
	clock   *schools.Clock
	router  *mux.Router
	schools map[string]*school.School
	ann     storage.Member
}

// newEnv builds the handler on a fresh SQLite store with two schools (a.test and b.test) and
// one member, Ann, a student at school A.
func newEnv(t *testing.T, tweak func(*Deps)) *env {
	t.Helper()
	ctx := t.Context()
	gs := storetest.Open(t, gormstore.DriverSQLite)
	e := &env{
		t:     t,
		store: &countingStore{Store: gs},
		clock: schools.NewClock(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)),
		schools: map[string]*school.School{
			hostA: {SchoolID: 1, Subdomain: "a", Name: "School A", Origin: "http://" + hostA, Host: hostA},
			hostB: {SchoolID: 2, Subdomain: "b", Name: "School B", Origin: "http://" + hostB, Host: hostB},
		},
	}
	for _, tn := range e.schools {
		if err := gs.SyncSchool(ctx, tn.SchoolID, tn.Subdomain, tn.Name); err != nil {
			t.Fatal(err)
		}
	}
	e.ann = schools.Member(t, gs, annEmail, "Ann Example", schools.At(e.schools[hostA], storage.RoleStudent))
	tpl, err := templates.New()
	if err != nil {
		t.Fatal(err)
	}
	d := Deps{
		Store:     e.store,
		Secret:    schools.Secret,
		Templates: tpl,
		Now:       e.clock.Now,
	}
	if tweak != nil {
		tweak(&d)
	}
	e.h, err = New(d)
	if err != nil {
		t.Fatal(err)
	}
	e.router = mux.NewRouter()
	e.router.Use(e.h.Localize)
	e.h.Mount(e.router)
	e.router.HandleFunc("/oauth/authorize", e.fakeAuthorize).Methods(http.MethodGet, http.MethodPost)
	return e
}

// ctx is a context of the school served at host.
func (e *env) ctx(host string) context.Context {
	return school.NewContext(e.t.Context(), e.schools[host])
}

// ServeHTTP stands in for the server's middleware: the school by Host, and the edge info a
// trusted proxy would give (https and the client address, from test-only headers).
func (e *env) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	tn, ok := e.schools[r.Host]
	if !ok {
		http.NotFound(w, r)
		return
	}
	addr := netip.MustParseAddr(addrDefault)
	if a := r.Header.Get(schools.AddrHeader); a != "" {
		addr = netip.MustParseAddr(a)
	}
	info := &edge.Info{ID: "req-test", Secure: r.Header.Get("X-Test-Secure") == "1", ClientAddr: addr}
	ctx := school.NewContext(edge.NewContext(r.Context(), info), tn)
	e.router.ServeHTTP(w, r.WithContext(ctx))
}

// fakeAuthorize plays the authorization endpoint's part: sign in first, then consent, then a
// CSRF-checked decision.
func (e *env) fakeAuthorize(w http.ResponseWriter, r *http.Request) {
	s, ok := e.h.Current(r)
	if !ok {
		e.h.RedirectToLogin(w, r)
		return
	}
	if r.Method == http.MethodPost {
		if !e.h.CheckCSRF(r, s) {
			e.h.RenderError(w, r, http.StatusForbidden, ErrorView{Title: "Request refused", Message: "Reload the page and try again."})
			return
		}
		_, _ = fmt.Fprintf(w, "decision=%s member=%d", r.PostFormValue("decision"), s.Member.ID)
		return
	}
	read, _ := scope.Lookup(scope.AccountRead)
	openid, _ := scope.Lookup(scope.OpenID)
	e.h.RenderConsent(w, r, s, ConsentView{
		ClientName:   r.URL.Query().Get("client_name"),
		RedirectHost: "127.0.0.1:53000",
		ClientIDHost: r.URL.Query().Get("client_id_host"),
		LoopbackOnly: r.URL.Query().Get("loopback") == "1",
		Scopes:       []scope.Scope{openid, read},
		FormAction:   r.URL.RequestURI(),
	})
}

// browser keeps cookies per name for one host (every cookie here has Path "/") and sends the
// test-only edge headers.
type browser struct {
	e       *env
	host    string
	secure  bool
	addr    string
	ua      string // User-Agent, if set
	lang    string // Accept-Language, if set
	cookies map[string]*http.Cookie
}

func (e *env) browser(host string, secure bool) *browser {
	return &browser{e: e, host: host, secure: secure, cookies: map[string]*http.Cookie{}}
}

type response struct {
	*http.Response
	body string
}

func (r response) cookie(name string) *http.Cookie {
	for _, c := range r.Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func (b *browser) do(method, target string, form url.Values) response {
	b.e.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	return b.send(method, target, body, form != nil)
}

// postRaw posts body as it is, form-encoded or not.
func (b *browser) postRaw(target, body string) response {
	b.e.t.Helper()
	return b.send(http.MethodPost, target, strings.NewReader(body), true)
}

// send sends a request with the browser's cookies, scheme, address, User-Agent and language,
// a form's Content-Type when isForm, and keeps the cookies of the answer.
func (b *browser) send(method, target string, body io.Reader, isForm bool) response {
	b.e.t.Helper()
	req := httptest.NewRequest(method, "http://"+b.host+target, body)
	if isForm {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if b.secure {
		req.Header.Set("X-Test-Secure", "1")
	}
	schools.Identify(req.Header, b.addr, b.ua, b.lang)
	for _, c := range b.cookies {
		req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
	}
	rec := httptest.NewRecorder()
	b.e.ServeHTTP(rec, req)
	res := rec.Result()
	for _, c := range res.Cookies() {
		if c.MaxAge < 0 {
			delete(b.cookies, c.Name)
		} else {
			b.cookies[c.Name] = c
		}
	}
	raw, _ := io.ReadAll(res.Body)
	return response{Response: res, body: string(raw)}
}

// csrfFrom returns the csrf_token of the first form in a page that has one, read as the load
// command reads it (flow.FormWith; the form's action is not looked at).
func csrfFrom(t *testing.T, page string) string {
	t.Helper()
	f, err := flow.FormWith("http://127.0.0.1/", []byte(page), CSRFField)
	if err != nil || f.Values.Get(CSRFField) == "" {
		t.Fatalf("no csrf_token in page (%v):\n%s", err, page)
	}
	return f.Values.Get(CSRFField)
}

// loginForm loads the sign-in form and returns its CSRF token. A signed-in browser is sent on
// instead of shown the form, so for it the form's cookie and token are made as GET /login
// would make them.
func (b *browser) loginForm() string {
	b.e.t.Helper()
	res := b.do(http.MethodGet, LoginPath, nil)
	switch res.StatusCode {
	case http.StatusOK:
		return csrfFrom(b.e.t, res.body)
	case http.StatusSeeOther:
		v := NewToken()
		name := loginCSRFCookieName(b.secure)
		b.cookies[name] = &http.Cookie{Name: name, Value: v}
		return b.e.h.loginCSRFToken(v)
	}
	b.e.t.Fatalf("GET /login: %d", res.StatusCode)
	return ""
}

// login submits the sign-in form with a fresh form's token.
func (b *browser) login(email, pw, returnTo string) response {
	b.e.t.Helper()
	return b.do(http.MethodPost, LoginPath, url.Values{
		"email": {email}, "password": {pw}, "return_to": {returnTo}, CSRFField: {b.loginForm()},
	})
}

// mustLogin signs Ann in and returns the session cookie's value.
func (b *browser) mustLogin() string {
	b.e.t.Helper()
	res := b.login(annEmail, annPassword, "")
	if res.StatusCode != http.StatusSeeOther {
		b.e.t.Fatalf("login: %d\n%s", res.StatusCode, res.body)
	}
	c := b.cookies[sessionCookieName(b.secure)]
	if c == nil {
		b.e.t.Fatal("login set no session cookie")
	}
	return c.Value
}

// current asks Current about a request carrying the browser's cookies.
func (b *browser) current() (Session, bool) {
	b.e.t.Helper()
	var (
		s  Session
		ok bool
	)
	probe := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s, ok = b.e.h.Current(r) })
	req := httptest.NewRequest(http.MethodGet, "http://"+b.host+"/", nil)
	for _, c := range b.cookies {
		req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
	}
	info := &edge.Info{ID: "req-test", Secure: b.secure, ClientAddr: netip.MustParseAddr(addrDefault)}
	probe.ServeHTTP(httptest.NewRecorder(), req.WithContext(school.NewContext(edge.NewContext(req.Context(), info), b.e.schools[b.host])))
	return s, ok
}
