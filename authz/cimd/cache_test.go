package cimd

import (
	"net/http"
	"testing"
	"time"
)

func TestFreshness(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for name, tc := range map[string]struct {
		header map[string]string
		want   time.Duration
		known  bool
	}{
		"nothing":                   {nil, 0, false},
		"max-age":                   {map[string]string{"Cache-Control": "max-age=300"}, 5 * time.Minute, true},
		"quoted max-age":            {map[string]string{"Cache-Control": `max-age="300"`}, 5 * time.Minute, true},
		"max-age minus Age":         {map[string]string{"Cache-Control": "max-age=300", "Age": "100"}, 200 * time.Second, true},
		"Age beyond max-age":        {map[string]string{"Cache-Control": "max-age=300", "Age": "900"}, 0, true},
		"no-store":                  {map[string]string{"Cache-Control": "max-age=300, no-store"}, 0, true},
		"no-cache":                  {map[string]string{"Cache-Control": "No-Cache"}, 0, true},
		"invalid max-age":           {map[string]string{"Cache-Control": "max-age=soon"}, 0, true},
		"max-age wins over Expires": {map[string]string{"Cache-Control": "max-age=60", "Expires": "Sun, 01 Mar 2026 13:00:00 GMT"}, time.Minute, true},
		"Expires against Date": {map[string]string{"Expires": "Sun, 01 Mar 2026 10:30:00 GMT", "Date": "Sun, 01 Mar 2026 10:00:00 GMT"},
			30 * time.Minute, true},
		"Expires against now": {map[string]string{"Expires": "Sun, 01 Mar 2026 12:30:00 GMT"}, 30 * time.Minute, true},
		"Expires in the past": {map[string]string{"Expires": "Sun, 01 Mar 2026 11:00:00 GMT"}, 0, true},
		"invalid Expires":     {map[string]string{"Expires": "0"}, 0, true},
		"huge max-age":        {map[string]string{"Cache-Control": "max-age=99999999999999"}, 365 * 24 * time.Hour, true},
		"other directives":    {map[string]string{"Cache-Control": "public, must-revalidate"}, 0, false},
	} {
		h := http.Header{}
		for k, v := range tc.header {
			h.Set(k, v)
		}
		got, known := freshness(h, now)
		if got != tc.want || known != tc.known {
			t.Errorf("%s: freshness = %v, %v; want %v, %v", name, got, known, tc.want, tc.known)
		}
	}
}

func TestEntryTTL(t *testing.T) {
	for _, tc := range []struct {
		e      entry
		lo, hi time.Duration
		want   time.Duration
	}{
		{entry{}, time.Minute, time.Hour, time.Minute},
		{entry{lifetime: 10 * time.Minute, known: true}, time.Minute, time.Hour, 10 * time.Minute},
		{entry{lifetime: 0, known: true}, time.Minute, time.Hour, time.Minute},
		{entry{lifetime: 48 * time.Hour, known: true}, time.Minute, time.Hour, time.Hour},
		{entry{lifetime: time.Hour, known: true}, 0, 0, 0},
	} {
		if got := tc.e.ttl(tc.lo, tc.hi); got != tc.want {
			t.Errorf("ttl(%+v, %v, %v) = %v, want %v", tc.e, tc.lo, tc.hi, got, tc.want)
		}
	}
}
