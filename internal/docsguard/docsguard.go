package docsguard

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

// Info strings of the checked blocks.
const (
	InfoServer = "yaml checked-server"
	InfoSchool = "yaml checked-school"
	InfoShell  = "sh checked"
)

// Snippet is one fenced block of a Markdown file.
type Snippet struct {
	File string
	Line int // of the opening fence
	Info string
	Body string
}

func (s Snippet) String() string { return fmt.Sprintf("%s:%d (%s)", s.File, s.Line, s.Info) }

// Checked reports whether the block is marked for checking.
func (s Snippet) Checked() bool {
	switch s.Info {
	case InfoServer, InfoSchool, InfoShell:
		return true
	}
	return false
}

// Extract returns the fenced blocks of the Markdown file at path, in order, with their info
// strings normalised to single spaces. A fence is three or more backticks at the start of a
// line; the block ends at a fence of at least as many.
func Extract(path string) ([]Snippet, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var (
		out   []Snippet
		open  *Snippet
		fence string
		body  strings.Builder
	)
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		ticks := len(line) - len(strings.TrimLeft(line, "`"))
		switch {
		case open == nil && ticks >= 3:
			fence = line[:ticks]
			open = &Snippet{File: path, Line: n, Info: strings.Join(strings.Fields(line[ticks:]), " ")}
			body.Reset()
		case open != nil && ticks >= len(fence) && strings.TrimSpace(line[ticks:]) == "":
			open.Body = body.String()
			out = append(out, *open)
			open = nil
		case open != nil:
			body.WriteString(line + "\n")
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if open != nil {
		return nil, fmt.Errorf("%s:%d: the fenced block is never closed", path, open.Line)
	}
	return out, nil
}

// Commands splits a `sh checked` block into its command lines (continuations joined, comments
// and blank lines dropped), each as its words, and refuses any line that is not a proctor
// command that only validates or prints help.
func Commands(body string) ([][]string, error) {
	var (
		out     [][]string
		pending string
	)
	for _, line := range strings.Split(body, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasSuffix(line, "\\") {
			pending += strings.TrimSuffix(line, "\\") + " "
			continue
		}
		line, pending = pending+line, ""
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		words, err := splitWords(line)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", line, err)
		}
		if !readOnly(words) {
			return nil, fmt.Errorf("%q: a checked block runs only `proctor ... validate` and `proctor ... --help`", line)
		}
		out = append(out, words)
	}
	return out, nil
}

// readOnly reports whether words are a proctor command that reads and writes nothing: a
// validation, help or the version.
func readOnly(words []string) bool {
	if len(words) < 2 || words[0] != "proctor" {
		return false
	}
	last := ""
	for _, w := range words[1:] {
		switch w {
		case "--help", "-h":
			return true
		}
		if !strings.HasPrefix(w, "-") {
			last = w
		}
	}
	return last == "validate" || last == "version" || last == "help"
}

// splitWords splits a command line into words, with single and double quotes, and refuses
// what a shell would do more with: substitutions, pipes, redirections, lists, variables.
func splitWords(line string) ([]string, error) {
	var (
		words []string
		cur   strings.Builder
		quote rune
		inArg bool
	)
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inArg = r, true
		case r == ' ' || r == '\t':
			if inArg {
				words = append(words, cur.String())
				cur.Reset()
				inArg = false
			}
		case strings.ContainsRune("$`|;&<>(){}*?", r):
			return nil, fmt.Errorf("%q is for a shell, not a checked command", r)
		default:
			cur.WriteRune(r)
			inArg = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated quote")
	}
	if inArg {
		words = append(words, cur.String())
	}
	return words, nil
}

// SplitTables returns the line numbers of table rows that follow a table after a blank line
// without starting a table of their own (no header separator under them): Markdown renders
// them as a paragraph outside the table they belong to.
func SplitTables(markdown string) []int {
	lines := strings.Split(markdown, "\n")
	row := func(i int) bool {
		return i >= 0 && i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), "|")
	}
	separator := func(i int) bool {
		return row(i) && strings.Trim(strings.TrimSpace(lines[i]), "|-: ") == ""
	}
	var out []int
	inFence := false
	for i := range lines {
		if strings.HasPrefix(lines[i], "```") {
			inFence = !inFence
		}
		if inFence {
			continue
		}
		if row(i) && i >= 2 && strings.TrimSpace(lines[i-1]) == "" && row(i-2) && !separator(i+1) {
			out = append(out, i+1)
		}
	}
	return out
}
