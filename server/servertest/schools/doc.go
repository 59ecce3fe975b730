// Package schools builds the pieces of the test environment every package's tests share: the
// schools (school files, schools synced into the store, their registry), a real store (storetest:
// SQLite, or PostgreSQL when PROCTOR_TEST_POSTGRES_DSN is set) behind an httptest server, members
// (with one password hashed at a cheap cost, or none) and their roles at the schools, a fixed
// system secret, a settable clock, a captured JSON log, and the request context the server's
// middleware gives a handler (with the client address a test's browser claims in AddrHeader, which
// Identify sets); also a key prefix of the test's own in the test Redis (Redis), a certificate
// authority with a server certificate for TLS test servers (NewCA) and a resolver that sends their
// names to loopback (StaticResolver), a mailbox with the SMTP settings that send to it (Mailbox),
// the body of an API request and its JSON answer (RequestBody, DecodeJSON), and the message
// catalogue with the one check that a page is in a language (Catalogue, InLanguage, PageIn), so
// that every package's translated pages are held to the same test, and the reviewed copies of what
// a test produces (Golden, GoldenJSON), which the one -update flag rewrites.
//
// It imports no handler package, so that the tests of any package (internal tests of login,
// mfa or operator included) can use it; package servertest builds the whole server on it. A
// harness that composes a few handlers the way the server does takes its schools, store and
// clock from here and adds only what is its own.
package schools
