package netguard

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// TransportOptions are what the server's fetchers choose of a guarded transport; the rest is
// the same for every one of them (NewTransport).
type TransportOptions struct {
	Resolver     Resolver // nil: net.DefaultResolver
	AllowPrivate bool     // loopback and private addresses may be dialled (development, tests)
	Dial         DialFunc // nil: a net.Dialer; tests observe with it what is dialled
	// RootCAs nil means the system roots, which on Linux honour SSL_CERT_FILE and
	// SSL_CERT_DIR: a test deployment trusts its own CA that way.
	RootCAs *x509.CertPool
	// ConnectTimeout bounds the dial and the TLS handshake; ResponseTimeout the wait for the
	// response's headers.
	ConnectTimeout, ResponseTimeout   time.Duration
	MaxIdleConns, MaxIdleConnsPerHost int
}

// NewTransport is an HTTP transport whose every connection is dialled through a Guard, with
// TLS 1.2 at the least and response headers of at most 16 KiB. It never goes through a proxy
// from the environment: the guard must see the address that is really connected to, and a
// proxy would connect on our behalf.
func NewTransport(o TransportOptions) *http.Transport {
	g := New(o.Resolver, o.AllowPrivate, &net.Dialer{Timeout: o.ConnectTimeout, KeepAlive: 30 * time.Second}, o.Dial)
	return &http.Transport{
		Proxy:                  nil,
		DialContext:            g.DialContext,
		TLSClientConfig:        &tls.Config{RootCAs: o.RootCAs, MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:    o.ConnectTimeout,
		ResponseHeaderTimeout:  o.ResponseTimeout,
		MaxResponseHeaderBytes: 16 << 10,
		MaxIdleConns:           o.MaxIdleConns,
		MaxIdleConnsPerHost:    o.MaxIdleConnsPerHost,
		IdleConnTimeout:        30 * time.Second,
	}
}

// ReadBody reads resp's body and refuses one of more than limit bytes, wrapping tooLarge: by its
// Content-Length before reading, or as it arrives (at most limit and one byte more are read, so
// a body without a length cannot make the reader hold more). A failed read is returned as it is.
func ReadBody(resp *http.Response, limit int64, tooLarge error) ([]byte, error) {
	if resp.ContentLength > limit {
		return nil, fmt.Errorf("%w: Content-Length %d", tooLarge, resp.ContentLength)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(body)) > limit {
		return nil, fmt.Errorf("%w: more than %d bytes", tooLarge, limit)
	}
	return body, nil
}
