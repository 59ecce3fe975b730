package seed_test

import (
	"os"
	"strings"
	"testing"
)

// The example in docs/seed-format.md loads and validates, so the documentation cannot drift
// from the format.
func TestDocumentedExample(t *testing.T) {
	doc, err := os.ReadFile("../docs/seed-format.md")
	if err != nil {
		t.Skipf("documentation not found: %v", err)
	}
	_, rest, ok := strings.Cut(string(doc), "## Example\n")
	if !ok {
		t.Fatal("docs/seed-format.md has no Example section")
	}
	_, rest, ok = strings.Cut(rest, "```yaml\n")
	example, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("the Example section has no yaml block")
	}
	f := mustLoad(t, "example.yaml", strings.NewReader(example))
	if errs := f.Validate(); len(errs) > 0 {
		t.Fatalf("the documented example does not validate:\n%v", errs)
	}
}
