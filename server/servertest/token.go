package servertest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	"github.com/ory/fosite"
	"github.com/ory/fosite/token/hmac"

	"github.com/proctorhq/proctor/authz"
	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
)

// TokenOptions shape an access token MintToken stores.
type TokenOptions struct {
	Scopes []string
	// Resource is the audience ("": the school's origin).
	Resource string
	// SchoolID is the session's school (nil: the school's id; point at 0 for a session
	// without one).
	SchoolID *int64
	// Expired made a minute ago; Revoked now; NoOwner without a member on the pair.
	Expired, Revoked, NoOwner bool
}

// TokenStore is where MintToken stores the pair.
type TokenStore interface {
	CreateTokenPair(ctx context.Context, p storage.TokenPair) (storage.TokenPair, error)
}

// MintToken stores an access token of school tn for member memberID, issued to the client
// member-app, the way the authorization server stores one (the grant's school on the pair,
// authz's session in the pair's data, the signature keyed by secret), and returns it. The token
// counts as used once, so that a request with it runs no first-use write. A test can also mint
// the tokens no authorization would give: expired, revoked, bound elsewhere, without a school
// or an owner.
func MintToken(t testing.TB, st TokenStore, secret config.Secret, tn *school.School, memberID int64, o TokenOptions) string {
	t.Helper()
	ctx := school.NewContext(t.Context(), tn)
	strategy := &hmac.HMACStrategy{Config: &fosite.Config{GlobalSecret: authz.TokenHMACKey(secret)}}
	token, signature, err := strategy.Generate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	sess := &authz.Session{MemberID: memberID, SchoolID: tn.SchoolID, Subdomain: tn.Subdomain, Resource: tn.Origin}
	if o.SchoolID != nil {
		sess.SchoolID = *o.SchoolID
	}
	if o.Resource != "" {
		sess.Resource = o.Resource
	}
	data, err := authz.SessionData(sess)
	if err != nil {
		t.Fatal(err)
	}
	id := make([]byte, 12)
	_, _ = rand.Read(id)
	pair := storage.TokenPair{
		RequestID: hex.EncodeToString(id), ClientID: "member-app", MemberID: memberID, SchoolID: sess.SchoolID, AccessSignature: signature,
		Resource: sess.Resource, Scopes: o.Scopes, Data: data, RequestedAt: now,
		AccessExpiresAt: now.Add(2 * time.Hour), FirstUsedAt: &now,
	}
	if o.Expired {
		pair.AccessExpiresAt = now.Add(-time.Minute)
	}
	if o.Revoked {
		pair.RevokedAt = &now
	}
	if o.NoOwner {
		pair.MemberID = 0
	}
	if _, err := st.CreateTokenPair(ctx, pair); err != nil {
		t.Fatal(err)
	}
	return token
}
