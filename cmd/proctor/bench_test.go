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
		code, _, stderr := runCmd(t, "", args...)
		if code != exitFailure || !strings.Contains(stderr, "only sends load to loopback") {
			t.Errorf("%v: exit %d\n%s", args, code, stderr)
		}
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
		if code, _, stderr := runCmd(t, "", args...); code != exitFailure {
			t.Errorf("%v: exit %d\n%s", args, code, stderr)
		}
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
	b, err := os.ReadFile(jsonFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Scenarios) != 2 || rep.Scenarios[0].Name != "userinfo" || rep.Scenarios[0].Requests != 10 {
		t.Fatalf("report: %+v", rep)
	}
	if !strings.Contains(rep.Command, "--requests=10") {
		t.Errorf("command %q", rep.Command)
	}
	if svg, err := os.ReadFile(chart); err != nil || !strings.HasPrefix(string(svg), "<svg") {
		t.Fatalf("chart: %v %.40s", err, svg)
	}
}
