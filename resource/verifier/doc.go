// Package verifier checks bearer tokens against the token pairs in the shared database: the
// resource.Verifier of every process that runs the authorization server (a Member API process of
// its own uses resource.RemoteVerifier, over the internal introspection endpoint).
//
// It checks the token's HMAC before touching the database (a forged or garbled token costs no
// query), then finds the token pair with one indexed lookup scoped to the request's school, and
// refuses a revoked, expired or foreign-origin token, and one whose grant names no school or
// another school's (the pair's own SchoolID: no second query). On a pair's first use it commits
// the refresh rotation (the spec's token-pair table: the pair it replaced is revoked), exactly
// once (authz/refresh.go has the whole rule).
//
// It is, with the authorization server, the only package that imports fosite: the token format
// (fosite's HMAC strategy) is the authorization server's, and keeping it here leaves package
// resource, and the surfaces that use it, free of the OAuth library.
package verifier
