package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"
)

// ErrForbiddenAddress is returned when a host resolves to a special-use address of RFC 6890's
// registries, or such an address is dialled.
var ErrForbiddenAddress = errors.New("special-use address")

// Resolver looks up the addresses of a host name; *net.Resolver satisfies it.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// addrRange is one block of the special-purpose address registries.
type addrRange struct {
	prefix netip.Prefix
	// private blocks are those a development deployment may reach when its user of the guard
	// allows private networks: loopback, RFC 1918 and IPv6 unique-local addresses. The others
	// (link-local, which carries cloud metadata services, multicast, documentation, ...) are never
	// fetched from.
	private bool
}

// specialUse lists the IPv4 and IPv6 special-purpose blocks of RFC 6890 as the IANA registries
// now stand, plus multicast and the reserved class E space. IPv4-mapped IPv6 addresses are
// unmapped before the lookup, and NAT64 addresses are judged by the IPv4 address they embed.
var specialUse = func() []addrRange {
	var out []addrRange
	add := func(private bool, prefixes ...string) {
		for _, p := range prefixes {
			out = append(out, addrRange{prefix: netip.MustParsePrefix(p), private: private})
		}
	}
	add(true,
		"127.0.0.0/8",    // loopback (RFC 1122)
		"10.0.0.0/8",     // private (RFC 1918)
		"172.16.0.0/12",  // private (RFC 1918)
		"192.168.0.0/16", // private (RFC 1918)
		"::1/128",        // loopback (RFC 4291)
		"fc00::/7",       // unique local (RFC 4193)
	)
	add(false,
		"0.0.0.0/8",       // "this network", including the unspecified address (RFC 1122)
		"100.64.0.0/10",   // shared address space, carrier-grade NAT (RFC 6598)
		"169.254.0.0/16",  // link-local, where cloud metadata services live (RFC 3927)
		"192.0.0.0/24",    // IETF protocol assignments (RFC 6890)
		"192.0.2.0/24",    // documentation TEST-NET-1 (RFC 5737)
		"192.31.196.0/24", // AS112-v4 (RFC 7535)
		"192.52.193.0/24", // AMT (RFC 7450)
		"192.88.99.0/24",  // deprecated 6to4 relay anycast (RFC 7526)
		"192.175.48.0/24", // direct delegation AS112 (RFC 7534)
		"198.18.0.0/15",   // benchmarking (RFC 2544)
		"198.51.100.0/24", // documentation TEST-NET-2 (RFC 5737)
		"203.0.113.0/24",  // documentation TEST-NET-3 (RFC 5737)
		"224.0.0.0/4",     // multicast (RFC 5771)
		"240.0.0.0/4",     // reserved, including the limited broadcast address (RFC 1112, 919)
		"::/128",          // unspecified (RFC 4291)
		"64:ff9b:1::/48",  // local-use NAT64 (RFC 8215)
		"100::/64",        // discard-only (RFC 6666)
		"2001::/23",       // IETF protocol assignments, including Teredo and ORCHIDv2 (RFC 2928)
		"2001:db8::/32",   // documentation (RFC 3849)
		"2002::/16",       // 6to4, which can carry any IPv4 address (RFC 3056)
		"3fff::/20",       // documentation (RFC 9637)
		"5f00::/16",       // segment routing SIDs (RFC 9602)
		"fe80::/10",       // link-local (RFC 4291)
		"fec0::/10",       // deprecated site-local (RFC 3879)
		"ff00::/8",        // multicast (RFC 4291)
	)
	return out
}()

// nat64 is the well-known NAT64 prefix (RFC 6052): its addresses reach the IPv4 address in
// their last 32 bits, so they are judged by that address.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// CheckAddr refuses a special-use address; with allowPrivate it lets loopback and private
// addresses through.
func CheckAddr(ip netip.Addr, allowPrivate bool) error {
	ip = ip.WithZone("").Unmap()
	if nat64.Contains(ip) {
		b := ip.As16()
		ip = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	}
	if !ip.IsValid() {
		return fmt.Errorf("%w: invalid address", ErrForbiddenAddress)
	}
	for _, r := range specialUse {
		if r.prefix.Contains(ip) {
			if r.private && allowPrivate {
				return nil
			}
			return fmt.Errorf("%w: %s is in %s", ErrForbiddenAddress, ip, r.prefix)
		}
	}
	return nil
}

// Guard is an http.Transport's dialer. It resolves the host itself, refuses the whole name if any
// of its addresses is special-use, and dials the checked addresses, never the name: a second
// DNS answer (rebinding) cannot change what is connected to. The socket-level control
// function checks the address once more just before connect, whatever path led there.
type Guard struct {
	resolver     Resolver
	allowPrivate bool
	// dial connects to a checked "ip:port".
	dial DialFunc
}

// DialFunc connects to an address; it is net.Dialer.DialContext's shape.
type DialFunc func(ctx context.Context, network, address string) (net.Conn, error)

// New returns a guard that looks names up with resolver (nil: net.DefaultResolver) and
// connects with d (nil: a zero net.Dialer), whose Control it sets to the socket-level check.
// A non-nil dial replaces d for the connect of a checked address: tests observe with it what
// is dialled.
func New(resolver Resolver, allowPrivate bool, d *net.Dialer, dial DialFunc) *Guard {
	if resolver == nil {
		resolver = net.DefaultResolver
	}
	if dial == nil {
		if d == nil {
			d = &net.Dialer{}
		}
		d.Control = Control(allowPrivate)
		dial = d.DialContext
	}
	return &Guard{resolver: resolver, allowPrivate: allowPrivate, dial: dial}
}

// DialContext is http.Transport.DialContext.
func (g *Guard) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	switch network {
	case "tcp", "tcp4", "tcp6":
	default:
		return nil, fmt.Errorf("netguard: network %q is not dialled", network)
	}
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	var addrs []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{ip}
	} else {
		addrs, err = g.resolver.LookupNetIP(ctx, "ip", host)
		if err != nil {
			return nil, fmt.Errorf("netguard: resolve %s: %w", host, err)
		}
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("netguard: %s has no addresses", host)
	}
	// A name with any special-use address is refused outright rather than filtered: such a
	// name is either misconfigured or aimed at the inside.
	for _, ip := range addrs {
		if err := CheckAddr(ip, g.allowPrivate); err != nil {
			return nil, fmt.Errorf("netguard: %s: %w", host, err)
		}
	}
	var errs []error
	for _, ip := range addrs {
		conn, err := g.dial(ctx, network, net.JoinHostPort(ip.WithZone("").Unmap().String(), port))
		if err == nil {
			return conn, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	return nil, errors.Join(errs...)
}

// Control is net.Dialer.Control: it runs on the socket about to connect, with the literal
// address being connected to.
func Control(allowPrivate bool) func(network, address string, c syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("%w: cannot parse %q", ErrForbiddenAddress, address)
		}
		return CheckAddr(ap.Addr(), allowPrivate)
	}
}
