package authz_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/proctorhq/proctor/authz"
	"github.com/proctorhq/proctor/resource"
	"github.com/proctorhq/proctor/tenant"
)

// TestExpiresInIsTheLifetime: expires_in is the school's access-token lifetime exactly, at the
// code exchange and at every refresh. fosite's own figure is off by one second in about half of
// all answers, so many answers are checked: the old code cannot pass them all by chance.
func TestExpiresInIsTheLifetime(t *testing.T) {
	for _, lifetime := range []time.Duration{2 * time.Hour, 15 * time.Minute} {
		e := newEnv(t, "sqlite", withAccessTokenLifetime(lifetime))
		want := int64(lifetime / time.Second)
		for i := range 3 {
			tr := e.tokens("account:read")
			if tr.ExpiresIn != want {
				t.Errorf("%s: exchange %d: expires_in %d, want %d", lifetime, i, tr.ExpiresIn, want)
			}
			for j := range 10 {
				status, next := e.refresh(e.a, publicClient, tr.RefreshToken)
				if status != http.StatusOK {
					t.Fatalf("refresh: %d %+v", status, next)
				}
				if next.ExpiresIn != want {
					t.Errorf("%s: refresh %d.%d: expires_in %d, want %d", lifetime, i, j, next.ExpiresIn, want)
				}
				tr = next
			}
		}
	}
}

// TestRefreshScope: RFC 6749 section 6. A refresh may narrow the scope (the new pair carries only
// what it asked for, and so do its successors); a scope the grant never held is invalid_scope.
func TestRefreshScope(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		refresh := func(token, scope string) (int, tokenResponse) {
			status, tr, _ := e.postForm(e.a, authz.TokenPath, url.Values{
				"grant_type": {"refresh_token"}, "refresh_token": {token}, "client_id": {publicClient}, "scope": {scope},
			})
			return status, tr
		}
		verifier := resource.NewRemoteVerifier(e.internal.URL+resource.IntrospectPath, []byte(testInternalKey))
		scopesOf := func(token string) []string {
			g, err := verifier.Verify(tenant.NewContext(context.Background(), e.a), token)
			if err != nil {
				t.Fatalf("verify: %v", err)
			}
			return g.Scopes
		}
		tr := e.tokens("openid", "profile", "account:read")
		for _, scope := range []string{"account:write", "admin", "account:read account:write"} {
			if status, r := refresh(tr.RefreshToken, scope); status != http.StatusBadRequest || r.Error != "invalid_scope" {
				t.Errorf("scope %q never granted: %d %+v, want invalid_scope", scope, status, r)
			}
		}
		status, narrow := refresh(tr.RefreshToken, "account:read openid")
		if status != http.StatusOK || narrow.Scope != "account:read openid" {
			t.Fatalf("narrowing refresh: %d %+v", status, narrow)
		}
		if got := scopesOf(narrow.AccessToken); !slices.Equal(got, []string{"account:read", "openid"}) {
			t.Errorf("narrowed pair's scopes %v", got)
		}
		if status, r := refresh(narrow.RefreshToken, "profile"); status != http.StatusBadRequest || r.Error != "invalid_scope" {
			t.Errorf("widening a narrowed grant again: %d %+v, want invalid_scope", status, r)
		}
		status, next := refresh(narrow.RefreshToken, "")
		if status != http.StatusOK || next.Scope != "account:read openid" {
			t.Fatalf("refresh of the narrowed pair without scope: %d %+v", status, next)
		}
		if got := scopesOf(next.AccessToken); !slices.Equal(got, []string{"account:read", "openid"}) {
			t.Errorf("scopes after a refresh without scope %v", got)
		}
	})
}
