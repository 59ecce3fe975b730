package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// Report is one run: its settings, the machine, the baselines and every scenario. Its JSON form
// (--json) is what a later run is compared with, so field names are stable.
type Report struct {
	RunInfo
	// DurationSeconds is the bound of each scenario's timed run; RequestCap its request cap (0:
	// none).
	DurationSeconds float64  `json:"duration_seconds"`
	RequestCap      int      `json:"request_cap"`
	WarmupSeconds   float64  `json:"warmup_seconds"`
	Data            DataSize `json:"data"`

	Baselines []Measurement `json:"baselines"`
	Scenarios []Measurement `json:"scenarios"`
	// Errors counts failed requests over every scenario and baseline; any makes the run fail.
	Errors int `json:"errors"`
}

// RunInfo is what a report and a soak report both say first of their run: the build, when and
// how it was started, the machine, the database, the server and the workers. Embedded, its
// fields stand in the report's JSON form as the report's own.
type RunInfo struct {
	Version     string    `json:"version"`
	StartedAt   time.Time `json:"started_at"`
	Command     string    `json:"command,omitempty"`
	Machine     Machine   `json:"machine"`
	Database    string    `json:"database"`
	Server      string    `json:"server"` // "child process" or "in-process"
	Concurrency int       `json:"concurrency"`
}

// runInfo describes a run of o starting now, on this machine.
func runInfo(o Options) RunInfo {
	return RunInfo{
		Version: o.Version, StartedAt: time.Now().UTC(), Command: o.Command, Machine: describeMachine(),
		Database: o.Database, Server: serverKind(o), Concurrency: o.Concurrency,
	}
}

// Machine describes where the run happened.
type Machine struct {
	CPUs        int    `json:"cpus"`
	CPUModel    string `json:"cpu_model,omitempty"`
	MemoryBytes int64  `json:"memory_bytes,omitempty"`
	OS          string `json:"os"`
	Arch        string `json:"arch"`
	GoVersion   string `json:"go_version"`
	// LoadBefore and LoadAfter are /proc/loadavg's 1, 5 and 15-minute averages: a load well
	// above zero before the run means something else was using the machine.
	LoadBefore string `json:"load_before,omitempty"`
	LoadAfter  string `json:"load_after,omitempty"`
}

// line is the machine as the reports' tables show it.
func (m Machine) line() string {
	return fmt.Sprintf("machine: %d CPUs %s, %s/%s, %s; load before %s, after %s",
		m.CPUs, m.CPUModel, m.OS, m.Arch, m.GoVersion, dash(m.LoadBefore), dash(m.LoadAfter))
}

// Measurement is one scenario's or baseline's figures.
type Measurement struct {
	Name      string `json:"name"`
	About     string `json:"about"`
	Available bool   `json:"available"`
	Note      string `json:"note,omitempty"`

	Requests       int     `json:"requests"`
	Errors         int     `json:"errors"`
	ElapsedSeconds float64 `json:"elapsed_seconds"`
	RPS            float64 `json:"rps"`
	LatencyMS      Latency `json:"latency_ms"`
	// EndedEarly: the run stopped because its minted inputs ran out, before its bounds.
	EndedEarly bool `json:"ended_early,omitempty"`

	// The server's CPU time and peak resident memory during the timed run; null when the
	// server is not a child process.
	ServerCPUSeconds   *float64 `json:"server_cpu_seconds"`
	ServerPeakRSSBytes *int64   `json:"server_peak_rss_bytes"`
	// ServerCPUPerRequestMS is the server's CPU time per request: less sensitive than the rate
	// to what else the machine is doing.
	ServerCPUPerRequestMS *float64 `json:"server_cpu_ms_per_request"`
	// DBCPUPerRequestMS is PostgreSQL's CPU time per request, of the backends serving the
	// server (dbBackends); null on SQLite, which runs inside the server.
	DBCPUPerRequestMS *float64 `json:"db_cpu_ms_per_request"`
	// StatementsPerRequest is the SQL statements the server sent per request during the timed
	// run (its proctor_db_statements_total metric); null for the baselines.
	StatementsPerRequest *float64 `json:"sql_statements_per_request"`

	// Requests per second as a fraction of the baselines'; null for the baselines themselves.
	VsBareHTTP *float64 `json:"vs_bare_http"`
	VsDBInsert *float64 `json:"vs_db_insert"`

	ErrorSamples []string `json:"error_samples,omitempty"`
}

// Latency percentiles in milliseconds.
type Latency struct {
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// measurement turns a Result into report figures.
func measurement(name, about string, r Result) Measurement {
	ms := func(d time.Duration) float64 { return round(float64(d)/float64(time.Millisecond), 3) }
	m := Measurement{
		Name: name, About: about, Available: true,
		Requests: r.Requests, Errors: r.Errors, ElapsedSeconds: round(r.Elapsed.Seconds(), 3), RPS: round(r.RPS(), 1),
		LatencyMS:  Latency{P50: ms(r.Percentile(50)), P90: ms(r.Percentile(90)), P99: ms(r.Percentile(99)), Max: ms(r.Percentile(100))},
		EndedEarly: r.Exhausted, ErrorSamples: r.ErrorSamples,
	}
	return m
}

func round(v float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(v*p) / p
}

// setRatios fills every available scenario's ratios to the baselines.
func (r *Report) setRatios() {
	base := map[string]float64{}
	for _, b := range r.Baselines {
		if b.Available && b.RPS > 0 {
			base[b.Name] = b.RPS
		}
	}
	ratio := func(rps float64, name string) *float64 {
		b, ok := base[name]
		if !ok {
			return nil
		}
		v := round(rps/b, 4)
		return &v
	}
	for i := range r.Scenarios {
		s := &r.Scenarios[i]
		if s.Available {
			s.VsBareHTTP, s.VsDBInsert = ratio(s.RPS, baselineBareHTTP), ratio(s.RPS, baselineInsert)
		}
	}
}

func (r *Report) countErrors() {
	r.Errors = 0
	for _, list := range [][]Measurement{r.Baselines, r.Scenarios} {
		for _, m := range list {
			r.Errors += m.Errors
		}
	}
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error { return writeJSON(w, r) }

// writeJSON writes v as indented JSON, as both reports are written.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// WriteTable writes the report for a terminal: one row per scenario and baseline, then the
// error samples of any that failed.
func (r *Report) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "proctor bench %s: %s, %s server, concurrency %d, %s per scenario",
		r.Version, r.Database, r.Server, r.Concurrency, seconds(r.DurationSeconds))
	if r.RequestCap > 0 {
		fmt.Fprintf(w, " or %d requests", r.RequestCap)
	}
	fmt.Fprintf(w, ", warm-up %s\n", seconds(r.WarmupSeconds))
	fmt.Fprintf(w, "%s\n\n", r.Machine.line())

	// Numbers align right; names are padded to one width so that they read left-aligned.
	nameW := len("scenario")
	for _, list := range [][]Measurement{r.Scenarios, r.Baselines} {
		for _, m := range list {
			nameW = max(nameW, len(m.Name))
		}
	}
	pad := func(s string) string { return s + strings.Repeat(" ", nameW-len(s)) }
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, pad("scenario")+"\treq/s\tp50 ms\tp90 ms\tp99 ms\terrors\trequests\tserver CPU s\tCPU ms/req\tDB CPU ms/req\tpeak RSS MiB\tSQL/req\tvs bare\tvs insert\t")
	row := func(m Measurement) {
		if !m.Available {
			fmt.Fprintf(tw, "%s\t%s\n", pad(m.Name), strings.Repeat("-\t", 13))
			return
		}
		fmt.Fprintf(tw, "%s\t%.1f\t%.2f\t%.2f\t%.2f\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n",
			pad(m.Name), m.RPS, m.LatencyMS.P50, m.LatencyMS.P90, m.LatencyMS.P99, m.Errors, m.Requests,
			optFloat(m.ServerCPUSeconds, 2), optFloat(m.ServerCPUPerRequestMS, 3), optFloat(m.DBCPUPerRequestMS, 3), optMiB(m.ServerPeakRSSBytes),
			optFloat(m.StatementsPerRequest, 2), optRatio(m.VsBareHTTP), optRatio(m.VsDBInsert))
	}
	for _, m := range r.Scenarios {
		row(m)
	}
	fmt.Fprintln(tw, "\t\t\t\t\t\t\t\t\t\t\t\t\t\t")
	for _, m := range r.Baselines {
		row(m)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, list := range [][]Measurement{r.Scenarios, r.Baselines} {
		for _, m := range list {
			switch {
			case !m.Available:
				fmt.Fprintf(w, "\n%s: not available (%s)", m.Name, m.Note)
			case m.Note != "":
				fmt.Fprintf(w, "\n%s: %s", m.Name, m.Note)
				if m.EndedEarly {
					fmt.Fprint(w, " (all used before the time was up)")
				}
			}
		}
	}
	fmt.Fprintln(w)
	for _, list := range [][]Measurement{r.Scenarios, r.Baselines} {
		for _, m := range list {
			if m.Errors > 0 {
				fmt.Fprintf(w, "\n%s: %d errors\n", m.Name, m.Errors)
				for _, s := range m.ErrorSamples {
					fmt.Fprintf(w, "  %s\n", s)
				}
			}
		}
	}
	return nil
}

func seconds(s float64) string { return (time.Duration(s * float64(time.Second))).String() }

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func optFloat(v *float64, places int) string {
	if v == nil {
		return "-"
	}
	return strconv.FormatFloat(*v, 'f', places, 64)
}

func optMiB(v *int64) string {
	if v == nil {
		return "-"
	}
	return strconv.FormatFloat(float64(*v)/(1<<20), 'f', 1, 64)
}

func optRatio(v *float64) string {
	if v == nil {
		return "-"
	}
	return strconv.FormatFloat(*v, 'f', 3, 64)
}

// WriteSVG draws two bar charts side by side, one row per available scenario: requests per
// second (with the bare-HTTP and insert rates written in the title) and p99 latency. It is plain
// SVG 1.1 with no script or external reference, so it renders anywhere, a repository page
// included.
func (r *Report) WriteSVG(w io.Writer) error {
	var rows []Measurement
	for _, m := range r.Scenarios {
		if m.Available {
			rows = append(rows, m)
		}
	}
	const (
		labelW = 150.0 // scenario names
		panelW = 330.0 // each chart's bars
		gap    = 60.0
		top    = 70.0
		rowH   = 26.0
		barH   = 16.0
	)
	width := labelW + 2*panelW + gap + 40
	height := top + rowH*float64(max(len(rows), 1)) + 40

	maxRPS, maxP99 := 0.0, 0.0
	for _, m := range rows {
		maxRPS = math.Max(maxRPS, m.RPS)
		maxP99 = math.Max(maxP99, m.LatencyMS.P99)
	}
	var base []string
	for _, b := range r.Baselines {
		if b.Available {
			base = append(base, fmt.Sprintf("%s %.0f req/s (p99 %.2f ms)", b.Name, b.RPS, b.LatencyMS.P99))
		}
	}
	svg := newSVG(w, width, height,
		fmt.Sprintf("proctor bench %s: %s, %s server, concurrency %d, %s per scenario", r.Version, r.Database, r.Server, r.Concurrency, seconds(r.DurationSeconds)),
		"baselines: "+strings.Join(base, ", "))
	p, esc := svg.p, html.EscapeString

	x1 := labelW
	x2 := labelW + panelW + gap
	p(`<text x="%.0f" y="%.0f" font-weight="bold">requests per second</text>`+"\n", x1, top-12)
	p(`<text x="%.0f" y="%.0f" font-weight="bold">p99 latency (ms)</text>`+"\n", x2, top-12)
	bar := func(x, y, v, maxV float64, color, label string) {
		wBar := 0.0
		if maxV > 0 {
			wBar = v / maxV * (panelW - 70)
		}
		p(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>`+"\n", x, y, math.Max(wBar, 1), barH, color)
		p(`<text x="%.1f" y="%.1f">%s</text>`+"\n", x+math.Max(wBar, 1)+4, y+barH-4, esc(label))
	}
	for i, m := range rows {
		y := top + float64(i)*rowH
		p(`<text x="%.0f" y="%.1f" text-anchor="end">%s</text>`+"\n", labelW-10, y+barH-4, esc(m.Name))
		bar(x1, y, m.RPS, maxRPS, "#3b6ea5", strconv.FormatFloat(m.RPS, 'f', 0, 64))
		bar(x2, y, m.LatencyMS.P99, maxP99, "#c0504d", strconv.FormatFloat(m.LatencyMS.P99, 'f', 2, 64))
	}
	axisBottom := top + rowH*float64(max(len(rows), 1))
	p(`<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="#999999"/>`+"\n", x1, top-4, x1, axisBottom)
	p(`<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="#999999"/>`+"\n", x2, top-4, x2, axisBottom)
	p(`<text x="10" y="%.0f" fill="#555555">%s</text>`+"\n", axisBottom+24,
		esc(fmt.Sprintf("%d CPUs, %s, %s; %s", r.Machine.CPUs, r.Machine.GoVersion, r.StartedAt.UTC().Format("2006-01-02 15:04 MST"), r.Machine.CPUModel)))
	return svg.end()
}

// svgDoc is one chart of the reports being written: plain SVG 1.1 with no script or external
// reference, on a white page, under a bold title and a grey line below it.
type svgDoc struct{ bw *bufio.Writer }

// newSVG starts a chart of width by height on w with its title and subtitle (escaped here).
func newSVG(w io.Writer, width, height float64, title, subtitle string) *svgDoc {
	d := &svgDoc{bw: bufio.NewWriter(w)}
	d.p(`<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	d.p(`<rect width="100%%" height="100%%" fill="#ffffff"/>` + "\n")
	d.p(`<text x="10" y="20" font-size="14" font-weight="bold">%s</text>`+"\n", html.EscapeString(title))
	d.p(`<text x="10" y="38" fill="#555555">%s</text>`+"\n", html.EscapeString(subtitle))
	return d
}

// p writes one piece of the chart, a format and its arguments as fmt.Fprintf takes them.
func (d *svgDoc) p(format string, args ...any) { fmt.Fprintf(d.bw, format, args...) }

// end closes the chart and writes out what is buffered.
func (d *svgDoc) end() error {
	d.p("</svg>\n")
	return d.bw.Flush()
}

// describeMachine reads what the report says about the machine.
func describeMachine() Machine {
	m := Machine{CPUs: runtime.NumCPU(), OS: runtime.GOOS, Arch: runtime.GOARCH, GoVersion: runtime.Version(), LoadBefore: loadAverage()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPUModel = strings.TrimSpace(v)
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
				kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
				m.MemoryBytes = kb * 1024
			}
		}
	}
	return m
}

// loadAverage is the first three fields of /proc/loadavg, or "" off Linux.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}
