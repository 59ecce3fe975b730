package account_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/mux"

	"github.com/proctorhq/proctor/account"
	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/consent"
	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/mail"
	"github.com/proctorhq/proctor/password"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/gormstore"
	"github.com/proctorhq/proctor/storage/gormstore/storetest"
	"github.com/proctorhq/proctor/templates"
	"github.com/proctorhq/proctor/tenant"
)

// cheap keeps argon2id fast in tests; Verify reads the parameters from the hash.
var cheap = password.Params{MemoryKiB: 64, Time: 1, Threads: 1}

const (
	hostA       = "a.test"
	hostB       = "b.test"
	annEmail    = "ann@example.com"
	annPassword = "correct horse battery staple"
	newPassword = "a brand new passphrase"
	addrDefault = "192.0.2.1"
)

var testSecret = config.Secret([]byte("0123456789abcdef0123456789abcdef"))

// clock is a settable time source.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// countingStore counts the link lookups and link writes a test wants to see (or not see).
type countingStore struct {
	*gormstore.Store
	getLinks, consumeLinks, createLinks atomic.Int64
}

func (s *countingStore) GetLink(ctx context.Context, id string, p account.Purpose, at time.Time) (account.Link, error) {
	s.getLinks.Add(1)
	return s.Store.GetLink(ctx, id, p, at)
}

func (s *countingStore) ConsumeLink(ctx context.Context, id string, p account.Purpose, at time.Time) (account.Link, error) {
	s.consumeLinks.Add(1)
	return s.Store.ConsumeLink(ctx, id, p, at)
}

func (s *countingStore) CreateLink(ctx context.Context, l account.Link) error {
	s.createLinks.Add(1)
	return s.Store.CreateLink(ctx, l)
}

// countingOutbox records the kinds of the entries put into the outbox.
type countingOutbox struct {
	mail.Outbox
	mu    sync.Mutex
	kinds []string
	// fail makes EnqueueMail fail as an unreachable database would.
	fail atomic.Bool
}

func (o *countingOutbox) EnqueueMail(ctx context.Context, e mail.Entry) (int64, error) {
	if o.fail.Load() {
		return 0, fmt.Errorf("outbox: connection refused: %w", storage.ErrUnavailable)
	}
	o.mu.Lock()
	o.kinds = append(o.kinds, e.Kind)
	o.mu.Unlock()
	return o.Outbox.EnqueueMail(ctx, e)
}

func (o *countingOutbox) Kinds() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.kinds...)
}

// logBuffer keeps every log line of the handlers and the service.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

type env struct {
	t       *testing.T
	gs      *gormstore.Store
	store   *countingStore
	outbox  *countingOutbox
	clock   *clock
	tenants map[string]*tenant.Tenant
	reg     *tenant.Registry
	consent *consent.Handler
	svc     *account.Service
	h       *account.Handler
	srv     *httptest.Server
	log     *logBuffer
	logger  *slog.Logger
	post    *postman
	ann     storage.Member
	// tokens are every link token the tests saw, checked against the log at the end.
	tokens []string
}

// newEnv builds the account and consent handlers on a real store (SQLite, or PostgreSQL when
// PROCTOR_TEST_POSTGRES_DSN is set) behind a real HTTP server, with two schools (a.test and
// b.test) and one member, Ann, a student at school A with a password.
func newEnv(t *testing.T) *env { return newEnvOn(t, gormstore.DriverSQLite) }

// newEnvOn is newEnv on the given backend.
func newEnvOn(t *testing.T, backend string) *env {
	t.Helper()
	ctx := t.Context()
	gs := storetest.Open(t, backend)
	e := &env{
		t:      t,
		gs:     gs,
		store:  &countingStore{Store: gs},
		outbox: &countingOutbox{Outbox: gs},
		clock:  &clock{t: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)},
		tenants: map[string]*tenant.Tenant{
			hostA: {SchoolID: 1, Subdomain: "a", Name: "School A", Origin: "http://" + hostA, Host: hostA},
			hostB: {SchoolID: 2, Subdomain: "b", Name: "School B", Origin: "http://" + hostB, Host: hostB},
		},
		log: &logBuffer{},
	}
	var err error
	if e.reg, err = tenant.NewRegistry([]*tenant.Tenant{e.tenants[hostA], e.tenants[hostB]}); err != nil {
		t.Fatal(err)
	}
	for _, tn := range e.tenants {
		if err := gs.SyncSchool(ctx, tn.SchoolID, tn.Subdomain, tn.Name); err != nil {
			t.Fatal(err)
		}
	}
	hash, err := password.Hash(annPassword, cheap)
	if err != nil {
		t.Fatal(err)
	}
	if e.ann, err = gs.CreateMember(ctx, storage.Member{Email: annEmail, Name: "Ann Example", PasswordHash: hash}); err != nil {
		t.Fatal(err)
	}
	if err := gs.SetRoles(e.ctx(hostA), e.ann.ID, []storage.Role{storage.RoleStudent}); err != nil {
		t.Fatal(err)
	}
	tpl, err := templates.New()
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.NewJSONHandler(e.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	e.logger = logger
	limiter := consent.NewMemoryLimiter(0, e.clock.Now)
	queue, err := mail.NewQueue(e.outbox, testSecret, e.clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	if e.consent, err = consent.New(consent.Deps{Store: gs, Secret: testSecret, Templates: tpl, Now: e.clock.Now, Logger: logger, Limiter: limiter}); err != nil {
		t.Fatal(err)
	}
	e.svc, err = account.NewService(account.ServiceDeps{
		Store: e.store, Mail: queue, Templates: tpl, Secret: testSecret, Limiter: limiter,
		Tenants: e.reg.BySchoolID, Logger: logger, Now: e.clock.Now, PasswordParams: cheap,
	})
	if err != nil {
		t.Fatal(err)
	}
	e.h, err = account.New(account.Deps{Store: e.store, Consent: e.consent, Templates: tpl, Mail: queue, Secret: testSecret, Limiter: limiter, Logger: logger, Now: e.clock.Now, Service: e.svc})
	if err != nil {
		t.Fatal(err)
	}
	r := mux.NewRouter()
	e.consent.Mount(r)
	e.h.Mount(r)
	e.srv = httptest.NewServer(e.middleware(r))
	t.Cleanup(e.srv.Close)
	e.post = newPostman(e)
	t.Cleanup(func() {
		logs := e.log.String()
		for _, tok := range e.tokens {
			if strings.Contains(logs, tok) {
				t.Errorf("a link token appears in the log")
			}
		}
	})
	return e
}

// middleware stands in for the server's: the school by Host, and the edge info a trusted proxy
// would give (the client address from a test-only header).
func (e *env) middleware(next http.Handler) http.Handler {
	var n atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, err := net.SplitHostPort(r.Host)
		if err != nil {
			host = r.Host
		}
		tn, ok := e.tenants[host]
		if !ok {
			http.NotFound(w, r)
			return
		}
		addr := netip.MustParseAddr(addrDefault)
		if a := r.Header.Get("X-Test-Addr"); a != "" {
			addr = netip.MustParseAddr(a)
		}
		info := &edge.Info{ID: "req-" + string(rune('a'+n.Add(1)%26)), ClientAddr: addr}
		next.ServeHTTP(w, r.WithContext(tenant.NewContext(edge.NewContext(r.Context(), info), tn)))
	})
}

// ctx is a context of the school served at host.
func (e *env) ctx(host string) context.Context {
	return tenant.NewContext(e.t.Context(), e.tenants[host])
}

// browser is a real HTTP client with its own cookie jar; every host name reaches the test
// server, so that each school keeps its own cookies, and redirects are not followed.
type browser struct {
	e    *env
	c    *http.Client
	addr string
}

func (e *env) browser() *browser {
	jar, err := cookiejar.New(nil)
	if err != nil {
		e.t.Fatal(err)
	}
	srvAddr := e.srv.Listener.Addr().String()
	tr := &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, srvAddr)
	}}
	e.t.Cleanup(tr.CloseIdleConnections)
	return &browser{e: e, c: &http.Client{
		Jar: jar, Transport: tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

type response struct {
	status int
	header http.Header
	body   string
}

func (r response) location() string { return r.header.Get("Location") }

func (b *browser) do(method, rawURL string, form url.Values) response {
	b.e.t.Helper()
	res, err := b.try(method, rawURL, form)
	if err != nil {
		b.e.t.Fatal(err)
	}
	return res
}

// try is do for a goroutine: it returns the error instead of failing the test.
func (b *browser) try(method, rawURL string, form url.Values) (response, error) {
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(b.e.t.Context(), method, rawURL, body)
	if err != nil {
		return response{}, err
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if b.addr != "" {
		req.Header.Set("X-Test-Addr", b.addr)
	}
	res, err := b.c.Do(req)
	if err != nil {
		return response{}, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return response{}, err
	}
	return response{status: res.StatusCode, header: res.Header, body: string(raw)}, nil
}

func (b *browser) get(rawURL string) response { return b.do(http.MethodGet, rawURL, nil) }

func (b *browser) post(rawURL string, form url.Values) response {
	return b.do(http.MethodPost, rawURL, form)
}

var (
	csrfPattern  = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)
	tokenPattern = regexp.MustCompile(`name="token" value="([^"]+)"`)
)

// csrfFrom returns the csrf_token of the first form in a page.
func csrfFrom(t *testing.T, page string) string {
	t.Helper()
	m := csrfPattern.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no csrf_token in page:\n%s", page)
	}
	return m[1]
}

// signIn signs in through the sign-in form at host.
func (b *browser) signIn(host, email, pw string) response {
	b.e.t.Helper()
	form := b.get("http://" + host + consent.LoginPath)
	if form.status != http.StatusOK {
		b.e.t.Fatalf("GET /login: %d", form.status)
	}
	return b.post("http://"+host+consent.LoginPath, url.Values{
		"email": {email}, "password": {pw}, consent.CSRFField: {csrfFrom(b.e.t, form.body)},
	})
}

// signedIn reports whether the browser's session at host works (GET /login/done shows the
// signed-in page rather than sending it to sign in).
func (b *browser) signedIn(host string) bool {
	b.e.t.Helper()
	res := b.get("http://" + host + consent.DonePath)
	return res.status == http.StatusOK
}

var linkPattern = regexp.MustCompile(`http://[a-z.]+/(?:invitation|login/reset)\?token=[A-Za-z0-9_-]+`)

// linkIn returns the one link of a message's text, remembered so that the log can be checked
// for it.
func (e *env) linkIn(m sent) string {
	e.t.Helper()
	links := linkPattern.FindAllString(m.Text, -1)
	if len(links) != 1 {
		e.t.Fatalf("%d links in the message:\n%s", len(links), m.Text)
	}
	u, err := url.Parse(links[0])
	if err != nil {
		e.t.Fatal(err)
	}
	e.tokens = append(e.tokens, u.Query().Get("token"))
	if !strings.Contains(m.HTML, links[0]) {
		e.t.Errorf("the HTML part lacks the link %s", links[0])
	}
	return links[0]
}

// invite invites email to the school at host and returns the link of the message it sent.
func (e *env) invite(host, email, name string, roles ...storage.Role) (account.InviteResult, string) {
	e.t.Helper()
	res, err := e.svc.Invite(e.ctx(host), account.Invitation{Email: email, Name: name, Roles: roles})
	if err != nil {
		e.t.Fatal(err)
	}
	msgs := e.post.deliver()
	if len(msgs) != 1 || msgs[0].To != strings.ToLower(email) || !strings.HasPrefix(msgs[0].Subject, "You are invited to") {
		e.t.Fatalf("invitation sent %+v", msgs)
	}
	return res, e.linkIn(msgs[0])
}

// forgot posts the forgotten-password form for email at host from a fresh form.
func (b *browser) forgot(host, email string) response {
	b.e.t.Helper()
	form := b.get("http://" + host + account.ForgotPath)
	if form.status != http.StatusOK {
		b.e.t.Fatalf("GET %s: %d", account.ForgotPath, form.status)
	}
	return b.post("http://"+host+account.ForgotPath, url.Values{"email": {email}, consent.CSRFField: {csrfFrom(b.e.t, form.body)}})
}

// resetLink asks for a reset of Ann's password at host and returns the link the worker sent.
func (e *env) resetLink(host, email string) string {
	e.t.Helper()
	if res := e.browser().forgot(host, email); res.status != http.StatusOK {
		e.t.Fatalf("POST %s: %d", account.ForgotPath, res.status)
	}
	msgs := e.post.deliver()
	if len(msgs) != 1 || !strings.HasPrefix(msgs[0].Subject, "Reset your password") || msgs[0].To != email {
		e.t.Fatalf("reset sent %+v", msgs)
	}
	return e.linkIn(msgs[0])
}

// openForm GETs a link's page and returns the form's hidden token and CSRF token.
func (b *browser) openForm(link string) (token, csrf string) {
	b.e.t.Helper()
	res := b.get(link)
	if res.status != http.StatusOK {
		b.e.t.Fatalf("GET %s: %d\n%s", link, res.status, res.body)
	}
	m := tokenPattern.FindStringSubmatch(res.body)
	if m == nil {
		b.e.t.Fatalf("no token field in\n%s", res.body)
	}
	return m[1], csrfFrom(b.e.t, res.body)
}

// setPassword opens link's page and posts a new password through its form.
func (b *browser) setPassword(link, pw string, extra url.Values) response {
	b.e.t.Helper()
	token, csrf := b.openForm(link)
	u, _ := url.Parse(link)
	form := url.Values{"token": {token}, "password": {pw}, "password2": {pw}, consent.CSRFField: {csrf}}
	for k, v := range extra {
		form[k] = v
	}
	return b.post(u.Scheme+"://"+u.Host+u.Path, form)
}

func (e *env) member(email string) storage.Member {
	e.t.Helper()
	m, err := e.gs.GetMemberByEmail(e.t.Context(), email)
	if err != nil {
		e.t.Fatal(err)
	}
	return m
}

// randomToken is a well-formed link token that was never issued.
func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
