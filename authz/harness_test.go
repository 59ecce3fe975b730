package authz_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/proctorhq/proctor/authz"
	"github.com/proctorhq/proctor/client"
	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/resource/resourcetest"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/server"
	"github.com/proctorhq/proctor/server/servertest"
	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/gormstore"
)

// env is a whole Proctor behind a real HTTP server: school A at 127.0.0.1:<port> with ID
// tokens on, school B at localhost:<port> without, members with roles, and clients.
type env struct {
	backend string
	t       testing.TB
	srv     *httptest.Server
	// internal serves the internal listener (introspection with testInternalKey).
	internal *httptest.Server
	store    *gormstore.Store
	secret   config.Secret
	a, b     *school.School
	hasher   *client.SecretHasher
}

const (
	studentEmail  = "student@example.com"
	operatorEmail = "owner@example.com"
	outsiderEmail = "outsider@example.com"
	memberPass    = schools.Password
	publicClient  = "member-app"
	confClient    = "member-conf"
	opClient      = "operator-app"
	redirectURI   = "http://127.0.0.1/callback"
)

// testInternalKey authenticates introspection calls in tests.
const testInternalKey = "internal-key-internal-key-internal-key"

// testIntegrations are the deployment's vendor platforms in tests.
var testIntegrations = []config.Integration{
	{Name: "Course Copilot", ClientID: "course-copilot", Scopes: []string{"openid", "courses:read", "students:read", "account:read"},
		RedirectURIs: []string{"https://copilot.example/oauth/callback", "http://127.0.0.1/callback", "http://[::1]/callback"}, ApplicationType: "native"},
	{Name: "Gradebook Sync", ClientID: "gradebook-sync", Scopes: []string{"students:read"}, RedirectURIs: []string{"http://127.0.0.1/cb"}},
}

// envOption changes how newEnv builds the server: school A's school file and the server's
// dependencies.
type envOption func(a *config.School, d *server.Deps)

// withCIMD gives school A a Client ID Metadata Document policy and the server a resolver.
func withCIMD(p config.CIMD, documents authz.MetadataDocuments) envOption {
	return func(a *config.School, d *server.Deps) {
		a.CIMD = p
		d.Documents = documents
	}
}

// withAccessTokenLifetime sets school A's access-token lifetime.
func withAccessTokenLifetime(d time.Duration) envOption {
	return func(a *config.School, _ *server.Deps) { a.Lifetimes.AccessToken = d }
}

// withAppearanceCache sets how long the server reuses a school's appearance for its pages.
func withAppearanceCache(d time.Duration) envOption {
	return func(_ *config.School, deps *server.Deps) { deps.AppearanceCache = d }
}

// withLogger gives the server a logger.
func withLogger(l *slog.Logger) envOption {
	return func(_ *config.School, d *server.Deps) { d.Logger = l }
}

func newEnv(t testing.TB, backend string, opts ...envOption) *env {
	t.Helper()
	var deps server.Deps
	sch := schools.New(t, schools.Options{Backend: backend, Files: func(port string) []config.School {
		files := schools.Files(port)
		files[0].Features = config.Features{IDTokens: true, MCPConnections: true}
		for _, o := range opts {
			o(&files[0], &deps)
		}
		return files
	}})
	e := &env{backend: backend, t: t, secret: schools.Secret, srv: sch.Server, store: sch.Store, a: sch.A, b: sch.B}
	s := servertest.Public(t, sch, deps, func(sc *config.Server) {
		sc.Integrations = testIntegrations
		sc.Internal.APIKey = config.Secret(testInternalKey)
	})
	e.internal = httptest.NewServer(s.InternalHandler())
	t.Cleanup(e.internal.Close)
	e.hasher = client.NewSecretHasher(e.secret)

	ctxA := e.ctx(e.a)
	for email, roles := range map[string][]storage.Role{
		studentEmail:  {storage.RoleStudent},
		operatorEmail: {storage.RoleOwner},
		outsiderEmail: nil,
	} {
		m, err := e.store.CreateMember(ctxA, storage.Member{Email: email, Name: "Name of " + email, AvatarURL: "https://img.example/" + email, PasswordHash: schools.CheapHash()})
		if err != nil {
			t.Fatal(err)
		}
		if roles != nil {
			if err := e.store.SetRoles(ctxA, m.ID, roles); err != nil {
				t.Fatal(err)
			}
		}
	}
	memberScopes := []string{"openid", "profile", "email", "account:read", "account:write"}
	e.mustClient(e.a, storage.Client{ID: publicClient, Kind: storage.ClientMember, Name: "Study Buddy", TokenEndpointAuthMethod: storage.AuthMethodNone, RedirectURIs: []string{redirectURI}, Scopes: memberScopes})
	e.mustClient(e.a, storage.Client{ID: opClient, Kind: storage.ClientOperator, Name: "Ops Tool", TokenEndpointAuthMethod: storage.AuthMethodNone, RedirectURIs: []string{redirectURI}, Scopes: []string{"openid", "courses:read", "students:read"}})
	return e
}

func (e *env) ctx(t *school.School) context.Context { return school.NewContext(e.t.Context(), t) }

func (e *env) mustClient(t *school.School, c storage.Client) {
	e.t.Helper()
	if _, err := e.store.CreateClient(e.ctx(t), c); err != nil {
		e.t.Fatal(err)
	}
}

// confidential registers a confidential member client at school A and returns its secret.
func (e *env) confidential() string {
	secret, hash, err := e.hasher.NewSecret()
	if err != nil {
		e.t.Fatal(err)
	}
	e.mustClient(e.a, storage.Client{ID: confClient, Kind: storage.ClientMember, Name: "Conf App", SecretHash: hash,
		TokenEndpointAuthMethod: storage.AuthMethodSecretPost, RedirectURIs: []string{redirectURI}, Scopes: []string{"openid", "account:read"}})
	return secret
}

// origin returns the school's URL on the test server.
func (e *env) url(t *school.School, path string) string { return t.Origin + path }

// oauthConfig is a golang.org/x/oauth2 client of school t.
func (e *env) oauthConfig(t *school.School, clientID, secret string, scopes ...string) *oauth2.Config {
	style := oauth2.AuthStyleInParams
	return &oauth2.Config{
		ClientID: clientID, ClientSecret: secret, Scopes: scopes, RedirectURL: redirectURI,
		Endpoint: oauth2.Endpoint{AuthURL: e.url(t, endpoint.Authorize), TokenURL: e.url(t, endpoint.Token), AuthStyle: style},
	}
}

// browser is a member's browser: servertest's, with the authorization endpoint's steps.
type browser struct {
	e *env
	*servertest.Pages
}

func (e *env) browser() *browser { return &browser{e: e, Pages: servertest.NewPages(e.t, nil)} }

// authorize opens school t's authorization endpoint with query q.
func (b *browser) authorize(t *school.School, q url.Values) *servertest.Response {
	b.e.t.Helper()
	return b.Get(b.e.url(t, endpoint.Authorize) + "?" + q.Encode())
}

// signedIn is a browser signed in at school t as email.
func (e *env) signedIn(t *school.School, email string) *browser {
	e.t.Helper()
	b := e.browser()
	b.SignIn(t, email)
	return b
}

// pkce is a verifier and its S256 challenge; newPKCE makes a fresh one.
type pkce = servertest.PKCE

var newPKCE = servertest.NewPKCE

// authorizeParams are the query of a standard authorization request at school t.
func (e *env) authorizeParams(t *school.School, clientID string, p pkce, scopes ...string) url.Values {
	return url.Values{
		"response_type":         {"code"},
		"client_id":             {clientID},
		"redirect_uri":          {redirectURI},
		"scope":                 {strings.Join(scopes, " ")},
		"state":                 {"state-" + p.Challenge[:12]},
		"nonce":                 {"nonce-" + p.Challenge[12:24]},
		"code_challenge":        {p.Challenge},
		"code_challenge_method": {"S256"},
		"resource":              {t.Origin},
	}
}

// consent opens the authorization URL (already signed in) and answers the consent page; it
// returns the redirect the server answered with.
func (b *browser) consent(authURL, decision string) *url.URL {
	b.e.t.Helper()
	_, answer := b.Consent(authURL, decision)
	if answer.Status != http.StatusSeeOther && answer.Status != http.StatusFound {
		b.e.t.Fatalf("consent %s: status %d\n%s", decision, answer.Status, answer.Body)
	}
	loc, err := url.Parse(answer.Header.Get("Location"))
	if err != nil {
		b.e.t.Fatal(err)
	}
	return loc
}

// code runs the whole browser part for params at school t as email and returns the code.
func (e *env) code(t *school.School, email string, params url.Values) string {
	e.t.Helper()
	b := e.signedIn(t, email)
	loc := b.consent(e.url(t, endpoint.Authorize)+"?"+params.Encode(), "approve")
	q := loc.Query()
	if q.Get("code") == "" {
		e.t.Fatalf("no code in %s", loc)
	}
	if q.Get("iss") != t.Origin || q.Get("state") != params.Get("state") {
		e.t.Fatalf("redirect %s lacks iss %s or state", loc, t.Origin)
	}
	return q.Get("code")
}

// tokenResponse is the token endpoint's JSON.
type tokenResponse struct {
	AccessToken     string `json:"access_token"`
	TokenType       string `json:"token_type"`
	ExpiresIn       int64  `json:"expires_in"`
	RefreshToken    string `json:"refresh_token"`
	Scope           string `json:"scope"`
	IDToken         string `json:"id_token"`
	SchoolID        int64  `json:"school_id"`
	SchoolSubdomain string `json:"school_subdomain"`
	CreatedAt       int64  `json:"created_at"`
	Error           string `json:"error"`
	Description     string `json:"error_description"`
}

// postForm posts a form to an endpoint of school t and decodes the JSON answer.
func (e *env) postForm(t *school.School, path string, form url.Values) (int, tokenResponse, http.Header) {
	e.t.Helper()
	status, header, body := resourcetest.Send(e.t, http.MethodPost, e.url(t, path), "", strings.NewReader(form.Encode()),
		"Content-Type", "application/x-www-form-urlencoded")
	var tr tokenResponse
	if len(body) > 0 {
		if err := json.Unmarshal(body, &tr); err != nil {
			e.t.Fatalf("%s: not JSON (%d): %s", path, status, body)
		}
	}
	return status, tr, header
}

// exchange trades a code for tokens.
func (e *env) exchange(t *school.School, clientID, code string, p pkce, extra url.Values) (int, tokenResponse) {
	form := url.Values{
		"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirectURI},
		"client_id": {clientID}, "code_verifier": {p.Verifier}, "resource": {t.Origin},
	}
	for k, v := range extra {
		form[k] = v
	}
	status, tr, _ := e.postForm(t, endpoint.Token, form)
	return status, tr
}

func (e *env) refresh(t *school.School, clientID, refreshToken string) (int, tokenResponse) {
	status, tr, _ := e.postForm(t, endpoint.Token, url.Values{
		"grant_type": {"refresh_token"}, "refresh_token": {refreshToken}, "client_id": {clientID}, "resource": {t.Origin},
	})
	return status, tr
}

func (e *env) revoke(t *school.School, form url.Values) (int, tokenResponse) {
	status, tr, _ := e.postForm(t, endpoint.Revoke, form)
	return status, tr
}

// userinfo calls UserInfo with a bearer token and returns the status and decoded body.
func (e *env) userinfo(t *school.School, token string) (int, map[string]any, http.Header) {
	e.t.Helper()
	status, header, raw := resourcetest.Send(e.t, http.MethodGet, e.url(t, endpoint.Userinfo), token, nil)
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	return status, m, header
}

// tokens runs a whole authorization at school A for the public member client.
func (e *env) tokens(scopes ...string) tokenResponse {
	e.t.Helper()
	p := newPKCE()
	code := e.code(e.a, studentEmail, e.authorizeParams(e.a, publicClient, p, scopes...))
	status, tr := e.exchange(e.a, publicClient, code, p, nil)
	if status != http.StatusOK {
		e.t.Fatalf("exchange: %d %+v", status, tr)
	}
	return tr
}

// eachBackend runs f on SQLite, and on PostgreSQL when it is configured.
func eachBackend(t *testing.T, f func(t *testing.T, e *env)) {
	resourcetest.EachBackend(t, func(t testing.TB, backend string) *env { return newEnv(t, backend) }, f)
}

// storageClient is a public member client with the test redirect URI.
func storageClient(id string) storage.Client {
	return storage.Client{ID: id, Kind: storage.ClientMember, Name: "Client " + id, TokenEndpointAuthMethod: storage.AuthMethodNone,
		RedirectURIs: []string{redirectURI}, Scopes: []string{"openid", "profile", "email", "account:read", "account:write"}}
}

// giveRole makes a member a student at school t.
func (e *env) giveRole(t *school.School, email string) {
	e.t.Helper()
	m, err := e.store.GetMemberByEmail(e.ctx(t), email)
	if err == nil {
		err = e.store.SetRoles(e.ctx(t), m.ID, []storage.Role{storage.RoleStudent})
	}
	if err != nil {
		e.t.Fatal(fmt.Errorf("give role: %w", err))
	}
}
