package edge

import (
	"errors"
	"net/http"
	"net/netip"
	"strings"

	"golang.org/x/net/http/httpguts"
)

// ErrForwarding means a trusted proxy's forwarding headers could not be believed: Forwarded
// does not parse (RFC 7239 section 4), the chosen hop names a scheme other than http or https
// or a host that is no Host header value, or Forwarded and X-Forwarded-* both came and say
// different things. The server answers such a request 400 rather than guess.
var ErrForwarding = errors.New("edge: the forwarding headers are malformed or disagree")

// Forwarding is what the proxies in front of us say about a request: the client's address, and
// the scheme and host the client used.
type Forwarding struct {
	// ClientAddr is the address of the nearest untrusted hop. When that hop is unknown or
	// obfuscated (RFC 7239 section 6), it is the address of the trusted proxy that reported it.
	ClientAddr netip.Addr
	// Proto is "http" or "https", or "" when no trusted proxy said.
	Proto string
	// Host is the host[:port] the client asked for, or "" when no trusted proxy said.
	Host string
}

// FromProxies reads the forwarding headers of a request whose peer, peer, is a trusted proxy.
// trusted tells the other trusted proxies from everyone else.
//
// The proxy rule, one for every header: each proxy adds one hop at the right of each list it
// forwards. Walking the client addresses (X-Forwarded-For, or Forwarded's for=) from the right,
// hops whose address is a trusted proxy are skipped; the first hop that is not (an untrusted
// address, or an unknown or obfuscated node) was written by the trusted proxy that faced the
// client, and that same hop's scheme and host are taken: in Forwarded its proto= and host=, in
// X-Forwarded-Proto and -Host the value at the same place from the right. A proxy that replaces
// a header instead of appending leaves fewer values than hops; then the leftmost value, which
// that trusted proxy wrote, is taken. Nothing left of the chosen hop is read: a client writes
// what it likes there. When every address is trusted, the leftmost is the client.
//
// When Forwarded and any X-Forwarded-* header both come, each is read by this rule and both must
// give the same client, scheme and host (what one leaves out, the other must leave out too):
// a proxy that speaks one passes the other through from the client untouched, and Proctor
// cannot tell which. Otherwise the answer is ErrForwarding.
func FromProxies(h http.Header, peer netip.Addr, trusted func(netip.Addr) bool) (Forwarding, error) {
	fwd := h.Values("Forwarded")
	xff, xfp, xfh := h.Values("X-Forwarded-For"), h.Values("X-Forwarded-Proto"), h.Values("X-Forwarded-Host")
	hasXF := len(xff)+len(xfp)+len(xfh) > 0
	if len(fwd) == 0 {
		if !hasXF {
			return Forwarding{ClientAddr: peer}, nil
		}
		return fromXForwarded(xff, xfp, xfh, peer, trusted)
	}
	f, err := fromForwarded(fwd, peer, trusted)
	if err != nil || !hasXF {
		return f, err
	}
	x, err := fromXForwarded(xff, xfp, xfh, peer, trusted)
	if err != nil {
		return Forwarding{}, err
	}
	if f != x {
		return Forwarding{}, ErrForwarding
	}
	return f, nil
}

// fromXForwarded applies the proxy rule to X-Forwarded-For, -Proto and -Host.
func fromXForwarded(xff, xfp, xfh []string, peer netip.Addr, trusted func(netip.Addr) bool) (Forwarding, error) {
	var f Forwarding
	var hop int // the chosen hop's place, counted from the right
	f.ClientAddr, hop = clientHop(listValues(xff), peer, trusted)
	var err error
	if protos := listValues(xfp); len(protos) > 0 {
		if f.Proto, err = checkProto(protos[max(0, len(protos)-1-hop)]); err != nil {
			return Forwarding{}, err
		}
	}
	if hosts := listValues(xfh); len(hosts) > 0 {
		if f.Host, err = checkHost(hosts[max(0, len(hosts)-1-hop)]); err != nil {
			return Forwarding{}, err
		}
	}
	return f, nil
}

// fromForwarded applies the proxy rule to Forwarded (RFC 7239). A hop's element may leave out
// proto= or host=; then the nearest element to its right that has one gives it (a trusted
// proxy wrote every element from the hop rightwards).
func fromForwarded(lines []string, peer netip.Addr, trusted func(netip.Addr) bool) (Forwarding, error) {
	elems, err := ParseForwarded(lines)
	if err != nil {
		return Forwarding{}, err
	}
	fors := make([]string, len(elems))
	for i, e := range elems {
		fors[i] = e.For
	}
	var f Forwarding
	var fromRight int
	f.ClientAddr, fromRight = clientHop(fors, peer, trusted)
	for i := max(0, len(elems)-1-fromRight); i < len(elems); i++ {
		if f.Proto == "" && elems[i].Proto != "" {
			if f.Proto, err = checkProto(elems[i].Proto); err != nil {
				return Forwarding{}, err
			}
		}
		if f.Host == "" && elems[i].Host != "" {
			if f.Host, err = checkHost(elems[i].Host); err != nil {
				return Forwarding{}, err
			}
		}
	}
	return f, nil
}

// clientHop walks the client addresses of one header (X-Forwarded-For's, or Forwarded's for=
// values, in order) by the proxy rule: from the right, past the trusted proxies, to the first hop
// that is not one. It returns the client's address (peer when there are no addresses, the last
// trusted proxy's when the chosen hop is unknown or obfuscated) and the chosen hop's place
// counted from the right. When every address is trusted, the leftmost hop is the chosen one.
func clientHop(addrs []string, peer netip.Addr, trusted func(netip.Addr) bool) (netip.Addr, int) {
	client, hop := peer, 0
	for i := len(addrs) - 1; i >= 0; i-- {
		hop = len(addrs) - 1 - i
		a, ok := parseNode(addrs[i])
		if !ok {
			break
		}
		client = a
		if !trusted(a) {
			break
		}
	}
	return client, hop
}

// listValues splits header lines into their comma-separated values, in order, trimmed. Empty
// values are dropped (RFC 9110 section 5.6.1: recipients ignore empty list elements). Several
// lines of one header are one list, in the order received (RFC 9110 section 5.3).
func listValues(lines []string) []string {
	var out []string
	for _, line := range lines {
		for v := range strings.SplitSeq(line, ",") {
			if v = strings.Trim(v, " \t"); v != "" {
				out = append(out, v)
			}
		}
	}
	return out
}

func checkProto(v string) (string, error) {
	switch v = strings.ToLower(v); v {
	case "http", "https":
		return v, nil
	}
	return "", ErrForwarding
}

func checkHost(v string) (string, error) {
	if v == "" || !httpguts.ValidHostHeader(v) || strings.ContainsAny(v, "/?#@") {
		return "", ErrForwarding
	}
	return v, nil
}

// parseNode reads a client address as X-Forwarded-For or Forwarded's for= gives it: an IPv4 or
// IPv6 address, either with a port, IPv6 optionally in brackets (RFC 7239 section 6). "unknown",
// obfuscated identifiers ("_hidden") and anything else are not addresses: ok is false.
func parseNode(s string) (netip.Addr, bool) {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().WithZone("").Unmap(), true
	}
	if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		s = s[1 : len(s)-1]
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}, false
	}
	return a.WithZone("").Unmap(), true
}

// ForwardedElement is one hop of a Forwarded header: the parameters RFC 7239 section 5 defines
// that Proctor reads, unquoted. By= and extensions are parsed and dropped.
type ForwardedElement struct {
	For, Proto, Host string
}

// ParseForwarded parses Forwarded header lines (RFC 7239 section 4) into their elements, in
// order. Parameter names are case-insensitive; values are tokens or quoted strings. A line that
// does not follow the grammar, or an element naming a parameter twice, fails the whole header
// with ErrForwarding: an unterminated quote written by a client would otherwise swallow the
// element a proxy appended after it on the same line.
func ParseForwarded(lines []string) ([]ForwardedElement, error) {
	var out []ForwardedElement
	for _, line := range lines {
		p := forwardedParser{s: line}
		elems, err := p.parse()
		if err != nil {
			return nil, err
		}
		out = append(out, elems...)
	}
	return out, nil
}

type forwardedParser struct {
	s string
	i int
}

func (p *forwardedParser) ows() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

// parse reads 1#forwarded-element, where forwarded-element = [ pair ] *( ";" [ pair ] ).
// Whitespace is allowed around "," and ";" (common in practice), not around "=".
func (p *forwardedParser) parse() ([]ForwardedElement, error) {
	var out []ForwardedElement
	for {
		var e ForwardedElement
		seen := map[string]bool{}
		pairs := 0
		for {
			p.ows()
			if p.i < len(p.s) && p.s[p.i] != ',' && p.s[p.i] != ';' {
				name, value, err := p.pair()
				if err != nil {
					return nil, err
				}
				if seen[name] {
					return nil, ErrForwarding // RFC 7239 section 4: each parameter at most once
				}
				seen[name] = true
				pairs++
				switch name {
				case "for":
					e.For = value
				case "proto":
					e.Proto = value
				case "host":
					e.Host = value
				}
				p.ows()
			}
			if p.i < len(p.s) && p.s[p.i] == ';' {
				p.i++
				continue
			}
			break
		}
		if pairs > 0 {
			out = append(out, e)
		}
		if p.i == len(p.s) {
			return out, nil
		}
		if p.s[p.i] != ',' {
			return nil, ErrForwarding
		}
		p.i++
	}
}

// pair reads token "=" ( token / quoted-string ), returning the lower-cased name and the value
// with quoting removed.
func (p *forwardedParser) pair() (string, string, error) {
	name := p.token()
	if name == "" || p.i >= len(p.s) || p.s[p.i] != '=' {
		return "", "", ErrForwarding
	}
	p.i++
	if p.i < len(p.s) && p.s[p.i] == '"' {
		v, err := p.quoted()
		return strings.ToLower(name), v, err
	}
	v := p.token()
	if v == "" {
		return "", "", ErrForwarding
	}
	return strings.ToLower(name), v, nil
}

func (p *forwardedParser) token() string {
	start := p.i
	for p.i < len(p.s) && httpguts.IsTokenRune(rune(p.s[p.i])) {
		p.i++
	}
	return p.s[start:p.i]
}

// quoted reads a quoted-string (RFC 9110 section 5.6.4) starting at its opening quote.
func (p *forwardedParser) quoted() (string, error) {
	p.i++ // the opening quote
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return b.String(), nil
		case c == '\\':
			if p.i+1 >= len(p.s) || !qdtext(p.s[p.i+1]) && p.s[p.i+1] != '"' && p.s[p.i+1] != '\\' {
				return "", ErrForwarding
			}
			b.WriteByte(p.s[p.i+1])
			p.i += 2
		case qdtext(c):
			b.WriteByte(c)
			p.i++
		default:
			return "", ErrForwarding
		}
	}
	return "", ErrForwarding // no closing quote
}

// qdtext = HTAB / SP / %x21 / %x23-5B / %x5D-7E / obs-text
func qdtext(c byte) bool {
	return c == '\t' || c == ' ' || c == 0x21 || c >= 0x23 && c <= 0x5B || c >= 0x5D && c <= 0x7E || c >= 0x80
}
