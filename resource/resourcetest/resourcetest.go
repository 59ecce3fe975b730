package resourcetest

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/server/servertest"
	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/gormstore"
)

// Env is a whole Proctor behind a real HTTP server, as a resource server's client meets it:
// school A at 127.0.0.1:<port> and school B at localhost:<port>, and tokens minted straight into
// the store the way the authorization server stores them (so that a test can also make the
// tokens no authorization would give: expired, revoked, bound elsewhere, without school_id or
// an owner).
type Env struct {
	T      testing.TB
	Server *httptest.Server
	Store  *gormstore.Store
	A, B   *school.School
}

// New starts the environment on backend (storetest's name).
func New(t testing.TB, backend string) *Env {
	t.Helper()
	sch := servertest.NewPublic(t, schools.Options{Backend: backend})
	return &Env{T: t, Server: sch.Server, Store: sch.Store, A: sch.A, B: sch.B}
}

// EachBackend runs f on an environment newEnv builds on SQLite, and on PostgreSQL when it is
// configured (schools.EachBackend, for builders that also serve benchmarks).
func EachBackend[E any](t *testing.T, newEnv func(t testing.TB, backend string) E, f func(t *testing.T, e E)) {
	t.Helper()
	schools.EachBackend(t, func(t *testing.T, backend string) E { return newEnv(t, backend) }, f)
}

// Ctx is a context carrying school tn, for the store's school-scoped methods.
func (e *Env) Ctx(tn *school.School) context.Context { return school.NewContext(e.T.Context(), tn) }

// Seed imports data into school tn.
func (e *Env) Seed(tn *school.School, data *storage.SchoolData) {
	e.T.Helper()
	schools.Import(e.T, e.Store, tn, data)
}

// Token mints an access token of school tn for the member with the e-mail (see
// servertest.MintToken): already used once, so that a request with it runs no first-use write.
func (e *Env) Token(tn *school.School, email string, o servertest.TokenOptions) string {
	e.T.Helper()
	m, err := e.Store.GetMemberByEmail(e.Ctx(tn), email)
	if err != nil {
		e.T.Fatal(err)
	}
	return servertest.MintToken(e.T, e.Store, schools.Secret, tn, m.ID, o)
}

// Send sends a request with the bearer token (none if "") and the header, given as name and
// value pairs, and returns the answer's status, header and body.
func (e *Env) Send(method, url, token string, body io.Reader, header ...string) (int, http.Header, []byte) {
	e.T.Helper()
	return Send(e.T, method, url, token, body, header...)
}

// Send is Env.Send for a test with a server of its own: servertest.SendBearer with Go's default
// client, which follows redirects.
func Send(t testing.TB, method, url, token string, body io.Reader, header ...string) (int, http.Header, []byte) {
	t.Helper()
	r := servertest.SendBearer(t, http.DefaultClient, method, url, token, body, header...)
	return r.Status, r.Header, []byte(r.Body)
}
