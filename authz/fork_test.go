package authz_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"

	"github.com/proctorhq/proctor/resource"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/server/servertest"
)

// TestForkedRefresh is the token-pair table's row for two refreshes of one refresh token before
// either new access token is used (docs/decisions.md, "Refresh rotation"): the first use of
// either new access token revokes the replaced pair and the other new pair; the other access
// token is then refused, and presenting the other refresh token is reuse, which revokes the
// grant. Each order is run, with the first use made through a public resource (UserInfo) and
// through the remote verifier a separate Member API process uses (introspection).
func TestForkedRefresh(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		local := func(token string) bool {
			status := e.Userinfo(e.a, token)
			return status == http.StatusOK
		}
		remoteVerifier := resource.NewRemoteVerifier(e.internal.URL+resource.IntrospectPath, []byte(testInternalKey))
		remote := func(token string) bool {
			_, err := remoteVerifier.Verify(school.NewContext(context.Background(), e.a), token)
			if err != nil && !errors.Is(err, resource.ErrInvalidToken) {
				t.Fatalf("remote verify: %v", err)
			}
			return err == nil
		}
		for _, tc := range []struct {
			name      string
			live      func(string) bool
			usedFirst int // which of the two refresh responses is used first
		}{
			{"first refresh used first", local, 0},
			{"second refresh used first", local, 1},
			{"first refresh used first, remote verifier", remote, 0},
			{"second refresh used first, remote verifier", remote, 1},
		} {
			t.Run(tc.name, func(t *testing.T) {
				tr := e.tokens("account:read")
				var forks [2]servertest.Tokens
				for i := range forks {
					res, r := e.Refresh(e.a, oauthClient(publicClient), tr.RefreshToken)
					if res.Status != http.StatusOK {
						t.Fatalf("refresh %d: %d %+v", i, res.Status, r)
					}
					forks[i] = r
				}
				used, sibling := forks[tc.usedFirst], forks[1-tc.usedFirst]
				if !tc.live(used.AccessToken) {
					t.Fatal("the first-used new access token was refused")
				}
				if tc.live(tr.AccessToken) {
					t.Error("the replaced access token still works")
				}
				if tc.live(sibling.AccessToken) {
					t.Fatal("the sibling's access token works after the other new access token was used")
				}
				if !tc.live(used.AccessToken) {
					t.Fatal("presenting the sibling revoked the line in use")
				}
				if res, r := e.Refresh(e.a, oauthClient(publicClient), sibling.RefreshToken); res.Status != http.StatusBadRequest || r.Error != "invalid_grant" {
					t.Fatalf("sibling's refresh token: %d %+v, want invalid_grant", res.Status, r)
				}
				if tc.live(used.AccessToken) {
					t.Error("reuse of the sibling's refresh token did not revoke the grant")
				}
				if res, r := e.Refresh(e.a, oauthClient(publicClient), used.RefreshToken); res.Status != http.StatusBadRequest || r.Error != "invalid_grant" {
					t.Errorf("the used line's refresh token after the reuse: %d %+v", res.Status, r)
				}
			})
		}
		t.Run("a line refreshed again before the other is used is retired with it", func(t *testing.T) {
			tr := e.tokens("account:read")
			_, a := e.Refresh(e.a, oauthClient(publicClient), tr.RefreshToken)
			_, b := e.Refresh(e.a, oauthClient(publicClient), tr.RefreshToken)
			res, b2 := e.Refresh(e.a, oauthClient(publicClient), b.RefreshToken)
			if res.Status != http.StatusOK {
				t.Fatalf("refresh of the sibling: %d %+v", res.Status, b2)
			}
			if !local(a.AccessToken) {
				t.Fatal("new access token refused")
			}
			if local(b2.AccessToken) || local(b.AccessToken) {
				t.Error("a pair minted from the sibling survived the first use of the other line")
			}
		})
	})
}

// TestConcurrentForkedRefresh presents both access tokens of a forked refresh many times at
// once. Whichever the database lets go first wins: every presentation of its token succeeds,
// every presentation of the sibling's is refused, and the sibling's refresh token is then reuse.
func TestConcurrentForkedRefresh(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		const perSibling = 4
		for round := range 3 {
			tr := e.tokens("account:read")
			var forks [2]servertest.Tokens
			for i := range forks {
				if res, r := e.Refresh(e.a, oauthClient(publicClient), tr.RefreshToken); res.Status == http.StatusOK {
					forks[i] = r
				} else {
					t.Fatalf("refresh: %d %+v", res.Status, r)
				}
			}
			var (
				wg    sync.WaitGroup
				mu    sync.Mutex
				ok    [2]int
				start = make(chan struct{})
			)
			for i := range 2 * perSibling {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					status := e.Userinfo(e.a, forks[i%2].AccessToken)
					if status != http.StatusOK && status != http.StatusUnauthorized {
						t.Errorf("userinfo: %d", status)
						return
					}
					if status == http.StatusOK {
						mu.Lock()
						ok[i%2]++
						mu.Unlock()
					}
				}()
			}
			close(start)
			wg.Wait()
			won := 0
			if ok[1] > 0 {
				won = 1
			}
			if ok[won] != perSibling || ok[1-won] != 0 {
				t.Fatalf("round %d: accepted presentations per sibling %v, want all of one and none of the other", round, ok)
			}
			if res, r := e.Refresh(e.a, oauthClient(publicClient), forks[1-won].RefreshToken); res.Status != http.StatusBadRequest || r.Error != "invalid_grant" {
				t.Errorf("round %d: losing sibling's refresh token: %d %+v", round, res.Status, r)
			}
		}
	})
}
