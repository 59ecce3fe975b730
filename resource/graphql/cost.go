package graphql

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/graph-gophers/graphql-go/ast"
)

// The cost of a query estimates how many field values answering it produces, before anything
// runs: every field counts once per object it is resolved on. A connection's nodes hold `first`
// items (its default when absent, at most maxFirst: more is refused when it runs anyway); any
// other list (sections, lectures, slots, introspection's types and fields) holds listEstimate.
// Aliases count as the separate fields they are, and fragments as often as they are spread, so
// neither can hide work. @skip and @include are ignored: a query is charged as if everything in
// it ran.
//
// graphql-go exposes no parser for executable documents, so a small one lives here. It reads
// only what the estimate needs (selections, arguments, fragments, variable defaults) and leaves
// every judgement on validity to graphql-go, which runs after it: a document this parser cannot
// read is handed to graphql-go's validation for its error message.
const listEstimate = 10

// errCostUnreadable: the reader could not make sense of the document. Usually graphql-go's
// validation then says what is wrong with it; if it finds nothing, the query is refused rather
// than run unmeasured.
var errCostUnreadable = errors.New("the query could not be measured")

// costModel knows, for each object type of the schema, which fields are lists and which take a
// `first` argument (and its default).
type costModel struct {
	schema *ast.Schema
}

// queryCost returns the estimated cost of the operation the request names (the only one when
// operationName is empty), stopping as soon as it passes limit. Variables supply `first` given
// as $variables.
func (m costModel) queryCost(query, operationName string, variables map[string]any, limit int) (int, error) {
	doc, err := parseDocument(query)
	if err != nil {
		return 0, err
	}
	var op *operationDef
	for i := range doc.operations {
		o := &doc.operations[i]
		if operationName == "" || o.name == operationName {
			if op != nil {
				return 0, nil // several candidates: graphql-go refuses the request before running it
			}
			op = o
		}
	}
	if op == nil {
		return 0, nil // nothing will run; graphql-go says why
	}
	root, ok := m.schema.RootOperationTypes[op.kind]
	if !ok {
		return 0, nil
	}
	w := costWalk{model: m, doc: doc, op: op, vars: variables, limit: limit, active: map[string]bool{}}
	w.selections(root.TypeName(), op.selections, 1, 0)
	return w.total, nil
}

type costWalk struct {
	model  costModel
	doc    *document
	op     *operationDef
	vars   map[string]any
	limit  int
	total  int
	active map[string]bool // fragments being expanded, to stop on a cycle
}

// selections charges sels resolved on `times` objects of typeName. sizedBy is the `first` of the
// enclosing field when it took one: a list directly under it (a connection's nodes) holds that
// many items rather than listEstimate.
func (w *costWalk) selections(typeName string, sels []selectionNode, times, sizedBy int) {
	for _, s := range sels {
		if w.total > w.limit {
			return
		}
		switch s.kind {
		case fieldSelection:
			w.field(typeName, s, times, sizedBy)
		case inlineFragment:
			t := typeName
			if s.typeCondition != "" {
				t = s.typeCondition
			}
			w.selections(t, s.selections, times, sizedBy)
		case fragmentSpread:
			f, ok := w.doc.fragments[s.name]
			if !ok || w.active[s.name] {
				// Unknown or cyclic: graphql-go's validation refuses the document.
				continue
			}
			w.active[s.name] = true
			w.selections(f.typeCondition, f.selections, times, sizedBy)
			w.active[s.name] = false
		}
	}
}

func (w *costWalk) field(typeName string, s selectionNode, times, sizedBy int) {
	w.total = saturatingAdd(w.total, times)
	def := w.model.fieldDef(typeName, s.name)
	if def == nil || len(s.selections) == 0 {
		return // a leaf, __typename, or an unknown field graphql-go will refuse
	}
	factor, childSizedBy := 1, 0
	switch arg := def.Arguments.Get("first"); {
	case arg != nil:
		childSizedBy = w.first(s, arg)
	case isList(def.Type) && sizedBy > 0:
		factor = sizedBy
	case isList(def.Type):
		factor = listEstimate
	}
	w.selections(namedTypeName(def.Type), s.selections, saturatingMul(times, factor), childSizedBy)
}

// first returns the `first` a connection field will be resolved with, clamped to [1, maxFirst]
// so that neither a refused value nor zero distorts the estimate.
func (w *costWalk) first(s selectionNode, arg *ast.InputValueDefinition) int {
	var v any
	if a, ok := s.arguments["first"]; ok {
		if a.variable != "" {
			var given bool
			if v, given = w.vars[a.variable]; !given {
				v = w.op.variableDefaults[a.variable]
			}
		} else {
			v = a.literal
		}
	} else if arg.Default != nil {
		v = arg.Default.Deserialize(nil)
	}
	n := defaultFirst
	switch x := v.(type) {
	case int32:
		n = int(x)
	case int:
		n = x
	case float64:
		if x >= math.MinInt32 && x <= math.MaxInt32 {
			n = int(x)
		}
	case string: // an integer literal as parsed here
		if i, err := strconv.Atoi(x); err == nil {
			n = i
		}
	}
	return min(max(n, 1), maxFirst)
}

// fieldDef finds a field of an object or interface type, including the introspection entry
// points of the query root.
func (m costModel) fieldDef(typeName, name string) *ast.FieldDefinition {
	if q, ok := m.schema.RootOperationTypes["query"]; ok && q.TypeName() == typeName {
		switch name {
		case "__schema":
			return &ast.FieldDefinition{Name: name, Type: m.schema.Types["__Schema"]}
		case "__type":
			return &ast.FieldDefinition{Name: name, Type: m.schema.Types["__Type"]}
		}
	}
	var fields ast.FieldsDefinition
	switch t := m.schema.Types[typeName].(type) {
	case *ast.ObjectTypeDefinition:
		fields = t.Fields
	case *ast.InterfaceTypeDefinition:
		fields = t.Fields
	}
	return fields.Get(name)
}

func isList(t ast.Type) bool {
	if nn, ok := t.(*ast.NonNull); ok {
		t = nn.OfType
	}
	_, ok := t.(*ast.List)
	return ok
}

func namedTypeName(t ast.Type) string {
	for {
		switch x := t.(type) {
		case *ast.NonNull:
			t = x.OfType
		case *ast.List:
			t = x.OfType
		case ast.NamedType:
			return x.TypeName()
		default:
			return ""
		}
	}
}

func saturatingAdd(a, b int) int {
	if a > math.MaxInt32 || b > math.MaxInt32 {
		return math.MaxInt32
	}
	return min(a+b, math.MaxInt32)
}

func saturatingMul(a, b int) int {
	if a != 0 && b > math.MaxInt32/a {
		return math.MaxInt32
	}
	return a * b
}

// ---- a reader for GraphQL executable documents (https://spec.graphql.org/October2021/#sec-Document) ----

type selectionKind int

const (
	fieldSelection selectionKind = iota
	fragmentSpread
	inlineFragment
)

type selectionNode struct {
	kind          selectionKind
	name          string // field name or fragment name
	typeCondition string // inline fragments
	arguments     map[string]argumentValue
	selections    []selectionNode
}

// argumentValue is an argument as far as the estimate cares: a variable's name, or a scalar
// literal's text (lists and objects are read past).
type argumentValue struct {
	variable string
	literal  any
}

type operationDef struct {
	kind             string // query, mutation, subscription
	name             string
	variableDefaults map[string]any
	selections       []selectionNode
}

type fragmentDef struct {
	typeCondition string
	selections    []selectionNode
}

type document struct {
	operations []operationDef
	fragments  map[string]fragmentDef
}

// maxNesting bounds how deep selection sets and values may nest while reading, so that a
// document of brackets cannot exhaust the stack; legitimate queries are far shallower (and
// graphql-go's MaxDepth refuses them well before).
const maxNesting = 64

type parser struct {
	lex   lexer
	tok   token
	depth int
}

func parseDocument(src string) (*document, error) {
	p := &parser{lex: lexer{src: src}}
	if err := p.next(); err != nil {
		return nil, err
	}
	doc := &document{fragments: map[string]fragmentDef{}}
	for p.tok.kind != tokEOF {
		switch {
		case p.tok.is(tokPunct, "{"):
			sels, err := p.selectionSet()
			if err != nil {
				return nil, err
			}
			doc.operations = append(doc.operations, operationDef{kind: "query", selections: sels})
		case p.tok.is(tokName, "query"), p.tok.is(tokName, "mutation"), p.tok.is(tokName, "subscription"):
			op, err := p.operation()
			if err != nil {
				return nil, err
			}
			doc.operations = append(doc.operations, op)
		case p.tok.is(tokName, "fragment"):
			name, f, err := p.fragment()
			if err != nil {
				return nil, err
			}
			doc.fragments[name] = f
		default:
			return nil, p.unexpected()
		}
	}
	return doc, nil
}

func (p *parser) next() error {
	t, err := p.lex.next()
	p.tok = t
	return err
}

func (p *parser) unexpected() error {
	return fmt.Errorf("%w: unexpected %q at offset %d", errCostUnreadable, p.tok.text, p.tok.pos)
}

// expect consumes a punctuator.
func (p *parser) expect(punct string) error {
	if !p.tok.is(tokPunct, punct) {
		return p.unexpected()
	}
	return p.next()
}

// name consumes a name and returns it.
func (p *parser) name() (string, error) {
	if p.tok.kind != tokName {
		return "", p.unexpected()
	}
	n := p.tok.text
	return n, p.next()
}

func (p *parser) operation() (operationDef, error) {
	op := operationDef{kind: p.tok.text, variableDefaults: map[string]any{}}
	if err := p.next(); err != nil {
		return op, err
	}
	if p.tok.kind == tokName {
		op.name = p.tok.text
		if err := p.next(); err != nil {
			return op, err
		}
	}
	if p.tok.is(tokPunct, "(") {
		if err := p.next(); err != nil {
			return op, err
		}
		for !p.tok.is(tokPunct, ")") {
			if err := p.expect("$"); err != nil {
				return op, err
			}
			name, err := p.name()
			if err != nil {
				return op, err
			}
			if err := p.expect(":"); err != nil {
				return op, err
			}
			if err := p.typeRef(); err != nil {
				return op, err
			}
			if p.tok.is(tokPunct, "=") {
				if err := p.next(); err != nil {
					return op, err
				}
				v, err := p.value()
				if err != nil {
					return op, err
				}
				op.variableDefaults[name] = v.literal
			}
			if err := p.directives(); err != nil {
				return op, err
			}
		}
		if err := p.next(); err != nil {
			return op, err
		}
	}
	if err := p.directives(); err != nil {
		return op, err
	}
	sels, err := p.selectionSet()
	op.selections = sels
	return op, err
}

func (p *parser) fragment() (string, fragmentDef, error) {
	if err := p.next(); err != nil {
		return "", fragmentDef{}, err
	}
	name, err := p.name()
	if err != nil {
		return "", fragmentDef{}, err
	}
	if !p.tok.is(tokName, "on") {
		return "", fragmentDef{}, p.unexpected()
	}
	if err := p.next(); err != nil {
		return "", fragmentDef{}, err
	}
	f := fragmentDef{}
	if f.typeCondition, err = p.name(); err != nil {
		return "", f, err
	}
	if err := p.directives(); err != nil {
		return "", f, err
	}
	f.selections, err = p.selectionSet()
	return name, f, err
}

// typeRef reads past a variable's type: Name, [Type] or Type!.
func (p *parser) typeRef() error {
	if p.tok.is(tokPunct, "[") {
		if err := p.nest(); err != nil {
			return err
		}
		defer p.unnest()
		if err := p.next(); err != nil {
			return err
		}
		if err := p.typeRef(); err != nil {
			return err
		}
		if err := p.expect("]"); err != nil {
			return err
		}
	} else if _, err := p.name(); err != nil {
		return err
	}
	if p.tok.is(tokPunct, "!") {
		return p.next()
	}
	return nil
}

func (p *parser) nest() error {
	p.depth++
	if p.depth > maxNesting {
		return fmt.Errorf("%w: nested more than %d levels", errCostUnreadable, maxNesting)
	}
	return nil
}

func (p *parser) unnest() { p.depth-- }

func (p *parser) selectionSet() ([]selectionNode, error) {
	if err := p.nest(); err != nil {
		return nil, err
	}
	defer p.unnest()
	if err := p.expect("{"); err != nil {
		return nil, err
	}
	var sels []selectionNode
	for !p.tok.is(tokPunct, "}") {
		s, err := p.selection()
		if err != nil {
			return nil, err
		}
		sels = append(sels, s)
	}
	return sels, p.next()
}

func (p *parser) selection() (selectionNode, error) {
	if p.tok.is(tokPunct, "...") {
		if err := p.next(); err != nil {
			return selectionNode{}, err
		}
		if p.tok.kind == tokName && p.tok.text != "on" {
			s := selectionNode{kind: fragmentSpread, name: p.tok.text}
			if err := p.next(); err != nil {
				return s, err
			}
			return s, p.directives()
		}
		s := selectionNode{kind: inlineFragment}
		if p.tok.is(tokName, "on") {
			if err := p.next(); err != nil {
				return s, err
			}
			var err error
			if s.typeCondition, err = p.name(); err != nil {
				return s, err
			}
		}
		if err := p.directives(); err != nil {
			return s, err
		}
		var err error
		s.selections, err = p.selectionSet()
		return s, err
	}

	s := selectionNode{kind: fieldSelection}
	name, err := p.name()
	if err != nil {
		return s, err
	}
	if p.tok.is(tokPunct, ":") { // name was the alias
		if err := p.next(); err != nil {
			return s, err
		}
		if name, err = p.name(); err != nil {
			return s, err
		}
	}
	s.name = name
	if p.tok.is(tokPunct, "(") {
		if s.arguments, err = p.arguments(); err != nil {
			return s, err
		}
	}
	if err := p.directives(); err != nil {
		return s, err
	}
	if p.tok.is(tokPunct, "{") {
		s.selections, err = p.selectionSet()
	}
	return s, err
}

func (p *parser) arguments() (map[string]argumentValue, error) {
	if err := p.next(); err != nil {
		return nil, err
	}
	args := map[string]argumentValue{}
	for !p.tok.is(tokPunct, ")") {
		name, err := p.name()
		if err != nil {
			return nil, err
		}
		if err := p.expect(":"); err != nil {
			return nil, err
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		args[name] = v
	}
	return args, p.next()
}

func (p *parser) directives() error {
	for p.tok.is(tokPunct, "@") {
		if err := p.next(); err != nil {
			return err
		}
		if _, err := p.name(); err != nil {
			return err
		}
		if p.tok.is(tokPunct, "(") {
			if _, err := p.arguments(); err != nil {
				return err
			}
		}
	}
	return nil
}

// value reads one value: a variable, a scalar (kept as its text, or a Go string for a string
// literal), or a list or object (read past).
func (p *parser) value() (argumentValue, error) {
	switch {
	case p.tok.is(tokPunct, "$"):
		if err := p.next(); err != nil {
			return argumentValue{}, err
		}
		name, err := p.name()
		return argumentValue{variable: name}, err
	case p.tok.is(tokPunct, "["), p.tok.is(tokPunct, "{"):
		if err := p.nest(); err != nil {
			return argumentValue{}, err
		}
		defer p.unnest()
		closing := "]"
		object := p.tok.text == "{"
		if object {
			closing = "}"
		}
		if err := p.next(); err != nil {
			return argumentValue{}, err
		}
		for !p.tok.is(tokPunct, closing) {
			if object {
				if _, err := p.name(); err != nil {
					return argumentValue{}, err
				}
				if err := p.expect(":"); err != nil {
					return argumentValue{}, err
				}
			}
			if _, err := p.value(); err != nil {
				return argumentValue{}, err
			}
		}
		return argumentValue{}, p.next()
	case p.tok.kind == tokName, p.tok.kind == tokNumber, p.tok.kind == tokString:
		v := argumentValue{literal: p.tok.text}
		return v, p.next()
	}
	return argumentValue{}, p.unexpected()
}

type tokenKind int

const (
	tokEOF tokenKind = iota
	tokPunct
	tokName
	tokNumber
	tokString
)

type token struct {
	kind tokenKind
	text string
	pos  int
}

func (t token) is(kind tokenKind, text string) bool { return t.kind == kind && t.text == text }

// lexer splits a document into tokens (https://spec.graphql.org/October2021/#sec-Language.Source-Text),
// skipping whitespace, commas, comments and a byte order mark. String values are checked for
// their end only: their content never matters to the estimate.
type lexer struct {
	src string
	pos int
}

func (l *lexer) next() (token, error) {
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',':
			l.pos++
		case c == '#':
			for l.pos < len(l.src) && l.src[l.pos] != '\n' && l.src[l.pos] != '\r' {
				l.pos++
			}
		case c == 0xEF && len(l.src) >= l.pos+3 && l.src[l.pos:l.pos+3] == "\uFEFF":
			l.pos += 3
		default:
			return l.token()
		}
	}
	return token{kind: tokEOF, pos: l.pos}, nil
}

func (l *lexer) token() (token, error) {
	start := l.pos
	c := l.src[l.pos]
	switch {
	case c == '.':
		if len(l.src) >= l.pos+3 && l.src[l.pos:l.pos+3] == "..." {
			l.pos += 3
			return token{kind: tokPunct, text: "...", pos: start}, nil
		}
	case isPunct(c):
		l.pos++
		return token{kind: tokPunct, text: string(c), pos: start}, nil
	case c == '_' || isLetter(c):
		for l.pos < len(l.src) && (l.src[l.pos] == '_' || isLetter(l.src[l.pos]) || isDigit(l.src[l.pos])) {
			l.pos++
		}
		return token{kind: tokName, text: l.src[start:l.pos], pos: start}, nil
	case c == '-' || isDigit(c):
		l.pos++
		for l.pos < len(l.src) && (isDigit(l.src[l.pos]) || strings.IndexByte(".eE+-", l.src[l.pos]) >= 0) {
			l.pos++
		}
		return token{kind: tokNumber, text: l.src[start:l.pos], pos: start}, nil
	case c == '"':
		return l.str()
	}
	return token{}, fmt.Errorf("%w: unexpected character %q at offset %d", errCostUnreadable, c, start)
}

// str reads a string or block string value.
func (l *lexer) str() (token, error) {
	start := l.pos
	if len(l.src) >= l.pos+3 && l.src[l.pos:l.pos+3] == `"""` {
		l.pos += 3
		for l.pos < len(l.src) {
			switch {
			case len(l.src) >= l.pos+4 && l.src[l.pos:l.pos+4] == `\"""`:
				l.pos += 4
			case len(l.src) >= l.pos+3 && l.src[l.pos:l.pos+3] == `"""`:
				l.pos += 3
				return token{kind: tokString, text: l.src[start:l.pos], pos: start}, nil
			default:
				l.pos++
			}
		}
		return token{}, fmt.Errorf("%w: unterminated block string at offset %d", errCostUnreadable, start)
	}
	l.pos++
	for l.pos < len(l.src) {
		switch l.src[l.pos] {
		case '\\':
			l.pos += 2
		case '"':
			l.pos++
			return token{kind: tokString, text: l.src[start:l.pos], pos: start}, nil
		case '\n', '\r':
			return token{}, fmt.Errorf("%w: unterminated string at offset %d", errCostUnreadable, start)
		default:
			l.pos++
		}
	}
	return token{}, fmt.Errorf("%w: unterminated string at offset %d", errCostUnreadable, start)
}

func isPunct(c byte) bool  { return strings.IndexByte("!$&():=@[]{|}", c) >= 0 }
func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
