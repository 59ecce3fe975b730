package authz

import (
	"context"
	"time"

	"github.com/proctorhq/proctor/storage"
)

// Store is what the authorization server needs of storage (a storage.Store has all of it). New
// hands each part to the one piece that uses it: the grants and the transactions to the fosite
// adapter (storage.go), the pairs to the revocation endpoint, clients and members to the
// endpoints.
type Store interface {
	grantStore
	transactions
	clientReader
	memberReader
}

// grantStore keeps authorization codes, their PKCE and OpenID Connect records, and token pairs
// (storage.Grants less the step a token's first use takes, which is the resource verifier's).
type grantStore interface {
	CreateCodeGrant(ctx context.Context, g storage.CodeGrant) error
	GetCodeGrant(ctx context.Context, signature string) (storage.CodeGrant, error)
	DeleteGrantSession(ctx context.Context, kind storage.SessionKind, signature string) error
	ExchangeCode(ctx context.Context, signature string, p storage.TokenPair) (storage.TokenPair, error)
	RefreshPair(ctx context.Context, p storage.TokenPair) (storage.TokenPair, error)
	pairRevoker
}

// pairRevoker finds a token's pair and revokes its grant (the revocation endpoint).
type pairRevoker interface {
	GetTokenPair(ctx context.Context, kind storage.TokenKind, signature string) (storage.TokenPair, error)
	RevokeGrant(ctx context.Context, requestID string, at time.Time) (int, error)
}

// clientReader finds the context school's stored clients.
type clientReader interface {
	GetClient(ctx context.Context, id string) (storage.Client, error)
}

// memberReader reads members and their roles at the context's school (the consent decision and
// UserInfo).
type memberReader interface {
	GetMember(ctx context.Context, id int64) (storage.Member, error)
	GetRoles(ctx context.Context, memberID int64) ([]storage.Role, error)
}

// endpointStore is what the endpoints read themselves; codes, tokens and transactions go through
// fosite and its adapter.
type endpointStore interface {
	clientReader
	memberReader
}
