package authz_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/server/servertest"
	"github.com/proctorhq/proctor/storage/gormstore/storetest"
)

// Benchmarks of the token endpoint through a real server and store. Codes for the exchange
// benchmark are minted with the timer stopped (each needs a login and a consent).
//
//	go test -run '^$' -bench . ./authz
//	PROCTOR_TEST_POSTGRES_DSN=... go test -run '^$' -bench . ./authz

func benchBackends(b *testing.B, f func(b *testing.B, e *env)) {
	for _, backend := range storetest.Backends() {
		b.Run(backend, func(b *testing.B) { f(b, newEnv(b, backend)) })
	}
}

func BenchmarkCodeExchange(b *testing.B) {
	benchBackends(b, func(b *testing.B, e *env) {
		br := e.signedIn(e.a, studentEmail)
		client := &http.Client{}
		for b.Loop() {
			b.StopTimer()
			p := servertest.NewPKCE()
			loc := br.consent(authURL(e.a, publicClient, p, "openid", "account:read"), "approve")
			form := url.Values{"grant_type": {"authorization_code"}, "code": {loc.Query().Get("code")}, "redirect_uri": {redirectURI},
				"client_id": {publicClient}, "code_verifier": {p.Verifier}, "resource": {e.a.Origin}}
			b.StartTimer()
			resp, err := client.Post(e.url(e.a, endpoint.Token), "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
			if err != nil || resp.StatusCode != 200 {
				b.Fatalf("exchange: %v %v", err, resp.Status)
			}
			resp.Body.Close()
		}
	})
}

func BenchmarkRefresh(b *testing.B) {
	benchBackends(b, func(b *testing.B, e *env) {
		tr := e.tokens("account:read")
		// Until a new access token is used, the same refresh token stays valid (spec), so each
		// iteration refreshes it again and measures the grant alone.
		body := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tr.RefreshToken},
			"client_id": {publicClient}, "resource": {e.a.Origin}}.Encode()
		client := &http.Client{}
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				resp, err := client.Post(e.url(e.a, endpoint.Token), "application/x-www-form-urlencoded", strings.NewReader(body))
				if err != nil || resp.StatusCode != 200 {
					b.Errorf("refresh: %v %v", err, resp.Status)
					return
				}
				resp.Body.Close()
			}
		})
	})
}
