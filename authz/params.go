package authz

import (
	"net"
	"net/url"
	"slices"
	"strings"

	"github.com/ory/fosite"
)

// repeatedParam returns the first (by name) parameter that form carries more than once, "" if
// none does. RFC 6749 sections 3.1 and 3.2: request parameters "MUST NOT be included more than
// once"; taking the first value silently would let two parties read one request differently.
// resource is left to its own rule (RFC 8707 allows it repeated; Proctor binds a token to one
// origin and answers more than one with invalid_target).
func repeatedParam(form url.Values) string {
	var names []string
	for name, values := range form {
		if len(values) > 1 && name != "resource" {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	slices.Sort(names)
	return names[0]
}

// errRepeated is the invalid_request for a repeated parameter.
func errRepeated(name string) error {
	return fosite.ErrInvalidRequest.WithHintf("The parameter '%s' must not be repeated.", name)
}

// redirectRegistered reports whether a requested redirect URI is one of the registered ones:
// equal byte for byte, or, for a registered loopback URI (http with a loopback IP literal), the
// same but for the port (RFC 8252 section 7.3, RFC 9700 section 4.1.3). fosite's own loopback
// matching compares decoded paths and ignores the port entirely, so it takes /%63allback for
// /callback, port 0 or 99999 for a port, and user info for nothing; this check runs first.
func redirectRegistered(registered []string, requested string) bool {
	for _, reg := range registered {
		if reg == requested {
			return true
		}
		rh, rrest, ok := splitLoopback(reg)
		if !ok {
			continue
		}
		if qh, qrest, ok := splitLoopback(requested); ok && qh == rh && qrest == rrest {
			return true
		}
	}
	return false
}

// splitLoopback splits an http URI whose host is a loopback IP literal into that host (as
// written) and everything after the authority, dropping the port. A port, when present, must be
// decimal digits from 1 to 65535; anything else in the authority (user info, a name) fails.
func splitLoopback(raw string) (host, rest string, ok bool) {
	const scheme = "http://"
	if !strings.HasPrefix(raw, scheme) {
		return "", "", false
	}
	authority := raw[len(scheme):]
	if end := strings.IndexAny(authority, "/?#"); end >= 0 {
		authority, rest = authority[:end], authority[end:]
	}
	host, port := authority, ""
	if strings.HasPrefix(authority, "[") {
		i := strings.IndexByte(authority, ']')
		if i < 0 {
			return "", "", false
		}
		host, port = authority[:i+1], authority[i+1:]
	} else if i := strings.IndexByte(authority, ':'); i >= 0 {
		host, port = authority[:i], authority[i:]
	}
	if port != "" && !validPort(port) {
		return "", "", false
	}
	ip := net.ParseIP(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	if ip == nil || !ip.IsLoopback() {
		return "", "", false
	}
	return host, rest, true
}

// validPort reports whether p is ":" and a port number from 1 to 65535 in decimal digits.
func validPort(p string) bool {
	digits := strings.TrimPrefix(p, ":")
	if len(digits) == len(p) || digits == "" || len(digits) > 5 {
		return false
	}
	n := 0
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return false
		}
		n = n*10 + int(digits[i]-'0')
	}
	return n >= 1 && n <= 65535
}
