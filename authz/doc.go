// Package authz will hold the fosite composition and the OAuth endpoints: authorize, token,
// revoke, userinfo, register, Client ID Metadata Document resolution, client policy and the
// token-pair rules. It has no code yet: the endpoints arrive with the authorization server.
package authz
