package account_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/proctorhq/proctor/account"
	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/authz"
	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/keys"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/mail"
	"github.com/proctorhq/proctor/mail/mailbox"
	"github.com/proctorhq/proctor/resource/verifier"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/server/servertest"
	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/gormstore"
	"github.com/proctorhq/proctor/templates"
)

const (
	annEmail    = "ann@example.com"
	bobEmail    = "bob@example.com"
	memberPass  = schools.Password
	newPassword = "a brand new passphrase"
	redirectURI = "http://127.0.0.1/callback"
	chromeMac   = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
	firefoxWin  = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0"
	// addrDefault is the client address of a browser that sets none: the test server's peer.
	addrDefault = "127.0.0.1"
)

var (
	testSecret = schools.Secret
	cheap      = schools.Cheap
	// cheapHash is memberPass hashed with cheap, every created member's password.
	cheapHash = schools.CheapHash()
)

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

// env is the account handlers and service with the sign-in pages and the authorization server,
// composed as the server composes them, behind a real HTTP server, on a real store (SQLite, or
// PostgreSQL when PROCTOR_TEST_POSTGRES_DSN is set): school A (Northwind) at
// http://127.0.0.1:<port> and school B (Lumen) at http://localhost:<port>, told apart by Host.
// Ann is a student at A, Bob too; A has two public member clients, study-buddy and flash-cards.
// The account store and the outbox are wrapped to count link operations and outbox entries, every
// part runs on a settable clock, and the mail worker sends over SMTP to an in-process mailbox.
type env struct {
	t      *testing.T
	gs     *gormstore.Store
	store  *countingStore
	outbox *countingOutbox
	clock  *schools.Clock
	a, b   *school.School
	login  *login.Handler
	svc    *account.Service
	h      *account.Handler
	srv    *httptest.Server
	log    *schools.LogBuffer
	logger *slog.Logger
	// post sends the outbox over SMTP to a mailbox of the test.
	post *servertest.PostOffice
	// oauth asks UserInfo whether a token still works.
	oauth *servertest.OAuth
	// audit is the security event log's one recorder, as the server builds it.
	audit    *audit.Recorder
	ann, bob storage.Member
	// tokens are every link token the tests saw, checked against the log at the end.
	tokens []string
}

// eachBackend runs f on a new env on every backend storetest offers.
func eachBackend(t *testing.T, f func(t *testing.T, e *env)) { schools.EachBackend(t, newEnvOn, f) }

// newEnv is an env on SQLite.
func newEnv(t *testing.T) *env { return newEnvOn(t, gormstore.DriverSQLite) }

// workerLook is the look the server would give the mail worker's messages: school 1 has a
// colour and a logo, the others none.
func workerLook(_ context.Context, t *school.School) templates.Look {
	if t.SchoolID != 1 {
		return templates.Look{Theme: "auto"}
	}
	return templates.Look{Theme: "light", Color: "#0f766e", LogoURL: t.URL("/assets/logo-0123456789abcdef")}
}

// newEnvOn builds the env on the given backend.
func newEnvOn(t *testing.T, backend string) *env { return newEnvWith(t, backend, nil) }

// newEnvWith builds the env on the given backend, with opt, if set, changing the sign-in
// pages' deps.
func newEnvWith(t *testing.T, backend string, opt func(*login.Deps)) *env {
	t.Helper()
	sch := schools.New(t, schools.Options{Backend: backend})
	gs := sch.Store
	e := &env{
		t:      t,
		gs:     gs,
		store:  &countingStore{Store: gs},
		outbox: &countingOutbox{Outbox: gs},
		clock:  schools.NewClock(time.Now().UTC().Truncate(time.Second)),
		srv:    sch.Server,
		a:      sch.A,
		b:      sch.B,
		oauth:  servertest.NewOAuth(t),
	}
	pages := servertest.NewLogin(t, sch, e.clock.Now, opt)
	e.login, e.log, e.logger, e.audit = pages.Handler, pages.Log, pages.Logger, pages.Audit
	queue, err := mail.NewQueue(e.outbox, testSecret, e.clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	if e.svc, err = account.NewService(account.ServiceDeps{
		Store: e.store, Mail: queue, Templates: pages.Templates, Secret: testSecret, Limiter: pages.Limiter,
		Schools: sch.Registry.BySchoolID, Logger: e.logger, Now: e.clock.Now, PasswordParams: cheap, Audit: e.audit,
		Look: workerLook, HashNew: e.login.HashNewPassword,
	}); err != nil {
		t.Fatal(err)
	}
	if e.h, err = account.New(account.Deps{Service: e.svc, Login: e.login}); err != nil {
		t.Fatal(err)
	}
	tokens := verifier.New(gs, authz.TokenHMACKey(testSecret), nil)
	e.h.Mount(pages.Router)
	authz.New(authz.Deps{
		Store: gs, Secret: testSecret, Login: e.login, Logger: e.logger, Now: e.clock.Now, Verifier: tokens,
		Keys: keys.NewManager(gs, testSecret, keys.Options{Now: e.clock.Now}),
	}).Mount(pages.Router)

	e.post = e.postOffice(mail.Options{MaxAttempts: 1})

	e.ann = schools.Member(t, gs, annEmail, "Ann Example", schools.At(e.a, storage.RoleStudent))
	e.bob = schools.Member(t, gs, bobEmail, "Bob Example", schools.At(e.a, storage.RoleStudent))
	scopes := []string{"openid", "profile", "email", "account:read", "account:write"}
	for _, c := range []storage.Client{
		{ID: "study-buddy", Name: "Study Buddy"},
		{ID: "flash-cards", Name: "Flash Cards"},
	} {
		c.Kind, c.TokenEndpointAuthMethod, c.RedirectURIs, c.Scopes = storage.ClientMember, storage.AuthMethodNone, []string{redirectURI}, scopes
		if _, err := gs.CreateClient(e.ctx(e.a), c); err != nil {
			t.Fatal(err)
		}
	}
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

// ctx is a context of school s.
func (e *env) ctx(s *school.School) context.Context { return school.NewContext(e.t.Context(), s) }

// url is path at school s.
func (e *env) url(s *school.School, path string) string { return s.Origin + path }

// member reads the member with the address email.
func (e *env) member(email string) storage.Member {
	e.t.Helper()
	return schools.MemberByEmail(e.t, e.gs, email)
}

// browser is a member's browser: its own cookies, User-Agent and client address (the test
// server's peer unless Addr is set), no automatic redirects.
type browser struct {
	*servertest.Pages
	e *env
}

func (e *env) browser() *browser { return e.browserAs("") }

// browserAs is a browser that sends the User-Agent ua.
func (e *env) browserAs(ua string) *browser {
	b := &browser{Pages: servertest.NewPages(e.t, nil), e: e}
	b.UA = ua
	return b
}

// devices are the signed-in browsers of the session tests: Ann, a student at both schools, at A
// on a Mac with Chrome (here) and on Windows with Firefox (laptop), at B with Firefox (atB), and
// Bob at A with Chrome.
type devices struct{ here, laptop, atB, bob *browser }

func (e *env) devices() devices {
	e.t.Helper()
	schools.SetRoles(e.t, e.gs, e.b, e.ann.ID, storage.RoleStudent)
	d := devices{here: e.browserAs(chromeMac), laptop: e.browserAs(firefoxWin), atB: e.browserAs(firefoxWin), bob: e.browserAs(chromeMac)}
	d.here.SignIn(e.a, annEmail)
	d.laptop.SignIn(e.a, annEmail)
	d.atB.SignIn(e.b, annEmail)
	d.bob.SignIn(e.a, bobEmail)
	return d
}

// response is an answer with its body read.
type response = servertest.Response

// page loads /account at school s and fails unless it is shown.
func (b *browser) page(s *school.School) string {
	b.e.t.Helper()
	res := b.Get(b.e.url(s, account.AccountPath))
	if res.Status != http.StatusOK {
		b.e.t.Fatalf("GET /account: %d (%s)\n%s", res.Status, res.Header.Get("Location"), res.Body)
	}
	return res.Body
}

// submit loads the account page, fills the form posting to action with fields and posts it.
func (b *browser) submit(s *school.School, action string, fields url.Values) *response {
	b.e.t.Helper()
	f := formWith(b.e.t, b.page(s), action)
	for k, v := range fields {
		f[k] = v
	}
	return b.Post(b.e.url(s, action), f)
}

// forms are the forms of a page, their actions as written.
func forms(page string) []servertest.Form { return servertest.ParseForms(nil, page) }

// formWith returns the values of the first form of page that posts to action.
func formWith(t testing.TB, page, action string) url.Values {
	t.Helper()
	for _, f := range forms(page) {
		if f.Action == action {
			return f.Values
		}
	}
	t.Fatalf("no form posting to %s on the page:\n%s", action, page)
	return nil
}

// formHaving returns the values of the first form of page that has a field named field.
func formHaving(t testing.TB, page, field string) url.Values {
	t.Helper()
	for _, f := range forms(page) {
		if f.Values.Has(field) {
			return f.Values
		}
	}
	t.Fatalf("no form with a field %s on the page:\n%s", field, page)
	return nil
}

// allForms returns the values of every form posting to action (the session and application
// lists have one per line).
func allForms(page, action string) []url.Values {
	var out []url.Values
	for _, f := range forms(page) {
		if f.Action == action {
			out = append(out, f.Values)
		}
	}
	return out
}

// forgot posts the forgotten-password form for email at school s from a fresh form.
func (b *browser) forgot(s *school.School, email string) *response {
	b.e.t.Helper()
	form := b.Get(b.e.url(s, account.ForgotPath))
	if form.Status != http.StatusOK {
		b.e.t.Fatalf("GET %s: %d", account.ForgotPath, form.Status)
	}
	return b.Post(b.e.url(s, account.ForgotPath), url.Values{"email": {email}, login.CSRFField: {form.CSRF(b.e.t)}})
}

// openForm GETs a link's page and returns the form's hidden token and CSRF token.
func (b *browser) openForm(link string) (token, csrf string) {
	b.e.t.Helper()
	res := b.Get(link)
	if res.Status != http.StatusOK {
		b.e.t.Fatalf("GET %s: %d\n%s", link, res.Status, res.Body)
	}
	f := formHaving(b.e.t, res.Body, "token")
	return f.Get("token"), f.Get(login.CSRFField)
}

// setPassword opens link's page and posts a new password through its form.
func (b *browser) setPassword(link, pw string, extra url.Values) *response {
	b.e.t.Helper()
	token, csrf := b.openForm(link)
	u, _ := url.Parse(link)
	form := url.Values{"token": {token}, "password": {pw}, "password2": {pw}, login.CSRFField: {csrf}}
	for k, v := range extra {
		form[k] = v
	}
	return b.Post(u.Scheme+"://"+u.Host+u.Path, form)
}

// postOffice is a post office of the test, its worker with the account service's expanders,
// the clock and the log; o sets the rest.
func (e *env) postOffice(o mail.Options) *servertest.PostOffice {
	e.t.Helper()
	o.Expanders, o.Now, o.Logger = e.svc.Expanders(), e.clock.Now, e.logger
	return servertest.NewPostOffice(e.t, e.gs, testSecret, o)
}

// deliver runs the env's worker until nothing is due and returns the messages the mailbox
// received since the last deliver, each of which must parse.
func (e *env) deliver() []mailbox.Message {
	e.t.Helper()
	out := e.post.Deliver()
	for _, m := range out {
		if m.ParseError != "" {
			e.t.Fatalf("message %d: %s", m.Seq, m.ParseError)
		}
	}
	return out
}

// to is the To header's addresses of m.
func to(m mailbox.Message) string { return strings.Join(m.To, ",") }

var linkPattern = regexp.MustCompile(`http://[a-z0-9.:]+/(?:invitation|login/reset)\?token=[A-Za-z0-9_-]+`)

// linkIn returns the one link of a message's text, remembered so that the log can be checked
// for it.
func (e *env) linkIn(m mailbox.Message) string {
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

// invite invites email to school s and returns the link of the message it sent.
func (e *env) invite(s *school.School, email, name string, roles ...storage.Role) (account.InviteResult, string) {
	e.t.Helper()
	res, err := e.svc.Invite(e.ctx(s), account.Invitation{Email: email, Name: name, Roles: roles})
	if err != nil {
		e.t.Fatal(err)
	}
	msgs := e.deliver()
	if len(msgs) != 1 || to(msgs[0]) != strings.ToLower(email) || !strings.HasPrefix(msgs[0].Subject, "You are invited to") {
		e.t.Fatalf("invitation sent %+v", msgs)
	}
	return res, e.linkIn(msgs[0])
}

// resetLink asks for a reset of email's password at school s and returns the link the worker
// sent.
func (e *env) resetLink(s *school.School, email string) string {
	e.t.Helper()
	if res := e.browser().forgot(s, email); res.Status != http.StatusOK {
		e.t.Fatalf("POST %s: %d", account.ForgotPath, res.Status)
	}
	msgs := e.deliver()
	if len(msgs) != 1 || !strings.HasPrefix(msgs[0].Subject, "Reset your password") || to(msgs[0]) != email {
		e.t.Fatalf("reset sent %+v", msgs)
	}
	return e.linkIn(msgs[0])
}

// randomToken is a well-formed link token that was never issued.
func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// oauthConfig is a golang.org/x/oauth2 client of school A.
func (e *env) oauthConfig(clientID string) *oauth2.Config {
	return &oauth2.Config{
		ClientID: clientID, Scopes: []string{"openid", "profile", "account:read"}, RedirectURL: redirectURI,
		Endpoint: oauth2.Endpoint{AuthURL: e.url(e.a, endpoint.Authorize), TokenURL: e.url(e.a, endpoint.Token), AuthStyle: oauth2.AuthStyleInParams},
	}
}

// tokens runs a whole authorization of clientID at school A in a signed-in browser: the
// consent page approved, the code exchanged with PKCE.
func (b *browser) tokens(clientID string) *oauth2.Token {
	b.e.t.Helper()
	e := b.e
	cfg := e.oauthConfig(clientID)
	verifier := oauth2.GenerateVerifier()
	resource := oauth2.SetAuthURLParam("resource", e.a.Origin)
	authURL := cfg.AuthCodeURL("state-0123456789", oauth2.S256ChallengeOption(verifier), resource)
	code := b.Approve(authURL)
	tok, err := cfg.Exchange(e.t.Context(), code, oauth2.VerifierOption(verifier), resource)
	if err != nil {
		e.t.Fatalf("exchange: %v", err)
	}
	return tok
}

// userinfo answers the status of /api/oauth/userinfo at school A with token.
func (e *env) userinfo(token string) int {
	e.t.Helper()
	return e.oauth.Userinfo(e.a, token)
}

// wantRevoked checks that tok, of clientID at school A, works no more: its access token is refused
// at userinfo and its refresh token is invalid_grant. when says which tokens these are.
func (e *env) wantRevoked(clientID string, tok *oauth2.Token, when string) {
	e.t.Helper()
	if got := e.userinfo(tok.AccessToken); got != http.StatusUnauthorized {
		e.t.Errorf("userinfo with the access token %s: %d", when, got)
	}
	if got := e.refresh(clientID, tok.RefreshToken); got != "invalid_grant" {
		e.t.Errorf("refresh token %s: %q", when, got)
	}
}

// refresh tries a refresh token of clientID at school A and returns the OAuth error code ("" on
// success).
func (e *env) refresh(clientID, refreshToken string) string {
	e.t.Helper()
	res := e.browser().Post(e.url(e.a, endpoint.Token), url.Values{
		"grant_type": {"refresh_token"}, "refresh_token": {refreshToken}, "client_id": {clientID}, "resource": {e.a.Origin},
	})
	var body struct {
		Error string `json:"error"`
	}
	_ = res.JSON(&body)
	if res.Status == http.StatusOK {
		return ""
	}
	if body.Error == "" {
		return fmt.Sprintf("status %d", res.Status)
	}
	return body.Error
}
