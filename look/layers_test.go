package look

import (
	"go/build"
	"path/filepath"
	"strings"
	"testing"
)

// TestLayers: look depends on neither the authorization server nor fosite, however
// indirectly, and netguard, which it shares with authz/cimd, imports nothing of the module.
// It reads the source tree as go/build sees it for this platform, as server/layers_test.go does.
func TestLayers(t *testing.T) {
	const module = "github.com/proctorhq/proctor"
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	imports := func(ip string) []string {
		t.Helper()
		pkg, err := build.Default.ImportDir(filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(ip, module))), 0)
		if err != nil {
			t.Fatalf("%s: %v", ip, err)
		}
		return pkg.Imports
	}
	seen := map[string]bool{}
	var walk func(ip, via string)
	walk = func(ip, via string) {
		for _, dep := range imports(ip) {
			if dep == module+"/authz" || strings.HasPrefix(dep, module+"/authz/") || strings.HasPrefix(dep, "github.com/ory/fosite") {
				t.Errorf("look imports %s (through %s)", dep, via+" -> "+ip)
			}
			if strings.HasPrefix(dep, module+"/") && !seen[dep] {
				seen[dep] = true
				walk(dep, via+" -> "+ip)
			}
		}
	}
	walk(module+"/look", "")
	if len(seen) == 0 {
		t.Fatal("look imports nothing of the module: the walk did not run")
	}
	for _, dep := range imports(module + "/netguard") {
		if strings.HasPrefix(dep, module) {
			t.Errorf("netguard imports %s", dep)
		}
	}
}
