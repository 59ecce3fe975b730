package authz

import (
	"context"

	"github.com/proctorhq/proctor/school"
)

// Counters are told what the token and revocation endpoints did, for the server's metrics.
// Every field is optional; a nil one is not called. They are called after the fact and must not
// block: the server increments a Prometheus counter.
type Counters struct {
	// TokenIssued: the token endpoint issued a token pair by grantType ("authorization_code" or
	// "refresh_token": a refresh is a rotation) at the school.
	TokenIssued func(schoolID int64, grantType string)
	// RefreshReused: a refresh token whose pair was already revoked was presented, and its
	// grant revoked (RFC 9700 section 4.14.2).
	RefreshReused func(schoolID int64)
	// Revoked: a request to the revocation endpoint (RFC 7009) revoked a grant. Requests that
	// revoke nothing (an unknown, expired or foreign token) are not counted.
	Revoked func(schoolID int64)
}

func (c Counters) tokenIssued(schoolID int64, grantType string) {
	if c.TokenIssued != nil {
		c.TokenIssued(schoolID, grantType)
	}
}

func (c Counters) refreshReused(ctx context.Context) {
	if c.RefreshReused != nil {
		c.RefreshReused(contextSchoolID(ctx))
	}
}

func (c Counters) revoked(ctx context.Context) {
	if c.Revoked != nil {
		c.Revoked(contextSchoolID(ctx))
	}
}

// contextSchoolID is the request's school id, 0 without one (every endpoint here has one).
func contextSchoolID(ctx context.Context) int64 {
	if t, err := school.FromContext(ctx); err == nil {
		return t.SchoolID
	}
	return 0
}
