package authz

import (
	"github.com/ory/fosite"

	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
)

// grantTypes and responseTypes are the only ones any client may use (spec, Authentication 1).
var (
	grantTypes    = []string{"authorization_code", "refresh_token"}
	responseTypes = []string{"code"}
)

// namedClient is a stored client as fosite sees it, with the name the consent page shows.
type namedClient struct {
	*fosite.DefaultOpenIDConnectClient
	name string
}

// fositeClient presents a stored client to fosite. Its audience is the school's origin: every
// token is bound to it, whatever resource URL under the origin the client named.
func fositeClient(t *school.School, c storage.Client) fosite.Client {
	method := c.TokenEndpointAuthMethod
	if method == "" {
		method = storage.AuthMethodNone
	}
	return &namedClient{name: c.Name, DefaultOpenIDConnectClient: &fosite.DefaultOpenIDConnectClient{
		DefaultClient: &fosite.DefaultClient{
			ID:            c.ID,
			Secret:        []byte(c.SecretHash),
			RedirectURIs:  c.RedirectURIs,
			GrantTypes:    grantTypes,
			ResponseTypes: responseTypes,
			Scopes:        c.Scopes,
			Audience:      []string{t.Origin},
			Public:        method == storage.AuthMethodNone,
		},
		// fosite's client authentication honours this: a public client may only use "none",
		// a confidential one only client_secret_post (Basic and assertions fail).
		TokenEndpointAuthMethod: method,
	}}
}
