package mcp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/mux"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/resource"
	"github.com/proctorhq/proctor/school"
)

// ProtocolVersions are the MCP revisions served, newest first. The SDK (v1.8.0) knows two older
// ones (2025-03-26, 2024-11-05); they predate the authorization this endpoint relies on
// (protected-resource metadata, resource indicators), so they are not offered. A client asking
// for one in an initialize request is answered with 2025-11-25, the newest revision that
// handshake negotiates.
var ProtocolVersions = []string{"2026-07-28", "2025-11-25", "2025-06-18"}

// maxBodyBytes bounds a request body. JSON-RPC requests to these tools are a few hundred bytes;
// the body is read whole before the SDK sees it (see ServeHTTP).
const maxBodyBytes = 64 << 10

// Deps are what the handler is built from.
type Deps struct {
	Store    Store
	Verifier resource.Verifier
	Logger   *slog.Logger
	// Now is the clock enrollments, payments and events are judged by; time.Now if nil.
	Now func() time.Time
	// Version is reported as the server's implementation version; "dev" if empty.
	Version string
}

// Handler serves {base_url}/mcp.
type Handler struct {
	store      Store
	door       resource.Door
	log        *slog.Logger
	now        func() time.Time
	version    string
	streamable *sdk.StreamableHTTPHandler
	// servers are the MCP servers built so far, one per school and set of tools (serverSet).
	servers sync.Map
	// serverCount bounds servers (maxServers).
	serverCount atomic.Int64
}

// New builds the handler.
func New(d Deps) *Handler {
	if d.Version == "" {
		d.Version = "dev"
	}
	s := resource.NewSurface("mcp", d.Verifier, d.Store, d.Logger, d.Now)
	h := &Handler{store: d.Store, log: s.Log, now: s.Now, version: d.Version, door: s.Door}
	h.streamable = sdk.NewStreamableHTTPHandler(serverOf, &sdk.StreamableHTTPOptions{
		// No sessions: every request is answered by a server chosen for its caller, which is
		// what lets tools/list differ by token, and what the 2026-07-28 revision requires.
		Stateless:    true,
		JSONResponse: true,
		Logger:       sdkLogger(s.Log),
		// The SDK's own check refuses any Host that is not a loopback name when the listener is
		// on loopback, which is every request behind a reverse proxy on the same machine. Host
		// is checked by the server's school resolution and Origin by ServeHTTP instead.
		DisableLocalhostProtection: true,
		MaxRequestBodyBytes:        maxBodyBytes,
	})
	return h
}

// Mount registers the endpoint. Every method reaches the handler: POST is the transport, and
// the SDK answers GET and DELETE with 405 and an Allow header, as a stateless server must.
func (h *Handler) Mount(r *mux.Router) {
	r.Handle(endpoint.MCP, h)
}

// callerKey carries the request's caller, with the server chosen for it, to serverOf and the
// tools.
type callerKey struct{}

// serverOf is the SDK's getServer callback: the server ServeHTTP chose for this request. The SDK
// calls it more than once per request, so it is chosen once, before, and carried in the context
// with the caller.
func serverOf(r *http.Request) *sdk.Server {
	if c, ok := r.Context().Value(callerKey{}).(*caller); ok {
		return c.server
	}
	return nil
}

// ServeHTTP checks, in order: the school, the Origin header (403), the bearer token (401, or
// 503 without a verdict), and the tools a tools/call names (401 or 403 with a challenge). Only
// then does the SDK see the request, with a server holding exactly the tools the caller may call.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	t, err := school.FromContext(r.Context())
	if err != nil {
		edge.WriteNoSchool(w)
		return
	}
	if !sameOrigin(r, t) {
		refuseOrigin(w)
		return
	}
	c, ok := h.authenticate(w, r, t)
	if !ok {
		return
	}
	if r.Method == http.MethodPost {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
		if err != nil {
			edge.WriteBodyError(w, err, func() {
				edge.WriteError(w, http.StatusBadRequest, "invalid_request", "The request body could not be read.")
			})
			return
		}
		// A tools/call the caller may not make is answered here, with a status and challenge
		// an MCP client acts on (authorize, or step up its scopes); the SDK would only say the
		// tool is unknown. Names of no tool at all are left to the SDK.
		for _, name := range calledTools(body) {
			if def, ok := toolsByName[name]; ok {
				if rf := c.may(def.need); rf != nil {
					rf.write(w, r)
					return
				}
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	c.server = h.serverFor(c)
	h.streamable.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), callerKey{}, c)))
}

// serverSet says which server answers a caller: its school, whether it presented a token, and
// the tools it may call, one bit per tool (in the order of tools).
type serverSet struct {
	school  *school.School
	private bool
	tools   uint64
}

// maxServers bounds the servers kept. The sets that occur are few (a school's anonymous
// callers, members, and operators of a few scope combinations), but they are chosen by tokens,
// so past the bound a request gets a server of its own, as all did before servers were shared.
const maxServers = 1024

// serverFor returns the MCP server for a caller: holding the tools the caller may call and
// nothing else, so that tools/list shows exactly those. Building one (every tool added, its
// schemas checked) was a fifth of a tool call's CPU, so servers are shared by the callers of
// one set; the caller of each call reaches the tools through the request's context.
func (h *Handler) serverFor(c *caller) *sdk.Server {
	set := serverSet{school: c.school, private: c.grant != nil}
	for i, def := range tools {
		if c.allows(def.need) {
			set.tools |= 1 << i
		}
	}
	if s, ok := h.servers.Load(set); ok {
		return s.(*sdk.Server)
	}
	s := h.newServer(set)
	if h.serverCount.Load() >= maxServers {
		return s
	}
	if got, loaded := h.servers.LoadOrStore(set, s); loaded {
		return got.(*sdk.Server)
	}
	h.serverCount.Add(1)
	return s
}

// newServer builds the server of a set.
func (h *Handler) newServer(set serverSet) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "proctor", Title: set.school.Name, Version: h.version}, &sdk.ServerOptions{
		Instructions:              instructions,
		Logger:                    sdkLogger(h.log),
		SupportedProtocolVersions: ProtocolVersions,
		// Tools only. The list never changes while a client holds the same token, so there is
		// nothing to announce; no logging capability either.
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}},
		// What a token may see is that token's user's (2026-07-28 caching hints): no shared
		// cache may keep it. The anonymous answers are the same for everyone and stay public.
		SetCacheable: func(_ context.Context, _ sdk.Request, ch *sdk.Cacheable) {
			if set.private {
				ch.CacheScope = "private"
			}
		},
	})
	s.AddReceivingMiddleware(onlyDeclared)
	for i, def := range tools {
		if set.tools&(1<<i) != 0 {
			def.bind(s)
		}
	}
	return s
}

// undeclared are the methods of the capabilities the server does not declare: prompts,
// resources, logging and completion. The SDK serves the first three whatever the server
// declares (empty lists, a log level kept), so a client could not tell from an answer that
// the server has no such thing.
var undeclared = map[string]bool{
	"prompts/list": true, "prompts/get": true,
	"resources/list": true, "resources/templates/list": true, "resources/read": true,
	"resources/subscribe": true, "resources/unsubscribe": true,
	"logging/setLevel":    true,
	"completion/complete": true,
}

// onlyDeclared answers the methods of undeclared capabilities with -32601 (method not found),
// as the server would if it had no handler for them: a server must declare what it serves
// (MCP 2025-06-18, Lifecycle, capability negotiation; 2026-07-28, server/discover), and the
// conformance suite checks that a server answering prompts/list declares prompts.
func onlyDeclared(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if undeclared[method] {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
				Message: fmt.Sprintf("Method not found: this server declares only the tools capability, not %s.", method)}
		}
		return next(ctx, method, req)
	}
}

const instructions = "Tools of one online course school. Without a token: the published catalogue " +
	"(courses, their outlines and prices, membership plans, digital products, upcoming events). " +
	"With a member's token (account:read): the member's own courses and progress, payments and " +
	"notifications; account:write marks notifications read and changes notification choices. " +
	"Operator tools need an operator scope and an owner or admin role at the school. " +
	"Amounts are integers in the currency's minor unit."

// tools is every tool (tools/list shows them sorted by name); a serverSet has a bit for each.
var tools = func() []toolDef {
	all := slices.Concat(publicTools(), memberTools(), operatorTools())
	if len(all) > 64 {
		panic("mcp: more tools than a serverSet has bits")
	}
	return all
}()

// toolsByName finds a tool's definition for the tools/call check.
var toolsByName = func() map[string]toolDef {
	m := make(map[string]toolDef, len(tools))
	for _, d := range tools {
		if _, dup := m[d.tool.Name]; dup {
			panic("mcp: two tools named " + d.tool.Name)
		}
		m[d.tool.Name] = d
	}
	return m
}()

// operatorScopes are the scopes of the operator tools: a token holding one of them makes the
// request look up the member's roles.
var operatorScopes = func() []string {
	var out []string
	for _, d := range tools {
		if d.need.operator && !slices.Contains(out, d.need.scope) {
			out = append(out, d.need.scope)
		}
	}
	return out
}()
