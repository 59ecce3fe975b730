package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// This workplace only ever sends load to loopback; the non-loopback addresses below are handed
// to the command to check that it refuses them before it sends anything.
func TestBenchRefusesTargetsOutsideLoopback(t *testing.T) {
	for _, args := range [][]string{
		{"bench", "--in-process", "--host", "10.0.0.1"},
		{"bench", "--in-process", "--host", "192.168.1.1"},
		{"bench", "--in-process", "--database", "postgres", "--dsn", "postgres://postgres@10.0.0.1:5432/test"},
	} {
		refused(t, "only sends load to loopback", args...)
	}
}

func TestBenchChecksItsFlags(t *testing.T) {
	for _, args := range [][]string{
		{"bench", "--in-process", "--duration", "6m"},
		{"bench", "--in-process", "--duration", "0s"},
		{"bench", "--in-process", "--concurrency", "0"},
		{"bench", "--in-process", "--scenarios", "authcode,nope"},
		{"bench", "--in-process", "--database", "postgres"},
	} {
		refused(t, "", args...)
	}
}

// TestBenchInProcess runs two scenarios through the command and checks its outputs.
func TestBenchInProcess(t *testing.T) {
	dir := t.TempDir()
	jsonFile, chart := filepath.Join(dir, "bench.json"), filepath.Join(dir, "bench.svg")
	code, stdout, stderr := runCmd(t, "", "bench", "--in-process", "--scenarios", "graphql-viewer,userinfo",
		"--concurrency", "2", "--requests", "10", "--warmup", "0", "--tmp", dir, "--json", jsonFile, "--chart", chart)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "graphql-viewer") || !strings.Contains(stdout, "bare-http") {
		t.Fatalf("table:\n%s", stdout)
	}
	var rep struct {
		Command   string `json:"command"`
		Scenarios []struct {
			Name     string `json:"name"`
			Requests int    `json:"requests"`
		} `json:"scenarios"`
	}
	readReport(t, jsonFile, chart, &rep)
	if len(rep.Scenarios) != 2 || rep.Scenarios[0].Name != "userinfo" || rep.Scenarios[0].Requests != 10 {
		t.Fatalf("report: %+v", rep)
	}
	if !strings.Contains(rep.Command, "--requests=10") {
		t.Errorf("command %q", rep.Command)
	}
}

func TestBenchSoakChecksItsFlags(t *testing.T) {
	for _, args := range [][]string{
		{"bench", "--in-process", "--soak", "--soak-duration", "31m"},
		{"bench", "--in-process", "--soak", "--soak-duration", "0s"},
		{"bench", "--in-process", "--soak", "--soak-duration", "30s", "--soak-window", "10s"},
		{"bench", "--in-process", "--soak", "--scenarios", "refresh"},
		{"bench", "--in-process", "--soak", "--duration", "5s"},
		{"bench", "--in-process", "--soak", "--requests", "10"},
		{"bench", "--in-process", "--soak-duration", "1m"},
		{"bench", "--in-process", "--soak", "--host", "10.0.0.1"},
	} {
		refused(t, "", args...)
	}
}

// TestBenchSoakInProcess runs a soak of a few seconds through the command and checks its
// outputs. Its verdict is not asserted: a run this short on a busy machine may fail the rate
// or p99 check, and the command then exits 1 after writing the same outputs.
func TestBenchSoakInProcess(t *testing.T) {
	dir := t.TempDir()
	jsonFile, chart := filepath.Join(dir, "soak.json"), filepath.Join(dir, "soak.svg")
	code, stdout, stderr := runCmd(t, "", "bench", "--in-process", "--soak", "--concurrency", "2", "--warmup", "0",
		"--soak-peak", "1s", "--soak-duration", "3s", "--soak-window", "500ms", "--tmp", dir, "--json", jsonFile, "--chart", chart)
	if code != 0 && !strings.Contains(stderr, "verdict failed") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "verdict:") || !strings.Contains(stdout, "pairs = oauth_token_pairs") {
		t.Fatalf("table:\n%s", stdout)
	}
	var rep struct {
		Command string `json:"command"`
		Errors  int    `json:"errors"`
		Windows []struct {
			Requests int              `json:"requests"`
			Rows     map[string]int64 `json:"rows"`
		} `json:"windows"`
		Verdict struct {
			Checks []struct {
				Name string `json:"name"`
			} `json:"checks"`
		} `json:"verdict"`
	}
	b := readReport(t, jsonFile, chart, &rep)
	if rep.Errors != 0 || len(rep.Windows) < 6 || len(rep.Verdict.Checks) == 0 || rep.Windows[0].Rows == nil {
		t.Fatalf("report: %s", b)
	}
	if !strings.Contains(rep.Command, "--soak=true") {
		t.Errorf("command %q", rep.Command)
	}
}

// readReport decodes the run's JSON report into rep and returns it as written; the run's chart
// must be an SVG document.
func readReport(t *testing.T, jsonFile, chart string, rep any) []byte {
	t.Helper()
	if svg, err := os.ReadFile(chart); err != nil || !strings.HasPrefix(string(svg), "<svg") {
		t.Fatalf("chart: %v %.40s", err, svg)
	}
	b, err := os.ReadFile(jsonFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, rep); err != nil {
		t.Fatal(err)
	}
	return b
}
