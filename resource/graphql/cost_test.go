package graphql

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
)

const curriculum50 = `{ viewer { enrolledCourses(first: 50) { nodes { slug expireDate hasLifetimeAccess
  lastWatchedLecture { lectureId positionSeconds } detailProgress { completedLectures totalLectures percent }
  sections { title lectures { title state isLocked unlockAt duration } } } pageInfo { hasNextPage endCursor } } } }`

func TestQueryCost(t *testing.T) {
	m := New(Deps{}).cost
	intro, err := os.ReadFile("testdata/introspection.graphql")
	if err != nil {
		t.Fatal(err)
	}
	cost := func(q string, vars map[string]any) int {
		t.Helper()
		c, err := m.queryCost(q, "", vars, 1<<30)
		if err != nil {
			t.Fatalf("%v\n%s", err, q)
		}
		return c
	}

	for _, tc := range []struct {
		name  string
		query string
		want  int
	}{
		// viewer, id: one each.
		{"scalar", `{ viewer { id } }`, 2},
		{"typename is a field", `{ __typename viewer { __typename } }`, 3},
		// viewer, payments, nodes, pageInfo, hasNextPage: 5; tradeNo on 20 nodes.
		{"default first", `{ viewer { payments { nodes { tradeNo } pageInfo { hasNextPage } } } }`, 25},
		{"literal first", `{ viewer { payments(first: 3) { nodes { tradeNo } } } }`, 6},
		// A list that is not a connection counts listEstimate items.
		{"plain list", `{ viewer { schools { name } } }`, 2 + listEstimate},
		// Under a connection: sections x10, lectures x10 per section.
		{"curriculum", `{ viewer { enrolledCourses(first: 2) { nodes { sections { lectures { title } } } } } }`, 3 + 2 + 20 + 200},
		{"aliases add up", `{ a: viewer { id } b: viewer { id } }`, 4},
		{"fragments count where spread", `query { viewer { ...F } v2: viewer { ...F } } fragment F on Viewer { id name }`, 6},
		{"inline fragments", `{ viewer { ... on Viewer { id } ... { name } } }`, 3},
		{"refused first counts as the maximum", `{ viewer { payments(first: 5000) { nodes { tradeNo } } } }`, 3 + maxFirst},
		{"zero first counts as one", `{ viewer { payments(first: 0) { nodes { tradeNo } } } }`, 4},
		{"comments, commas, strings", "# hi\n{ viewer, { notifications(after: \"x,}\\\"\" first: 2) { nodes { id } } } }", 5},
		{"block strings", `{ viewer { notifications(after: """a "" } \""" b""") { nodes { id } } } }`, 23},
	} {
		if got := cost(tc.query, nil); got != tc.want {
			t.Errorf("%s: cost %d, want %d", tc.name, got, tc.want)
		}
	}

	withVar := `query($n: Int = 7) { viewer { payments(first: $n) { nodes { tradeNo } } } }`
	if got := cost(withVar, nil); got != 3+7 {
		t.Errorf("variable default: %d", got)
	}
	if got := cost(withVar, map[string]any{"n": float64(40)}); got != 3+40 {
		t.Errorf("variable value: %d", got)
	}
	named := `query A { viewer { id } } query B { viewer { id name } }`
	if c, _ := m.queryCost(named, "B", nil, 1<<30); c != 3 {
		t.Errorf("named operation: %d", c)
	}

	// What must pass, and what must not.
	if c := cost(string(intro), nil); c > maxCost {
		t.Errorf("the standard introspection query costs %d, above the limit %d", c, maxCost)
	}
	if c := cost(curriculum50, nil); c > maxCost/3 {
		t.Errorf("a page of 50 courses with their curricula costs %d, more than a third of the limit", c)
	}
	body := strings.TrimSuffix(strings.TrimPrefix(curriculum50, "{"), "}")
	aliased := "{ a:" + body + " b:" + body + " c:" + body + " d:" + body + " }"
	if c := cost(aliased, nil); c <= maxCost {
		t.Errorf("four aliased copies of the largest curriculum cost %d, within the limit", c)
	}
	recursive := `{ __schema { types { fields { type { fields { type { fields { type { fields { name } } } } } } } } } }`
	if c := cost(recursive, nil); c <= maxCost {
		t.Errorf("recursive introspection costs %d, within the limit", c)
	}

	// A cycle of fragments ends (graphql-go refuses the document afterwards).
	cost(`{ viewer { ...A } } fragment A on Viewer { ...B } fragment B on Viewer { ...A id }`, nil)
	// Exponential fragment fan-out stops at the limit instead of running on.
	fan := `{ viewer { ...F0 } }`
	for i := range 30 {
		fan += " fragment F" + strconv.Itoa(i) + " on Viewer { ...F" + strconv.Itoa(i+1) + " ...F" + strconv.Itoa(i+1) + " }"
	}
	fan += " fragment F30 on Viewer { id }"
	if c, err := m.queryCost(fan, "", nil, maxCost); err != nil || c <= maxCost {
		t.Errorf("2^30 spreads: cost %d, %v; want above the limit", c, err)
	}
}

func TestQueryCostUnreadable(t *testing.T) {
	m := New(Deps{}).cost
	for _, q := range []string{
		`{ viewer { id }`,
		`{ viewer { id } } }`,
		`{ viewer(first: ) { id } }`,
		`{ viewer { id } } fragment F Viewer { id }`,
		`{ "x" }`,
		`{ viewer { notifications(after: "unterminated) { nodes { id } } } }`,
		strings.Repeat("{ a ", 100) + strings.Repeat("}", 100),
		`{ viewer { ‽ } }`,
	} {
		if _, err := m.queryCost(q, "", nil, maxCost); !errors.Is(err, errCostUnreadable) {
			t.Errorf("%q: %v, want errCostUnreadable", q, err)
		}
	}
}

// FuzzQueryCost: the reader never fails on a document graphql-go accepts (such a query would be
// refused for no reason the client could see), and never reports a negative cost.
func FuzzQueryCost(f *testing.F) {
	h := New(Deps{})
	for _, s := range []string{curriculum50, `{ viewer { id } }`, `query($n: Int) { viewer { payments(first: $n) { nodes { tradeNo } } } }`,
		`{ ...on Query { viewer { id } } }`, `query Q($x: [Int!] = [1, 2]) @skip(if: false) { a: viewer { ... F } } fragment F on Viewer { id }`,
		"{ viewer { notifications(after: \"\"\"x\"\"\", first: 1e1) { nodes { id } } } }"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		c, err := h.cost.queryCost(q, "", nil, maxCost)
		if err == nil && c < 0 {
			t.Fatalf("negative cost %d", c)
		}
		if err != nil && len(h.schema.Validate(q)) == 0 {
			t.Fatalf("graphql-go accepts %q, the cost reader does not: %v", q, err)
		}
	})
}
