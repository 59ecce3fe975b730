package authz_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
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
	// OAuth runs the client's part: authorizations, token requests, revocation, UserInfo.
	*servertest.OAuth
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
	e := &env{backend: backend, t: t, secret: schools.Secret, srv: sch.Server, store: sch.Store, a: sch.A, b: sch.B,
		OAuth: servertest.NewOAuth(t)}
	s := servertest.Public(t, sch, deps, func(sc *config.Server) {
		sc.Integrations = testIntegrations
		sc.Internal.APIKey = config.Secret(testInternalKey)
	})
	e.internal = httptest.NewServer(s.InternalHandler())
	t.Cleanup(e.internal.Close)
	e.hasher = client.NewSecretHasher(e.secret)

	for email, roles := range map[string][]storage.Role{
		studentEmail:  {storage.RoleStudent},
		operatorEmail: {storage.RoleOwner},
		outsiderEmail: nil,
	} {
		schools.Member(t, e.store, email, "Name of "+email, schools.Avatar("https://img.example/"+email), schools.At(e.a, roles...))
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

// oauthClient is a client of the tests by its id, with the test redirect URI (and no secret).
func oauthClient(id string) servertest.Client {
	return servertest.Client{ID: id, RedirectURI: redirectURI}
}

// authURL is the URL of a valid authorization request at school t for the client id.
func authURL(t *school.School, id string, p servertest.PKCE, scopes ...string) string {
	return servertest.AuthorizeURL(t, oauthClient(id), p, scopes...)
}

// tokens runs a whole authorization at school A as the student for the public member client.
func (e *env) tokens(scopes ...string) servertest.Tokens {
	e.t.Helper()
	return e.TokensFor(e.a, studentEmail, oauthClient(publicClient), scopes...)
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
