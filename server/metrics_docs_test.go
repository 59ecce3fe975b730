package server_test

import (
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"

	"github.com/proctorhq/proctor/server/servertest"
)

// documentedMetric is a metric name in backticks in docs/metrics.md: Proctor's own and the
// connection pool's.
var documentedMetric = regexp.MustCompile("`((?:proctor|go_sql)_[a-z0-9_]+)`")

// checkMetricsDoc fails t for every metric of Proctor's own (proctor_*) or of the connection
// pool (go_sql_*) among the names exposed that the page at path does not name, and for every
// such name the page gives that the server does not expose.
func checkMetricsDoc(t *testing.T, path string, exposed map[string]bool) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for _, m := range documentedMetric.FindAllStringSubmatch(string(raw), -1) {
		documented[m[1]] = true
	}
	served := map[string]bool{}
	for name := range exposed {
		if base := histogramBase(name); strings.HasPrefix(base, "proctor_") || strings.HasPrefix(base, "go_sql_") {
			served[base] = true
		}
	}
	if len(served) == 0 {
		t.Fatal("the server exposes no proctor_ or go_sql_ metric")
	}
	for name := range served {
		if !documented[name] {
			t.Errorf("%s does not document %s", path, name)
		}
	}
	for name := range documented {
		if !served[name] {
			t.Errorf("%s documents %s, which the server does not expose", path, name)
		}
	}
}

// TestMetricNamesFollowConventions lints /metrics, after traffic that gives every labelled
// series a value, with Prometheus's own linter: counters end in _total, units are base units
// (seconds, bytes) named in full, no metric name repeats a reserved suffix, and every metric has
// help text.
func TestMetricNamesFollowConventions(t *testing.T) {
	e := servertest.New(t, servertest.Options{})
	metricsTraffic(t, e)
	r := e.Send(http.MethodGet, e.InternalURL+"/metrics", nil)
	if r.Status != http.StatusOK {
		t.Fatalf("/metrics: %d", r.Status)
	}
	problems, err := promlint.New(strings.NewReader(r.Body)).Lint()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("%s: %s", p.Metric, p.Text)
	}
}
