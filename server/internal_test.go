package server

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/config"
)

// The profiles are behind the internal API key, and absent when none is configured.
func TestPprofNeedsTheInternalAPIKey(t *testing.T) {
	const key = "0123456789abcdef0123456789abcdef-internal"
	get := func(t *testing.T, f *fixture, path, bearer string) (int, string) {
		t.Helper()
		var header http.Header
		if bearer != "" {
			header = http.Header{"Authorization": {"Bearer " + bearer}}
		}
		return f.internalGet(t, path, header)
	}

	f := newFixture(t, func(c *config.Server) { c.Internal.APIKey = config.Secret(key) })
	if code, _ := get(t, f, "/debug/pprof/heap?debug=1", ""); code != http.StatusUnauthorized {
		t.Errorf("no key: status %d, want 401", code)
	}
	if code, _ := get(t, f, "/debug/pprof/heap?debug=1", key+"x"); code != http.StatusUnauthorized {
		t.Errorf("wrong key: status %d, want 401", code)
	}
	code, body := get(t, f, "/debug/pprof/heap?debug=1", key)
	if code != http.StatusOK || !strings.Contains(body, "heap profile") {
		t.Errorf("with the key: status %d, body starts %.60q", code, body)
	}
	if code, body := get(t, f, "/debug/pprof/", key); code != http.StatusOK || !strings.Contains(body, "goroutine") {
		t.Errorf("index: status %d, body starts %.60q", code, body)
	}

	off := newFixture(t, nil)
	if code, _ := get(t, off, "/debug/pprof/heap?debug=1", key); code != http.StatusNotFound {
		t.Errorf("without internal.api_key: status %d, want 404", code)
	}
}

// The store's statement count is exported, and moves when the store is used.
func TestMetricsCountStatements(t *testing.T) {
	f := newFixture(t, nil)
	read := func() float64 {
		t.Helper()
		_, body := f.internalGet(t, "/metrics", nil)
		for line := range strings.Lines(body) {
			if v, ok := strings.CutPrefix(line, "proctor_db_statements_total "); ok {
				n, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
				if err != nil {
					t.Fatal(err)
				}
				return n
			}
		}
		t.Fatalf("no proctor_db_statements_total in /metrics")
		return 0
	}
	before := read()
	if err := f.store.SyncSchool(t.Context(), f.a.SchoolID, f.a.Subdomain, f.a.Name); err != nil {
		t.Fatal(err)
	}
	if after := read(); after <= before {
		t.Errorf("statements %v then %v: a store call was not counted", before, after)
	}
}
