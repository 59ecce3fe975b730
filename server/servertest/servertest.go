package servertest

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/proctorhq/proctor/authz"
	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/scope"
	"github.com/proctorhq/proctor/server"
	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/gormstore"
	"github.com/proctorhq/proctor/storage/gormstore/storetest"
)

// Password is every member's password.
const Password = schools.Password

// Options change what New builds. The zero value builds schools A and B on SQLite.
type Options struct {
	// Backend is gormstore.DriverSQLite (the default) or gormstore.DriverPostgres.
	Backend string
	// Configure changes the server file after servertest's defaults, before the server is built
	// (timeouts, body limit, trusted proxies, integrations ...). The secret, the internal API key
	// and the addresses are set by New and should be left alone.
	Configure func(*config.Server)
	// ConfigureSchool changes a school's school file before it is built; c.Subdomain says which
	// ("north" for A, "lumen" for B, "secure" for C). base_url must not be changed.
	ConfigureSchool func(c *config.School)
	// HTTPS adds school C, served over TLS.
	HTTPS bool
	// Documents resolves Client ID Metadata Documents (server.Deps.Documents); nil builds the
	// production resolver.
	Documents authz.MetadataDocuments
	// Tracing, when set, traces the server and its store's statements (server.Deps.Tracing,
	// gormstore.Store.TraceStatements); nil traces nothing, as in production without
	// telemetry.otlp_endpoint.
	Tracing trace.TracerProvider
}

// Member is a member New created.
type Member struct {
	ID    int64
	Email string
}

// Client is an OAuth client New created (or a test registered with Env.AddClient).
type Client struct {
	ID          string
	RedirectURI string
	Scopes      []string
	// Secret is a confidential client's secret ("" for a public client).
	Secret string
}

// School is one school of the environment: its school, members and clients.
type School struct {
	*school.School
	Owner, Student               Member
	MemberClient, OperatorClient Client
}

// Env is a running Proctor.
type Env struct {
	t testing.TB
	// Server is the server under test; Store its store.
	Server *server.Server
	Store  *gormstore.Store
	// Database is the driver and DSN Store was opened with, for tests that read the database
	// with a connection of their own.
	Database gormstore.Config
	// Config is the server file the server was built from.
	Config config.Server
	// Registry resolves the schools' hosts as the server does.
	Registry *school.Registry
	A, B     *School
	// C is the https school (nil unless Options.HTTPS).
	C *School
	// Shared is a student at every school.
	Shared Member
	// PublicAddr is the plain public listener's host:port (A and B are served there);
	// InternalURL the internal listener's base URL.
	PublicAddr  string
	InternalURL string
	// APIKey authenticates calls to POST /internal/introspect.
	APIKey string
	// Log holds the server's log, one JSON object a line.
	Log *LogBuffer
	// OAuth runs authorizations, token requests and UserInfo through the environment's browsers
	// and clients (Env.Code, Env.Exchange ...).
	OAuth

	transport *http.Transport
	rec       *recorder
}

// New builds and starts a whole Proctor; everything is stopped and removed when the test ends.
func New(t testing.TB, o Options) *Env {
	t.Helper()
	if o.Backend == "" {
		o.Backend = gormstore.DriverSQLite
	}
	e := &Env{t: t}
	e.Store, e.Database = storetest.OpenConfig(t, o.Backend)
	e.Store.TraceStatements(o.Tracing)

	pub := Loopback(t)
	in := Loopback(t)
	e.PublicAddr = pub.Addr().String()
	e.InternalURL = "http://" + in.Addr().String()
	_, port, _ := net.SplitHostPort(e.PublicAddr)

	var handler http.Handler
	var tlsServer *httptest.Server
	files := schools.Files(port)
	files[0].Features = config.Features{MCPConnections: true, IDTokens: true}
	files[1].Features = config.Features{MCPConnections: true}
	if o.HTTPS {
		tlsServer = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			handler.ServeHTTP(w, r)
		}))
		_, tlsPort, _ := net.SplitHostPort(tlsServer.Listener.Addr().String())
		files = append(files, config.School{SchoolID: 3, Subdomain: "secure", Name: "Securus",
			BaseURL: "https://127.0.0.1:" + tlsPort, Features: config.Features{MCPConnections: true}})
	}
	for i := range files {
		d := config.DefaultSchool()
		files[i].Lifetimes, files[i].CIMD.CacheMin, files[i].CIMD.CacheMax = d.Lifetimes, d.CIMD.CacheMin, d.CIMD.CacheMax
		if o.ConfigureSchool != nil {
			o.ConfigureSchool(&files[i])
		}
	}
	synced, reg := schools.Sync(t, e.Store, files...)
	e.Registry = reg

	sc := config.DefaultServer()
	sc.Public.Addr, sc.Internal.Addr = e.PublicAddr, in.Addr().String()
	// The database settings only decide where uploads go (operator.DefaultStorageDir): beside a
	// database file in the test's temporary directory.
	sc.Database = config.Database{Driver: gormstore.DriverSQLite, DSN: filepath.Join(t.TempDir(), "proctor.db")}
	sc.HTTP.ShutdownGrace = 5 * time.Second
	if o.Configure != nil {
		o.Configure(&sc)
	}
	sc.Secret = config.Secret(randomBytes(32))
	e.APIKey = base64.RawURLEncoding.EncodeToString(randomBytes(32))
	sc.Internal.APIKey = config.Secret(e.APIKey)
	e.Config = sc

	var logger *slog.Logger
	e.Log, logger = schools.NewLog()
	// No purge job: it would send statements into the counts tests take of a request's
	// (Store.CountStatements) whenever a test outlives its first minute; tests of the job run
	// it themselves.
	srv, err := server.New(server.Deps{Config: sc, Schools: reg, Store: e.Store, Logger: logger, Documents: o.Documents, Tracing: o.Tracing,
		PurgeInterval: -1})
	if err != nil {
		t.Fatalf("servertest: server.New: %v", err)
	}
	e.Server = srv
	handler = srv.PublicHandler()

	Serve(t, srv, pub, in)

	roots := x509.NewCertPool()
	if tlsServer != nil {
		tlsServer.StartTLS()
		t.Cleanup(tlsServer.Close)
		roots.AddCert(tlsServer.Certificate())
	}
	e.transport = &http.Transport{
		Proxy:               nil, // loopback only, whatever the environment says
		TLSClientConfig:     &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12},
		MaxIdleConnsPerHost: 8,
		IdleConnTimeout:     30 * time.Second,
	}
	// Registered after the server's cleanup, so it runs before it: idle connections go first.
	t.Cleanup(e.transport.CloseIdleConnections)
	e.rec = &recorder{base: e.transport}
	e.OAuth = OAuth{t: t, browser: func() pageBrowser { return e.Browser() }, client: e.Client()}

	e.Shared = e.member("shared@example.com", "Sam Shared")
	slots := []**School{&e.A, &e.B, &e.C}
	for i, tn := range synced {
		*slots[i] = e.populate(tn)
	}
	return e
}

// Loopback is a listener on a free port of 127.0.0.1, for Serve.
func Loopback(t testing.TB) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b
}

// member creates a member with Password.
func (e *Env) member(email, name string) Member {
	e.t.Helper()
	m := schools.Member(e.t, e.Store, email, name)
	return Member{ID: m.ID, Email: m.Email}
}

// populate gives school tn its members and clients.
func (e *Env) populate(tn *school.School) *School {
	s := &School{School: tn}
	s.Owner = e.member("owner-"+tn.Subdomain+"@example.com", "Owner of "+tn.Name)
	s.Student = e.member("student-"+tn.Subdomain+"@example.com", "Student of "+tn.Name)
	e.SetRoles(s, s.Owner, storage.RoleOwner)
	e.SetRoles(s, s.Student, storage.RoleStudent)
	e.SetRoles(s, e.Shared, storage.RoleStudent)
	redirect := "http://127.0.0.1/" + tn.Subdomain + "/callback"
	s.MemberClient = e.AddClient(s, storage.Client{
		ID: tn.Subdomain + "-member-app", Kind: storage.ClientMember, Name: tn.Name + " Study App",
		TokenEndpointAuthMethod: storage.AuthMethodNone, RedirectURIs: []string{redirect},
		Scopes: scope.NamesFor(scope.Identity, scope.Member),
	})
	s.OperatorClient = e.AddClient(s, storage.Client{
		ID: tn.Subdomain + "-operator-app", Kind: storage.ClientOperator, Name: tn.Name + " Admin Tool",
		TokenEndpointAuthMethod: storage.AuthMethodNone, RedirectURIs: []string{redirect},
		Scopes: append([]string{scope.OpenID}, scope.NamesFor(scope.Operator)...),
	})
	return s
}

// Ctx is a context carrying school s, for the store's school-scoped methods.
func (e *Env) Ctx(s *School) context.Context { return school.NewContext(e.t.Context(), s.School) }

// SetRoles gives m exactly roles at school s.
func (e *Env) SetRoles(s *School, m Member, roles ...storage.Role) {
	e.t.Helper()
	if err := e.Store.SetRoles(e.Ctx(s), m.ID, roles); err != nil {
		e.t.Fatalf("servertest: set roles of %s at %s: %v", m.Email, s.Subdomain, err)
	}
}

// AddClient stores c at school s. A client whose TokenEndpointAuthMethod is client_secret_post
// and whose SecretHash is empty gets a fresh secret, returned in Client.Secret.
func (e *Env) AddClient(s *School, c storage.Client) Client {
	e.t.Helper()
	var secret string
	if c.TokenEndpointAuthMethod == storage.AuthMethodSecretPost && c.SecretHash == "" {
		var err error
		secret, c.SecretHash, err = e.Server.Clients().Hasher().NewSecret()
		if err != nil {
			e.t.Fatal(err)
		}
	}
	if _, err := e.Store.CreateClient(e.Ctx(s), c); err != nil {
		e.t.Fatalf("servertest: create client %s at %s: %v", c.ID, s.Subdomain, err)
	}
	out := Client{ID: c.ID, Scopes: c.Scopes, Secret: secret}
	if len(c.RedirectURIs) > 0 {
		out.RedirectURI = c.RedirectURIs[0]
	}
	return out
}

// Schools returns A, B and, when present, C.
func (e *Env) Schools() []*School {
	if e.C != nil {
		return []*School{e.A, e.B, e.C}
	}
	return []*School{e.A, e.B}
}

// SchoolAt returns the school served at host (host[:port] as in a URL), or nil.
func (e *Env) SchoolAt(host string) *School {
	for _, s := range e.Schools() {
		if strings.EqualFold(s.Host, host) {
			return s
		}
	}
	return nil
}

// LogBuffer is a goroutine-safe buffer the server's log is written to.
type LogBuffer = schools.LogBuffer

// Exchange is one request a client of the environment sent and the head of its answer.
type Exchange struct {
	Method string
	URL    string
	Status int
	Header http.Header
}

// recorder is an http.RoundTripper that keeps the head of every answer.
type recorder struct {
	base http.RoundTripper
	mu   sync.Mutex
	list []Exchange
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.list = append(r.list, Exchange{Method: req.Method, URL: req.URL.String(), Status: resp.StatusCode, Header: resp.Header.Clone()})
	r.mu.Unlock()
	return resp, nil
}

// Responses returns every answer received so far by the environment's clients and browsers.
func (e *Env) Responses() []Exchange {
	e.rec.mu.Lock()
	defer e.rec.mu.Unlock()
	return append([]Exchange(nil), e.rec.list...)
}

// Client returns an HTTP client without cookies that does not follow redirects; its answers
// are recorded.
func (e *Env) Client() *http.Client {
	return &http.Client{Transport: e.rec, CheckRedirect: noRedirects, Timeout: time.Minute}
}

func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// errNoCode is what Approve reports when the consent answer carries no code.
var errNoCode = errors.New("no code in the consent answer")

// Serve runs srv on the listeners pub and in until the test ends, then stops it and fails the
// test unless Serve returns cleanly.
func Serve(t testing.TB, srv *server.Server, pub, in net.Listener) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, pub, in) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("servertest: Serve: %v", err)
		}
	})
}
