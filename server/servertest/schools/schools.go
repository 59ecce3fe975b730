package schools

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/password"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/gormstore"
	"github.com/proctorhq/proctor/storage/gormstore/storetest"
)

// Password is every test member's password.
const Password = "correct horse battery staple"

// Cheap are the cheapest argon2id parameters: signing in costs little, and password.Verify
// reads the parameters from the hash.
var Cheap = password.Params{MemoryKiB: 64, Time: 1, Threads: 1}

// CheapHash is Password hashed with Cheap.
var CheapHash = sync.OnceValue(func() string {
	h, err := password.Hash(Password, Cheap)
	if err != nil {
		panic(err)
	}
	return h
})

// Hash is plain hashed with Cheap.
func Hash(t testing.TB, plain string) string {
	t.Helper()
	h, err := password.Hash(plain, Cheap)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// Secret is a system secret for tests (32 bytes, as configuration requires).
var Secret = config.Secret("0123456789abcdef0123456789abcdef")

// Clock is a settable time source, safe for concurrent use.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock is a clock standing at t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// Set puts the clock at t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// Files are the school files of school A ("north", Northwind) at http://127.0.0.1:port and
// school B ("lumen", Lumen) at http://localhost:port, with the default lifetimes: two schools
// on one listener, told apart by Host as in production.
func Files(port string) []config.School {
	files := []config.School{
		{SchoolID: 1, Subdomain: "north", Name: "Northwind", BaseURL: "http://127.0.0.1:" + port},
		{SchoolID: 2, Subdomain: "lumen", Name: "Lumen", BaseURL: "http://localhost:" + port},
	}
	for i := range files {
		files[i].Lifetimes = config.DefaultSchool().Lifetimes
	}
	return files
}

// Syncer is the store a school's row is written to.
type Syncer interface {
	SyncSchool(ctx context.Context, id int64, subdomain, name string) error
}

// Sync builds the schools of files, writes their school rows as `proctor serve` does, and
// returns them with their registry.
func Sync(t testing.TB, st Syncer, files ...config.School) ([]*school.School, *school.Registry) {
	t.Helper()
	var list []*school.School
	for _, c := range files {
		tn, err := school.New(c)
		if err != nil {
			t.Fatalf("schools: school %s: %v", c.Subdomain, err)
		}
		if err := st.SyncSchool(t.Context(), tn.SchoolID, tn.Subdomain, tn.Name); err != nil {
			t.Fatalf("schools: sync school %s: %v", c.Subdomain, err)
		}
		list = append(list, tn)
	}
	reg, err := school.NewRegistry(list)
	if err != nil {
		t.Fatal(err)
	}
	return list, reg
}

// Ctx is a context of the test carrying school tn, for the store's school-scoped methods.
func Ctx(t testing.TB, tn *school.School) context.Context { return school.NewContext(t.Context(), tn) }

// Members is the store members are created through.
type Members interface {
	CreateMember(ctx context.Context, m storage.Member) (storage.Member, error)
	SetRoles(ctx context.Context, memberID int64, roles []storage.Role) error
}

// A MemberOption changes the member Member creates, or gives them roles.
type MemberOption func(*newMember)

// newMember is what Member stores: the member, then their roles school by school.
type newMember struct {
	m     storage.Member
	roles []schoolRoles
}

type schoolRoles struct {
	at    *school.School
	roles []storage.Role
}

// NoPassword makes a member without a password, as an import or an invitation leaves one until
// they choose theirs.
func NoPassword() MemberOption { return func(n *newMember) { n.m.PasswordHash = "" } }

// Avatar gives the member a picture at url, for the profile claims.
func Avatar(url string) MemberOption { return func(n *newMember) { n.m.AvatarURL = url } }

// At gives the member exactly roles at school tn (SetRoles); a later At for the same school
// replaces an earlier one.
func At(tn *school.School, roles ...storage.Role) MemberOption {
	return func(n *newMember) { n.roles = append(n.roles, schoolRoles{tn, roles}) }
}

// Member creates a member who signs in with Password, changed by opts (NoPassword, Avatar) and
// given the roles opts name (At).
func Member(t testing.TB, st Members, email, name string, opts ...MemberOption) storage.Member {
	t.Helper()
	n := newMember{m: storage.Member{Email: email, Name: name, PasswordHash: CheapHash()}}
	for _, o := range opts {
		o(&n)
	}
	m, err := st.CreateMember(t.Context(), n.m)
	if err != nil {
		t.Fatalf("schools: create member %s: %v", email, err)
	}
	for _, r := range n.roles {
		SetRoles(t, st, r.at, m.ID, r.roles...)
	}
	return m
}

// MemberByEmail reads the member with the address and fails the test now if it cannot.
func MemberByEmail(t testing.TB, st interface {
	GetMemberByEmail(ctx context.Context, email string) (storage.Member, error)
}, email string) storage.Member {
	t.Helper()
	m, err := st.GetMemberByEmail(t.Context(), email)
	if err != nil {
		t.Fatalf("schools: member %s: %v", email, err)
	}
	return m
}

// SetRoles gives member id exactly roles at school tn.
func SetRoles(t testing.TB, st Members, tn *school.School, id int64, roles ...storage.Role) {
	t.Helper()
	if err := st.SetRoles(Ctx(t, tn), id, roles); err != nil {
		t.Fatalf("schools: set roles of member %d at %s: %v", id, tn.Subdomain, err)
	}
}

// Import applies data to school tn in one transaction, as `proctor seed` does once the
// passwords are hashed.
func Import(t testing.TB, st storage.Importer, tn *school.School, data *storage.SchoolData) {
	t.Helper()
	if _, err := st.ImportSchoolData(Ctx(t, tn), data, storage.ImportOptions{}); err != nil {
		t.Fatalf("schools: import into %s: %v", tn.Subdomain, err)
	}
}

// Options change what New builds. The zero value is schools A and B (Files) on SQLite over
// plain HTTP.
type Options struct {
	// Backend is storetest's backend name ("": SQLite).
	Backend string
	// Store is the store to use instead of a new one on Backend (a store whose statements are
	// counted, say, which must be set up before anything shares it).
	Store *gormstore.Store
	// TLS serves https with the httptest server's certificate.
	TLS bool
	// Files are the school files for the server's port (nil: Files).
	Files func(port string) []config.School
}

// Env is a real store and the schools, served by an httptest server whose handler the test
// sets (Handle) once it has composed what it tests.
type Env struct {
	Store   *gormstore.Store
	Server  *httptest.Server
	Schools []*school.School
	// A and B are the first two schools.
	A, B     *school.School
	Registry *school.Registry

	handler atomic.Pointer[http.Handler]
}

// New opens the store, starts the server and syncs the schools; everything is closed when the
// test ends.
func New(t testing.TB, o Options) *Env {
	t.Helper()
	e := &Env{Store: o.Store}
	if e.Store == nil {
		backend := o.Backend
		if backend == "" {
			backend = gormstore.DriverSQLite
		}
		e.Store = storetest.Open(t, backend)
	}
	serve := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := e.handler.Load()
		if h == nil {
			http.Error(w, "schools: no handler yet", http.StatusServiceUnavailable)
			return
		}
		(*h).ServeHTTP(w, r)
	})
	if o.TLS {
		e.Server = httptest.NewTLSServer(serve)
	} else {
		e.Server = httptest.NewServer(serve)
	}
	t.Cleanup(e.Server.Close)
	_, port, _ := net.SplitHostPort(e.Server.Listener.Addr().String())
	files := Files
	if o.Files != nil {
		files = o.Files
	}
	e.Schools, e.Registry = Sync(t, e.Store, files(port)...)
	e.A = e.Schools[0]
	if len(e.Schools) > 1 {
		e.B = e.Schools[1]
	}
	return e
}

// Handle makes h the server's handler.
func (e *Env) Handle(h http.Handler) { e.handler.Store(&h) }

// AddrHeader is the test-only request header in which a test's browser claims a client
// address; Middleware takes it for the peer's.
const AddrHeader = "X-Test-Addr"

// Identify sets on h what a test's browser says of itself: the client address it claims
// (AddrHeader), its User-Agent and its Accept-Language; an empty one is not sent.
func Identify(h http.Header, addr, ua, lang string) {
	for name, v := range map[string]string{AddrHeader: addr, "User-Agent": ua, "Accept-Language": lang} {
		if v != "" {
			h.Set(name, v)
		}
	}
}

// Middleware does what the server's middleware does before routing: the school by Host (404
// for an unknown one), and the edge information a trusted proxy would give: a request id, the
// client address (the peer's, or that of the test-only X-Test-Addr header) and, with secure,
// https.
func Middleware(reg *school.Registry, secure bool, next http.Handler) http.Handler {
	var n atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tn, ok := reg.Resolve(r.Host)
		if !ok {
			http.NotFound(w, r)
			return
		}
		ap, _ := netip.ParseAddrPort(r.RemoteAddr)
		addr := ap.Addr()
		if a := r.Header.Get(AddrHeader); a != "" {
			addr = netip.MustParseAddr(a)
		}
		info := &edge.Info{ID: fmt.Sprintf("req-%d", n.Add(1)), ClientAddr: addr, Secure: secure}
		next.ServeHTTP(w, r.WithContext(school.NewContext(edge.NewContext(r.Context(), info), tn)))
	})
}

// Backends runs f, as a subtest named after the backend, on every backend storetest offers
// (SQLite, and PostgreSQL when PROCTOR_TEST_POSTGRES_DSN is set). A test whose subtests may run
// at once calls t.Parallel in f.
func Backends(t *testing.T, f func(t *testing.T, backend string)) {
	t.Helper()
	for _, backend := range storetest.Backends() {
		t.Run(backend, func(t *testing.T) { f(t, backend) })
	}
}

// EachBackend runs f, as a subtest named after the backend, on what build makes on every
// backend (Backends).
func EachBackend[E any](t *testing.T, build func(t *testing.T, backend string) E, f func(t *testing.T, e E)) {
	t.Helper()
	Backends(t, func(t *testing.T, backend string) { f(t, build(t, backend)) })
}
