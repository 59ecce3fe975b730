package servertest

import (
	"testing"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/server"
	"github.com/proctorhq/proctor/server/servertest/schools"
)

// Public builds the server on sch's schools and store and makes its public handler sch's
// handler: the lighter environment for a package's tests that need a whole Proctor behind one
// httptest server but none of New's members, clients or listeners. The server file is
// config.DefaultServer with schools.Secret, changed by configure when it is not nil; d gives
// the other dependencies (Logger, Documents ...).
func Public(t testing.TB, sch *schools.Env, d server.Deps, configure func(*config.Server)) *server.Server {
	t.Helper()
	d.Config = config.DefaultServer()
	d.Config.Secret = schools.Secret
	if configure != nil {
		configure(&d.Config)
	}
	d.Schools, d.Store = sch.Registry, sch.Store
	s, err := server.New(d)
	if err != nil {
		t.Fatalf("servertest: server.New: %v", err)
	}
	sch.Handle(s.PublicHandler())
	return s
}

// NewPublic builds schools.New's schools and store with o and the server on them (Public, with
// no other dependencies and the default server file), for the tests that need nothing more.
func NewPublic(t testing.TB, o schools.Options) *schools.Env {
	t.Helper()
	sch := schools.New(t, o)
	Public(t, sch, server.Deps{}, nil)
	return sch
}
