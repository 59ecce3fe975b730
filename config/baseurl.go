package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// ParseBaseURL checks that s is an origin a school can be served from: http or https, a host, no
// path beyond "/", no query, fragment or user info, and https unless the host is loopback.
func ParseBaseURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("not a URL: %v", err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, errors.New("scheme must be https (or http for a loopback host)")
	case u.Host == "" || u.Hostname() == "":
		return nil, errors.New("host is missing")
	case u.User != nil:
		return nil, errors.New("user info is not allowed")
	case u.Path != "" && u.Path != "/":
		return nil, errors.New("must be an origin without a path")
	case u.RawQuery != "" || u.ForceQuery:
		return nil, errors.New("query is not allowed")
	case u.Fragment != "" || strings.Contains(s, "#"):
		return nil, errors.New("fragment is not allowed")
	case u.Scheme == "http" && !IsLoopbackHost(u.Hostname()):
		return nil, errors.New("https is required unless the host is loopback")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, errors.New("port is not valid")
		}
	}
	u.Path = ""
	u.Host = strings.ToLower(u.Host)
	return u, nil
}

// IsLoopbackHost reports whether host (without port) is localhost or a loopback address
// (127.0.0.0/8, ::1).
func IsLoopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// HostKey normalises a host[:port] for matching: lower case, and the scheme's default port
// dropped, so that "Example.org:443" and "example.org" name the same https school.
func HostKey(scheme, hostport string) string {
	h := strings.ToLower(strings.TrimSuffix(hostport, "."))
	if host, port, err := net.SplitHostPort(h); err == nil {
		if (scheme == "https" && port == "443") || (scheme == "http" && port == "80") {
			if strings.Contains(host, ":") {
				return "[" + host + "]"
			}
			return host
		}
	}
	return h
}
