package discovery

import (
	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/resource"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/scope"
)

// ServerMetadata is the RFC 8414 / OpenID Connect discovery document. Fields are omitted until
// the school supports what they describe.
type ServerMetadata struct {
	Issuer                                     string   `json:"issuer"`
	AuthorizationEndpoint                      string   `json:"authorization_endpoint,omitempty"`
	TokenEndpoint                              string   `json:"token_endpoint,omitempty"`
	UserinfoEndpoint                           string   `json:"userinfo_endpoint,omitempty"`
	RevocationEndpoint                         string   `json:"revocation_endpoint,omitempty"`
	RegistrationEndpoint                       string   `json:"registration_endpoint,omitempty"`
	JWKSURI                                    string   `json:"jwks_uri,omitempty"`
	ScopesSupported                            []string `json:"scopes_supported"`
	ResponseTypesSupported                     []string `json:"response_types_supported"`
	ResponseModesSupported                     []string `json:"response_modes_supported"`
	GrantTypesSupported                        []string `json:"grant_types_supported"`
	CodeChallengeMethodsSupported              []string `json:"code_challenge_methods_supported"`
	TokenEndpointAuthMethodsSupported          []string `json:"token_endpoint_auth_methods_supported"`
	RevocationEndpointAuthMethodsSupported     []string `json:"revocation_endpoint_auth_methods_supported"`
	SubjectTypesSupported                      []string `json:"subject_types_supported"`
	IDTokenSigningAlgValuesSupported           []string `json:"id_token_signing_alg_values_supported,omitempty"`
	ClaimsSupported                            []string `json:"claims_supported,omitempty"`
	AuthorizationResponseIssParameterSupported bool     `json:"authorization_response_iss_parameter_supported"`
	ClientIDMetadataDocumentSupported          bool     `json:"client_id_metadata_document_supported"`
	ServiceDocumentation                       string   `json:"service_documentation,omitempty"`
}

// ServerMetadataFor builds the school's authorization-server metadata. The ID-token fields
// appear only for a school with ID tokens on (spec, Authentication 9: a client relies on an
// id_token only when both jwks_uri and the signing algorithm are listed).
func ServerMetadataFor(t *school.School) ServerMetadata {
	md := ServerMetadata{
		Issuer:                                     t.Origin,
		AuthorizationEndpoint:                      t.URL(endpoint.Authorize),
		TokenEndpoint:                              t.URL(endpoint.Token),
		UserinfoEndpoint:                           t.URL(endpoint.Userinfo),
		RevocationEndpoint:                         t.URL(endpoint.Revoke),
		RegistrationEndpoint:                       t.URL(endpoint.Register),
		ScopesSupported:                            scope.Names(),
		ResponseTypesSupported:                     []string{"code"},
		ResponseModesSupported:                     []string{"query"},
		GrantTypesSupported:                        []string{"authorization_code", "refresh_token"},
		CodeChallengeMethodsSupported:              []string{"S256"},
		TokenEndpointAuthMethodsSupported:          []string{"none", "client_secret_post"},
		RevocationEndpointAuthMethodsSupported:     []string{"none", "client_secret_post"},
		SubjectTypesSupported:                      []string{"public"},
		ClaimsSupported:                            []string{"sub", "email", "name", "picture", "org_id", "roles"},
		AuthorizationResponseIssParameterSupported: true,
		ClientIDMetadataDocumentSupported:          t.CIMD.Enabled(),
		ServiceDocumentation:                       t.URL(AuthDocPath),
	}
	if t.Features.IDTokens {
		md.JWKSURI = t.URL(endpoint.JWKS)
		md.IDTokenSigningAlgValuesSupported = []string{"ES256"}
		md.ClaimsSupported = append([]string{"iss", "aud", "exp", "iat", "auth_time", "nonce", "at_hash"}, md.ClaimsSupported...)
	}
	return md
}

// ResourceMetadata is the RFC 9728 protected-resource metadata.
type ResourceMetadata struct {
	Resource               string   `json:"resource"`
	ResourceName           string   `json:"resource_name,omitempty"`
	AuthorizationServers   []string `json:"authorization_servers"`
	ScopesSupported        []string `json:"scopes_supported"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
	ResourceDocumentation  string   `json:"resource_documentation,omitempty"`
}

// ResourceMetadataFor builds the metadata of a protected resource on the school's origin.
// The origin itself (resource.Origin, which every token is bound to) lists every scope, as
// the operator REST API it serves uses them all; a path-specific resource lists the scopes
// its challenges name (resource.Protected.Scopes), which a member client can get:
// an MCP client without a scope in the challenge asks for all of scopes_supported (MCP
// 2025-11-25, Authorization, scope selection).
func ResourceMetadataFor(t *school.School, p resource.Protected) ResourceMetadata {
	scopes := p.Scopes
	if p.Path == "" {
		scopes = scope.Names()
	}
	return ResourceMetadata{
		Resource:               t.URL(p.Path),
		ResourceName:           t.Name,
		AuthorizationServers:   []string{t.Origin},
		ScopesSupported:        scopes,
		BearerMethodsSupported: []string{"header"},
		ResourceDocumentation:  t.URL(AuthDocPath),
	}
}
