package server

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"io"
	"net"
	"net/http"
	"net/netip"
	"regexp"
	"runtime/debug"
	"strings"

	"github.com/felixge/httpsnoop"
	"github.com/gorilla/mux"

	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/operator"
	"github.com/proctorhq/proctor/resource"
	"github.com/proctorhq/proctor/school"
)

// recoverPanics turns a handler panic into a bare 500 and logs the stack, with the request's
// context; the client never sees it. http.ErrAbortHandler is re-raised, as net/http expects.
// traceRequests recovers inside the request's span too, so that a traced panic's line carries
// the trace id and the span records the 500.
func (s *Server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.log.ErrorContext(r.Context(), "panic", "request_id", edge.FromContext(r.Context()).ID, "panic", v, "stack", string(debug.Stack()))
				edge.WriteError(w, http.StatusInternalServerError, "server_error", "The server could not handle the request.")
			}
		}()
		next.ServeHTTP(w, r)
	})
}

var requestIDPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

func newRequestID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// requestInfo records the request's id, client address and scheme. A trusted proxy may pass
// its own X-Request-ID and Forwarded or X-Forwarded-For/-Proto/-Host; anyone else's are
// ignored, so a client cannot spoof its address past the login rate limiter or pick another
// school's host. Which of a trusted proxy's values are believed is edge.FromProxies's rule
// (docs/decisions.md, "Proxies and https"); forwarding headers that do not parse or that
// contradict each other are answered 400 (by resolveSchool), never guessed at.
func (s *Server) requestInfo(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info := &edge.Info{Secure: r.TLS != nil}
		peer := peerAddr(r.RemoteAddr)
		info.ClientAddr = peer
		trusted := s.isTrustedProxy(peer)
		if id := r.Header.Get("X-Request-ID"); trusted && requestIDPattern.MatchString(id) {
			info.ID = id
		}
		if info.ID == "" {
			info.ID = newRequestID()
		}
		w.Header().Set("X-Request-ID", info.ID)
		if trusted {
			if fw, err := edge.FromProxies(r.Header, peer, s.isTrustedProxy); err != nil {
				// Refused by resolveSchool, once the security headers, the access log and the
				// metrics are in place; the client is the proxy as far as anyone can tell.
				r = r.WithContext(context.WithValue(r.Context(), forwardingRefusedKey{}, err))
			} else {
				info.ClientAddr = fw.ClientAddr
				if fw.Proto != "" {
					info.Secure = fw.Proto == "https"
				}
				if fw.Host != "" {
					r.Host = fw.Host
				}
			}
		}
		next.ServeHTTP(w, r.WithContext(edge.NewContext(r.Context(), info)))
	})
}

// forwardingRefusedKey carries, in a request's context, why its trusted proxy's forwarding
// headers were refused.
type forwardingRefusedKey struct{}

// isTrustedProxy reports whether a connection from addr may set forwarding headers.
func (s *Server) isTrustedProxy(addr netip.Addr) bool {
	addr = addr.Unmap()
	for _, p := range s.trusted {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

func peerAddr(remote string) netip.Addr {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	a, _ := netip.ParseAddr(host)
	return a.Unmap()
}

// securityHeaders sets defaults every public response carries. HTML pages replace the
// Content-Security-Policy with their own; none may be framed (clickjacking).
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		if edge.FromContext(r.Context()).Secure {
			h.Set("Strict-Transport-Security", "max-age=63072000")
		}
		next.ServeHTTP(w, r)
	})
}

// recordRoute runs inside the router, after matching, and stores the route template for the
// access log and metrics (a template, never the raw path, so metrics labels stay bounded).
func recordRoute(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if route := mux.CurrentRoute(r); route != nil {
			if tpl, err := route.GetPathTemplate(); err == nil {
				edge.FromContext(r.Context()).Route = tpl
			}
		}
		next.ServeHTTP(w, r)
	})
}

// observe logs one line per request and records its metrics. The query string is never logged:
// it can carry codes and state.
func (s *Server) observe(listener string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m := httpsnoop.CaptureMetrics(next, w, r)
		info := edge.FromContext(r.Context())
		route := info.Route
		if route == "" {
			route = "unmatched"
		}
		s.metrics.observe(listener, route, r.Method, m.Code, m.Duration)
		attrs := []any{
			"listener", listener, "method", r.Method, "route", route, "path", r.URL.Path,
			"status", m.Code, "duration_ms", float64(m.Duration.Microseconds()) / 1000, "bytes", m.Written,
			"request_id", info.ID, "client", info.ClientAddr.String(),
		}
		if t, err := school.FromContext(r.Context()); err == nil {
			attrs = append(attrs, "school_id", t.SchoolID)
		}
		s.log.InfoContext(r.Context(), "request", attrs...)
	})
}

// limitBody caps every request body (http.max_body_bytes): a body declared larger is refused at
// once by tooLarge, and a handler reading past the cap gets an *http.MaxBytesError
// (edge.TooLarge) and answers 413 in its own shape (a page's form: login.FormError).
//
// Every 413 also closes the connection. Otherwise net/http, to keep the connection for another
// request, reads the rest of the body before sending the answer, and a client that holds the
// rest back holds the answer until http.read_timeout. http.MaxBytesReader would tell the server
// itself, but only through the server's own ResponseWriter, which observe's wrapper hides; and a
// handler with a lower limit of its own (the Member API, /mcp) could not tell it at all.
func limitBody(next http.Handler, max int64, tooLarge http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		header := w.Header()
		w = httpsnoop.Wrap(w, httpsnoop.Hooks{WriteHeader: func(write httpsnoop.WriteHeaderFunc) httpsnoop.WriteHeaderFunc {
			return func(code int) {
				if code == http.StatusRequestEntityTooLarge {
					header.Set("Connection", "close")
				}
				write(code)
			}
		}})
		if r.ContentLength > max {
			tooLarge.ServeHTTP(w, r)
			return
		}
		r.Body = handlerBody{http.MaxBytesReader(w, r.Body, max)}
		next.ServeHTTP(w, r)
	})
}

// handlerBody is the request body as handlers see it, with a Close that does nothing. net/http
// closes the body itself once the handler returns, after the answer is sent. Closed earlier by a
// handler (huma does, as soon as it has read its limit), a body not read to its end is drained
// first, up to 256 KiB, so the answer would wait for whatever the client holds back.
type handlerBody struct{ io.ReadCloser }

func (handlerBody) Close() error { return nil }

// resolveSchool finds the school served at the request's host and puts it in the context. A
// host that is no school's gets 404: nothing past this point runs without a school.
//
// A request whose forwarding headers could not be believed (requestInfo) is answered 400 first:
// its host is not known.
func (s *Server) resolveSchool(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err, refused := r.Context().Value(forwardingRefusedKey{}).(error); refused {
			s.log.WarnContext(r.Context(), "forwarding headers refused", "request_id", edge.FromContext(r.Context()).ID, "err", err)
			edge.WriteError(w, http.StatusBadRequest, "invalid_request", "The request's forwarding headers could not be read.")
			return
		}
		t, ok := s.deps.Schools.Resolve(r.Host)
		if !ok {
			edge.WriteNoSchool(w)
			return
		}
		s.spanSchool(r.Context(), t.SchoolID)
		next.ServeHTTP(w, r.WithContext(school.NewContext(r.Context(), t)))
	})
}

// httpsOnly keeps a school whose base_url is https off plain http, whether the request came
// to the listener directly or a trusted proxy said it came over http. Nothing of such a school
// is served over http:
//   - a GET or HEAD that is not an API call (a page, a discovery or agent document) is
//     redirected to the same path and query on the school's own origin, never to a host taken
//     from the request;
//   - an API or OAuth endpoint answers 400 invalid_request in its own error shape, without
//     running: the token, revocation and registration endpoints with an RFC 6749 section 5.2
//     body, the protected resources (userinfo, /api/v1, /member/graphql, /mcp) with an RFC 6750
//     section 3.1 Bearer challenge. A redirect would teach a client that sending credentials
//     over http works;
//   - any other request (a form post) answers 400 invalid_request: its body was already sent
//     in the clear, and a redirect would have the browser send it again.
func httpsOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t, err := school.FromContext(r.Context())
		if err != nil || !t.HTTPS() || edge.FromContext(r.Context()).Secure {
			next.ServeHTTP(w, r)
			return
		}
		const description = "This school is served over https only."
		switch endpointOf(r.URL.Path) {
		case oauthEndpoint:
			edge.WriteError(w, http.StatusBadRequest, "invalid_request", description)
		case protectedResource:
			resource.Challenge(w, r, http.StatusBadRequest, "invalid_request", description, "")
		default:
			if r.Method != http.MethodGet && r.Method != http.MethodHead {
				edge.WriteError(w, http.StatusBadRequest, "invalid_request", description)
				return
			}
			w.Header().Set("Cache-Control", "no-store")
			http.Redirect(w, r, t.URL(r.URL.RequestURI()), http.StatusMovedPermanently)
		}
	})
}

// tooLarge answers a body declared larger than the limit (limitBody) in the shape its endpoint
// answers in. A page's form (sign-in, consent, account, admin...) gets the error page in the
// member's language, as a form read past the limit by its handler does (login.FormError): the
// language is chosen here by the login handler's Localize, since the router's middlewares, which
// choose it for every page, have not run. The OAuth endpoints, the protected resources (the
// operator API, GraphQL, MCP) and any request that asks for JSON alone (the passkey pages'
// script) keep edge.WriteTooLarge's JSON, whose description is English and ASCII: RFC 6749
// section 5.2 allows only ASCII in error_description (docs/decisions.md). Without the login
// pages (the Member API alone) everything gets the JSON.
func (s *Server) tooLarge(max int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.pages == nil || endpointOf(r.URL.Path) != pageOrDocument || wantsJSON(r) {
			edge.WriteTooLarge(w)
			return
		}
		s.pages.Localize(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s.pages.Fail(w, r, login.FormError(&http.MaxBytesError{Limit: max}))
		})).ServeHTTP(w, r)
	})
}

// wantsJSON reports whether the request asks for JSON and not HTML (a script's fetch, as the
// passkey pages send it); a browser's form post accepts text/html.
func wantsJSON(r *http.Request) bool {
	accept := r.Header.Get("Accept")
	return strings.Contains(accept, "application/json") && !strings.Contains(accept, "text/html")
}

type endpointKind int

const (
	pageOrDocument endpointKind = iota
	oauthEndpoint
	protectedResource
)

// endpointOf says which error shape the endpoint at path answers in.
func endpointOf(path string) endpointKind {
	switch {
	case path == endpoint.Userinfo, underPath(path, operator.Prefix), path == endpoint.MemberGraphQL, underPath(path, endpoint.MCP):
		return protectedResource
	case underPath(path, "/api/oauth"):
		return oauthEndpoint
	}
	return pageOrDocument
}

// underPath reports whether path is prefix or below it.
func underPath(path, prefix string) bool {
	return path == prefix || strings.HasPrefix(path, prefix+"/")
}

func writeNotFound(w http.ResponseWriter) {
	edge.WriteError(w, http.StatusNotFound, "not_found", "No such resource.")
}

func writeMethodNotAllowed(w http.ResponseWriter) {
	edge.WriteError(w, http.StatusMethodNotAllowed, "invalid_request", "Method not allowed.")
}
