package mcp

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// argumentProblem says, in one sentence for whoever reads the tool result (often a model),
// which argument of a call is wrong, what the tool expects instead and what to do. It is asked
// only after the input schema refused the arguments (the validator stays the judge; its own
// text, "validating root: validating /properties/first: minimum: 0/1 is less than 1.000000",
// says neither in words). The tools' input schemas are flat objects of scalar properties
// (define), which is all this reads: unknown arguments, missing required ones, then each
// argument's type, bounds, length and allowed values, in name order so that the sentence is
// the same for the same call.
func argumentProblem(s *jsonschema.Schema, args map[string]any) string {
	names := make([]string, 0, len(args))
	for name := range args {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if _, ok := s.Properties[name]; !ok {
			return fmt.Sprintf("Unknown argument %s: %s Call the tool again without it.", shown(name), takes(s))
		}
	}
	for _, name := range s.Required {
		if _, ok := args[name]; !ok {
			return fmt.Sprintf("The argument %q (%s) is required; call the tool again with it.", name, kind(s.Properties[name]))
		}
	}
	for _, name := range names {
		if expected := valueProblem(s.Properties[name], args[name]); expected != "" {
			return fmt.Sprintf("The argument %q must be %s, not %s; call the tool again with such a value.", name, expected, shown(args[name]))
		}
	}
	return "The arguments do not match the tool's input schema (tools/list shows it); call the tool again with arguments that do."
}

// takes names the arguments a tool takes, as the end of a sentence.
func takes(s *jsonschema.Schema) string {
	if len(s.Properties) == 0 {
		return "this tool takes no arguments."
	}
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, strconv.Quote(name))
	}
	sort.Strings(names)
	return "this tool takes " + strings.Join(names, ", ") + "."
}

// valueProblem returns what the property expects ("an integer from 1 to 50") when v does not
// fit it, "" when it does.
func valueProblem(p *jsonschema.Schema, v any) string {
	if p == nil {
		return ""
	}
	want := kind(p)
	if v == nil {
		if allows(p, "null") {
			return ""
		}
		return want
	}
	switch v := v.(type) {
	case float64:
		isInt := v == math.Trunc(v)
		if !allows(p, "number") && !(isInt && allows(p, "integer")) {
			return want
		}
		if p.Minimum != nil && v < *p.Minimum || p.Maximum != nil && v > *p.Maximum {
			return want
		}
	case string:
		if !allows(p, "string") {
			return want
		}
		n := utf8.RuneCountInString(v)
		if p.MinLength != nil && n < *p.MinLength || p.MaxLength != nil && n > *p.MaxLength {
			return want
		}
		if len(p.Enum) > 0 && !slices.Contains(p.Enum, any(v)) {
			return want
		}
	case bool:
		if !allows(p, "boolean") {
			return want
		}
	default:
		if !allows(p, "object") && !allows(p, "array") {
			return want
		}
	}
	return ""
}

// allows says whether the property's type admits JSON type t.
func allows(p *jsonschema.Schema, t string) bool {
	return p.Type == t || slices.Contains(p.Types, t)
}

// kind describes what a property takes: its type, bounds, length and allowed values.
func kind(p *jsonschema.Schema) string {
	if p == nil {
		return "a value"
	}
	switch {
	case len(p.Enum) > 0:
		values := make([]string, len(p.Enum))
		for i, e := range p.Enum {
			values[i] = shown(e)
		}
		return "one of " + strings.Join(values, ", ")
	case allows(p, "integer"), allows(p, "number"):
		noun := "a number"
		if allows(p, "integer") {
			noun = "an integer"
		}
		switch {
		case p.Minimum != nil && p.Maximum != nil:
			return fmt.Sprintf("%s from %s to %s", noun, number(*p.Minimum), number(*p.Maximum))
		case p.Minimum != nil:
			return fmt.Sprintf("%s of at least %s", noun, number(*p.Minimum))
		case p.Maximum != nil:
			return fmt.Sprintf("%s of at most %s", noun, number(*p.Maximum))
		}
		return noun
	case allows(p, "string"):
		switch {
		case p.MinLength != nil && p.MaxLength != nil:
			return fmt.Sprintf("a string of %d to %d characters", *p.MinLength, *p.MaxLength)
		case p.MinLength != nil:
			return fmt.Sprintf("a string of at least %d characters", *p.MinLength)
		case p.MaxLength != nil:
			return fmt.Sprintf("a string of at most %d characters", *p.MaxLength)
		}
		return "a string"
	case allows(p, "boolean"):
		return "true or false"
	}
	return "a value of type " + strings.Join(append([]string{p.Type}, p.Types...), " or ")
}

func number(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// shown is a JSON value as a reader would write it: strings quoted, long ones cut.
func shown(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		if utf8.RuneCountInString(v) > 40 {
			return "a string of " + strconv.Itoa(utf8.RuneCountInString(v)) + " characters"
		}
		return strconv.Quote(v)
	case float64:
		return number(v)
	case bool:
		return strconv.FormatBool(v)
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	}
	return "that value"
}
