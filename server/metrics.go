package server

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/proctorhq/proctor/audit"
)

// metrics are the server's Prometheus collectors, on a registry of its own (no global state:
// two servers in one test process do not collide).
type metrics struct {
	registry *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	// securityEvents counts the security event log's entries (audit.Recorder's counter).
	securityEvents *prometheus.CounterVec
	// app are the authorization and resource servers' own counters (metrics_app.go).
	app *appMetrics
}

// statementCounter is a store that counts the SQL statements it sends (gormstore does).
type statementCounter interface{ Statements() int64 }

// newMetrics registers the collectors; store's statement count too when it keeps one.
func newMetrics(reg *prometheus.Registry, store any) *metrics {
	m := &metrics{
		registry: reg,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "proctor_http_requests_total",
			Help: "HTTP requests by listener, route template, method and status.",
		}, []string{"listener", "route", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "proctor_http_request_duration_seconds",
			Help:    "HTTP request latency by listener and route template.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}, []string{"listener", "route"}),
		securityEvents: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "proctor_security_events_total",
			Help: "Security events recorded, by school id, kind and result.",
		}, []string{"school", "kind", "result"}),
		app: newAppMetrics(),
	}
	reg.MustRegister(m.requests, m.latency, m.securityEvents, newBuildInfo(CurrentBuild()),
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.app.register(reg, store)
	if sc, ok := store.(statementCounter); ok {
		reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "proctor_db_statements_total",
			Help: "SQL statements sent to the database (not BEGIN and COMMIT).",
		}, func() float64 { return float64(sc.Statements()) }))
	}
	return m
}

func (m *metrics) observe(listener, route, method string, status int, d time.Duration) {
	m.requests.WithLabelValues(listener, route, method, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(listener, route).Observe(d.Seconds())
}

// securityEvent counts one recorded security event (audit.WithCounter). The school is its id:
// stable when a school's subdomain changes, and bounded by the schools the server serves.
func (m *metrics) securityEvent(schoolID int64, k audit.Kind, res audit.Result) {
	m.securityEvents.WithLabelValues(strconv.FormatInt(schoolID, 10), string(k), string(res)).Inc()
	m.app.securityEvent(schoolID, k, res)
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}
