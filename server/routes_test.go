package server

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/resource"
)

// Routes lists what the listeners serve under the server's settings, methods sorted; the
// start-up handler serves none the internal listener does not.
func TestRoutesFollowTheSettings(t *testing.T) {
	keys := func(rs []Route) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Path+" "+strings.Join(r.Methods, ","))
		}
		return out
	}
	plain := newFixture(t, nil).srv
	public, internal := plain.Routes()
	if got, want := keys(internal), []string{"/healthz GET,HEAD", "/readyz GET,HEAD", "/metrics GET"}; !slices.Equal(got, want) {
		t.Errorf("internal routes without internal.api_key: %q, want %q", got, want)
	}
	if !slices.Contains(keys(public), endpoint.JWKS+" GET,HEAD") {
		t.Errorf("public routes %q lack %s", keys(public), endpoint.JWKS)
	}
	for _, r := range routes(startingHandler()) {
		if !slices.ContainsFunc(internal, func(in Route) bool { return in.Path == r.Path && slices.Equal(in.Methods, r.Methods) }) {
			t.Errorf("the start-up handler serves %s %v, which the internal listener does not", r.Path, r.Methods)
		}
	}

	f := newFixture(t, func(c *config.Server) { c.Internal.APIKey = config.Secret("0123456789abcdef0123456789abcdef-internal") })
	s, err := New(Deps{Config: f.srv.deps.Config, Schools: f.srv.deps.Schools, Store: f.store, MailboxHandler: http.NotFoundHandler()})
	if err != nil {
		t.Fatal(err)
	}
	_, internal = s.Routes()
	for _, want := range []string{resource.IntrospectPath + " POST", pprofPrefix + " GET", "/mail GET"} {
		if !slices.Contains(keys(internal), want) {
			t.Errorf("internal routes with internal.api_key and a mailbox: %q, want %s among them", keys(internal), want)
		}
	}
}
