package authz_test

import (
	"net/http"
	"testing"
)

// TestTokenEndpointStatements pins the SQL statements of a code exchange and a refresh, the two
// requests the token endpoint's throughput depends on (docs/benchmarks.md). A change that adds
// one shows here, with the list below to update and a reason to give.
//
// Code exchange with openid, PKCE and a refresh token (9):
//
//	client (once a request: authz memoizes it), PKCE record read and delete, code read (twice:
//	fosite reads it again inside the transaction), code deactivated, pair inserted, its refresh
//	half set, OpenID Connect record taken (read and deleted in one statement).
//
// Refresh (7): client, pair by refresh signature, grant locked, pair read again under the lock,
// replaced pair checked to be of the grant, new pair inserted, its refresh half set.
func TestTokenEndpointStatements(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		// A first authorization fills the signing-key cache, which later ones do not read.
		e.tokens("openid", "account:read")

		p := newPKCE()
		code := e.code(e.a, studentEmail, e.authorizeParams(e.a, publicClient, p, "openid", "account:read"))
		counter := e.store.CountStatements()
		status, tr := e.exchange(e.a, publicClient, code, p, nil)
		if status != http.StatusOK || tr.IDToken == "" || tr.RefreshToken == "" {
			t.Fatalf("exchange: %d %+v", status, tr)
		}
		if n := counter.Count(); n != 9 {
			t.Errorf("code exchange sent %d statements, want 9", n)
		}

		counter.Reset()
		status, tr = e.refresh(e.a, publicClient, tr.RefreshToken)
		if status != http.StatusOK || tr.AccessToken == "" {
			t.Fatalf("refresh: %d %+v", status, tr)
		}
		if n := counter.Count(); n != 7 {
			t.Errorf("refresh sent %d statements, want 7", n)
		}
	})
}
