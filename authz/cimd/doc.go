// Package cimd resolves OAuth Client ID Metadata Documents
// (draft-ietf-oauth-client-id-metadata-document-02, "the draft"): a client_id that is an https
// URL names a JSON document, published by the client, that describes it. Documents implements
// authz.MetadataDocuments.
//
// A resolve runs in this order, for every authorization and token request:
//
//  1. The URL is checked against the draft's section 3 (https, a path, no userinfo, fragment or
//     dot segments).
//  2. The school's policy must permit the URL's host (school CIMD.AllowedHosts, or any host when
//     CIMD.Open); otherwise the client is unknown (storage.ErrNotFound), exactly as an unknown
//     stored client would be.
//  3. The document comes from the cache, or is fetched (fetch.go): no redirects, only 200, JSON
//     only, at most 5 KB, short timeouts, and only from addresses that are not special-use
//     (the netguard package checks the address actually dialled, so DNS rebinding cannot reach
//     an internal service). A fetch starts only within the fetch limits (limits.go): token
//     buckets per school and per host, a cap on fetches under way, and a short hold after a URL
//     failed, since every unauthenticated authorization request could otherwise cost one.
//  4. The document is validated (document.go): its client_id equals the URL, it names itself
//     and its redirect URIs, it uses no shared secret, and its redirect URIs sit on its own host
//     or on loopback.
//  5. The client is an operator client whose scopes depend on whether the deployment's
//     operators reviewed the URL (config.Server.ReviewedClients): unreviewed documents get
//     identity and operator read scopes only (spec, Registration rule 4).
//
// Every failure after step 2 is an *authz.ClientError whose description the authorization
// endpoint shows on its error page (the document's redirect URIs cannot be trusted, so nothing
// is redirected); the token endpoint answers invalid_client.
//
// Documents are cached by URL (cache.go): they are not school-specific, but the policy checks of
// steps 2 and 3 are made for the requesting school on every resolve, and the school's
// CacheMin..CacheMax bounds how long a cached document is believed.
package cimd
