package bench

import (
	"context"
	"net/http"
	"net/http/cookiejar"
	"time"

	"github.com/proctorhq/proctor/bench/flow"
)

// requestTimeout bounds one request; a server that stops answering fails the run rather than
// hanging it.
const requestTimeout = 30 * time.Second

// maxBody bounds what is read of one answer (the curriculum is a few hundred kilobytes).
const maxBody = 16 << 20

// newTransport is the connection pool every browser of a run shares. It dials loopback only and
// never goes through a proxy (the zero Proxy ignores HTTP_PROXY), and keeps enough idle
// connections for every worker, so that the figures are not a measure of TCP handshakes.
func newTransport(concurrency int) *http.Transport {
	return &http.Transport{
		DialContext:         loopbackDialer().DialContext,
		MaxIdleConns:        4 * concurrency,
		MaxIdleConnsPerHost: 4 * concurrency,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
}

// browser is one member's browser and app at once (flow.Client), signed in to the bench school.
type browser struct {
	*flow.Client
	s *fixture
}

func newBrowser(s *fixture, tr http.RoundTripper) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{s: s, Client: &flow.Client{
		HTTP:   flow.NewHTTP(tr, jar, requestTimeout),
		Origin: s.origin, ClientID: s.clientID, RedirectURI: benchRedirectURI, Scope: benchScopeList(),
		MaxBody: maxBody,
	}}
}

// login signs the browser in as email, with the password every bench member has.
func (a *browser) login(ctx context.Context, email string) error {
	return a.Login(ctx, email, a.s.password)
}

// revoke revokes a refresh token and wants it done.
func (a *browser) revoke(ctx context.Context, refreshToken string) error {
	resp, err := a.Revoke(ctx, refreshToken, "refresh_token")
	if err != nil {
		return err
	}
	if resp.Status != http.StatusOK {
		return resp.Err("revoke")
	}
	return nil
}
