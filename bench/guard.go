package bench

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// ErrNotLoopback is returned for a target outside 127.0.0.0/8 and ::1. A load test sends
// thousands of requests a second; pointed at somebody else's address that is an attack, so the
// command refuses before it sends anything, and the dialer refuses again on the address it is
// actually about to connect to. There is no override: the server the command starts speaks plain
// http, which Proctor only accepts on loopback anyway.
var ErrNotLoopback = errors.New("proctor bench only sends load to loopback addresses (127.0.0.0/8, ::1)")

// Resolver looks host names up; *net.Resolver satisfies it. Tests pass a fixed table.
type Resolver interface {
	LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error)
}

// resolveTimeout bounds a name lookup: the guard must not hang on a missing DNS server.
const resolveTimeout = 3 * time.Second

// CheckLoopback accepts target only when every address it stands for is loopback. target is a
// host name, an IP address, a bracketed IPv6 address ("[::1]"), or any of those with a port. A
// name must resolve, and to loopback addresses only: a name that also resolves elsewhere is
// refused, since the dialer could pick the other address.
func CheckLoopback(ctx context.Context, r Resolver, target string) error {
	host := target
	if h, _, err := net.SplitHostPort(target); err == nil {
		host = h
	}
	_, err := loopbackAddrs(ctx, r, host)
	return err
}

// listenHost checks host (no port) and returns it as an IP address, resolving a name once: the
// server binds, and the clients dial, the address that was checked rather than a name that might
// resolve differently later.
func listenHost(ctx context.Context, r Resolver, host string) (string, error) {
	if _, _, err := net.SplitHostPort(host); err == nil {
		return "", fmt.Errorf("give an address without a port, got %q", host)
	}
	addrs, err := loopbackAddrs(ctx, r, host)
	if err != nil {
		return "", err
	}
	// Prefer IPv4: 127.0.0.1 is the address every loopback setup has.
	chosen := addrs[0]
	for _, a := range addrs {
		if a.Is4() {
			chosen = a
			break
		}
	}
	return chosen.String(), nil
}

// loopbackAddrs returns the addresses host (no port; an IPv6 address may be bracketed) stands
// for, refusing it unless every one is loopback: an IP address is itself, a name is resolved
// (by r, the system's resolver when nil, within resolveTimeout) and must resolve to something.
// A resolved IPv4 address comes back as IPv4, as net.IP reads it.
func loopbackAddrs(ctx context.Context, r Resolver, host string) ([]netip.Addr, error) {
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if host == "" {
		return nil, fmt.Errorf("%w: empty host", ErrNotLoopback)
	}
	if a, err := netip.ParseAddr(host); err == nil {
		if !isLoopback(a) {
			return nil, fmt.Errorf("%w: %s is not one", ErrNotLoopback, host)
		}
		return []netip.Addr{a}, nil
	}
	if r == nil {
		r = net.DefaultResolver
	}
	ctx, cancel := context.WithTimeout(ctx, resolveTimeout)
	defer cancel()
	found, err := r.LookupIPAddr(ctx, host)
	if err != nil {
		return nil, fmt.Errorf("%w: cannot resolve %s: %v", ErrNotLoopback, host, err)
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("%w: %s resolves to nothing", ErrNotLoopback, host)
	}
	addrs := make([]netip.Addr, len(found))
	for i, ia := range found {
		a, ok := netip.AddrFromSlice(ia.IP)
		if !ok || !isLoopback(a) {
			return nil, fmt.Errorf("%w: %s resolves to %s", ErrNotLoopback, host, ia.IP)
		}
		addrs[i] = a.Unmap()
	}
	return addrs, nil
}

// isLoopback is 127.0.0.0/8 or ::1 (an IPv4-mapped IPv6 address counts as its IPv4 address).
func isLoopback(a netip.Addr) bool {
	a = a.Unmap()
	if a.Is4() {
		return a.As4()[0] == 127
	}
	return a == netip.IPv6Loopback()
}

// loopbackControl is a net.Dialer Control function that refuses any connection whose resolved
// address is not loopback: the last check, on the address really being dialled, whatever a name
// resolved to when the guard looked.
func loopbackControl(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: cannot read dial address %q", ErrNotLoopback, address)
	}
	if !isLoopback(ap.Addr()) {
		return fmt.Errorf("%w: refusing to dial %s", ErrNotLoopback, address)
	}
	return nil
}

// loopbackDialer is the dialer of every client the command uses.
func loopbackDialer() *net.Dialer {
	return &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second, Control: loopbackControl}
}
