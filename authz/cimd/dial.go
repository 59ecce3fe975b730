package cimd

import "github.com/proctorhq/proctor/netguard"

// The address guard of the fetcher lives in netguard, shared with the other outbound fetches of
// URLs that outside parties choose; these names keep cimd's own vocabulary for it.

// ErrForbiddenAddress is returned when a document's host resolves to a special-use address
// (draft section 8.6: an authorization server MUST NOT fetch documents from addresses of
// RFC 6890's registries).
var ErrForbiddenAddress = netguard.ErrForbiddenAddress

// AddrResolver looks up the addresses of a host name; *net.Resolver satisfies it.
type AddrResolver = netguard.Resolver
