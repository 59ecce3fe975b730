package passkey_test

import (
	"context"
	"encoding/json"
	"html"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/mfa"
	"github.com/proctorhq/proctor/passkey"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/server/servertest"
	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/gormstore"
)

const memberPass = schools.Password

var (
	testSecret = schools.Secret
	cheapHash  = schools.CheapHash()
)

// env is the sign-in pages and the passkey pages, composed as the server composes them, behind
// a real HTTPS server on a real store (SQLite, or PostgreSQL when PROCTOR_TEST_POSTGRES_DSN is
// set). Schools A (https://north.example.com) and B (https://lumen.example.com) are told apart
// by Host, so each is its own relying party; school C is served at https://127.0.0.1:<port>, an
// address, which can have no passkeys. Browsers dial the one listener whatever the host and
// trust the test server's certificate (it names *.example.com and 127.0.0.1). Ann is a member
// of A, B and C, Bob of A.
type env struct {
	t       *testing.T
	gs      *gormstore.Store
	clock   *schools.Clock
	a, b, c *school.School
	srv     *httptest.Server
	log     *schools.LogBuffer
	ann     storage.Member
	bob     storage.Member
}

func eachBackend(t *testing.T, f func(t *testing.T, e *env)) { schools.EachBackend(t, newEnvOn, f) }

func newEnv(t *testing.T) *env { return newEnvOn(t, gormstore.DriverSQLite) }

func newEnvOn(t *testing.T, backend string) *env {
	t.Helper()
	sch := schools.New(t, schools.Options{Backend: backend, TLS: true, Files: func(port string) []config.School {
		files := []config.School{
			{SchoolID: 1, Subdomain: "north", Name: "Northwind", BaseURL: "https://north.example.com"},
			{SchoolID: 2, Subdomain: "lumen", Name: "Lumen", BaseURL: "https://lumen.example.com"},
			{SchoolID: 3, Subdomain: "numeric", Name: "Numeric", BaseURL: "https://127.0.0.1:" + port},
		}
		for i := range files {
			files[i].Lifetimes = config.DefaultSchool().Lifetimes
		}
		return files
	}})
	gs := sch.Store
	e := &env{t: t, gs: gs, clock: schools.NewClock(time.Now().UTC().Truncate(time.Second)), srv: sch.Server}
	e.a, e.b, e.c = sch.Schools[0], sch.Schools[1], sch.Schools[2]
	factors, err := mfa.NewService(mfa.ServiceDeps{Store: gs, Secret: testSecret, Now: e.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	pages := servertest.NewLogin(t, sch, e.clock.Now, func(d *login.Deps) { d.Factors = factors })
	e.log = pages.Log
	pk, err := passkey.New(passkey.Deps{
		Store: gs, Login: pages.Handler, Templates: pages.Templates, Secret: testSecret, Limiter: pages.Limiter,
		Logger: pages.Logger, Now: e.clock.Now, Audit: pages.Audit,
		AddressLimit: login.Limit{Max: 6, Window: 15 * time.Minute},
	})
	if err != nil {
		t.Fatal(err)
	}
	pk.Mount(pages.Router)

	student := storage.RoleStudent
	e.ann = schools.Member(t, e.gs, "ann@example.com", "Ann Example",
		schools.At(e.a, student), schools.At(e.b, student), schools.At(e.c, student))
	e.bob = schools.Member(t, e.gs, "bob@example.com", "Bob Example", schools.At(e.a, student))
	return e
}

func (e *env) ctx(s *school.School) context.Context { return school.NewContext(e.t.Context(), s) }

// events returns the security events of member m at s, oldest first, as "kind/result/detail".
func (e *env) events(s *school.School, m storage.Member) []string {
	e.t.Helper()
	evs, err := e.gs.ListSecurityEvents(e.ctx(s), audit.Filter{MemberID: m.ID, Limit: audit.MaxPage})
	if err != nil {
		e.t.Fatal(err)
	}
	var out []string
	for i := len(evs) - 1; i >= 0; i-- {
		out = append(out, string(evs[i].Kind)+"/"+string(evs[i].Result)+"/"+evs[i].Detail)
	}
	return out
}

// browser is a browser with its own cookies and, optionally, its own client address.
type browser struct {
	*servertest.Pages
	e *env
}

func (e *env) browser() *browser {
	dialer := &net.Dialer{}
	listener := e.srv.Listener.Addr().String()
	tr := &http.Transport{
		TLSClientConfig: e.srv.Client().Transport.(*http.Transport).TLSClientConfig.Clone(),
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return dialer.DialContext(ctx, network, listener)
		},
	}
	return &browser{Pages: servertest.NewPages(e.t, tr), e: e}
}

type response = servertest.Response

// signedInAs returns the e-mail the browser's session at s shows, or "" when it has none.
func (b *browser) signedInAs(s *school.School) string {
	b.e.t.Helper()
	res := b.Get(s.URL(login.DonePath))
	if res.Status != http.StatusOK {
		return ""
	}
	for _, m := range []storage.Member{b.e.ann, b.e.bob} {
		if strings.Contains(res.Body, m.Email) {
			return m.Email
		}
	}
	return "?"
}

// attr returns the first value of the HTML attribute written as prefix="..." in page.
func attr(t testing.TB, page, prefix string) string {
	t.Helper()
	m := regexp.MustCompile(regexp.QuoteMeta(prefix) + `="([^"]*)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no %s=\"...\" in the page:\n%s", prefix, page)
	}
	return html.UnescapeString(m[1])
}

// jsonBody decodes a JSON answer.
func jsonBody[T any](t testing.TB, res *response) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(res.Body), &v); err != nil {
		t.Fatalf("%s %s: %d, not JSON: %v\n%s", res.Method, res.URL, res.Status, err, res.Body)
	}
	return v
}

// errorBody is a JSON refusal.
type errorBody struct {
	Error       string `json:"error"`
	Description string `json:"error_description"`
}

// finished is a finish endpoint's answer.
type finished struct {
	Redirect string `json:"redirect"`
}

// ceremony is a begun ceremony: the options and the CSRF token it was begun with.
type ceremony struct {
	opts options
	csrf string
}

// annWithKey is a browser signed in as Ann at school A, where she has registered a passkey
// "Key", kept by auth as cred.
func (e *env) annWithKey() (*browser, *authenticator, *softCredential) {
	e.t.Helper()
	br := e.browser()
	br.SignIn(e.a, e.ann.Email)
	auth := &authenticator{t: e.t, origin: e.a.Origin}
	return br, auth, br.register(e.a, auth, "Key")
}

// beginRegistration opens the list page at s and begins adding a passkey.
func (b *browser) beginRegistration(s *school.School) ceremony {
	b.e.t.Helper()
	return b.begin(s, passkey.AccountPath, passkey.AccountPath, passkey.RegisterBeginPath, "register begin")
}

// begin opens the page at pageURL (path pagePath) at s and posts its CSRF token to beginPath,
// which answers with a ceremony's options; what names the step in a failure.
func (b *browser) begin(s *school.School, pageURL, pagePath, beginPath, what string) ceremony {
	b.e.t.Helper()
	page := b.Get(s.URL(pageURL))
	if page.Status != http.StatusOK {
		b.e.t.Fatalf("GET %s: %d\n%s", pagePath, page.Status, page.Body)
	}
	csrf := attr(b.e.t, page.Body, "data-csrf")
	res := b.Post(s.URL(beginPath), url.Values{"csrf_token": {csrf}})
	if res.Status != http.StatusOK {
		b.e.t.Fatalf("%s: %d\n%s", what, res.Status, res.Body)
	}
	return ceremony{opts: jsonBody[options](b.e.t, res), csrf: csrf}
}

// register adds a passkey of auth at s for the signed-in member, named name.
func (b *browser) register(s *school.School, auth *authenticator, name string) *softCredential {
	b.e.t.Helper()
	c := b.beginRegistration(s)
	res := b.Post(s.URL(passkey.RegisterFinishPath), url.Values{"csrf_token": {c.csrf}, "name": {name}, "response": {string(auth.create(c.opts))}})
	if res.Status != http.StatusOK {
		b.e.t.Fatalf("register finish: %d\n%s", res.Status, res.Body)
	}
	if got := jsonBody[finished](b.e.t, res).Redirect; got != passkey.AccountPath+"?done=added" {
		b.e.t.Errorf("register finish redirects to %q", got)
	}
	return auth.creds[len(auth.creds)-1]
}

// beginSignIn opens the passwordless sign-in page at s and begins a sign-in.
func (b *browser) beginSignIn(s *school.School) ceremony {
	b.e.t.Helper()
	return b.begin(s, passkey.SignInPath+"?return_to=%2Foauth%2Fauthorize%3Fx%3D1", passkey.SignInPath, passkey.SignInBeginPath, "sign-in begin")
}

// finishSignIn posts an assertion to s's finish endpoint.
func (b *browser) finishSignIn(s *school.School, c ceremony, assertion []byte) *response {
	b.e.t.Helper()
	return b.Post(s.URL(passkey.SignInFinishPath), url.Values{
		"csrf_token": {c.csrf}, "return_to": {"/oauth/authorize?x=1"}, "response": {string(assertion)},
	})
}

// signInWith signs in at s with a new ceremony, answered by auth with cred.
func (b *browser) signInWith(s *school.School, auth *authenticator, cred *softCredential) *response {
	b.e.t.Helper()
	c := b.beginSignIn(s)
	return b.finishSignIn(s, c, auth.assert(c.opts, cred))
}
