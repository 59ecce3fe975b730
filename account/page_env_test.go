package account_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/mux"
	"golang.org/x/net/html"
	"golang.org/x/oauth2"

	"github.com/proctorhq/proctor/account"
	"github.com/proctorhq/proctor/authz"
	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/consent"
	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/keys"
	"github.com/proctorhq/proctor/mail"
	"github.com/proctorhq/proctor/mail/mailbox"
	"github.com/proctorhq/proctor/password"
	"github.com/proctorhq/proctor/resource"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/gormstore"
	"github.com/proctorhq/proctor/storage/gormstore/storetest"
	"github.com/proctorhq/proctor/templates"
	"github.com/proctorhq/proctor/tenant"
)

const (
	bobEmail    = "bob@example.com"
	memberPass  = "correct horse battery staple"
	redirectURI = "http://127.0.0.1/callback"
	chromeMac   = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
	firefoxWin  = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0"
)

// cheapHash keeps members' creation and sign-in fast; Verify reads the parameters from the hash.
var cheapHash = func() string {
	h, err := password.Hash(memberPass, password.Params{MemoryKiB: 64, Time: 1, Threads: 1})
	if err != nil {
		panic(err)
	}
	return h
}()

// env is the account page with the sign-in pages and the authorization server, as the server
// composes them, behind a real HTTP server: school A at 127.0.0.1:<port>, school B at
// localhost:<port>; Ann is a student at both, Bob at A.
type pageEnv struct {
	t        *testing.T
	store    *gormstore.Store
	srv      *httptest.Server
	secret   config.Secret
	a, b     *tenant.Tenant
	ann, bob storage.Member
	// worker sends the outbox's messages over SMTP to box, an in-process SMTP server.
	worker *mail.Worker
	box    *mailbox.Mailbox
}

var requestSeq atomic.Int64

func eachBackend(t *testing.T, f func(t *testing.T, e *pageEnv)) {
	for _, backend := range storetest.Backends() {
		t.Run(backend, func(t *testing.T) { f(t, newPageEnv(t, backend)) })
	}
}

func newPageEnv(t *testing.T, backend string) *pageEnv {
	t.Helper()
	e := &pageEnv{t: t, secret: config.Secret(bytes.Repeat([]byte("s"), 32))}
	e.store = storetest.Open(t, backend)
	var handler http.Handler
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler.ServeHTTP(w, r) }))
	t.Cleanup(e.srv.Close)
	_, port, _ := net.SplitHostPort(e.srv.Listener.Addr().String())

	var tenants []*tenant.Tenant
	for _, c := range []config.Tenant{
		{SchoolID: 1, Subdomain: "north", Name: "Northwind", BaseURL: "http://127.0.0.1:" + port},
		{SchoolID: 2, Subdomain: "lumen", Name: "Lumen", BaseURL: "http://localhost:" + port},
	} {
		c.Lifetimes = config.DefaultTenant().Lifetimes
		tn, err := tenant.New(c)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.store.SyncSchool(t.Context(), tn.SchoolID, tn.Subdomain, tn.Name); err != nil {
			t.Fatal(err)
		}
		tenants = append(tenants, tn)
	}
	e.a, e.b = tenants[0], tenants[1]
	reg, err := tenant.NewRegistry(tenants)
	if err != nil {
		t.Fatal(err)
	}

	tpl, err := templates.New()
	if err != nil {
		t.Fatal(err)
	}
	var acct *account.Handler
	login, err := consent.New(consent.Deps{
		Store: e.store, Secret: e.secret, Templates: tpl,
		OnSignIn: func(ctx context.Context, r *http.Request, m storage.Member) { acct.RecordSignIn(ctx, r, m) },
	})
	if err != nil {
		t.Fatal(err)
	}
	queue, err := mail.NewQueue(e.store, e.secret, nil)
	if err != nil {
		t.Fatal(err)
	}
	if e.box, err = mailbox.Start(mailbox.Options{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.box.Close() })
	host, port, _ := net.SplitHostPort(e.box.Addr())
	smtpPort, _ := strconv.Atoi(port)
	sender, err := mail.NewSMTPSender(mail.SMTPSettings{Host: host, Port: smtpPort, TLS: config.MailTLSNone, Timeout: 30 * time.Second},
		func(int64) (string, string) { return "school@example.com", "School" })
	if err != nil {
		t.Fatal(err)
	}
	if e.worker, err = mail.NewWorker(e.store, sender, e.secret, mail.Options{}); err != nil {
		t.Fatal(err)
	}
	acct, err = account.New(account.Deps{Store: e.store, Consent: login, Templates: tpl, Mail: queue, Secret: e.secret})
	if err != nil {
		t.Fatal(err)
	}
	verifier := resource.NewStoreVerifier(e.store, authz.TokenHMACKey(e.secret), nil)
	r := mux.NewRouter()
	login.Mount(r)
	acct.Mount(r)
	authz.New(authz.Deps{Store: e.store, Secret: e.secret, Consent: login, Keys: keys.NewManager(e.store, e.secret, keys.Options{}), Verifier: verifier}).Mount(r)

	// What the server's middleware does before routing: the school by Host, the request's id
	// and client address.
	handler = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		tn, ok := reg.Resolve(req.Host)
		if !ok {
			http.NotFound(w, req)
			return
		}
		ap, _ := netip.ParseAddrPort(req.RemoteAddr)
		info := &edge.Info{ID: fmt.Sprintf("req-%d", requestSeq.Add(1)), ClientAddr: ap.Addr()}
		r.ServeHTTP(w, req.WithContext(tenant.NewContext(edge.NewContext(req.Context(), info), tn)))
	})

	e.ann = e.member(annEmail, "Ann Example", e.a, e.b)
	e.bob = e.member(bobEmail, "Bob Example", e.a)
	scopes := []string{"openid", "profile", "email", "account:read", "account:write"}
	for _, c := range []storage.Client{
		{ID: "study-buddy", Name: "Study Buddy"},
		{ID: "flash-cards", Name: "Flash Cards"},
	} {
		c.Kind, c.TokenEndpointAuthMethod, c.RedirectURIs, c.Scopes = storage.ClientMember, storage.AuthMethodNone, []string{redirectURI}, scopes
		if _, err := e.store.CreateClient(e.ctx(e.a), c); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

func (e *pageEnv) ctx(t *tenant.Tenant) context.Context { return tenant.NewContext(e.t.Context(), t) }

// member creates a member who is a student at the given schools.
func (e *pageEnv) member(email, name string, schools ...*tenant.Tenant) storage.Member {
	e.t.Helper()
	m, err := e.store.CreateMember(e.ctx(schools[0]), storage.Member{Email: email, Name: name, PasswordHash: cheapHash})
	if err != nil {
		e.t.Fatal(err)
	}
	for _, s := range schools {
		if err := e.store.SetRoles(e.ctx(s), m.ID, []storage.Role{storage.RoleStudent}); err != nil {
			e.t.Fatal(err)
		}
	}
	return m
}

func (e *pageEnv) url(t *tenant.Tenant, path string) string { return t.Origin + path }

// browser is a member's browser: its own cookies and User-Agent, no automatic redirects.
type pageBrowser struct {
	e      *pageEnv
	ua     string
	client *http.Client
}

func (e *pageEnv) pageBrowser(ua string) *pageBrowser {
	jar, _ := cookiejar.New(nil)
	return &pageBrowser{e: e, ua: ua, client: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

type pageResponse struct {
	*http.Response
	body string
}

func (b *pageBrowser) do(req *http.Request) pageResponse {
	b.e.t.Helper()
	req.Header.Set("User-Agent", b.ua)
	resp, err := b.client.Do(req)
	if err != nil {
		b.e.t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return pageResponse{resp, string(body)}
}

func (b *pageBrowser) get(rawURL string) pageResponse {
	req, _ := http.NewRequest(http.MethodGet, rawURL, nil)
	return b.do(req)
}

func (b *pageBrowser) post(rawURL string, form url.Values) pageResponse {
	req, _ := http.NewRequest(http.MethodPost, rawURL, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return b.do(req)
}

// signIn signs the browser in at school t.
func (b *pageBrowser) signIn(t *tenant.Tenant, email string) {
	b.e.t.Helper()
	res := b.get(b.e.url(t, consent.LoginPath))
	f := formWith(b.e.t, res.body, consent.LoginPath)
	f.Set("email", email)
	f.Set("password", memberPass)
	if res = b.post(b.e.url(t, consent.LoginPath), f); res.StatusCode != http.StatusSeeOther {
		b.e.t.Fatalf("sign in as %s: %d\n%s", email, res.StatusCode, res.body)
	}
}

// page loads /account at school t and fails unless it is shown.
func (b *pageBrowser) page(t *tenant.Tenant) string {
	b.e.t.Helper()
	res := b.get(b.e.url(t, account.AccountPath))
	if res.StatusCode != http.StatusOK {
		b.e.t.Fatalf("GET /account: %d (%s)\n%s", res.StatusCode, res.Header.Get("Location"), res.body)
	}
	return res.body
}

// submit loads the account page, fills the form posting to action with fields and posts it.
func (b *pageBrowser) submit(t *tenant.Tenant, action string, fields url.Values) pageResponse {
	b.e.t.Helper()
	f := formWith(b.e.t, b.page(t), action)
	for k, v := range fields {
		f[k] = v
	}
	return b.post(b.e.url(t, action), f)
}

// signedIn reports whether the browser's session at t still opens the account page.
func (b *pageBrowser) signedIn(t *tenant.Tenant) bool {
	b.e.t.Helper()
	res := b.get(b.e.url(t, account.AccountPath))
	switch res.StatusCode {
	case http.StatusOK:
		return true
	case http.StatusSeeOther:
		return false
	}
	b.e.t.Fatalf("GET /account: %d\n%s", res.StatusCode, res.body)
	return false
}

// formWith returns the values of the first form of page whose action is action (every input
// with a name, hidden or not; checkboxes left out).
func formWith(t testing.TB, page, action string) url.Values {
	t.Helper()
	var (
		in     bool
		values url.Values
	)
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
		case tok.Data == "form" && tt == html.StartTagToken && values == nil && attr("action") == action:
			in, values = true, url.Values{}
		case tok.Data == "form" && tt == html.EndTagToken && in:
			return values
		case in && tok.Data == "input" && attr("name") != "" && attr("type") != "checkbox":
			values.Set(attr("name"), attr("value"))
		}
	}
	t.Fatalf("no form posting to %s on the page:\n%s", action, page)
	return nil
}

// allForms returns every form posting to action (the session and application lists have one
// per line).
func allForms(page, action string) []url.Values {
	var out []url.Values
	for rest := page; ; {
		i := strings.Index(rest, `action="`+action+`"`)
		if i < 0 {
			return out
		}
		rest = rest[i:]
		end := strings.Index(rest, "</form>")
		out = append(out, hiddenInputs(rest[:end]))
		rest = rest[end:]
	}
}

var hiddenInput = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)

func hiddenInputs(s string) url.Values {
	v := url.Values{}
	for _, m := range hiddenInput.FindAllStringSubmatch(s, -1) {
		v.Set(m[1], html.UnescapeString(m[2]))
	}
	return v
}

// mails sends what the outbox holds through the worker and returns every message the SMTP
// server received so far.
func (e *pageEnv) mails() []mailbox.Message {
	e.t.Helper()
	if _, err := e.worker.RunOnce(e.t.Context()); err != nil {
		e.t.Fatal(err)
	}
	return e.box.Messages()
}

// oauthConfig is a golang.org/x/oauth2 client of school A.
func (e *pageEnv) oauthConfig(clientID string) *oauth2.Config {
	return &oauth2.Config{
		ClientID: clientID, Scopes: []string{"openid", "profile", "account:read"}, RedirectURL: redirectURI,
		Endpoint: oauth2.Endpoint{AuthURL: e.url(e.a, authz.AuthorizePath), TokenURL: e.url(e.a, authz.TokenPath), AuthStyle: oauth2.AuthStyleInParams},
	}
}

// tokens runs a whole authorization of clientID at school A in a signed-in browser: the
// consent page approved, the code exchanged with PKCE.
func (b *pageBrowser) tokens(clientID string) *oauth2.Token {
	b.e.t.Helper()
	e := b.e
	cfg := e.oauthConfig(clientID)
	verifier := oauth2.GenerateVerifier()
	resource := oauth2.SetAuthURLParam("resource", e.a.Origin)
	authURL := cfg.AuthCodeURL("state-0123456789", oauth2.S256ChallengeOption(verifier), resource)
	res := b.get(authURL)
	if res.StatusCode != http.StatusOK {
		e.t.Fatalf("consent page: %d (%s)\n%s", res.StatusCode, res.Header.Get("Location"), res.body)
	}
	u, _ := url.Parse(authURL)
	f := formWith(e.t, res.body, u.RequestURI())
	f.Set("decision", "approve")
	res = b.post(authURL, f)
	if res.StatusCode != http.StatusSeeOther && res.StatusCode != http.StatusFound {
		e.t.Fatalf("approve: %d\n%s", res.StatusCode, res.body)
	}
	loc, err := url.Parse(res.Header.Get("Location"))
	if err != nil || loc.Query().Get("code") == "" {
		e.t.Fatalf("no code in %q", res.Header.Get("Location"))
	}
	tok, err := cfg.Exchange(e.t.Context(), loc.Query().Get("code"), oauth2.VerifierOption(verifier), resource)
	if err != nil {
		e.t.Fatalf("exchange: %v", err)
	}
	return tok
}

// userinfo answers the status of /api/oauth/userinfo with token.
func (e *pageEnv) userinfo(token string) int {
	e.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.url(e.a, authz.UserinfoPath), nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// refresh tries a refresh token of clientID at school A and returns the OAuth error code ("" on
// success).
func (e *pageEnv) refresh(clientID, refreshToken string) string {
	e.t.Helper()
	resp, err := http.PostForm(e.url(e.a, authz.TokenPath), url.Values{
		"grant_type": {"refresh_token"}, "refresh_token": {refreshToken}, "client_id": {clientID}, "resource": {e.a.Origin},
	})
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Error string `json:"error"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&body)
	if resp.StatusCode == http.StatusOK {
		return ""
	}
	if body.Error == "" {
		return fmt.Sprintf("status %d", resp.StatusCode)
	}
	return body.Error
}
