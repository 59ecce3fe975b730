package servertest

import (
	"log/slog"
	"testing"
	"time"

	"github.com/gorilla/mux"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/templates"
)

// Login is the sign-in pages of a server a test composes on schools.New, built as the server
// builds them, with the parts the test's own handlers share with them: the pages' templates,
// the failed-sign-in limiter, the security event recorder and the captured log.
type Login struct {
	Handler   *login.Handler
	Templates *templates.Set
	Limiter   *login.MemoryLimiter
	Audit     *audit.Recorder
	Log       *schools.LogBuffer
	Logger    *slog.Logger
	// Router carries the pages and the request's language and the school's time zone
	// (Handler.Localize), which the server puts in every request's context; the test mounts
	// its own handlers on it.
	Router *mux.Router
}

// NewLogin builds the sign-in pages on sch's store with schools.Secret, every part on the
// clock now, and makes Router sch's handler behind schools.Middleware (https when sch serves
// TLS); opt, when not nil, changes the pages' deps (Factors, say) before they are built. The
// test mounts its handlers on Router before its first request.
func NewLogin(t testing.TB, sch *schools.Env, now func() time.Time, opt func(*login.Deps)) *Login {
	t.Helper()
	tpl, err := templates.New()
	if err != nil {
		t.Fatal(err)
	}
	l := &Login{Templates: tpl, Limiter: login.NewMemoryLimiter(0, now), Router: mux.NewRouter()}
	l.Log, l.Logger = schools.NewLog()
	l.Audit = audit.NewRecorder(sch.Store, l.Logger, audit.WithClock(now))
	d := login.Deps{
		Store: sch.Store, Secret: schools.Secret, Templates: tpl, Now: now, Logger: l.Logger, Limiter: l.Limiter, Audit: l.Audit,
	}
	if opt != nil {
		opt(&d)
	}
	if l.Handler, err = login.New(d); err != nil {
		t.Fatalf("servertest: login.New: %v", err)
	}
	l.Router.Use(l.Handler.Localize)
	l.Handler.Mount(l.Router)
	sch.Handle(schools.Middleware(sch.Registry, sch.Server.TLS != nil, l.Router))
	return l
}
