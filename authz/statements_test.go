package authz_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/resource/resourcetest"
	"github.com/proctorhq/proctor/server/servertest"
	"github.com/proctorhq/proctor/storage/gormstore"
)

// TestTokenEndpointStatements pins the SQL statements of a code exchange and a refresh, the two
// requests the token endpoint's throughput depends on (docs/benchmarks.md). A change that adds
// one shows here, with the list below to update and a reason to give. BEGIN and COMMIT are not
// statements the store counts.
//
// Code exchange with openid, PKCE and a refresh token: the client (read once a request), the code
// with its PKCE and OpenID Connect records (one query), and the exchange: on PostgreSQL one
// statement that spends the code, deletes its records and inserts the pair (3); on SQLite, which
// has no data-modifying WITH, those are four statements (6).
//
// Refresh: the client, the pair by its refresh signature, and the refresh: on PostgreSQL one
// statement that locks the old pair, checks it under the lock and inserts the new one (3);
// on SQLite a check and an insert (4).
func TestTokenEndpointStatements(t *testing.T) {
	want := map[string]struct{ exchange, refresh int64 }{
		gormstore.DriverPostgres: {3, 3},
		gormstore.DriverSQLite:   {6, 4},
	}
	eachBackend(t, func(t *testing.T, e *env) {
		w := want[e.backend]
		// A first authorization fills the signing-key cache, which later ones do not read.
		e.tokens("openid", "account:read")

		code, p := e.Code(e.a, studentEmail, oauthClient(publicClient), "openid", "account:read")
		counter := e.store.CountStatements()
		res, tr := e.Exchange(e.a, oauthClient(publicClient), code, p)
		if res.Status != http.StatusOK || tr.IDToken == "" || tr.RefreshToken == "" {
			t.Fatalf("exchange: %d %+v", res.Status, tr)
		}
		if n := counter.Count(); n != w.exchange {
			t.Errorf("code exchange sent %d statements, want %d", n, w.exchange)
		}

		counter.Reset()
		res, tr = e.Refresh(e.a, oauthClient(publicClient), tr.RefreshToken)
		if res.Status != http.StatusOK || tr.AccessToken == "" {
			t.Fatalf("refresh: %d %+v", res.Status, tr)
		}
		if n := counter.Count(); n != w.refresh {
			t.Errorf("refresh sent %d statements, want %d", n, w.refresh)
		}
	})
}

// TestAuthorizationStatements pins the SQL statements of an authorization by a signed-in member:
// the consent page (GET) and the approval (POST) that redirects with the code, the first two of
// the three requests of a whole flow (the bench's authcode scenario).
//
// Each request reads the client, and the login session with its member and the member's roles
// at the school in one query (2). The approval then stores the code with its PKCE and OpenID
// Connect records and the consent's security event (one statement on PostgreSQL, four on
// SQLite): 3 on PostgreSQL, 6 on SQLite.
func TestAuthorizationStatements(t *testing.T) {
	want := map[string]int64{gormstore.DriverPostgres: 2 + 3, gormstore.DriverSQLite: 2 + 6}
	// The consent page wears the school's look, whose appearance a replica reads once per
	// AppearanceCache: the flow before the count has read it, and an hour keeps a busy machine
	// from making the counted page read it again.
	newEnv := func(t testing.TB, backend string) *env { return newEnv(t, backend, withAppearanceCache(time.Hour)) }
	resourcetest.EachBackend(t, newEnv, func(t *testing.T, e *env) {
		e.tokens("openid", "account:read")
		params := servertest.AuthorizeParams(e.a, oauthClient(publicClient), servertest.NewPKCE(), "openid", "account:read")
		b := e.browser()
		b.SignIn(e.a, studentEmail)
		counter := e.store.CountStatements()
		if loc := b.consent(e.url(e.a, endpoint.Authorize)+"?"+params.Encode(), "approve"); loc.Query().Get("code") == "" {
			t.Fatalf("no code in %s", loc)
		}
		if n := counter.Count(); n != want[e.backend] {
			t.Errorf("the consent page and the approval sent %d statements, want %d", n, want[e.backend])
		}
	})
}
