// Package client holds the rules for the OAuth clients a school's operators create and the one
// Manager that creates, rotates and deletes them.
//
// The policy (policy.go): a client's name is 1 to MaxName visible characters (CheckName, also
// applied to Client ID Metadata Documents by package authz/cimd); it registers 1 to
// MaxRedirectURIs redirect URIs, each https or plain http on 127.0.0.1 or [::1]
// (CheckRedirectURI); and it holds at least one scope, only among those of its kind (Scopes:
// identity and account scopes for member clients, identity and operator scopes for operator
// clients). CheckRequest applies all of them and reports every problem at once.
//
// Secrets (secret.go): a confidential client's secret is 256 random bits, shown once and stored
// only as its HMAC-SHA256 under a key derived from the system secret (SecretHasher). The
// authorization server checks secrets with the same hasher, which it takes from the Manager.
//
// The server builds one Manager and hands it to the authorization server and to the operator
// pages (package admin); `proctor clients` builds its own from the same configuration. This
// package imports neither fosite nor the authorization server: the operator pages and the CLI
// manage clients without them.
package client
