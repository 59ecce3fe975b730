package authz

import (
	"context"

	josev3 "github.com/go-jose/go-jose/v3"
	"github.com/ory/fosite"
	"github.com/ory/fosite/compose"
	"github.com/ory/fosite/handler/oauth2"
	"github.com/ory/fosite/handler/openid"
	"github.com/ory/fosite/token/hmac"

	"github.com/proctorhq/proctor/keys"
	"github.com/proctorhq/proctor/school"
)

// provider is the composed fosite provider and the strategies our own handlers share with it.
type provider struct {
	fosite.OAuth2Provider
	config *fositeConfig
	hmac   *hmac.HMACStrategy
	core   oauth2.CoreStrategy
}

// newProvider registers only what Proctor supports: the authorization-code grant with PKCE,
// refresh, OpenID Connect ID tokens at the code exchange (never at refresh: there is no OpenID
// Connect refresh handler), and our own revocation and `resource` handlers. No implicit,
// hybrid, password, client-credentials or assertion grants exist to be misused.
func newProvider(cfg *fositeConfig, store *fositeStore, signing *keys.Manager) *provider {
	enigma := &hmac.HMACStrategy{Config: cfg}
	core := oauth2.NewHMACSHAStrategyUnPrefixed(enigma, cfg)
	store.signature = func(ctx context.Context, code string) string {
		return core.AuthorizeCodeSignature(ctx, code)
	}
	keyGetter := func(ctx context.Context) (interface{}, error) {
		k, err := signing.Current(ctx)
		if err != nil {
			return nil, err
		}
		// go-jose writes the JWK's key id into the token's kid header.
		return &josev3.JSONWebKey{Key: k.Private, KeyID: k.KID, Algorithm: string(josev3.ES256), Use: "sig"}, nil
	}
	strategy := &compose.CommonStrategy{
		CoreStrategy:               core,
		OpenIDConnectTokenStrategy: compose.NewOpenIDConnectStrategy(keyGetter, cfg),
	}

	explicit := compose.OAuth2AuthorizeExplicitFactory(cfg, store, strategy).(*oauth2.AuthorizeExplicitGrantHandler)
	refresh := compose.OAuth2RefreshTokenGrantFactory(cfg, store, strategy).(*oauth2.RefreshTokenGrantHandler)
	oidc := &schoolIDTokens{compose.OpenIDConnectExplicitFactory(cfg, store, strategy).(*openid.OpenIDConnectExplicitHandler)}
	pkceHandler := compose.OAuth2PKCEFactory(cfg, store, strategy).(fosite.AuthorizeEndpointHandler)

	c := cfg.Config
	// PKCE runs after the explicit handler: it needs the code the explicit handler issued.
	c.AuthorizeEndpointHandlers.Append(explicit)
	c.AuthorizeEndpointHandlers.Append(oidc)
	c.AuthorizeEndpointHandlers.Append(pkceHandler)
	c.TokenEndpointHandlers.Append(explicit)
	c.TokenEndpointHandlers.Append(refresh)
	// After the refresh handler, whose granted scopes it narrows.
	c.TokenEndpointHandlers.Append(refreshScope{})
	c.TokenEndpointHandlers.Append(oidc)
	c.TokenEndpointHandlers.Append(pkceHandler.(fosite.TokenEndpointHandler))
	// After the grant handlers, which restore the session the check reads.
	c.TokenEndpointHandlers.Append(resourceCheck{})
	c.RevocationHandlers.Append(&revocation{store: store.grants, hmac: enigma, now: store.now, counters: store.counters})

	return &provider{
		OAuth2Provider: fosite.NewOAuth2Provider(store, cfg),
		config:         cfg,
		hmac:           enigma,
		core:           core,
	}
}

// schoolIDTokens issues ID tokens only at schools that enable them (features.id_tokens): a
// school without them advertises neither jwks_uri nor a signing algorithm and must not issue
// an id_token (spec, Authentication 9).
type schoolIDTokens struct {
	*openid.OpenIDConnectExplicitHandler
}

func idTokensOn(ctx context.Context) bool {
	t, err := school.FromContext(ctx)
	return err == nil && t.Features.IDTokens
}

func (h *schoolIDTokens) HandleAuthorizeEndpointRequest(ctx context.Context, ar fosite.AuthorizeRequester, resp fosite.AuthorizeResponder) error {
	if !idTokensOn(ctx) {
		return nil
	}
	return h.OpenIDConnectExplicitHandler.HandleAuthorizeEndpointRequest(ctx, ar, resp)
}

func (h *schoolIDTokens) CanHandleTokenEndpointRequest(ctx context.Context, r fosite.AccessRequester) bool {
	return idTokensOn(ctx) && h.OpenIDConnectExplicitHandler.CanHandleTokenEndpointRequest(ctx, r)
}

// requestCheck is what a token-endpoint handler that only checks the request (refreshScope,
// resourceCheck) answers fosite besides: it adds nothing to the response and lets no client skip
// authentication.
type requestCheck struct{}

func (requestCheck) PopulateTokenEndpointResponse(context.Context, fosite.AccessRequester, fosite.AccessResponder) error {
	return nil
}

func (requestCheck) CanSkipClientAuth(context.Context, fosite.AccessRequester) bool { return false }
