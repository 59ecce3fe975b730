package bench

import (
	"fmt"
	"html"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// SoakReport is one soak: its settings, the peak it was paced from, every window and the
// verdict. Its JSON form (--json) keeps field names stable, as Report's does.
type SoakReport struct {
	RunInfo
	Data DataSize `json:"data"`

	WarmupSeconds   float64 `json:"warmup_seconds"`
	PeakSeconds     float64 `json:"peak_seconds"`
	DurationSeconds float64 `json:"duration_seconds"`
	WindowSeconds   float64 `json:"window_seconds"`
	// Load is the fraction of the peak rate the soak was paced at.
	Load      float64       `json:"load"`
	Lifetimes SoakLifetimes `json:"lifetimes"`
	Cycle     string        `json:"cycle"`
	Note      string        `json:"note,omitempty"`

	// Peak is the cycle run unpaced; TargetRPS the rate the soak was paced at, rounded to 0.1
	// (0 when the peak run failed and no soak was run); Soak the whole paced run.
	Peak      Measurement `json:"peak"`
	TargetRPS float64     `json:"target_rps"`
	Soak      Measurement `json:"soak"`
	// ScheduledRequests is how many requests the soak's schedule had room for: the target rate
	// over the duration (scheduleSlots). Soak.Requests reaches it when the machine kept up.
	ScheduledRequests int `json:"scheduled_requests"`
	// Mix is how many times each step of the cycle ran, warm-up and peak included.
	Mix     map[string]int `json:"mix"`
	Windows []SoakWindow   `json:"windows"`

	Criteria SoakCriteria `json:"criteria"`
	Verdict  Verdict      `json:"verdict"`
	// Errors counts failed requests over the warm-up, the peak run and the soak.
	Errors       int      `json:"errors"`
	ErrorSamples []string `json:"error_samples,omitempty"`
}

// SoakLifetimes are the soak school's credential lifetimes and the server's purge interval.
type SoakLifetimes struct {
	AccessToken       string `json:"access_token"`
	RefreshToken      string `json:"refresh_token"`
	AuthorizationCode string `json:"authorization_code"`
	PurgeInterval     string `json:"purge_interval"`
}

// SoakWindow is one window of a soak.
type SoakWindow struct {
	// EndSeconds is from the start of the soak to the end of this window; Seconds its length.
	EndSeconds float64 `json:"end_seconds"`
	Seconds    float64 `json:"seconds"`
	Requests   int     `json:"requests"`
	Errors     int     `json:"errors"`
	RPS        float64 `json:"rps"`
	P50MS      float64 `json:"p50_ms"`
	P99MS      float64 `json:"p99_ms"`
	// The server's resident memory at the end of the window (VmRSS) and its CPU time per
	// request during it; null for an in-process server.
	ServerRSSBytes        *int64   `json:"server_rss_bytes"`
	ServerCPUMSPerRequest *float64 `json:"server_cpu_ms_per_request"`
	// Rows is each soak table's row count at the end of the window; RowsError says why there
	// is none.
	Rows      map[string]int64 `json:"rows,omitempty"`
	RowsError string           `json:"rows_error,omitempty"`
}

// logLine is the progress line of a window.
func (w SoakWindow) logLine() string {
	var b strings.Builder
	fmt.Fprintf(&b, "soak %s: %.1f req/s, p50 %.2f ms, p99 %.2f ms, %d errors", secondsText(w.EndSeconds), w.RPS, w.P50MS, w.P99MS, w.Errors)
	if w.ServerRSSBytes != nil {
		fmt.Fprintf(&b, ", RSS %s MiB", optMiB(w.ServerRSSBytes))
	}
	if w.Rows != nil {
		for _, t := range soakTables {
			fmt.Fprintf(&b, ", %s %d", t.label, w.Rows[t.name])
		}
	}
	if w.RowsError != "" {
		b.WriteString(", " + w.RowsError)
	}
	return b.String()
}

// WriteJSON writes the report as indented JSON.
func (r *SoakReport) WriteJSON(w io.Writer) error { return writeJSON(w, r) }

// WriteTable writes the report for a terminal: the settings, the peak and the soak, a row per
// window, the mix, the verdict with each check, and the error samples.
func (r *SoakReport) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "proctor bench --soak %s: %s, %s server, concurrency %d, %s soak in %s windows\n",
		r.Version, r.Database, r.Server, r.Concurrency, seconds(r.DurationSeconds), seconds(r.WindowSeconds))
	fmt.Fprintln(w, r.Machine.line())
	l := r.Lifetimes
	fmt.Fprintf(w, "lifetimes: access token %s, refresh token %s, authorization code %s; the server purges expired rows every %s\n",
		l.AccessToken, l.RefreshToken, l.AuthorizationCode, l.PurgeInterval)
	fmt.Fprintf(w, "cycle: %s", r.Cycle)
	if r.Note != "" {
		fmt.Fprintf(w, "; %s", r.Note)
	}
	fmt.Fprintln(w)
	phase := func(label string, m Measurement) {
		fmt.Fprintf(w, "%s: %.1f req/s, p50 %.2f ms, p99 %.2f ms, %d requests, %d errors", label, m.RPS, m.LatencyMS.P50, m.LatencyMS.P99, m.Requests, m.Errors)
		if m.ServerCPUPerRequestMS != nil {
			fmt.Fprintf(w, "; server %s ms CPU per request, peak RSS %s MiB", optFloat(m.ServerCPUPerRequestMS, 3), optMiB(m.ServerPeakRSSBytes))
		}
		fmt.Fprintln(w)
	}
	phase(fmt.Sprintf("peak (unpaced, %s)", seconds(r.PeakSeconds)), r.Peak)
	if r.TargetRPS > 0 {
		phase(fmt.Sprintf("soak (paced at %.0f%% of the peak: %.1f req/s, room for %d requests)", r.Load*100, r.TargetRPS, r.ScheduledRequests), r.Soak)
	} else {
		fmt.Fprintln(w, "soak: not run, the peak run failed")
	}

	if len(r.Windows) > 0 {
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
		head := "t\treq/s\tp50 ms\tp99 ms\terrors\trequests\tCPU ms/req\tRSS MiB\t"
		for _, t := range soakTables {
			head += t.label + "\t"
		}
		fmt.Fprintln(tw, head)
		partial := false
		for _, win := range r.Windows {
			t := secondsText(win.EndSeconds)
			if win.Seconds < r.WindowSeconds/2 {
				t, partial = t+" *", true
			}
			fmt.Fprintf(tw, "%s\t%.1f\t%.2f\t%.2f\t%d\t%d\t%s\t%s\t", t, win.RPS, win.P50MS, win.P99MS,
				win.Errors, win.Requests, optFloat(win.ServerCPUMSPerRequest, 3), optMiB(win.ServerRSSBytes))
			for _, t := range soakTables {
				if n, ok := win.Rows[t.name]; ok {
					fmt.Fprintf(tw, "%d\t", n)
				} else {
					fmt.Fprint(tw, "-\t")
				}
			}
			fmt.Fprintln(tw)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		labels := make([]string, len(soakTables))
		for i, t := range soakTables {
			labels[i] = t.label + " = " + t.name
		}
		fmt.Fprintf(w, "rows at the end of each window: %s\n", strings.Join(labels, ", "))
		if partial {
			fmt.Fprintln(w, "* cut short by the end of the run (requests in flight finishing): shown, not judged")
		}
	}
	if len(r.Mix) > 0 {
		var mix []string
		for _, name := range soakStepNames {
			if n, ok := r.Mix[name]; ok {
				mix = append(mix, fmt.Sprintf("%s %d", name, n))
			}
		}
		fmt.Fprintf(w, "steps run: %s\n", strings.Join(mix, ", "))
	}

	fmt.Fprintf(w, "\nverdict: %s\n", r.Verdict.word())
	for _, c := range r.Verdict.Checks {
		fmt.Fprintf(w, "  %-10s  %s: %s\n", c.Result, c.Name, c.Detail)
	}
	if r.Errors > 0 {
		fmt.Fprintf(w, "\n%d errors\n", r.Errors)
		for _, s := range slices.Compact(slices.Clone(r.ErrorSamples)) {
			fmt.Fprintf(w, "  %s\n", s)
		}
	}
	return nil
}

// WriteSVG draws the windows over time in four panels sharing the time axis: requests per
// second (with the target), p99 latency, the server's resident memory, and the row count of
// each table. Plain SVG 1.1, as Report.WriteSVG.
func (r *SoakReport) WriteSVG(w io.Writer) error {
	const (
		left   = 70.0
		plotW  = 620.0
		top    = 50.0
		panelH = 110.0
		gap    = 40.0
	)
	type series struct {
		label, color string
		values       []float64 // NaN: no value in that window
	}
	xs := make([]float64, len(r.Windows))
	maxT := 0.0
	for i, win := range r.Windows {
		xs[i] = win.EndSeconds
		maxT = math.Max(maxT, win.EndSeconds)
	}
	values := func(f func(SoakWindow) (float64, bool)) []float64 {
		out := make([]float64, len(r.Windows))
		for i, win := range r.Windows {
			if v, ok := f(win); ok {
				out[i] = v
			} else {
				out[i] = math.NaN()
			}
		}
		return out
	}
	palette := []string{"#3b6ea5", "#c0504d", "#9bbb59", "#8064a2", "#f79646"}
	var rows []series
	for i, t := range soakTables {
		rows = append(rows, series{label: t.label, color: palette[i%len(palette)], values: values(func(win SoakWindow) (float64, bool) {
			n, ok := win.Rows[t.name]
			return float64(n), ok
		})})
	}
	panels := []struct {
		title  string
		series []series
		line   float64 // a horizontal reference (the target rate); 0 for none
	}{
		{"requests per second (dashed: target)", []series{{"req/s", "#3b6ea5", values(func(win SoakWindow) (float64, bool) { return win.RPS, true })}}, r.TargetRPS},
		{"p99 latency (ms)", []series{{"p99", "#c0504d", values(SoakWindow.p99)}}, 0},
		{"server resident memory (MiB)", []series{{"RSS", "#9bbb59", values(func(win SoakWindow) (float64, bool) {
			b, ok := win.rssBytes()
			return b / (1 << 20), ok
		})}}, 0},
		{"rows", rows, 0},
	}
	width := left + plotW + 110
	height := top + float64(len(panels))*(panelH+gap) + 10

	svg := newSVG(w, width, height,
		fmt.Sprintf("proctor bench --soak %s: %s, concurrency %d, %s at %.1f req/s (%.0f%% of peak): %s",
			r.Version, r.Database, r.Concurrency, seconds(r.DurationSeconds), r.TargetRPS, r.Load*100, r.Verdict.word()),
		fmt.Sprintf("%d CPUs, %s, %s; seconds into the soak on the x axis",
			r.Machine.CPUs, r.Machine.GoVersion, r.StartedAt.UTC().Format("2006-01-02 15:04 MST")))
	p, esc := svg.p, html.EscapeString
	xAt := func(t float64) float64 {
		if maxT <= 0 {
			return left
		}
		return left + t/maxT*plotW
	}
	for i, pan := range panels {
		y0 := top + float64(i)*(panelH+gap) + 16
		maxV := pan.line
		for _, s := range pan.series {
			for _, v := range s.values {
				if !math.IsNaN(v) {
					maxV = math.Max(maxV, v)
				}
			}
		}
		if maxV <= 0 {
			maxV = 1
		}
		maxV *= 1.1
		yAt := func(v float64) float64 { return y0 + panelH - v/maxV*panelH }
		p(`<text x="%.0f" y="%.0f" font-weight="bold">%s</text>`+"\n", left, y0-6, esc(pan.title))
		p(`<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="#999999"/>`+"\n", left, y0, left, y0+panelH)
		p(`<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="#999999"/>`+"\n", left, y0+panelH, left+plotW, y0+panelH)
		p(`<text x="%.0f" y="%.1f" text-anchor="end">%s</text>`+"\n", left-6, y0+10, strconv.FormatFloat(maxV, 'f', 0, 64))
		p(`<text x="%.0f" y="%.1f" text-anchor="end">0</text>`+"\n", left-6, y0+panelH)
		p(`<text x="%.0f" y="%.1f" text-anchor="end">%s</text>`+"\n", left+plotW, y0+panelH+14, esc(secondsText(maxT)))
		if pan.line > 0 {
			p(`<line x1="%.0f" y1="%.1f" x2="%.0f" y2="%.1f" stroke="#555555" stroke-dasharray="4 3"/>`+"\n", left, yAt(pan.line), left+plotW, yAt(pan.line))
		}
		for j, s := range pan.series {
			var pts []string
			for k, v := range s.values {
				if !math.IsNaN(v) {
					pts = append(pts, fmt.Sprintf("%.1f,%.1f", xAt(xs[k]), yAt(v)))
				}
			}
			if len(pts) > 0 {
				p(`<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>`+"\n", s.color, strings.Join(pts, " "))
			}
			if len(pan.series) > 1 {
				p(`<text x="%.0f" y="%.1f" fill="%s">%s</text>`+"\n", left+plotW+10, y0+12+float64(j)*14, s.color, esc(s.label))
			}
		}
	}
	return svg.end()
}
