package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

// probe reads the server's internal listener: the statement count it exports as a metric, and
// CPU profiles (behind the internal API key the run wrote into the server's configuration).
type probe struct {
	base   string // http://<internal addr>
	apiKey string
	client *http.Client
}

func newProbe(internalAddr, apiKey string) *probe {
	return &probe{
		base:   "http://" + internalAddr,
		apiKey: apiKey,
		// A profile request lasts as long as the profile; the scenario bounds it (MaxDuration).
		client: &http.Client{Transport: &http.Transport{DialContext: loopbackDialer().DialContext}},
	}
}

// statementsMetric is the counter the server exports for its store's SQL statements.
const statementsMetric = "proctor_db_statements_total"

// statements returns the server's SQL statement count so far.
func (p *probe) statements(ctx context.Context) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.base+"/metrics", nil)
	if err != nil {
		return 0, err
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("GET /metrics: status %d", resp.StatusCode)
	}
	return parseCounter(resp.Body, statementsMetric)
}

// parseCounter finds an unlabelled sample of name in Prometheus text exposition.
func parseCounter(r io.Reader, name string) (int64, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		v, ok := strings.CutPrefix(sc.Text(), name+" ")
		if !ok {
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || f < 0 || f > math.MaxInt64 {
			return 0, fmt.Errorf("%s: bad value %q", name, v)
		}
		return int64(f), nil
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("the server exports no %s", name)
}

// cpuProfile takes a CPU profile of d (whole seconds, at least one) and writes it to path.
func (p *probe) cpuProfile(ctx context.Context, d time.Duration, path string) error {
	secs := max(1, int(math.Ceil(d.Seconds())))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.base+"/debug/pprof/profile?seconds="+strconv.Itoa(secs), nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+p.apiKey)
	resp, err := p.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("GET /debug/pprof/profile: status %d: %s", resp.StatusCode, b)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, resp.Body)
	return errors.Join(err, f.Close())
}
