package securitytest

import (
	"database/sql"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/server/servertest"
	"github.com/proctorhq/proctor/storage/gormstore"
)

// integrations are the deployment's vendor platforms in this suite. School B accepts only the
// second, so that registration can be checked per school.
var integrations = []config.Integration{
	{Name: "Course Copilot", ClientID: "course-copilot", Scopes: []string{"openid", "courses:read"},
		RedirectURIs: []string{"https://copilot.example/oauth/callback", "http://127.0.0.1/copilot/callback"}, ApplicationType: "native"},
	{Name: "Gradebook Sync", ClientID: "gradebook-sync", Scopes: []string{"openid", "students:read"},
		RedirectURIs: []string{"http://127.0.0.1/gradebook/callback"}},
}

// newEnv is the suite's environment on backend: servertest's schools with the suite's
// integrations; opts may change more.
func newEnv(t testing.TB, backend string, opts ...func(*servertest.Options)) *servertest.Env {
	t.Helper()
	o := servertest.Options{
		Backend:   backend,
		Configure: func(s *config.Server) { s.Integrations = integrations },
		ConfigureSchool: func(c *config.School) {
			if c.Subdomain == "lumen" {
				c.Registration.Integrations = []string{"Gradebook Sync"}
			}
		},
	}
	for _, f := range opts {
		f(&o)
	}
	return servertest.New(t, o)
}

// staysOn reports whether a Location header value, as a browser would follow it from a page of
// origin, stays on origin. Browsers are lenient: they drop tabs and newlines, read "\" as "/",
// and treat "//host" as a network-path reference, so the value is normalised that way first.
func staysOn(origin, location string) bool {
	if location == "" {
		return true
	}
	loc := strings.Map(func(r rune) rune {
		switch r {
		case '\t', '\n', '\r':
			return -1
		case '\\':
			return '/'
		}
		return r
	}, strings.TrimLeft(location, " \x00\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f"))
	if dec, err := url.PathUnescape(loc); err == nil && (strings.HasPrefix(dec, "//") || strings.HasPrefix(dec, "/\\")) {
		return false
	}
	base, err := url.Parse(origin + "/")
	if err != nil {
		return false
	}
	u, err := base.Parse(loc)
	if err != nil {
		return false
	}
	return u.Scheme+"://"+u.Host == origin
}

// frameAncestorsNone matches a Content-Security-Policy that forbids every framing.
var frameAncestorsNone = regexp.MustCompile(`(^|;)\s*frame-ancestors\s+'none'\s*(;|$)`)

// framingProblems returns what is wrong with an answer's framing headers.
func framingProblems(h http.Header) []string {
	var out []string
	csp := h.Values("Content-Security-Policy")
	switch {
	case len(csp) == 0:
		out = append(out, "no Content-Security-Policy")
	case !frameAncestorsNone.MatchString(strings.Join(csp, ";")):
		out = append(out, "Content-Security-Policy without frame-ancestors 'none': "+strings.Join(csp, " | "))
	}
	if xfo := h.Values("X-Frame-Options"); len(xfo) != 1 || !strings.EqualFold(xfo[0], "DENY") {
		out = append(out, "X-Frame-Options is not DENY: "+strings.Join(xfo, " | "))
	}
	return out
}

// publicAnswers returns the recorded answers of the schools' origins (the internal listener
// is not a browser's business).
func publicAnswers(e *servertest.Env) []servertest.Exchange {
	var out []servertest.Exchange
	for _, x := range e.Responses() {
		u, err := url.Parse(x.URL)
		if err == nil && e.SchoolAt(u.Host) != nil {
			out = append(out, x)
		}
	}
	return out
}

// openSQL opens the database of cfg (the server's) over a connection pool of the test's own, for
// the caller to close: what the tests read there is what is stored, not what the store shows.
func openSQL(t *testing.T, cfg gormstore.Config) *sql.DB {
	t.Helper()
	driver := "sqlite"
	if cfg.Driver == gormstore.DriverPostgres {
		driver = "pgx"
	}
	db, err := sql.Open(driver, cfg.DSN)
	if err != nil {
		t.Fatal(err)
	}
	return db
}
