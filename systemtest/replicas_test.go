package systemtest

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/proctorhq/proctor/bench/flow"
)

// keyCacheTTL is how long a server may keep signing with, and publishing, the keys it read
// before a rotation (docs/keys.md: "within 30 seconds").
const keyCacheTTL = 30 * time.Second

// keyCacheMargin is added to keyCacheTTL for the time a request takes on a loaded machine:
// generous, since a busy machine may take seconds per request; a cache that never expired would
// still fail.
const keyCacheMargin = time.Minute

// TestReplicas runs two servers, A and B, on one schema with the same school files and secret,
// and moves one member's browser and app between them. The school's base_url is A's address;
// requests to B carry the same Host and URL and only connect to B's port.
func TestReplicas(t *testing.T) {
	needPostgres(t)
	ctx := t.Context()
	publicA := reserveAddr(t)
	d := newDeployment(t, publicA, nil)
	A := d.newReplica("A", publicA)
	B := d.newReplica("B", reserveAddr(t))
	s := d.setUp(A.configFile, false)
	A.start(t)
	B.start(t)

	b := newBrowser(s)
	atA, atB := b.at(A), b.at(B)
	both := []*at{atA, atB}

	// The school's first signing key is made here (first ID token), and B's key and JWKS
	// caches are filled: a later rotation must reach B through its cache expiry.
	if err := atA.login(ctx); err != nil {
		t.Fatal(err)
	}
	first, err := atB.Grant(ctx)
	if err != nil {
		t.Fatal(err)
	}
	kid0, err := idTokenKID(first.IDToken)
	if err != nil {
		t.Fatal(err)
	}
	setB0, _, err := atB.fetchJWKS(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := verifyES256(first.IDToken, setB0); err != nil {
		t.Fatalf("B's ID token against B's JWKS: %v", err)
	}

	t.Run("session made on A is honoured on B", func(t *testing.T) {
		// A fresh browser signs in on A only; B must show the consent page from the session
		// row alone and accept the approval (CSRF derived from the session).
		fresh := newBrowser(s)
		if err := fresh.at(A).login(ctx); err != nil {
			t.Fatal(err)
		}
		p, state := flow.NewPKCE(), flow.RandomString(12)
		authURL, page, err := fresh.at(B).ConsentPage(ctx, s.clientID, memberScopes, p, state)
		if err != nil {
			t.Fatal(err)
		}
		if page.Status != http.StatusOK || !strings.Contains(string(page.Body), "csrf_token") {
			t.Fatalf("consent page on B for a session made on A: %s", page)
		}
		code, err := fresh.at(B).Approve(ctx, authURL, page, state)
		if err != nil {
			t.Fatalf("approval on B: %v", err)
		}
		// And back: B's code is exchanged at A.
		if _, err := fresh.at(A).Exchange(ctx, code, p); err != nil {
			t.Fatalf("B's code exchanged at A: %v", err)
		}
	})

	t.Run("code issued on A is exchanged on B", func(t *testing.T) {
		p := flow.NewPKCE()
		code, err := atA.Authorize(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := atB.Exchange(ctx, code, p); err != nil {
			t.Fatalf("A's code at B: %v", err)
		}
		// The code is spent for both.
		for _, r := range both {
			resp, err := r.TokenRequest(ctx, r.ExchangeForm(s.clientID, code, p))
			if err != nil {
				t.Fatal(err)
			}
			if resp.Status != http.StatusBadRequest || resp.OAuthError() != "invalid_grant" {
				t.Errorf("the spent code again at %s: %s, want 400 invalid_grant", r.r.name, resp)
			}
		}
	})

	// Refresh on one replica, first use of the new access token on the other: the rotation is
	// committed by the second, and the replaced pair is refused by both.
	for _, order := range [][2]*at{{atA, atB}, {atB, atA}} {
		refreshOn, useOn := order[0], order[1]
		t.Run("refresh on "+refreshOn.r.name+", first use on "+useOn.r.name, func(t *testing.T) {
			old, err := refreshOn.Grant(ctx)
			if err != nil {
				t.Fatal(err)
			}
			next, err := refreshOn.Refresh(ctx, old.RefreshToken)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := useOn.Userinfo(ctx, next.AccessToken)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Status != http.StatusOK {
				t.Fatalf("the new access token at %s: %s", useOn.r.name, resp)
			}
			for _, r := range both {
				expectUserinfo(ctx, t, r, "the replaced access token at "+r.r.name, old.AccessToken, http.StatusUnauthorized)
			}
			// The replaced refresh token is refused first by the replica that did not issue
			// the rotation, then by the other. Presenting it is reuse: the whole grant goes.
			for _, r := range []*at{useOn, refreshOn} {
				expectRefresh(ctx, t, r, "the replaced refresh token at "+r.r.name, old.RefreshToken, false)
			}
			for _, r := range both {
				expectUserinfo(ctx, t, r, "after refresh-token reuse, the grant's new access token at "+r.r.name, next.AccessToken, http.StatusUnauthorized)
			}
		})
	}

	t.Run("revoked on B is refused on A at once", func(t *testing.T) {
		tr, err := atA.Grant(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if resp, err := atA.Userinfo(ctx, tr.AccessToken); err != nil || resp.Status != http.StatusOK {
			t.Fatalf("userinfo at A before the revocation: %v %s", err, resp)
		}
		resp, err := atB.Revoke(ctx, tr.RefreshToken, "refresh_token")
		if err != nil {
			t.Fatal(err)
		}
		if resp.Status != http.StatusOK {
			t.Fatalf("revoke at B: %s", resp)
		}
		// The very next request, no waiting: the verifier reads the pair on every request.
		expectUserinfo(ctx, t, atA, "access token at A right after revocation on B", tr.AccessToken, http.StatusUnauthorized)
		expectRefresh(ctx, t, atA, "refresh at A right after revocation on B", tr.RefreshToken, false)
	})

	t.Run("key rotation reaches B within the cache time", func(t *testing.T) {
		kid1 := strings.TrimSpace(mustCLI(t, A.configFile, "keys", "rotate", "--school", fmt.Sprint(schoolID)))
		rotated := time.Now()
		if kid1 == "" || kid1 == kid0 {
			t.Fatalf("keys rotate printed %q (the key before was %q)", kid1, kid0)
		}
		bound := keyCacheTTL + keyCacheMargin

		var set jwks
		var last flow.Response
		published, _ := poll(bound, 250*time.Millisecond, func() bool {
			var err error
			set, last, err = atB.fetchJWKS(ctx)
			return err == nil && set.has(kid1)
		})
		if !published {
			t.Fatalf("B's JWKS still lacks the new kid %s %s after the rotation (kids %v; %s)", kid1, time.Since(rotated), set.kids(), last)
		}
		t.Logf("B's JWKS published the new key %s after the rotation", time.Since(rotated).Round(time.Millisecond))
		if !set.has(kid0) {
			t.Errorf("B's JWKS dropped the previous key %s at once (kids %v): tokens signed just before no longer verify", kid0, set.kids())
		}
		if cc := last.Header.Get("Cache-Control"); !strings.Contains(cc, "max-age=30") {
			t.Errorf("JWKS Cache-Control %q, want max-age=30 (docs/keys.md)", cc)
		}
		if err := verifyES256(first.IDToken, set); err != nil {
			t.Errorf("an ID token signed before the rotation, against B's JWKS after it: %v", err)
		}

		var idToken, kid string
		var grantErr error
		signs, _ := poll(bound-time.Since(rotated), 250*time.Millisecond, func() bool {
			var tr flow.Tokens
			tr, grantErr = atB.Grant(ctx)
			if grantErr != nil {
				return false
			}
			idToken = tr.IDToken
			kid, grantErr = idTokenKID(idToken)
			return grantErr == nil && kid == kid1
		})
		if !signs {
			t.Fatalf("B still signs with %s, not %s, %s after the rotation (last error: %v)", kid, kid1, time.Since(rotated), grantErr)
		}
		t.Logf("B signed with the new key %s after the rotation", time.Since(rotated).Round(time.Millisecond))
		set, _, err := atB.fetchJWKS(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := verifyES256(idToken, set); err != nil {
			t.Errorf("B's new ID token against B's JWKS: %v", err)
		}
		// A is another server with a cache of its own; it must converge within the same bound.
		onA, _ := poll(bound-time.Since(rotated), 250*time.Millisecond, func() bool {
			setA, _, err := atA.fetchJWKS(ctx)
			return err == nil && setA.has(kid1)
		})
		if !onA {
			t.Errorf("A's JWKS lacks the new kid %s %s after the rotation", kid1, time.Since(rotated))
		}
	})
}
