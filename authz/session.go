package authz

import (
	"encoding/json"

	"github.com/ory/fosite"
	"github.com/ory/fosite/handler/openid"
	"github.com/ory/fosite/token/jwt"
)

// Session is what Proctor keeps with every grant: fosite's OpenID Connect session plus the
// member, the school and the exact `resource` value the client sent at authorization.
type Session struct {
	*openid.DefaultSession
	MemberID int64 `json:"member_id"`
	// SchoolID is the school the grant was made at; it is returned as school_id and checked by
	// every protected resource. A refresh copies it.
	SchoolID  int64  `json:"school_id"`
	Subdomain string `json:"school_subdomain"`
	// Resource is the value of `resource` sent at /oauth/authorize, byte for byte; the token
	// request must repeat it (RFC 8707 section 2.2).
	Resource string `json:"resource"`

	// pairID is the stored token pair the session was read from (0: read from an authorization
	// code). It is not stored: it says, for the refresh fosite is running, which pair the new
	// one replaces (refresh.go).
	pairID int64
}

var _ fosite.Session = (*Session)(nil)

// newSession returns an empty session for fosite to fill from storage.
func newSession() *Session {
	return &Session{DefaultSession: &openid.DefaultSession{
		Claims:  &jwt.IDTokenClaims{},
		Headers: &jwt.Headers{},
	}}
}

// Clone deep-copies the session. fosite clones sessions on refresh; the embedded type's Clone
// would return a bare DefaultSession and drop our fields, so a JSON round trip copies all those
// stored, and pairID is copied by hand.
func (s *Session) Clone() fosite.Session {
	if s == nil {
		return nil
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil
	}
	c := newSession()
	if err := json.Unmarshal(b, c); err != nil {
		return nil
	}
	c.pairID = s.pairID
	return c
}

// amr is how the member signed in (the ID token's amr), which the pair records for the resource
// servers.
func (s *Session) amr() []string {
	if s.DefaultSession == nil || s.Claims == nil {
		return nil
	}
	return s.Claims.AuthenticationMethodsReferences
}
