package bench

import (
	"fmt"
	"slices"
	"time"
)

// The verdict compares the last third of a soak's windows with the middle third. The first
// third is the run settling (connections, caches, the heap growing to its working size, the
// tables filling up to the purge job's first pass) and is not judged; a server that holds
// steady looks the same in the two later thirds, one that leaks drifts between them. Only full
// windows count: the last window, cut short when the run ends, is shown but left out when it
// is shorter than half a window.

// SoakCriteria are the limits of the verdict. The defaults (DefaultSoakCriteria) are chosen
// to catch a drift that would matter over hours while letting through the noise of a shared
// two-core machine; docs/benchmarks.md gives the reasoning.
type SoakCriteria struct {
	// MinRate: the middle and last thirds each kept at least this fraction of the target
	// rate. A server that slows down makes the paced workers fall behind.
	MinRate float64 `json:"min_rate"`
	// RSS: the median resident memory of the last third is at most the middle third's plus
	// RSSGrowth of it or RSSSlackBytes, whichever is larger.
	RSSGrowth     float64 `json:"rss_growth"`
	RSSSlackBytes int64   `json:"rss_slack_bytes"`
	// p99: the median of the last third's window p99s is at most P99Factor times the middle
	// third's, or the middle third's plus P99SlackMS, whichever is larger.
	P99Factor  float64 `json:"p99_factor"`
	P99SlackMS float64 `json:"p99_slack_ms"`
	// Tables: each table's largest count in the last third is at most its largest in the
	// middle third plus TableGrowth of it or TableSlackRows, whichever is larger. A table
	// that nothing purges grows in proportion to time, and its largest count in the last
	// third is then half as large again as in the middle third.
	TableGrowth    float64 `json:"table_growth"`
	TableSlackRows int64   `json:"table_slack_rows"`
	// TableSettleSeconds: the tables are judged only when the middle third ends at least this
	// long after the soak began. Until the purge job has deleted the first expired rows of the
	// longest-lived kind, every table grows, purged or not.
	TableSettleSeconds float64 `json:"table_settle_seconds"`
}

// DefaultSoakCriteria are the verdict's limits for a soak reported every window. A table
// settles within the longest lifetime of its rows plus one purge interval (the expired rows
// wait for the next pass) plus a window (the count is read at the end of one).
func DefaultSoakCriteria(window time.Duration) SoakCriteria {
	return SoakCriteria{
		MinRate:   0.9,
		RSSGrowth: 0.10, RSSSlackBytes: 8 << 20,
		P99Factor: 1.5, P99SlackMS: 5,
		TableGrowth: 0.25, TableSlackRows: 50,
		TableSettleSeconds: (soakRefreshLifetime + serverPurgeEvery + window).Seconds(),
	}
}

// Verdict is a soak's outcome: it passes when no check fails.
type Verdict struct {
	Pass   bool    `json:"pass"`
	Checks []Check `json:"checks"`
}

// word is the verdict as the table and the chart show it: PASS or FAIL.
func (v Verdict) word() string {
	if v.Pass {
		return "PASS"
	}
	return "FAIL"
}

// Check is one criterion's outcome.
type Check struct {
	Name   string `json:"name"`
	Result string `json:"result"` // checkPass, checkFail or checkNotJudged
	Detail string `json:"detail"`
}

// Results of a Check. A check is not judged when its figures do not exist (no memory figures
// for an in-process server) or cannot mean anything yet (tables before the purge has run); it
// does not fail the verdict, and says why.
const (
	checkPass      = "pass"
	checkFail      = "fail"
	checkNotJudged = "not judged"
)

// judgeSoak applies c to a soak's windows (window long each, the run paced at target requests a
// second, with errs failed requests over its warm-up, peak and soak).
func judgeSoak(windows []SoakWindow, window time.Duration, target float64, errs int, c SoakCriteria) Verdict {
	var v Verdict
	add := func(name string, ok bool, format string, args ...any) {
		res := checkPass
		if !ok {
			res = checkFail
		}
		v.Checks = append(v.Checks, Check{Name: name, Result: res, Detail: fmt.Sprintf(format, args...)})
	}
	skip := func(name, format string, args ...any) {
		v.Checks = append(v.Checks, Check{Name: name, Result: checkNotJudged, Detail: fmt.Sprintf(format, args...)})
	}

	if errs == 0 {
		add("errors", true, "no request failed")
	} else {
		add("errors", false, "%d requests failed", errs)
	}

	var full []SoakWindow
	for _, w := range windows {
		if w.Seconds >= window.Seconds()/2 {
			full = append(full, w)
		}
	}
	n := len(full)
	drift := []string{"rate", "rss", "p99"}
	for _, t := range soakTables {
		drift = append(drift, "rows "+t.name)
	}
	if n < minSoakWindows {
		add("windows", false, "%d full windows; judging drift needs at least %d", n, minSoakWindows)
		for _, name := range drift {
			skip(name, "too few windows")
		}
		return v.settle()
	}
	mid, last := full[n/3:2*n/3], full[2*n/3:]
	add("windows", true, "%d full windows: the middle third is %s to %s, the last %s to %s", n,
		secondsText(mid[0].EndSeconds-mid[0].Seconds), secondsText(mid[len(mid)-1].EndSeconds),
		secondsText(last[0].EndSeconds-last[0].Seconds), secondsText(last[len(last)-1].EndSeconds))

	// Rate.
	if target <= 0 {
		skip("rate", "no target rate")
	} else {
		rm, rl := meanRate(mid), meanRate(last)
		floor := c.MinRate * target
		add("rate", rm >= floor && rl >= floor, "middle third %.1f req/s, last %.1f; at least %.1f (%.0f%% of the %.1f target) wanted",
			rm, rl, floor, c.MinRate*100, target)
	}

	// Memory.
	if rm, rl := figures(mid, SoakWindow.rssBytes), figures(last, SoakWindow.rssBytes); len(rm) == 0 || len(rl) == 0 {
		skip("rss", "no server memory figures (the server shares this process)")
	} else {
		m, l := median(rm), median(rl)
		limit := m + max(c.RSSGrowth*m, float64(c.RSSSlackBytes))
		add("rss", l <= limit, "median of the last third %.1f MiB, of the middle third %.1f MiB; at most %.1f MiB allowed",
			l/(1<<20), m/(1<<20), limit/(1<<20))
	}

	// Latency.
	if pm, pl := figures(mid, SoakWindow.p99), figures(last, SoakWindow.p99); len(pm) == 0 || len(pl) == 0 {
		skip("p99", "no requests finished in a third")
	} else {
		m, l := median(pm), median(pl)
		limit := max(c.P99Factor*m, m+c.P99SlackMS)
		add("p99", l <= limit, "median window p99 of the last third %.2f ms, of the middle third %.2f ms; at most %.2f ms allowed", l, m, limit)
	}

	// Tables.
	midEnd := mid[len(mid)-1].EndSeconds
	for _, t := range soakTables {
		name := "rows " + t.name
		if midEnd < c.TableSettleSeconds {
			skip(name, "the middle third ends %s into the soak, before the purge job can have deleted the longest-lived rows (%s)",
				secondsText(midEnd), secondsText(c.TableSettleSeconds))
			continue
		}
		mMax, okM := maxRows(mid, t.name)
		lMax, okL := maxRows(last, t.name)
		if !okM || !okL {
			skip(name, "the rows could not be counted")
			continue
		}
		limit := mMax + max(int64(c.TableGrowth*float64(mMax)), c.TableSlackRows)
		add(name, lMax <= limit, "largest count in the last third %d, in the middle third %d; at most %d allowed; the count fell in %d windows",
			lMax, mMax, limit, falls(windows, t.name))
	}
	return v.settle()
}

// settle sets Pass: no check failed.
func (v Verdict) settle() Verdict {
	v.Pass = !slices.ContainsFunc(v.Checks, func(c Check) bool { return c.Result == checkFail })
	return v
}

// rssBytes is the server's resident memory at the end of the window; ok is false when it was
// not measured (an in-process server).
func (w SoakWindow) rssBytes() (bytes float64, ok bool) {
	if w.ServerRSSBytes == nil {
		return 0, false
	}
	return float64(*w.ServerRSSBytes), true
}

// p99 is the window's p99 latency in milliseconds; ok is false when no request finished in it.
func (w SoakWindow) p99() (ms float64, ok bool) { return w.P99MS, w.Requests > 0 }

// figures is what figure gives for every window that has one, in order.
func figures(ws []SoakWindow, figure func(SoakWindow) (float64, bool)) []float64 {
	var out []float64
	for _, w := range ws {
		if v, ok := figure(w); ok {
			out = append(out, v)
		}
	}
	return out
}

// meanRate is requests over seconds across windows.
func meanRate(ws []SoakWindow) float64 {
	req, secs := 0, 0.0
	for _, w := range ws {
		req += w.Requests
		secs += w.Seconds
	}
	if secs <= 0 {
		return 0
	}
	return float64(req) / secs
}

// median of values (the lower middle one for an even count, a value that was measured).
func median(values []float64) float64 {
	s := slices.Clone(values)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

// maxRows is the largest count of table over the windows that have one.
func maxRows(ws []SoakWindow, table string) (int64, bool) {
	var out int64
	found := false
	for _, w := range ws {
		if n, ok := w.Rows[table]; ok {
			out, found = max(out, n), true
		}
	}
	return out, found
}

// falls counts the windows at whose end table had fewer rows than at the end of the one
// before: the purge job at work (or, for login sessions, sessions ended).
func falls(ws []SoakWindow, table string) int {
	n := 0
	prev, havePrev := int64(0), false
	for _, w := range ws {
		c, ok := w.Rows[table]
		if !ok {
			continue
		}
		if havePrev && c < prev {
			n++
		}
		prev, havePrev = c, true
	}
	return n
}

func secondsText(s float64) string {
	return time.Duration(s * float64(time.Second)).Round(100 * time.Millisecond).String()
}
