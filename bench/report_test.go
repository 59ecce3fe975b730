package bench

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// sampleReport is a run of two scenarios, one of them not available, with both baselines.
func sampleReport() *Report {
	lat := func(ms ...int) []time.Duration {
		out := make([]time.Duration, len(ms))
		for i, m := range ms {
			out[i] = time.Duration(m) * time.Millisecond
		}
		return out
	}
	cpu, rss := 1.25, int64(64<<20)
	authcode := measurement("authcode", "the whole flow", Result{Requests: 4, Elapsed: 2 * time.Second, Latencies: lat(1, 2, 3, 40)})
	authcode.ServerCPUSeconds, authcode.ServerPeakRSSBytes = &cpu, &rss
	r := &Report{
		RunInfo: RunInfo{
			Version: "v1.2.3", StartedAt: time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC), Database: "sqlite", Server: "child process",
			Concurrency: 2, Machine: Machine{CPUs: 2, OS: "linux", Arch: "amd64", GoVersion: "go1.26"},
		},
		DurationSeconds: 5, WarmupSeconds: 1, Data: DefaultData,
		Scenarios: []Measurement{
			authcode,
			{Name: "mcp-call", About: "tools/call", Note: "/mcp answers 404"},
			measurement("a<b&c", "a name that needs escaping", Result{Requests: 1, Elapsed: time.Second, Latencies: lat(5)}),
		},
		Baselines: []Measurement{
			measurement(baselineBareHTTP, "bare", Result{Requests: 100, Elapsed: time.Second, Latencies: lat(1)}),
			measurement(baselineInsert, "insert", Result{Requests: 40, Elapsed: time.Second, Latencies: lat(2)}),
		},
	}
	r.setRatios()
	r.countErrors()
	return r
}

func TestReportJSONShape(t *testing.T) {
	var buf bytes.Buffer
	if err := sampleReport().WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"version", "started_at", "machine", "database", "server", "concurrency", "duration_seconds",
		"request_cap", "warmup_seconds", "data", "baselines", "scenarios", "errors"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("no %q at the top level", k)
		}
	}
	scen := doc["scenarios"].([]any)
	if len(scen) != 3 {
		t.Fatalf("%d scenarios", len(scen))
	}
	first := scen[0].(map[string]any)
	for _, k := range []string{"name", "about", "available", "requests", "errors", "elapsed_seconds", "rps", "latency_ms",
		"server_cpu_seconds", "server_peak_rss_bytes", "server_cpu_ms_per_request", "db_cpu_ms_per_request", "vs_bare_http", "vs_db_insert"} {
		if _, ok := first[k]; !ok {
			t.Errorf("no %q in a scenario", k)
		}
	}
	if first["rps"].(float64) != 2 || first["server_cpu_seconds"].(float64) != 1.25 {
		t.Errorf("authcode = %v", first)
	}
	lat := first["latency_ms"].(map[string]any)
	if lat["p50"].(float64) != 2 || lat["p90"].(float64) != 40 || lat["p99"].(float64) != 40 || lat["max"].(float64) != 40 {
		t.Errorf("latency = %v", lat)
	}
	// 2 req/s against 100 and 40.
	if first["vs_bare_http"].(float64) != 0.02 || first["vs_db_insert"].(float64) != 0.05 {
		t.Errorf("ratios = %v, %v", first["vs_bare_http"], first["vs_db_insert"])
	}
	mcp := scen[1].(map[string]any)
	if mcp["available"] != false || mcp["note"] != "/mcp answers 404" || mcp["vs_bare_http"] != nil {
		t.Errorf("unavailable scenario = %v", mcp)
	}
	// Figures that were not measured are null, not zero, so that they are not read as zero.
	third := scen[2].(map[string]any)
	if v, ok := third["server_cpu_seconds"]; !ok || v != nil {
		t.Errorf("server_cpu_seconds without a child = %v (present %v), want null", v, ok)
	}
	base := doc["baselines"].([]any)
	if len(base) != 2 || base[0].(map[string]any)["name"] != baselineBareHTTP || base[1].(map[string]any)["name"] != baselineInsert {
		t.Errorf("baselines = %v", base)
	}
}

func TestReportSVGShape(t *testing.T) {
	var buf bytes.Buffer
	if err := sampleReport().WriteSVG(&buf); err != nil {
		t.Fatal(err)
	}
	// Well-formed XML with an svg root, and per available scenario one bar in each chart.
	var root string
	rects, texts := 0, []string{}
	inText := false
	for _, tok := range xmlTokens(t, &buf) {
		switch el := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = el.Name.Local
				if el.Name.Space != "http://www.w3.org/2000/svg" {
					t.Errorf("namespace %q", el.Name.Space)
				}
			}
			if el.Name.Local == "rect" {
				rects++
			}
			inText = el.Name.Local == "text"
		case xml.CharData:
			if inText {
				texts = append(texts, string(el))
			}
		case xml.EndElement:
			inText = false
		}
	}
	if root != "svg" {
		t.Fatalf("root element %q", root)
	}
	// The background, then two bars for each of the two available scenarios.
	if rects != 1+2*2 {
		t.Errorf("%d rects, want 5", rects)
	}
	all := strings.Join(texts, "\n")
	for _, want := range []string{"requests per second", "p99 latency (ms)", "authcode", "a<b&c", "bare-http 100 req/s", "db-insert 40 req/s"} {
		if !strings.Contains(all, want) {
			t.Errorf("no text %q in the chart:\n%s", want, all)
		}
	}
	if strings.Contains(all, "mcp-call") {
		t.Error("an unavailable scenario has a bar")
	}
}

func TestReportTable(t *testing.T) {
	var buf bytes.Buffer
	r := sampleReport()
	r.Scenarios[2].Errors, r.Scenarios[2].ErrorSamples = 1, []string{"graphql: status 500"}
	r.countErrors()
	if err := r.WriteTable(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"sqlite, child process server, concurrency 2, 5s per scenario",
		"authcode", "2.0", "1.25", "64.0", "0.020", "0.050",
		"mcp-call: not available (/mcp answers 404)",
		"a<b&c: 1 errors", "graphql: status 500",
		"bare-http", "100.0",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if r.Errors != 1 {
		t.Errorf("errors = %d", r.Errors)
	}
}

// xmlTokens reads every token of an XML document, failing the test if it is not well-formed.
func xmlTokens(t *testing.T, r io.Reader) []xml.Token {
	t.Helper()
	var toks []xml.Token
	dec := xml.NewDecoder(r)
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return toks
		}
		if err != nil {
			t.Fatalf("not well-formed: %v", err)
		}
		toks = append(toks, xml.CopyToken(tok))
	}
}
