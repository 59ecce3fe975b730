package graphql_test

import (
	"net/http"
	"testing"

	"github.com/proctorhq/proctor/resource/resourcetest"
	"github.com/proctorhq/proctor/server/servertest"
	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/storage"
)

// TestWithIssuedTokens runs the real authorization code flow (login, consent, code exchange,
// refresh) and calls the Member API with what the authorization server issued, so that the
// minted tokens of the other tests cannot drift from real ones unnoticed.
func TestWithIssuedTokens(t *testing.T) {
	newServer := func(t testing.TB, backend string) *servertest.Env {
		return servertest.New(t, servertest.Options{Backend: backend})
	}
	resourcetest.EachBackend(t, newServer, func(t *testing.T, srv *servertest.Env) {
		e := seeded(&env{&resourcetest.Env{T: t, Store: srv.Store, A: srv.A.School, B: srv.B.School}})
		hash := schools.Hash(t, servertest.Password)
		ctx := e.Ctx(e.A)
		m, err := e.Store.GetMemberByEmail(ctx, sam)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Store.UpdateMember(ctx, m.ID, func(m storage.Member) (storage.Member, error) {
			m.PasswordHash = hash
			return m, nil
		}); err != nil {
			t.Fatal(err)
		}

		c := srv.A.MemberClient
		tok := srv.TokensFor(srv.A, sam, c, "account:read", "account:write")
		r := e.post(e.A, tok.AccessToken, `{ viewer { email payments(first: 1) { nodes { tradeNo } } } }`, nil)
		if string(r.Data) != `{"viewer":{"email":"sam@example.test","payments":{"nodes":[{"tradeNo":"A-ATM-OPEN"}]}}}` {
			t.Errorf("with the issued token: %d %s", r.status, r.raw)
		}
		// The same token at school B's origin: bound elsewhere.
		if r := e.post(e.B, tok.AccessToken, viewerID, nil); r.status != http.StatusUnauthorized {
			t.Errorf("issued token at school B: %d %s", r.status, r.raw)
		}

		// A refreshed token carries the school over (spec, Authentication 8).
		answer, fresh := srv.Refresh(srv.A, c, tok.RefreshToken)
		if answer.Status != http.StatusOK || fresh.AccessToken == "" || fresh.AccessToken == tok.AccessToken {
			t.Fatalf("refresh: %d %s", answer.Status, answer.Body)
		}
		r = e.post(e.A, fresh.AccessToken, `mutation { markAllNotificationsRead { markedCount } }`, nil)
		if string(r.Data) != `{"markAllNotificationsRead":{"markedCount":2}}` {
			t.Errorf("with the refreshed token: %d %s", r.status, r.raw)
		}
	})
}
