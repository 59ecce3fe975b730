package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/proctorhq/proctor/bench/flow"
	"github.com/proctorhq/proctor/endpoint"
)

// scenario is one kind of load. prepare does everything that must not be timed (signing in,
// minting codes and grants) and returns the Op that is.
type scenario struct {
	name  string
	about string
	// minted is set for scenarios whose every request consumes an input made in advance; their
	// runs end early when the inputs run out.
	minted bool
	// prepare returns the Op and, optionally, a note for the report (what was chosen).
	prepare func(ctx context.Context, e *env) (op Op, note string, err error)
}

// errUnavailable marks a scenario the server does not offer (yet); it is reported as a row
// saying why, not as a failure.
var errUnavailable = errors.New("not available")

// scenarios lists every scenario in the order they run. The order is part of the measurement:
// authcode and the minting grow the token tables that later scenarios read.
var scenarios = []scenario{
	{name: "authcode", about: "whole browser flow, signed in: GET /oauth/authorize (consent page), POST approval, POST /api/oauth/token with PKCE; ID token on", prepare: prepareAuthcode},
	{name: "exchange", about: "POST /api/oauth/token, authorization_code grant with PKCE; codes minted untimed", minted: true, prepare: prepareExchange},
	{name: "refresh", about: "POST /api/oauth/token, refresh_token grant; each worker follows its own rotation chain", prepare: prepareRefresh},
	{name: "revoke", about: "POST /api/oauth/revoke of live refresh tokens, one grant each, minted untimed", minted: true, prepare: prepareRevoke},
	{name: "userinfo", about: "GET /api/oauth/userinfo with a bearer token", prepare: prepareUserinfo},
	{name: "graphql-viewer", about: "POST /member/graphql { viewer { id } }", prepare: prepareGraphQLViewer},
	{name: "graphql-curriculum", about: "POST /member/graphql: the whole curriculum with progress of a member enrolled in every course", prepare: prepareGraphQLCurriculum},
	{name: "mcp-call", about: "POST /mcp JSON-RPC tools/call of a member tool, authenticated", prepare: prepareMCPCall},
}

// ScenarioNames lists the scenarios in the order they run.
func ScenarioNames() []string {
	names := make([]string, len(scenarios))
	for i, s := range scenarios {
		names[i] = s.name
	}
	return names
}

func findScenario(name string) (scenario, bool) {
	for _, s := range scenarios {
		if s.name == name {
			return s, true
		}
	}
	return scenario{}, false
}

// mintTimeout bounds the untimed minting of one scenario's inputs. With the longest run
// (MaxDuration) and warm-up after it, a minted code is still within its 10-minute lifetime.
const mintTimeout = 3 * time.Minute

// env is what the scenarios of one run share.
type env struct {
	s           *fixture
	transport   http.RoundTripper
	concurrency int
	// supply is how many inputs a minted scenario needs: its warm-up and its run.
	supply int
	// browsers[w] is worker w's member, signed in as a learner; busy is signed in as the member
	// with the big curriculum.
	browsers []*browser
	busy     *browser

	tokensOnce sync.Once
	tokens     []string // a learner's access token per worker
	tokensErr  error
}

// newEnv signs every worker's browser in (and one as the busy member).
func newEnv(ctx context.Context, s *fixture, tr http.RoundTripper, concurrency, supply int) (*env, error) {
	e := &env{s: s, transport: tr, concurrency: concurrency, supply: supply}
	e.busy = newBrowser(s, tr)
	if err := e.busy.login(ctx, s.busy); err != nil {
		return nil, err
	}
	e.browsers = make([]*browser, concurrency)
	for w := range e.browsers {
		e.browsers[w] = newBrowser(s, tr)
	}
	if _, err := e.each(ctx, func(ctx context.Context, w int) (string, error) {
		return "", e.browsers[w].login(ctx, s.learners[w%len(s.learners)])
	}); err != nil {
		return nil, fmt.Errorf("sign in: %w", err)
	}
	return e, nil
}

// each runs f once per worker, concurrently, and returns the results by worker.
func (e *env) each(ctx context.Context, f func(ctx context.Context, w int) (string, error)) ([]string, error) {
	out := make([]string, e.concurrency)
	errs := make([]error, e.concurrency)
	var wg sync.WaitGroup
	for w := range e.concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[w], errs[w] = f(ctx, w)
		}()
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// learnerTokens returns one access token per worker, minted once for the scenarios that only
// present a token.
func (e *env) learnerTokens(ctx context.Context) ([]string, error) {
	e.tokensOnce.Do(func() {
		e.tokens, e.tokensErr = e.each(ctx, func(ctx context.Context, w int) (string, error) {
			tr, err := e.browsers[w].Grant(ctx)
			return tr.AccessToken, err
		})
	})
	return e.tokens, e.tokensErr
}

// mint makes n inputs with f from every worker at once (untimed), bounded by mintTimeout.
func mint[T any](ctx context.Context, e *env, n int, f func(ctx context.Context, w int) (T, error)) ([]T, error) {
	var mu sync.Mutex
	out := make([]T, 0, n)
	res := RunLoad(ctx, Bounds{Concurrency: e.concurrency, Duration: mintTimeout, Requests: n}, func(ctx context.Context, w int) error {
		v, err := f(ctx, w)
		if err != nil {
			return err
		}
		mu.Lock()
		out = append(out, v)
		mu.Unlock()
		return nil
	})
	if res.Errors > 0 {
		return nil, fmt.Errorf("minting: %d of %d failed, first: %s", res.Errors, res.Requests, res.ErrorSamples[0])
	}
	if len(out) < n {
		return nil, fmt.Errorf("minting: only %d of %d made within %s", len(out), n, mintTimeout)
	}
	return out, nil
}

// supplyOf hands out inputs in order, each once, and then ErrExhausted.
type supplyOf[T any] struct {
	items []T
	next  atomic.Int64
}

func (s *supplyOf[T]) take() (T, error) {
	i := s.next.Add(1) - 1
	if i >= int64(len(s.items)) {
		var zero T
		return zero, ErrExhausted
	}
	return s.items[i], nil
}

func prepareAuthcode(_ context.Context, e *env) (Op, string, error) {
	return func(ctx context.Context, w int) error {
		_, err := e.browsers[w].Grant(ctx)
		return err
	}, "", nil
}

// spend mints e.supply inputs with newItem (untimed) and returns the op that uses each once, and
// the note "N noun minted".
func spend[T any](ctx context.Context, e *env, noun string,
	newItem func(ctx context.Context, w int) (T, error), use func(ctx context.Context, w int, item T) error,
) (Op, string, error) {
	items, err := mint(ctx, e, e.supply, newItem)
	if err != nil {
		return nil, "", err
	}
	sup := &supplyOf[T]{items: items}
	return func(ctx context.Context, w int) error {
		item, err := sup.take()
		if err != nil {
			return err
		}
		return use(ctx, w, item)
	}, fmt.Sprintf("%d %s minted", len(items), noun), nil
}

func prepareExchange(ctx context.Context, e *env) (Op, string, error) {
	type minted struct {
		code string
		p    flow.PKCE
	}
	return spend(ctx, e, "codes", func(ctx context.Context, w int) (minted, error) {
		p := flow.NewPKCE()
		code, err := e.browsers[w].Authorize(ctx, p)
		return minted{code: code, p: p}, err
	}, func(ctx context.Context, w int, m minted) error {
		_, err := e.browsers[w].Exchange(ctx, m.code, m.p)
		return err
	})
}

func prepareRefresh(ctx context.Context, e *env) (Op, string, error) {
	chains, err := e.each(ctx, func(ctx context.Context, w int) (string, error) {
		tr, err := e.browsers[w].Grant(ctx)
		return tr.RefreshToken, err
	})
	if err != nil {
		return nil, "", err
	}
	// chains[w] is only touched by worker w.
	return func(ctx context.Context, w int) error {
		tr, err := e.browsers[w].Refresh(ctx, chains[w])
		if err != nil {
			return err
		}
		chains[w] = tr.RefreshToken
		return nil
	}, "", nil
}

func prepareRevoke(ctx context.Context, e *env) (Op, string, error) {
	return spend(ctx, e, "grants", func(ctx context.Context, w int) (string, error) {
		tr, err := e.browsers[w].Grant(ctx)
		return tr.RefreshToken, err
	}, func(ctx context.Context, w int, token string) error {
		return e.browsers[w].revoke(ctx, token)
	})
}

// withLearnerTokens is the op that calls call with each worker's browser and access token.
func (e *env) withLearnerTokens(ctx context.Context, call func(ctx context.Context, a *browser, token string) error) (Op, error) {
	tokens, err := e.learnerTokens(ctx)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, w int) error {
		return call(ctx, e.browsers[w], tokens[w])
	}, nil
}

func prepareUserinfo(ctx context.Context, e *env) (Op, string, error) {
	op, err := e.withLearnerTokens(ctx, userinfoCall)
	return op, "", err
}

// userinfoCall presents token at UserInfo and wants the member's claims back.
func userinfoCall(ctx context.Context, a *browser, token string) error {
	resp, err := a.Userinfo(ctx, token)
	if err != nil {
		return err
	}
	if resp.Status != http.StatusOK {
		return resp.Err("userinfo")
	}
	var claims struct {
		Sub string `json:"sub"`
	}
	if err := json.Unmarshal(resp.Body, &claims); err != nil || claims.Sub == "" {
		return errors.New("userinfo: no sub in the answer")
	}
	return nil
}

// graphQL posts one query with a bearer token and returns the data member, failing on any
// GraphQL error.
func graphQL(ctx context.Context, a *browser, token string, body []byte) (json.RawMessage, error) {
	resp, err := a.Post(ctx, a.URL(endpoint.MemberGraphQL), "application/json", body, flow.Bearer(token))
	if err != nil {
		return nil, err
	}
	if resp.Status != http.StatusOK {
		return nil, resp.Err("graphql")
	}
	var out struct {
		Data   json.RawMessage   `json:"data"`
		Errors []json.RawMessage `json:"errors"`
	}
	if err := json.Unmarshal(resp.Body, &out); err != nil {
		return nil, fmt.Errorf("graphql: %w", err)
	}
	if len(out.Errors) > 0 {
		return nil, fmt.Errorf("graphql: %s", out.Errors[0])
	}
	if len(out.Data) == 0 || string(out.Data) == "null" {
		return nil, errors.New("graphql: no data")
	}
	return out.Data, nil
}

func graphQLBody(query string) []byte {
	b, _ := json.Marshal(map[string]string{"query": query})
	return b
}

func prepareGraphQLViewer(ctx context.Context, e *env) (Op, string, error) {
	op, err := e.withLearnerTokens(ctx, graphQLViewerCall)
	return op, "", err
}

// viewerBody is the graphql-viewer query.
var viewerBody = graphQLBody(`{ viewer { id } }`)

// graphQLViewerCall asks the Member API who token's member is.
func graphQLViewerCall(ctx context.Context, a *browser, token string) error {
	data, err := graphQL(ctx, a, token, viewerBody)
	if err != nil {
		return err
	}
	if !bytes.Contains(data, []byte(`"id"`)) {
		return errors.New("graphql: no viewer id")
	}
	return nil
}

// curriculumQuery reads every course of the viewer with every section and lecture (field names
// from resource/graphql/schema.graphql).
const curriculumQuery = `{ viewer { enrolledCourses(first: %d) { nodes { slug sections { title lectures { title state duration } } } } } }`

// curriculumAnswer is the shape of curriculumQuery's data.
type curriculumAnswer struct {
	Viewer struct {
		EnrolledCourses struct {
			Nodes []struct {
				Slug     string `json:"slug"`
				Sections []struct {
					Lectures []struct {
						State string `json:"state"`
					} `json:"lectures"`
				} `json:"sections"`
			} `json:"nodes"`
		} `json:"enrolledCourses"`
	} `json:"viewer"`
}

func prepareGraphQLCurriculum(ctx context.Context, e *env) (Op, string, error) {
	size := e.s.size
	tokens, err := e.each(ctx, func(ctx context.Context, w int) (string, error) {
		tr, err := e.busy.Grant(ctx)
		return tr.AccessToken, err
	})
	if err != nil {
		return nil, "", err
	}
	body := graphQLBody(fmt.Sprintf(curriculumQuery, size.Courses))
	// Check the whole answer once: the figures mean something only if the member's 4000
	// lectures really come back.
	data, err := graphQL(ctx, e.busy, tokens[0], body)
	if err != nil {
		return nil, "", err
	}
	var ans curriculumAnswer
	if err := json.Unmarshal(data, &ans); err != nil {
		return nil, "", err
	}
	lectures, want := 0, size.Courses*size.Sections*size.Lectures
	for _, c := range ans.Viewer.EnrolledCourses.Nodes {
		for _, s := range c.Sections {
			lectures += len(s.Lectures)
		}
	}
	if len(ans.Viewer.EnrolledCourses.Nodes) != size.Courses || lectures != want {
		return nil, "", fmt.Errorf("curriculum: %d courses and %d lectures, want %d and %d",
			len(ans.Viewer.EnrolledCourses.Nodes), lectures, size.Courses, want)
	}
	return func(ctx context.Context, w int) error {
		data, err := graphQL(ctx, e.busy, tokens[w], body)
		if err != nil {
			return err
		}
		if !bytes.Contains(data, []byte(`"lectures"`)) {
			return errors.New("graphql: no curriculum")
		}
		return nil
	}, "", nil
}

// mcpProtocolVersion is the revision the bench speaks; a stateless Go SDK server serves it
// without a session.
const mcpProtocolVersion = "2025-06-18"

// mcpClient speaks JSON-RPC over Streamable HTTP: one POST per message, the answer as JSON or as
// one server-sent event.
type mcpClient struct {
	url     string
	session string // Mcp-Session-Id, when the server keeps sessions
	version string
	ids     atomic.Int64
}

type rpcResponse struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// call sends one request (or, with notify, a notification) and returns its result.
func (m *mcpClient) call(ctx context.Context, a *browser, token, method string, params any, notify bool) (flow.Response, json.RawMessage, error) {
	msg := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		msg["params"] = params
	}
	if !notify {
		msg["id"] = m.ids.Add(1)
	}
	body, _ := json.Marshal(msg)
	h := http.Header{"Accept": {"application/json, text/event-stream"}}
	if token != "" {
		h.Set("Authorization", "Bearer "+token)
	}
	if m.session != "" {
		h.Set("Mcp-Session-Id", m.session)
	}
	if m.version != "" {
		h.Set("Mcp-Protocol-Version", m.version)
	}
	resp, err := a.Post(ctx, m.url, "application/json", body, h)
	if err != nil {
		return resp, nil, err
	}
	if notify {
		if resp.Status != http.StatusAccepted && resp.Status != http.StatusOK {
			return resp, nil, resp.Err("mcp " + method)
		}
		return resp, nil, nil
	}
	if resp.Status != http.StatusOK {
		return resp, nil, resp.Err("mcp " + method)
	}
	payload := resp.Body
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		if payload, err = lastEventData(resp.Body); err != nil {
			return resp, nil, fmt.Errorf("mcp %s: %w", method, err)
		}
	}
	var rr rpcResponse
	if err := json.Unmarshal(payload, &rr); err != nil {
		return resp, nil, fmt.Errorf("mcp %s: %w", method, err)
	}
	if rr.Error != nil {
		return resp, nil, fmt.Errorf("mcp %s: error %d: %s", method, rr.Error.Code, rr.Error.Message)
	}
	return resp, rr.Result, nil
}

// lastEventData returns the data of the last event of a server-sent event stream: the
// response, after any notifications sent before it.
func lastEventData(stream []byte) ([]byte, error) {
	var last, cur []byte
	sc := bufio.NewScanner(bytes.NewReader(stream))
	sc.Buffer(make([]byte, 64<<10), maxBody)
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case bytes.HasPrefix(line, []byte("data:")):
			cur = append(cur, bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))...)
		case len(line) == 0 && len(cur) > 0:
			last, cur = cur, nil
		}
	}
	if len(cur) > 0 {
		last = cur
	}
	if last == nil {
		return nil, errors.New("no event in the stream")
	}
	return last, sc.Err()
}

type mcpTool struct {
	Name        string `json:"name"`
	InputSchema struct {
		Required []string `json:"required"`
	} `json:"inputSchema"`
}

func (m *mcpClient) listTools(ctx context.Context, a *browser, token string) ([]mcpTool, error) {
	_, res, err := m.call(ctx, a, token, "tools/list", map[string]any{}, false)
	if err != nil {
		return nil, err
	}
	var out struct {
		Tools []mcpTool `json:"tools"`
	}
	err = json.Unmarshal(res, &out)
	return out.Tools, err
}

// prepareMCPCall finds a member tool and returns an Op calling it with each worker's token.
func prepareMCPCall(ctx context.Context, e *env) (Op, string, error) {
	c, err := newMCPCaller(ctx, e)
	if err != nil {
		return nil, "", err
	}
	op, err := e.withLearnerTokens(ctx, c.call)
	if err != nil {
		return nil, "", err
	}
	return op, "tool " + c.tool, nil
}

// mcpCaller calls one member tool over a client that has done its handshake.
type mcpCaller struct {
	m      *mcpClient
	tool   string
	params map[string]any
}

// newMCPCaller does the MCP handshake and finds a member tool. A member tool is one listed for
// a member's token but not anonymously (spec: anonymous callers get public tools only); the
// first such tool that needs no arguments is called, so that any server's catalogue works
// without the bench knowing tool names. A server without /mcp gives errUnavailable.
func newMCPCaller(ctx context.Context, e *env) (*mcpCaller, error) {
	a := e.browsers[0]
	m := &mcpClient{url: a.URL(endpoint.MCP)}
	// Stateful servers want initialize first; stateless ones answer it too.
	resp, res, err := m.call(ctx, a, "", "initialize", map[string]any{
		"protocolVersion": mcpProtocolVersion,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "proctor-bench", "version": "1"},
	}, false)
	if resp.Status == http.StatusNotFound || resp.Status == http.StatusMethodNotAllowed {
		return nil, fmt.Errorf("%w: %s answers %d", errUnavailable, endpoint.MCP, resp.Status)
	}
	if err != nil {
		return nil, err
	}
	var init struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(res, &init)
	m.version = init.ProtocolVersion
	if m.version == "" {
		m.version = mcpProtocolVersion
	}
	m.session = resp.Header.Get("Mcp-Session-Id")
	if m.session != "" {
		if _, _, err := m.call(ctx, a, "", "notifications/initialized", nil, true); err != nil {
			return nil, err
		}
	}

	tokens, err := e.learnerTokens(ctx)
	if err != nil {
		return nil, err
	}
	public, err := m.listTools(ctx, a, "")
	if err != nil {
		return nil, err
	}
	member, err := m.listTools(ctx, a, tokens[0])
	if err != nil {
		return nil, err
	}
	anonymous := map[string]bool{}
	for _, t := range public {
		anonymous[t.Name] = true
	}
	tool := ""
	for _, t := range member {
		if !anonymous[t.Name] && len(t.InputSchema.Required) == 0 {
			tool = t.Name
			break
		}
	}
	if tool == "" {
		return nil, fmt.Errorf("%w: no member tool without required arguments in tools/list", errUnavailable)
	}
	return &mcpCaller{m: m, tool: tool, params: map[string]any{"name": tool, "arguments": map[string]any{}}}, nil
}

// call calls the tool as token's member and wants a result that is not an error.
func (c *mcpCaller) call(ctx context.Context, a *browser, token string) error {
	_, res, err := c.m.call(ctx, a, token, "tools/call", c.params, false)
	if err != nil {
		return err
	}
	var out struct {
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(res, &out); err != nil {
		return fmt.Errorf("mcp tools/call %s: %w", c.tool, err)
	}
	if out.IsError {
		return fmt.Errorf("mcp tools/call %s: the tool reported an error", c.tool)
	}
	return nil
}
