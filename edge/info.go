package edge

import (
	"context"
	"net/netip"
)

// Info is what the edge knows about one request.
type Info struct {
	// ID identifies the request in logs and in the X-Request-ID response header.
	ID string
	// ClientAddr is the address of the client: the connection's peer, or, when the peer is a
	// trusted proxy, the client FromProxies finds in Forwarded or X-Forwarded-For.
	ClientAddr netip.Addr
	// Secure reports whether the client reached us over https (directly, or through a trusted
	// proxy that said so in Forwarded or X-Forwarded-Proto).
	Secure bool
	// Route is the matched route's path template ("" until routing), for logs and metrics.
	Route string
}

type infoKey struct{}

// NewContext returns ctx carrying info.
func NewContext(ctx context.Context, info *Info) context.Context {
	return context.WithValue(ctx, infoKey{}, info)
}

// FromContext returns the request's Info, or an empty one outside a request (tests, CLI).
func FromContext(ctx context.Context) *Info {
	if info, ok := ctx.Value(infoKey{}).(*Info); ok {
		return info
	}
	return &Info{}
}
