package server_test

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// dashboardPanel is what the check reads of a Grafana panel: its queries, and the panels a row
// holds.
type dashboardPanel struct {
	Title   string `json:"title"`
	Targets []struct {
		Expr string `json:"expr"`
	} `json:"targets"`
	Panels []dashboardPanel `json:"panels"`
}

// checkDashboard fails t for every metric named by a panel query of the dashboard at path that
// is not among the names exposed, and for a panel query that names no metric at all.
func checkDashboard(t *testing.T, path string, exposed map[string]bool) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels     []dashboardPanel `json:"panels"`
		Templating struct {
			List []struct {
				Name       string `json:"name"`
				Type       string `json:"type"`
				Definition string `json:"definition"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	have := map[string]bool{}
	for name := range exposed {
		have[histogramBase(name)] = true
	}
	// exposes checks that a query (of what: a panel or a variable) names metrics, each exposed.
	exposes := func(what, query string, names []string) {
		if len(names) == 0 {
			t.Errorf("%s: query %q names no metric", what, query)
		}
		for _, n := range names {
			if !have[histogramBase(n)] {
				t.Errorf("%s: the server exposes no metric %s", what, n)
			}
		}
	}
	queries := 0
	var check func([]dashboardPanel)
	check = func(panels []dashboardPanel) {
		for _, p := range panels {
			check(p.Panels)
			for _, target := range p.Targets {
				queries++
				exposes(fmt.Sprintf("panel %q", p.Title), target.Expr, promQLMetrics(target.Expr))
			}
		}
	}
	check(d.Panels)
	// A variable's query (label_values(metric, label)) names a metric too: a variable over a
	// metric that does not exist offers no value, and every panel filtered by it shows nothing.
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		exposes(fmt.Sprintf("variable %q", v.Name), v.Definition, variableMetrics(v.Definition))
	}
	if queries == 0 {
		t.Errorf("%s: no panel queries", path)
	}
}

// variableMetrics lists the metric names a Grafana query variable's definition selects: the
// series selector of label_values(selector, label), else the names of a PromQL query
// (query_result(expr)).
func variableMetrics(definition string) []string {
	if args, ok := strings.CutPrefix(strings.TrimSpace(definition), "label_values("); ok {
		args = strings.TrimSuffix(strings.TrimSpace(args), ")")
		i := strings.LastIndexByte(args, ',')
		if i < 0 {
			return nil // a label's values across every metric: no name to check
		}
		return promQLMetrics(args[:i])
	}
	return promQLMetrics(definition)
}

// histogramBase strips a histogram's or summary's series suffix.
func histogramBase(name string) string {
	for _, s := range []string{"_bucket", "_sum", "_count"} {
		if b, ok := strings.CutSuffix(name, s); ok {
			return b
		}
	}
	return name
}

// promQLGroupings are the PromQL keywords followed by a parenthesised list of labels.
var promQLGroupings = []string{"by", "without", "on", "ignoring", "group_left", "group_right"}

// promQLKeywords are the PromQL words that are neither metrics nor functions: the binary
// operators, modifiers and aggregation operators (which may be followed by a grouping before
// their parenthesis).
var promQLKeywords = []string{"and", "or", "unless", "bool", "offset",
	"sum", "min", "max", "avg", "group", "stddev", "stdvar", "count", "count_values", "bottomk",
	"topk", "quantile", "limitk", "limit_ratio"}

// promQLMetrics lists the metric names a PromQL expression selects: its identifiers that are
// not functions, keywords, label names (in braces or in a grouping), durations, strings or
// Grafana variables.
func promQLMetrics(expr string) []string {
	var names []string
	isIdent := func(c byte, first bool) bool {
		return c == '_' || c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || !first && c >= '0' && c <= '9'
	}
	// skipTo returns the index after the first close at or after i (the end if there is none).
	skipTo := func(i int, close byte) int {
		if j := strings.IndexByte(expr[i:], close); j >= 0 {
			return i + j + 1
		}
		return len(expr)
	}
	for i := 0; i < len(expr); {
		c := expr[i]
		switch {
		case c == '"' || c == '\'' || c == '`':
			i = skipTo(i+1, c)
		case c == '{':
			i = skipTo(i, '}')
		case c == '[':
			i = skipTo(i, ']')
		case c == '$' || c >= '0' && c <= '9' || c == '.':
			// A variable, or a number or duration (5m, 0.95, 1e3).
			i++
			for i < len(expr) && (isIdent(expr[i], false) || expr[i] == '.') {
				i++
			}
		case isIdent(c, true):
			j := i
			for j < len(expr) && isIdent(expr[j], false) {
				j++
			}
			word := expr[i:j]
			rest := strings.TrimLeft(expr[j:], " \t\n")
			switch {
			case slices.Contains(promQLGroupings, word) && strings.HasPrefix(rest, "("):
				j = skipTo(j, ')')
			case slices.Contains(promQLKeywords, word), strings.HasPrefix(rest, "("):
				// a keyword, or a function's name
			default:
				names = append(names, word)
			}
			i = j
		default:
			i++
		}
	}
	return names
}

// TestPromQLMetrics checks the dashboard check's reading of PromQL.
func TestPromQLMetrics(t *testing.T) {
	for expr, want := range map[string][]string{
		`histogram_quantile(0.95, sum by (le, route) (rate(a_seconds_bucket{listener="public"}[$__rate_interval])))`: {"a_seconds_bucket"},
		`sum by (route) (rate(x_sum[5m])) / sum without (school) (rate(x_count[5m])) and on (route) up`:              {"x_sum", "x_count", "up"},
		`go_goroutines offset 1h`:                    {"go_goroutines"},
		`rate(m_total{s=~"$school", k!="a(b)"}[1h])`: {"m_total"},
	} {
		if got := promQLMetrics(expr); !slices.Equal(got, want) {
			t.Errorf("promQLMetrics(%q) = %q, want %q", expr, got, want)
		}
	}
	for def, want := range map[string][]string{
		`label_values(proctor_security_events_total, school)`:           {"proctor_security_events_total"},
		`label_values(m_total{listener="public", route=~"a,b"}, route)`: {"m_total"},
		`label_values(school)`:                    nil,
		`query_result(sum by (school) (x_total))`: {"x_total"},
	} {
		if got := variableMetrics(def); !slices.Equal(got, want) {
			t.Errorf("variableMetrics(%q) = %q, want %q", def, got, want)
		}
	}
}
