package server

import (
	"io"
	"net/http"
	"runtime/debug"
	"strings"
	"testing"
)

// TestBuildVersion checks where the version comes from: the link-time version first, then a
// module version, then the VCS revision with its dirty flag, and "dev" when nothing says.
func TestBuildVersion(t *testing.T) {
	rev := []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}}
	for _, c := range []struct {
		name, stamped, want string
		info                debug.BuildInfo
	}{
		{"link time wins", "v9.9.9", "v9.9.9", debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}, Settings: rev}},
		{"module version", "", "v1.2.3", debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}, Settings: rev}},
		{"dirty checkout", "", "0123456789ab-dirty", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: rev}},
		{"clean checkout", "", "0123456789ab", debug.BuildInfo{Settings: rev[:1]}},
		{"nothing known", "", "dev", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}},
	} {
		c.info.GoVersion = "go1.99"
		b := buildOf(&c.info, c.stamped)
		if b.Version != c.want || b.GoVersion != "go1.99" {
			t.Errorf("%s: %+v, want version %q", c.name, b, c.want)
		}
		if len(c.info.Settings) > 0 && b.Revision != rev[0].Value {
			t.Errorf("%s: revision %q", c.name, b.Revision)
		}
	}
}

// TestBuildInfoMetric checks that /metrics reports the running binary as proctor_build_info,
// with the version Version reports (the one MCP's serverInfo carries too).
func TestBuildInfoMetric(t *testing.T) {
	SetVersion("v7.7.7-test")
	t.Cleanup(func() { SetVersion("") })
	f := newFixture(t, nil)
	_, body := f.internalGet(t, "/metrics", nil)
	b := CurrentBuild()
	want := `proctor_build_info{goversion="` + b.GoVersion + `",revision="` + b.Revision + `",version="v7.7.7-test"} 1`
	if Version() != "v7.7.7-test" || !strings.Contains(body, want) {
		t.Errorf("version %q; /metrics lacks %s", Version(), want)
	}

	// MCP's initialize answers with the same version in serverInfo.
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	resp := f.sendBody(t, f.public, http.MethodPost, "127.0.0.1:8080", "/mcp", strings.NewReader(init), http.Header{
		"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
	})
	got, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(got), `"serverInfo":{"name":"proctor"`) || !strings.Contains(string(got), `"version":"v7.7.7-test"`) {
		t.Errorf("initialize: %d %s, want serverInfo with version v7.7.7-test", resp.StatusCode, got)
	}
}
