package resource

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/proctorhq/proctor/school"
)

var (
	// ErrNoToken: the request carried no bearer token.
	ErrNoToken = errors.New("resource: no bearer token")
	// ErrInvalidToken: malformed, forged, unknown, revoked, expired or bound elsewhere.
	ErrInvalidToken = errors.New("resource: invalid token")
	// ErrNoVerdict: the token could not be checked (the database is unavailable).
	ErrNoVerdict = errors.New("resource: no verdict")
	// ErrOtherOrganization: the token's grant names no school, or another one, as its school_id
	// (spec, Authentication 8). It is an ErrInvalidToken whose challenge tells the client to run
	// the authorization again: a refresh would copy the same school_id.
	ErrOtherOrganization = fmt.Errorf("%w: issued for a different organization", ErrInvalidToken)
)

// Grant is what a verified access token grants.
type Grant struct {
	PairID    int64
	ClientID  string
	MemberID  int64 // 0: no resource owner
	Scopes    []string
	Resource  string
	ExpiresAt time.Time
	IssuedAt  time.Time
	// AMR is how the member had signed in when the grant was made (RFC 8176 values), from the
	// token pair; empty from a RemoteVerifier or for an older grant.
	AMR []string
}

// HasScope reports whether the grant holds scope s.
func (g Grant) HasScope(s string) bool {
	for _, v := range g.Scopes {
		if v == s {
			return true
		}
	}
	return false
}

// Verifier checks bearer tokens for the school in the context.
type Verifier interface {
	Verify(ctx context.Context, token string) (Grant, error)
}

// BoundTo reports whether a token whose grant named resource may be used at the school's
// origin: the resource's scheme and host must be the school's (spec, Authentication 5), as
// School.SameOrigin compares them. A resource with user info, a query or a fragment is bound
// nowhere: authz.ParseResource never issues one, so such a grant (or introspection answer) did
// not come from these rules.
func BoundTo(t *school.School, resource string) bool {
	u, err := url.Parse(resource)
	return err == nil && t.SameOrigin(u)
}
