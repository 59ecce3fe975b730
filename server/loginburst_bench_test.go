package server_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/proctorhq/proctor/bench/flow"
	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/server/servertest"
)

// BenchmarkLoginBurst is the reported attack at scale: 200 sign-ins posted at once, each for
// an e-mail of its own from an address of its own (through a trusted proxy's
// X-Forwarded-For), so that no rate limit stops any of them and every one reaches the
// password hash (argon2id, 64 MiB: an unknown e-mail is verified against a dummy hash of
// password.Default). Only the hash bound (login.hash_concurrency, login.hash_wait) limits what
// they cost. Meanwhile one client fetches discovery in a loop, one request after another.
//
// Reported: the process's peak resident memory above its idle level (VmHWM after clearing it,
// minus VmRSS before the burst; the server runs in this process), the p99 of discovery during
// the burst and before it, and how the 200 were answered. Figures are recorded in
// docs/benchmarks.md ("Login burst"), never asserted. Run with -benchtime=1x:
//
//	go test ./server/ -run '^$' -bench BenchmarkLoginBurst -benchtime=1x
func BenchmarkLoginBurst(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("reads /proc/self/status")
	}
	slots := []int{0, 2, 4}
	if s := os.Getenv("PROCTOR_BENCH_HASH_SLOTS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			b.Fatal(err)
		}
		slots = []int{n}
	}
	for _, n := range slots {
		name := fmt.Sprintf("slots=%d", n)
		if n == 0 {
			name = fmt.Sprintf("slots=default(%d)", login.DefaultHashSlots())
		}
		b.Run(name, func(b *testing.B) { benchLoginBurst(b, n) })
	}
}

const burstSize = 200

func benchLoginBurst(b *testing.B, slots int) {
	e := servertest.New(b, servertest.Options{Configure: func(c *config.Server) {
		c.TrustedProxies = []string{"127.0.0.1/32"}
		c.Login.HashConcurrency = slots
		c.Log.Level = "error"
	}})
	school := e.A
	client := &http.Client{
		Transport:     &http.Transport{MaxIdleConnsPerHost: burstSize + 1},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	discovery := func() time.Duration {
		start := time.Now()
		res, err := client.Get(school.Origin + "/.well-known/openid-configuration")
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			b.Fatalf("discovery: %d", res.StatusCode)
		}
		return time.Since(start)
	}

	type form struct{ cookie, token string }
	forms := make([]form, burstSize)
	for i := range forms {
		res, err := client.Get(school.Origin + login.LoginPath)
		if err != nil {
			b.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		f, err := flow.FormWith(school.Origin+login.LoginPath, body, login.CSRFField)
		if err != nil || len(res.Cookies()) == 0 {
			b.Fatalf("login form %d: %d: %v", i, res.StatusCode, err)
		}
		forms[i] = form{cookie: res.Cookies()[0].Name + "=" + res.Cookies()[0].Value, token: f.Values.Get(login.CSRFField)}
	}
	signIn := func(i int) int {
		body := url.Values{"email": {fmt.Sprintf("burst%d@example.com", i)}, "password": {"wrong password"},
			login.CSRFField: {forms[i].token}}.Encode()
		req, _ := http.NewRequest(http.MethodPost, school.Origin+login.LoginPath, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Cookie", forms[i].cookie)
		req.Header.Set("X-Forwarded-For", fmt.Sprintf("198.18.%d.%d", i/250, 1+i%250))
		res, err := client.Do(req)
		if err != nil {
			b.Error(err)
			return 0
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode
	}

	// Warm up: the dummy hash is made once, on the first unknown e-mail; then memory is handed
	// back so that idle is idle.
	signIn(0)
	idleDiscovery := make([]time.Duration, 0, 200)
	for range 200 {
		idleDiscovery = append(idleDiscovery, discovery())
	}
	runtime.GC()
	debug.FreeOSMemory()
	idle := procStatusKB(b, "VmRSS")
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		b.Skipf("cannot reset the peak RSS: %v", err)
	}

	b.ResetTimer()
	var (
		mu       sync.Mutex
		statuses = map[int]int{}
		during   []time.Duration
	)
	for range b.N {
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := 1; i < burstSize+1; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				s := signIn(i % burstSize)
				mu.Lock()
				statuses[s]++
				mu.Unlock()
			}()
		}
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		close(start)
	loop:
		for {
			select {
			case <-done:
				break loop
			default:
				during = append(during, discovery())
			}
		}
	}
	b.StopTimer()
	peak := procStatusKB(b, "VmHWM")
	slices.Sort(idleDiscovery)
	slices.Sort(during)
	b.ReportMetric(float64(peak-idle)/1024, "peak-rss-above-idle-MiB")
	b.ReportMetric(float64(idle)/1024, "idle-rss-MiB")
	b.ReportMetric(ms(p99(during)), "discovery-p99-ms")
	b.ReportMetric(ms(p99(idleDiscovery)), "idle-discovery-p99-ms")
	b.ReportMetric(float64(len(during)), "discovery-requests")
	for _, s := range []int{http.StatusOK, http.StatusTooManyRequests, http.StatusServiceUnavailable} {
		b.ReportMetric(float64(statuses[s]), fmt.Sprintf("status-%d", s))
	}
}

func p99(sorted []time.Duration) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[(len(sorted)*99+99)/100-1]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// procStatusKB reads a "kB" field of /proc/self/status.
func procStatusKB(b *testing.B, field string) int64 {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range bytes.Split(raw, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte(field+":")); ok {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(string(v)), " kB"), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return n
		}
	}
	b.Fatalf("no %s in /proc/self/status", field)
	return 0
}
