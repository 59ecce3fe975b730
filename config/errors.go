package config

import (
	"fmt"
	"os"
	"strings"
)

// Problem is one thing wrong with the configuration.
type Problem struct {
	File string // the file it was found in; "" for environment or built-in values
	// Env is the environment variable the value came from, when it came from one.
	Env   string
	Field string // the key path, e.g. "database.dsn"
	Msg   string
}

// String names where the value came from (the environment variable, else the file) and the
// field: "schools/a.yaml: name: is required", "PROCTOR_LOG_LEVEL (log.level): must be ...".
func (p Problem) String() string {
	var b strings.Builder
	if p.Env != "" {
		b.WriteString(p.Env)
		if p.Field != "" {
			b.WriteString(" (" + p.Field + ")")
		}
		b.WriteString(": ")
	} else {
		for _, part := range []string{p.File, p.Field} {
			if part != "" {
				b.WriteString(part + ": ")
			}
		}
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
	noun := "problems"
	if len(e) == 1 {
		noun = "problem"
	}
	return fmt.Sprintf("invalid configuration (%d %s):\n  %s", len(e), noun, strings.Join(lines, "\n  "))
}

// collector gathers problems for one file.
type collector struct {
	file     string
	problems *Errors
	// env is set for the server file, whose keys the environment overrides: a problem with a
	// field set in the environment is blamed on the variable, not the file.
	env bool
	// undecoded are the fields the decoder could not set, already reported: validation's
	// problems with their zero values are not reported again.
	undecoded map[string]bool
}

func (c collector) add(field, format string, args ...any) {
	if c.undecoded[field] {
		return
	}
	p := Problem{File: c.file, Field: field, Msg: fmt.Sprintf(format, args...)}
	if c.env && field != "" {
		if name := envName(field); os.Getenv(name) != "" {
			p.File, p.Env = "", name
		}
	}
	*c.problems = append(*c.problems, p)
}
