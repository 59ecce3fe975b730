package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"sync/atomic"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/scope"
	"github.com/proctorhq/proctor/storage"
)

// need is what a tool asks of its caller.
type need struct {
	// scope is the OAuth scope the token must hold; "" for the public tools, which anyone may
	// call without a token.
	scope string
	// operator also asks for an owner or admin role at the school, checked on every request:
	// a token outlives the role it was granted under.
	operator bool
}

// Audiences of the tools (spec, Scopes). The operator tools name their own scope.
var (
	public      = need{}
	memberRead  = need{scope: scope.AccountRead}
	memberWrite = need{scope: scope.AccountWrite}
)

func operatorNeed(scope string) need { return need{scope: scope, operator: true} }

// toolDef is one tool: its description as tools/list shows it, what it needs, and how to put it
// on a server.
type toolDef struct {
	tool *sdk.Tool
	need need
	bind func(s *sdk.Server)
}

// spec describes a tool for define.
type spec struct {
	name, title, description string
	need                     need
	// write marks a tool that changes the caller's data (its annotations say so); every write
	// tool here is idempotent.
	write bool
	// input tightens the input schema inferred from the Go type (bounds, enums, patterns).
	input func(*jsonschema.Schema)
}

// define builds a tool from a typed handler. The input and output schemas are built once, here,
// and the same tool goes to every server that offers it.
//
// The handler is added with the SDK's untyped Server.AddTool rather than its generic AddTool,
// which validated every call's output against the output schema and marshalled input and
// output three times each: a fifth of a tool call's CPU. Here the input is decoded once and
// checked against its schema (it is outside input), and the output, which this package builds
// from typed values, is marshalled once. The tests check every output against its schema
// (checkOutputs).
func define[In, Out any](s spec, run func(ctx context.Context, c *caller, in In) (Out, error)) toolDef {
	in := mustSchema[In]()
	if s.input != nil {
		s.input(in)
	}
	out := mustSchema[Out]()
	falseHint := false
	t := &sdk.Tool{
		Name:         s.name,
		Title:        s.title,
		Description:  s.description,
		InputSchema:  in,
		OutputSchema: out,
		Annotations: &sdk.ToolAnnotations{
			ReadOnlyHint:    !s.write,
			IdempotentHint:  true,
			DestructiveHint: &falseHint,
			OpenWorldHint:   &falseHint,
		},
	}
	inResolved, outResolved := mustResolve(s.name, in), mustResolve(s.name, out)
	handler := func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		// Servers are shared by the callers allowed the same tools (server.go); the caller of
		// this call comes with the request's context, which the SDK's handlers derive from.
		// Without one, nothing runs.
		c, ok := ctx.Value(callerKey{}).(*caller)
		if !ok {
			return failed(errors.New("mcp: no caller in the tool's context")), nil
		}
		var args json.RawMessage
		if req.Params != nil {
			args = req.Params.Arguments
		}
		input, err := decodeInput[In](args, inResolved)
		if err != nil {
			return failed(err), nil
		}
		// The school travels with the caller, whatever context the SDK hands over.
		output, err := run(school.NewContext(ctx, c.school), c, input)
		if err != nil {
			return failed(c.toolError(ctx, s.name, err)), nil
		}
		return encodeOutput(output, outResolved)
	}
	return toolDef{tool: t, need: s.need, bind: func(srv *sdk.Server) { srv.AddTool(t, handler) }}
}

// checkOutputs makes every call check its output against the tool's output schema. The tests
// turn it on; in service the output is built from Go types the schema was inferred from.
var checkOutputs atomic.Bool

// mustResolve resolves a tool's schema once. Schema defaults are refused: the SDK's typed
// handlers applied them to the input, decodeInput does not.
func mustResolve(tool string, s *jsonschema.Schema) *jsonschema.Resolved {
	if hasDefault(s) {
		panic(fmt.Sprintf("mcp: tool %s: a schema default would not be applied", tool))
	}
	r, err := s.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("mcp: tool %s: %v", tool, err))
	}
	return r
}

// hasDefault says whether s or a schema inside it sets a default: the parts inferred from Go
// types and adjusted by spec.input.
func hasDefault(s *jsonschema.Schema) bool {
	if s == nil {
		return false
	}
	if s.Default != nil || hasDefault(s.Items) || hasDefault(s.AdditionalProperties) {
		return true
	}
	for _, group := range [][]*jsonschema.Schema{s.AnyOf, s.OneOf, s.AllOf} {
		if slices.ContainsFunc(group, hasDefault) {
			return true
		}
	}
	for _, p := range s.Properties {
		if hasDefault(p) {
			return true
		}
	}
	return false
}

// decodeInput checks a call's arguments against the input schema, then decodes them. Absent
// arguments are an empty object, as in the SDK. The schemas refuse properties they do not
// name, so a key matching a field only when case is ignored never reaches the decoder. Its
// errors are toolFailures: a sentence naming the argument, what is expected and what to do
// (argumentProblem), never the validator's text.
func decodeInput[In any](args json.RawMessage, schema *jsonschema.Resolved) (In, error) {
	var in In
	fields := map[string]any{}
	if len(args) > 0 {
		if err := json.Unmarshal(args, &fields); err != nil {
			return in, failf("The arguments must be a JSON object of named arguments (tools/list shows them); call the tool again with one.")
		}
	}
	var instance any = fields
	if err := schema.Validate(&instance); err != nil {
		return in, toolFailure{argumentProblem(schema.Schema(), fields)}
	}
	if len(args) > 0 {
		if err := json.Unmarshal(args, &in); err != nil {
			// The schema was inferred from In: what it admits decodes.
			return in, failf("The arguments do not match the tool's input schema (tools/list shows it); call the tool again with arguments that do.")
		}
	}
	return in, nil
}

// encodeOutput answers a call with its output as structured content and, for clients older
// than structured content, the same JSON as text.
func encodeOutput(out any, schema *jsonschema.Resolved) (*sdk.CallToolResult, error) {
	b, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("mcp: marshaling output: %w", err)
	}
	if checkOutputs.Load() {
		var instance any
		if err := json.Unmarshal(b, &instance); err != nil {
			return nil, err
		}
		if err := schema.Validate(&instance); err != nil {
			return nil, fmt.Errorf("mcp: output does not match its schema: %w", err)
		}
	}
	return &sdk.CallToolResult{
		StructuredContent: json.RawMessage(b),
		Content:           []sdk.Content{&sdk.TextContent{Text: string(b)}},
	}, nil
}

// failed is a tool result that reports err to the caller.
func failed(err error) *sdk.CallToolResult {
	var res sdk.CallToolResult
	res.SetError(err)
	return &res
}

// schemaOptions describe times as RFC 3339 strings (every time is written in UTC).
var schemaOptions = &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[time.Time](): {Type: "string", Format: "date-time"},
}}

// mustSchema infers the JSON schema of T. A type it cannot describe is a programming error that
// every test run finds at package initialisation.
func mustSchema[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](schemaOptions)
	if err != nil {
		panic(fmt.Sprintf("mcp: schema of %T: %v", *new(T), err))
	}
	listsNotNull(s)
	return s
}

// listsNotNull narrows the inferred type of every list from ["null", "array"] (a nil Go slice)
// to "array": the tools always answer [] for an empty list, and the schema says so.
func listsNotNull(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if slices.Equal(s.Types, []string{"null", "array"}) {
		s.Types, s.Type = nil, "array"
	}
	listsNotNull(s.Items)
	listsNotNull(s.AdditionalProperties)
	for _, p := range s.Properties {
		listsNotNull(p)
	}
}

// Schema adjustments for define's input hook.

func bounds(lo, hi float64, props ...string) func(*jsonschema.Schema) {
	return func(s *jsonschema.Schema) {
		for _, p := range props {
			s.Properties[p].Minimum, s.Properties[p].Maximum = &lo, &hi
		}
	}
}

func maxLength(n int, props ...string) func(*jsonschema.Schema) {
	return func(s *jsonschema.Schema) {
		for _, p := range props {
			s.Properties[p].MaxLength = &n
		}
	}
}

func minLength(n int, props ...string) func(*jsonschema.Schema) {
	return func(s *jsonschema.Schema) {
		for _, p := range props {
			s.Properties[p].MinLength = &n
		}
	}
}

func enum(prop string, values ...string) func(*jsonschema.Schema) {
	return func(s *jsonschema.Schema) {
		for _, v := range values {
			s.Properties[prop].Enum = append(s.Properties[prop].Enum, v)
		}
	}
}

func all(fs ...func(*jsonschema.Schema)) func(*jsonschema.Schema) {
	return func(s *jsonschema.Schema) {
		for _, f := range fs {
			f(s)
		}
	}
}

// Paging. Every list tool takes first and after and answers next_cursor; the cursor is the
// store's, opaque to clients.
const (
	defaultPageSize = 20
	maxPageSize     = 50
	maxCursorLength = 200
)

// paging is the paging part of the list tools' input schemas.
var paging = all(bounds(1, maxPageSize, "first"), maxLength(maxCursorLength, "after"))

func page(first int, after string) storage.Page {
	if first <= 0 {
		first = defaultPageSize
	}
	return storage.Page{First: min(first, maxPageSize), After: after}
}

// toolFailure is a tool error whose message is written for whoever reads the result: it says
// what went wrong and what to call instead. Everything else a tool returns is logged and
// replaced by a generic message, so that no database detail reaches a client.
type toolFailure struct{ message string }

func (e toolFailure) Error() string { return e.message }

func failf(format string, args ...any) error { return toolFailure{fmt.Sprintf(format, args...)} }

// toolError turns a tool's error into the isError result's text.
func (c *caller) toolError(ctx context.Context, tool string, err error) error {
	var f toolFailure
	switch {
	case errors.As(err, &f):
		return f
	case errors.Is(err, storage.ErrInvalidArgument):
		// The only caller input the store judges is the cursor; enums and bounds were checked
		// against the input schema before the tool ran.
		return failf("The cursor in \"after\" is not one this tool returned; call the tool again without it.")
	case errors.Is(err, storage.ErrUnavailable), errors.Is(err, context.DeadlineExceeded):
		c.log.LogAttrs(ctx, slog.LevelError, "mcp: tool failed", slog.String("tool", tool), slog.String("error", err.Error()))
		return failf("The school's data cannot be read right now; retry shortly.")
	}
	c.log.LogAttrs(ctx, slog.LevelError, "mcp: tool failed", slog.String("tool", tool), slog.String("error", err.Error()))
	return failf("The tool failed on the server; retry later.")
}

// Shared output shapes.

// pageAfter ends the input of every tool that returns one page of a list.
type pageAfter struct {
	After string `json:"after,omitempty" jsonschema:"The next_cursor of the previous page; omit for the first page."`
}

// nextPage ends the output of every tool that returns one page of a list.
type nextPage struct {
	NextCursor string `json:"next_cursor,omitempty" jsonschema:"Pass as after to get the next page; absent on the last page."`
}

// money is an amount in the currency's minor unit (docs/decisions.md: 1999 USD is $19.99).
type money struct {
	Amount   int64  `json:"amount" jsonschema:"Amount in the currency's minor unit (1999 with USD is 19.99 dollars; 1990 with JPY is 1990 yen)."`
	Currency string `json:"currency" jsonschema:"ISO 4217 currency code."`
}

// progress is a member's progress through one course, counted as the Member API counts it.
type progress struct {
	TotalLectures     int `json:"total_lectures"`
	CompletedLectures int `json:"completed_lectures"`
	ReadLectures      int `json:"read_lectures" jsonschema:"Lectures opened but not completed."`
	Percent           int `json:"percent" jsonschema:"Completed lectures as a whole percentage of all lectures, rounded down; 0 for a course without lectures."`
}

func newProgress(p storage.CourseProgress) progress {
	return progress{TotalLectures: p.TotalLectures, CompletedLectures: p.CompletedLectures, ReadLectures: p.ReadLectures, Percent: p.Percent()}
}
