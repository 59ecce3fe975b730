package admin

import (
	"net/url"
	"testing"

	"github.com/proctorhq/proctor/audit"
)

// FuzzEventQuery feeds the events page's query reader any query: it never panics, and what it
// accepts is a filter the store can run (a known kind, a positive id, a bounded page, dates in
// order).
func FuzzEventQuery(f *testing.F) {
	for _, q := range []string{
		"", "member=ann%40example.com&kind=sign_in&since=2026-01-01&until=2026-01-31&before=40",
		"member=12", "member=-1", "member=%00", "kind=nonsense", "since=2026-13-01", "before=9223372036854775807",
		"since=2026-02-01&until=2026-01-01", "member=+1", "member=%20ann%40EXAMPLE.com%20",
	} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		eq, problem := readEventQuery(q)
		if problem != filterOK {
			return
		}
		fl := eq.filter
		if fl.Limit != eventsPageSize || eq.memberID < 0 || fl.BeforeID < 0 || (eq.memberID != 0 && eq.email != "") {
			t.Fatalf("query %q read as %+v", raw, eq)
		}
		for _, k := range fl.Kinds {
			if !audit.KnownKind(k) {
				t.Fatalf("query %q: unknown kind %q accepted", raw, k)
			}
		}
		if !fl.Since.IsZero() && !fl.Until.IsZero() && !fl.Since.Before(fl.Until) {
			t.Fatalf("query %q: dates out of order accepted", raw)
		}
	})
}
