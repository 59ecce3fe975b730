package config

import (
	"fmt"
	"strings"
)

// Problem is one thing wrong with the configuration.
type Problem struct {
	File  string // the file it was found in; "" for environment or built-in values
	Field string // the key path, e.g. "database.dsn"
	Msg   string
}

func (p Problem) String() string {
	var b strings.Builder
	if p.File != "" {
		b.WriteString(p.File)
		b.WriteString(": ")
	}
	if p.Field != "" {
		b.WriteString(p.Field)
		b.WriteString(": ")
	}
	b.WriteString(p.Msg)
	return b.String()
}

// Errors is every problem found; Load returns it as its error so callers can list them all.
type Errors []Problem

func (e Errors) Error() string {
	lines := make([]string, len(e))
	for i, p := range e {
		lines[i] = p.String()
	}
	return fmt.Sprintf("invalid configuration (%d problems):\n  %s", len(e), strings.Join(lines, "\n  "))
}

// collector gathers problems for one file.
type collector struct {
	file     string
	problems *Errors
}

func (c collector) add(field, format string, args ...any) {
	*c.problems = append(*c.problems, Problem{File: c.file, Field: field, Msg: fmt.Sprintf(format, args...)})
}
