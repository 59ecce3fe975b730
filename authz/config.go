package authz

import (
	"context"
	"time"

	"github.com/ory/fosite"

	"github.com/proctorhq/proctor/client"
	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/school"
)

// IDTokenLifetime is fixed by the spec's Limits table.
const IDTokenLifetime = 10 * time.Minute

// fositeConfig is fosite's configuration with the per-school settings read from the request's
// school: one provider serves every school (fosite's handler lists skip duplicate types, so
// one provider per school would buy nothing but memory).
type fositeConfig struct {
	*fosite.Config
}

// The client-secret hasher is fosite's: client authentication at the token and revocation
// endpoints compares the presented secret with it.
var _ fosite.Hasher = (*client.SecretHasher)(nil)

func newFositeConfig(hmacKey []byte, hasher fosite.Hasher) *fositeConfig {
	return &fositeConfig{Config: &fosite.Config{
		GlobalSecret: hmacKey,
		// PKCE with S256 for every client (spec, Authentication 1); plain stays off.
		EnforcePKCE: true,
		// The default scope strategy lets a wildcard match account:read; scopes match exactly.
		ScopeStrategy:            fosite.ExactScopeStrategy,
		AudienceMatchingStrategy: fosite.ExactAudienceMatchingStrategy,
		// Refresh tokens are issued without offline_access (spec: refresh yields a new token
		// without prompting); fosite otherwise requires one of these scopes.
		RefreshTokenScopes:         []string{},
		SendDebugMessagesToClients: false,
		ClientSecretsHasher:        hasher,
		IDTokenLifespan:            IDTokenLifetime,
		// state must carry some entropy (fosite's default of 8 characters).
		MinParameterEntropy: fosite.MinParameterEntropy,
	}}
}

func (c *fositeConfig) school(ctx context.Context) *school.School {
	t, err := school.FromContext(ctx)
	if err != nil {
		// Every OAuth route sits behind school resolution; reaching here without a school is a
		// wiring bug, and failing loudly beats issuing tokens for no school.
		panic("authz: fosite called without a school in the context")
	}
	return t
}

func (c *fositeConfig) GetIDTokenIssuer(ctx context.Context) string { return c.school(ctx).Origin }
func (c *fositeConfig) GetAccessTokenIssuer(ctx context.Context) string {
	return c.school(ctx).Origin
}
func (c *fositeConfig) GetAccessTokenLifespan(ctx context.Context) time.Duration {
	return c.school(ctx).AccessTokenLifetime
}
func (c *fositeConfig) GetRefreshTokenLifespan(ctx context.Context) time.Duration {
	return c.school(ctx).RefreshTokenLifetime
}
func (c *fositeConfig) GetAuthorizeCodeLifespan(ctx context.Context) time.Duration {
	return c.school(ctx).AuthorizationCodeLifetime
}
func (c *fositeConfig) GetIDTokenLifespan(context.Context) time.Duration { return IDTokenLifetime }
func (c *fositeConfig) GetTokenURLs(ctx context.Context) []string {
	return []string{c.school(ctx).URL(endpoint.Token)}
}
