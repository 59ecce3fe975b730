package server

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/bench/flow"
	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/storage/gormstore"
	"github.com/proctorhq/proctor/storage/gormstore/storetest"
)

const (
	rateLimitHost  = "127.0.0.1:8080"
	rateLimitEmail = "ann@example.com"
)

// TestLoginRateLimitSharedAcrossReplicas: two servers on one database and one Redis, as two
// replicas behind a load balancer. Failed sign-ins spread over both spend one budget: each
// replica alone has seen fewer failures than the budget, yet both refuse the next attempt,
// even with the right password.
func TestLoginRateLimitSharedAcrossReplicas(t *testing.T) {
	redisURL := os.Getenv("PROCTOR_TEST_REDIS_URL")
	if redisURL == "" {
		t.Skip("PROCTOR_TEST_REDIS_URL is not set")
	}
	_, prefix := schools.Redis(t, redisURL)
	// The second replica opens the database the first migrated.
	shared, cfg := storetest.OpenConfig(t, gormstore.DriverSQLite)
	other, err := gormstore.Open(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = other.Close() })
	a := newRateLimitReplica(t, shared, redisURL, prefix)
	b := newRateLimitReplica(t, other, redisURL, prefix)

	schools.Member(t, a.store, rateLimitEmail, "Ann Example")

	csrfCookie, token := rateLimitLoginForm(t, a)
	post := func(r *rateLimitReplica, pw string) (int, string) {
		t.Helper()
		form := url.Values{"email": {rateLimitEmail}, "password": {pw}, "return_to": {"/x"}, login.CSRFField: {token}}
		resp, body := r.signIn(t, form, csrfCookie)
		return resp.StatusCode, body
	}

	replicas := []*rateLimitReplica{a, b}
	for i := 0; i < login.DefaultAccountLimit.Max; i++ {
		status, body := post(replicas[i%2], "not the password")
		if status != http.StatusOK || !strings.Contains(body, login.MsgLoginFailed) {
			t.Fatalf("failure %d on replica %d: %d\n%s", i+1, i%2, status, body)
		}
	}
	for i, r := range replicas {
		status, body := post(r, schools.Password)
		if status != http.StatusTooManyRequests || !strings.Contains(body, login.MsgLoginLimited) {
			t.Errorf("replica %d after the shared budget: %d\n%s", i, status, body)
		}
	}
}

type rateLimitReplica struct {
	srv    *Server
	store  *gormstore.Store
	public *httptest.Server
}

// newRateLimitReplica builds one server on the store st with Redis at redisURL.
func newRateLimitReplica(t *testing.T, st *gormstore.Store, redisURL, prefix string) *rateLimitReplica {
	t.Helper()
	_, reg := schools.Sync(t, st, schools.File(1, "north", "Northwind", "http://"+rateLimitHost))
	sc := config.DefaultServer()
	sc.Secret = schools.Secret
	sc.Redis = config.Redis{URL: config.Secret(redisURL), KeyPrefix: prefix}
	s, err := New(Deps{Config: sc, Schools: reg, Store: st})
	if err != nil {
		t.Fatal(err)
	}
	if s.loginLimiter == nil {
		t.Fatal("redis.url is set but the server does not count in Redis")
	}
	// Serve would close it on shutdown; this server is only ever served by httptest.
	t.Cleanup(func() { s.loginLimiter.Close() })
	r := &rateLimitReplica{srv: s, store: st, public: httptest.NewServer(s.PublicHandler())}
	t.Cleanup(r.public.Close)
	return r
}

// signIn asks the replica for the sign-in page as the school's host, or with form posts it
// (with cookie), following no redirect; it returns the answer and its body.
func (r *rateLimitReplica) signIn(t *testing.T, form url.Values, cookie *http.Cookie) (*http.Response, string) {
	t.Helper()
	method, body := http.MethodGet, io.Reader(nil)
	if form != nil {
		method, body = http.MethodPost, strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequest(method, r.public.URL+login.LoginPath, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.AddCookie(cookie)
	}
	req.Host = rateLimitHost
	resp, err := noRedirects.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	return resp, string(answer)
}

var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// rateLimitLoginForm loads the sign-in form from r and returns its CSRF cookie and token.
// Every replica derives the token's key from the same system secret, so both accept them.
func rateLimitLoginForm(t *testing.T, r *rateLimitReplica) (*http.Cookie, string) {
	t.Helper()
	resp, body := r.signIn(t, nil, nil)
	f, err := flow.FormWith(r.public.URL+login.LoginPath, []byte(body), login.CSRFField)
	if resp.StatusCode != http.StatusOK || err != nil {
		t.Fatalf("GET /login: %d: %v\n%s", resp.StatusCode, err, body)
	}
	for _, c := range resp.Cookies() {
		if c.Name == login.LoginCSRFCookie {
			return &http.Cookie{Name: c.Name, Value: c.Value}, f.Values.Get(login.CSRFField)
		}
	}
	t.Fatalf("GET /login set no %s cookie", login.LoginCSRFCookie)
	return nil, ""
}
