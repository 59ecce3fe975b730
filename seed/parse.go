package seed

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/proctorhq/proctor/storage"
)

// MaxSize bounds a fixture file. The whole file and its node tree are held in memory while it
// is checked, so a bigger file is split rather than streamed.
const MaxSize = 64 << 20

// Fixture is one loaded fixture file.
type Fixture struct {
	// File names the fixture in every error message.
	File string
	// Data is the decoded content, exactly as written: plain passwords are hashed by Apply on
	// a copy, so a Fixture can be applied more than once.
	Data storage.SchoolData

	// root is the document's top mapping, kept to find the line of any field when Validate
	// or Apply reports a problem; nil for a Fixture built in code, whose errors carry no line.
	root *yaml.Node
}

// Load reads a fixture from r: YAML, or JSON, which YAML parses as well. name is used in error
// messages. Every problem the file has at this level (syntax, unknown keys, a string where a
// number belongs, a malformed time) is returned at once as Errors; the records' content is
// checked by Validate.
func Load(name string, r io.Reader) (*Fixture, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(b) > MaxSize {
		return nil, Errors{{File: name, Msg: fmt.Sprintf("larger than %d MiB: split it into several files", MaxSize>>20)}}
	}
	root, err := parseDocument(name, b)
	if err != nil {
		return nil, err
	}
	f := &Fixture{File: name, root: root}
	d := &decoder{file: name, fields: map[reflect.Type]map[string][]int{}}
	d.value(root, reflect.ValueOf(&f.Data).Elem(), "")
	if len(d.errs) > 0 {
		slices.SortStableFunc(d.errs, byLine)
		return nil, d.errs
	}
	return f, nil
}

func byLine(a, b *Error) int { return a.Line - b.Line }

// parseDocument parses b into a node tree and returns its top mapping. The tree is decoded by
// hand (decoder below) instead of with yaml.Unmarshal: that is what lets every error name its
// line and field, rejects unknown keys, and never expands an alias, so a "billion laughs"
// document costs no more than its size.
func parseDocument(name string, b []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, Errors{{File: name, Msg: "the file is empty"}}
		}
		return nil, Errors{syntaxError(name, err)}
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return nil, Errors{syntaxError(name, err)}
	default:
		return nil, Errors{{File: name, Line: next.Line, Msg: "a second YAML document (after ---): a fixture is one document"}}
	}
	top := &doc
	if top.Kind == yaml.DocumentNode && len(top.Content) == 1 {
		top = top.Content[0]
	}
	if top.Kind == yaml.ScalarNode && top.ShortTag() == "!!null" {
		// An implicit null ("---" and nothing else) is placed after the last line; name no line.
		line := top.Line
		if top.Value == "" {
			line = 0
		}
		return nil, Errors{{File: name, Line: line, Msg: "the file holds no data"}}
	}
	if top.Kind != yaml.MappingNode {
		return nil, Errors{{File: name, Line: top.Line, Msg: "want a mapping of top-level keys (school, members, courses ...), got " + kindName(top)}}
	}
	return top, nil
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// syntaxError turns the parser's "yaml: line 3: ..." into an Error with that line.
func syntaxError(name string, err error) *Error {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &Error{File: name, Line: line, Msg: "YAML syntax: " + m[2]}
	}
	return &Error{File: name, Msg: "YAML syntax: " + strings.TrimPrefix(msg, "yaml: ")}
}

// decoder fills storage.SchoolData from a node tree, collecting every problem rather than
// stopping at the first. It knows exactly the Go types SchoolData uses; a new one needs a case
// here (TestFullFixtureSetsEveryField notices).
type decoder struct {
	file   string
	errs   Errors
	fields map[reflect.Type]map[string][]int // struct type -> yaml key -> field index path
}

var timeType = reflect.TypeFor[time.Time]()

func (d *decoder) fail(n *yaml.Node, field, format string, args ...any) {
	d.errs = append(d.errs, &Error{File: d.file, Line: n.Line, Field: field, Msg: fmt.Sprintf(format, args...)})
}

// value decodes n into v. field is v's path, for messages.
func (d *decoder) value(n *yaml.Node, v reflect.Value, field string) {
	if n.Kind == yaml.AliasNode {
		name := n.Value
		if len(name) > 40 {
			name = name[:40] + "..."
		}
		d.fail(n, field, "aliases (*%s) are not supported: write the value out", name)
		return
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		// An explicit null means the same as leaving the key out: the zero value.
		return
	}
	t := v.Type()
	switch {
	case t == timeType:
		d.time(n, v, field)
	case t.Kind() == reflect.Pointer:
		p := reflect.New(t.Elem())
		d.value(n, p.Elem(), field)
		v.Set(p)
	case t.Kind() == reflect.Struct:
		d.mapping(n, v, field)
	case t.Kind() == reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			d.fail(n, field, "want a list, got %s", kindName(n))
			return
		}
		s := reflect.MakeSlice(t, len(n.Content), len(n.Content))
		for i, item := range n.Content {
			d.value(item, s.Index(i), at(field, i))
		}
		v.Set(s)
	case t.Kind() == reflect.Map && t.Key().Kind() == reflect.String && t.Elem().Kind() == reflect.String:
		d.stringMap(n, v, field)
	case t.Kind() == reflect.String:
		if n.Kind != yaml.ScalarNode {
			d.fail(n, field, "want a string, got %s", kindName(n))
			return
		}
		// The text as written: "007" stays "007" where yaml.Unmarshal would see a number.
		v.SetString(n.Value)
	case t.Kind() == reflect.Int || t.Kind() == reflect.Int64:
		var i int64
		// Only YAML integers: yaml.Unmarshal would truncate 12.5 to 12 or read "12" as 12.
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || n.Decode(&i) != nil || v.OverflowInt(i) {
			d.fail(n, field, "want a whole number, got %s", kindName(n))
			return
		}
		v.SetInt(i)
	case t.Kind() == reflect.Bool:
		var b bool
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" || n.Decode(&b) != nil {
			d.fail(n, field, "want true or false, got %s", kindName(n))
			return
		}
		v.SetBool(b)
	default:
		d.fail(n, field, "cannot decode into %s", t)
	}
}

// mapping decodes a mapping node into the struct v, by the fields' yaml tags.
func (d *decoder) mapping(n *yaml.Node, v reflect.Value, field string) {
	fields := d.structFields(v.Type())
	seen := make(map[string]int, len(n.Content)/2)
	d.pairs(n, field, func(k, val *yaml.Node) {
		path := k.Value
		if field != "" {
			path = field + "." + k.Value
		}
		if first, ok := seen[k.Value]; ok {
			d.fail(k, path, "key repeated (first at line %d)", first)
			return
		}
		seen[k.Value] = k.Line
		idx, ok := fields[k.Value]
		if !ok {
			d.fail(k, path, "unknown key; expected one of: %s", strings.Join(knownKeys(fields), ", "))
			return
		}
		d.value(val, v.FieldByIndex(idx), path)
	})
}

func (d *decoder) stringMap(n *yaml.Node, v reflect.Value, field string) {
	m := reflect.MakeMapWithSize(v.Type(), len(n.Content)/2)
	ok := d.pairs(n, field, func(k, val *yaml.Node) {
		if m.MapIndex(reflect.ValueOf(k.Value)).IsValid() {
			d.fail(k, field, "key %q repeated", k.Value)
			return
		}
		s := reflect.New(v.Type().Elem()).Elem()
		d.value(val, s, field+"."+k.Value)
		m.SetMapIndex(reflect.ValueOf(k.Value).Convert(v.Type().Key()), s)
	})
	if ok {
		v.Set(m)
	}
}

// pairs calls each with every key and value of the mapping n, in order; a key that is not a
// scalar is reported and skipped. It reports false, and calls nothing, when n is not a mapping.
func (d *decoder) pairs(n *yaml.Node, field string, each func(k, val *yaml.Node)) bool {
	if n.Kind != yaml.MappingNode {
		d.fail(n, field, "want a mapping, got %s", kindName(n))
		return false
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			d.fail(k, field, "want a key, got %s", kindName(k))
			continue
		}
		each(k, val)
	}
	return true
}

// Layouts accepted for times: RFC 3339, and a plain date meaning midnight UTC.
const dateLayout = "2006-01-02"

func (d *decoder) time(n *yaml.Node, v reflect.Value, field string) {
	if n.Kind != yaml.ScalarNode {
		d.fail(n, field, "want a time, got %s", kindName(n))
		return
	}
	t, err := parseTime(n.Value)
	if err != nil {
		d.fail(n, field, "%v", err)
		return
	}
	v.Set(reflect.ValueOf(t))
}

// parseTime reads a fixture time: an RFC 3339 timestamp (2025-12-31T09:30:00Z, or with an
// offset such as +09:00) or a plain date (2025-12-31, midnight UTC). The result is in UTC,
// as the store keeps it.
func parseTime(s string) (time.Time, error) {
	layout := time.RFC3339Nano
	if len(s) == len(dateLayout) {
		layout = dateLayout
	}
	t, err := time.Parse(layout, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not a time: want RFC 3339 (2025-12-31T09:30:00Z) or a date (2025-12-31)", s)
	}
	return t.UTC(), nil
}

// structFields maps a struct's yaml keys to its field index paths. The keys of a struct field
// tagged ",inline" (storage.OfferSeed) are the outer struct's own, as yaml.v3 reads them.
func (d *decoder) structFields(t reflect.Type) map[string][]int {
	if m, ok := d.fields[t]; ok {
		return m
	}
	m := make(map[string][]int, t.NumField())
	for i := range t.NumField() {
		name, opts, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		switch {
		case name == "" && opts == "inline":
			for k, idx := range d.structFields(t.Field(i).Type) {
				m[k] = append([]int{i}, idx...)
			}
		case name != "" && name != "-":
			m[name] = []int{i}
		}
	}
	d.fields[t] = m
	return m
}

// knownKeys lists a struct's keys in declaration order (an inline struct's keys where it is
// embedded), which is the order the format documents them in.
func knownKeys(fields map[string][]int) []string {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return slices.Compare(fields[a], fields[b]) })
	return keys
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode:
		return fmt.Sprintf("%q", n.Value)
	}
	return "a document"
}

// line returns the line of field (a path such as "payments[4].line_items[0].kind") in the
// file, or of its nearest ancestor present there, so that a missing field is reported at the
// record that lacks it. 0 if the Fixture was not loaded from a file.
func (f *Fixture) line(field string) int {
	n := f.root
	if n == nil {
		return 0
	}
	line := n.Line
	for seg := range strings.SplitSeq(field, ".") {
		if seg == "" {
			continue
		}
		name, idxs, _ := strings.Cut(seg, "[")
		if name != "" {
			if n.Kind != yaml.MappingNode {
				return line
			}
			var found bool
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == name {
					line, n, found = n.Content[i].Line, n.Content[i+1], true
					break
				}
			}
			if !found {
				return line
			}
		}
		if idxs == "" {
			continue
		}
		for part := range strings.SplitSeq(strings.TrimSuffix(idxs, "]"), "][") {
			i, err := strconv.Atoi(part)
			if err != nil || n.Kind != yaml.SequenceNode || i < 0 || i >= len(n.Content) {
				return line
			}
			n = n.Content[i]
			line = n.Line
		}
	}
	return line
}
