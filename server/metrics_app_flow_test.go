package server_test

import (
	"bufio"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/scope"
	"github.com/proctorhq/proctor/server/servertest"
	"github.com/proctorhq/proctor/storage/gormstore/storetest"
)

// scrape reads the internal listener's /metrics as series ("name{labels}") and their values.
func scrape(t *testing.T, e *servertest.Env) map[string]float64 {
	t.Helper()
	r := e.Send(http.MethodGet, e.InternalURL+"/metrics", nil)
	if r.Status != http.StatusOK {
		t.Fatalf("/metrics: %d", r.Status)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(r.Body))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if i < 0 || err != nil {
			t.Fatalf("/metrics: unreadable line %q", line)
		}
		out[line[:i]] = v
	}
	return out
}

// metricName is a series' metric name.
func metricName(series string) string {
	if i := strings.IndexByte(series, '{'); i >= 0 {
		return series[:i]
	}
	return series
}

// metricsTraffic runs, at school A of e: a failed and a successful sign-in, a code exchange, a
// call to the Member API with the access token and one with a forged token, a refresh, the
// first use of the refreshed token, the reuse of the first refresh token, a revocation, and a
// UserInfo call, a call to the operator API, and one to /mcp with a forged token. It fails the test if a step is not answered as expected.
func metricsTraffic(t *testing.T, e *servertest.Env) {
	t.Helper()
	s := e.A
	c := s.MemberClient
	graphql := func(token string) int {
		return e.Bearer(http.MethodPost, s.URL(endpoint.MemberGraphQL), token, "application/json", `{"query":"{ viewer { id } }"}`).Status
	}
	if r := e.Browser().TrySignIn(s, s.Student.Email, "not the password"); r.Status == http.StatusSeeOther {
		t.Fatal("a wrong password signed in")
	}
	code, p := e.Code(s, s.Student.Email, c, scope.OpenID, scope.AccountRead)
	r, first := e.Exchange(s, c, code, p)
	if r.Status != http.StatusOK {
		t.Fatalf("exchange: %d %s", r.Status, r.Body)
	}
	if st := graphql(first.AccessToken); st != http.StatusOK {
		t.Fatalf("member api with a valid token: %d", st)
	}
	if st := graphql("forged-token"); st != http.StatusUnauthorized {
		t.Fatalf("member api with a forged token: %d", st)
	}
	r, second := e.Refresh(s, c, first.RefreshToken)
	if r.Status != http.StatusOK {
		t.Fatalf("refresh: %d %s", r.Status, r.Body)
	}
	// The refreshed token's first use retires the first pair; its refresh token is then reuse.
	if st := graphql(second.AccessToken); st != http.StatusOK {
		t.Fatalf("member api with the refreshed token: %d", st)
	}
	if r, _ := e.Refresh(s, c, first.RefreshToken); r.Status != http.StatusBadRequest {
		t.Fatalf("reused refresh token: %d %s", r.Status, r.Body)
	}
	other := e.Tokens(s, s.Owner.Email, scope.OpenID, scope.AccountRead)
	if st := e.Userinfo(s, other.AccessToken); st != http.StatusOK {
		t.Fatalf("userinfo: %d", st)
	}
	// The second revocation of the same grant, and that of a forged token, revoke nothing.
	for _, token := range []string{other.RefreshToken, other.RefreshToken, "forged-token"} {
		if r := e.Revoke(s, c, token); r.Status != http.StatusOK {
			t.Fatalf("revoke: %d %s", r.Status, r.Body)
		}
	}
	op := e.Tokens(s, s.Owner.Email, "courses:read")
	if r := e.Bearer(http.MethodGet, s.URL("/api/v1/courses"), op.AccessToken, "", ""); r.Status != http.StatusOK {
		t.Fatalf("operator api: %d %s", r.Status, r.Body)
	}
	if r := e.Bearer(http.MethodPost, s.URL(endpoint.MCP), "forged-token", "application/json", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		"Accept", "application/json, text/event-stream", "MCP-Protocol-Version", "2025-06-18"); r.Status != http.StatusUnauthorized {
		t.Fatalf("mcp with a forged token: %d %s", r.Status, r.Body)
	}
}

// TestApplicationMetrics checks that the authorization and resource servers' counters move by
// what the traffic did, on the /metrics of a real server, on every backend; and that every
// metric the Grafana dashboard queries is one the server exposes.
func TestApplicationMetrics(t *testing.T) {
	for _, backend := range storetest.Backends() {
		t.Run(backend, func(t *testing.T) {
			e := servertest.New(t, servertest.Options{Backend: backend})
			before := scrape(t, e)
			metricsTraffic(t, e)
			after := scrape(t, e)

			a := `school="` + e.A.SchoolIDString() + `"`
			for series, want := range map[string]float64{
				// Three code exchanges (the student's and the owner's two), one refresh.
				`proctor_tokens_issued_total{grant_type="authorization_code",` + a + `}`: 3,
				`proctor_tokens_issued_total{grant_type="refresh_token",` + a + `}`:      1,
				`proctor_refresh_rotations_total{` + a + `}`:                             1,
				`proctor_refresh_reuse_detections_total{` + a + `}`:                      1,
				`proctor_token_revocations_total{` + a + `}`:                             1,
				// The reuse revoked a grant and recorded it.
				`proctor_grant_revocations_total{` + a + `}`: 1,
				// The wrong password, then the student's and the owner's two sign-ins.
				`proctor_sign_ins_total{result="failure",` + a + `}`:                1,
				`proctor_sign_ins_total{result="success",` + a + `}`:                3,
				`proctor_token_verdicts_total{surface="graphql",verdict="ok"}`:      2,
				`proctor_token_verdicts_total{surface="graphql",verdict="invalid"}`: 1,
				`proctor_token_verdicts_total{surface="userinfo",verdict="ok"}`:     1,
				`proctor_token_verdicts_total{surface="operator",verdict="ok"}`:     1,
				`proctor_token_verdicts_total{surface="mcp",verdict="invalid"}`:     1,
			} {
				if got := after[series] - before[series]; got != want {
					t.Errorf("%s moved by %v, want %v", series, got, want)
				}
			}
			if n := after[`proctor_sign_in_lockouts_total{`+a+`}`]; n != 0 {
				t.Errorf("lockouts counted without a throttled sign-in: %v", n)
			}

			t.Run("dashboard", func(t *testing.T) {
				exposed := map[string]bool{}
				for series := range after {
					exposed[metricName(series)] = true
				}
				checkDashboard(t, "../deploy/grafana/proctor.json", exposed)
			})
			t.Run("docs", func(t *testing.T) {
				exposed := map[string]bool{}
				for series := range after {
					exposed[metricName(series)] = true
				}
				checkMetricsDoc(t, "../docs/metrics.md", exposed)
			})
		})
	}
}
