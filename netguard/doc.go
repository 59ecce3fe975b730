// Package netguard is the address guard of the server's outbound fetches of URLs that outside
// parties choose (Client ID Metadata Documents in authz/cimd, a school's logo in look). Such a
// URL must not reach the inside: the guard refuses every special-use address of RFC 6890's
// registries (loopback, private, link-local where cloud metadata services live, ...), and
// checks the address really dialled rather than the name, so that DNS rebinding cannot slip
// an internal address in between the check and the connect.
//
// A development deployment (and the tests, which serve on loopback) may let the private blocks
// through (loopback, RFC 1918, IPv6 unique-local); the other special-use blocks are never
// dialled. Each user of the guard has its own switch for that (cimd: CIMD.AllowPrivateNetworks;
// look: look.AllowPrivateNetworks).
//
// NewTransport builds the HTTP transport both fetchers use around the guard (no proxy, TLS 1.2
// at the least, bounded headers and idle pool), and ReadBody reads a response within a bound of
// the caller's, so that the two fetchers cannot drift apart.
//
// The package is a leaf: it imports nothing of Proctor's.
package netguard
