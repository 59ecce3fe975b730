package seed

import (
	"fmt"
	"strings"
)

// Error is one problem in a fixture, located well enough to fix it without reading the
// loader: the file, the line (0 when unknown, for data built in code), and the field as a path
// such as "payments[4].line_items[0].kind" (list indexes count from 0).
type Error struct {
	File  string
	Line  int
	Field string
	Msg   string
	// Err is the store's error when the import of this record failed, so that callers can
	// still match storage.ErrNotFound and the like with errors.Is; nil for a problem found by
	// Load or Validate.
	Err error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Field != "" {
		b.WriteString(": ")
		b.WriteString(e.Field)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// errorAt is the problem msg with field of the fixture, placed at the field's line; err is the
// store's error behind it, or nil.
func (f *Fixture) errorAt(field, msg string, err error) *Error {
	return &Error{File: f.File, Line: f.line(field), Field: field, Msg: msg, Err: err}
}

// Errors is every problem found in a fixture, in line order. It is an error itself so that
// Load can return all of them at once; its message has one problem per line.
type Errors []*Error

func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap lets errors.As and errors.Is look at each problem.
func (es Errors) Unwrap() []error {
	errs := make([]error, len(es))
	for i, e := range es {
		errs[i] = e
	}
	return errs
}
