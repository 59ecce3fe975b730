package server

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are the server's Prometheus collectors, on a registry of its own (no global state:
// two servers in one test process do not collide).
type metrics struct {
	registry *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
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
	}
	reg.MustRegister(m.requests, m.latency,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
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

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}
