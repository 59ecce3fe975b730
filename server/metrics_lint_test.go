package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"

	"github.com/proctorhq/proctor/server/servertest"
)

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
