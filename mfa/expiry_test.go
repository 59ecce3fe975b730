package mfa_test

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/mfa"
	"github.com/proctorhq/proctor/server/servertest"
	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/storage"
)

// TestPendingAndStepUpWindows: a real server on a settable clock; the second step refuses a pending
// sign-in older than login.PendingLifetime, whatever the code; a factor entered counts for
// operator scopes for login.StepUpWindow, after which a step-up renews it.
func TestPendingAndStepUpWindows(t *testing.T) {
	clk := schools.NewClock(time.Date(2032, 3, 4, 5, 6, 0, 0, time.UTC))
	sch := schools.New(t, schools.Options{})
	gs, tn := sch.Store, sch.A
	secret := schools.Secret
	ctx := schools.Ctx(t, tn)
	m := schools.Member(t, gs, "ann@example.com", "Ann", schools.At(tn, storage.RoleStudent))
	svc, err := mfa.NewService(mfa.ServiceDeps{Store: gs, Secret: secret, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	pages := servertest.NewLogin(t, sch, clk.Now, func(d *login.Deps) { d.Factors = svc })
	door := pages.Handler
	// /gate answers as the consent page does for operator scopes: 200 when the member may go
	// on, the gate's redirect otherwise.
	pages.Router.HandleFunc("/gate", func(w http.ResponseWriter, req *http.Request) {
		s, err := door.Load(req)
		if err != nil {
			http.Error(w, "no session", http.StatusUnauthorized)
			return
		}
		if ok, err := door.OperatorFactorGate(w, req, s, true); err != nil || !ok {
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
			}
			return
		}
		_, _ = io.WriteString(w, "go on")
	})
	e, err := svc.BeginTOTP(ctx, m.ID, "A", m.Email)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := svc.ConfirmTOTP(ctx, m.ID, totpAt(t, e.Secret, clk.Now())); !ok || err != nil {
		t.Fatalf("confirm: %v %v", ok, err)
	}

	b := servertest.NewPages(t, nil)
	do := func(method, path string, form url.Values) *servertest.Response {
		t.Helper()
		return b.Do(method, tn.Origin+path, form)
	}
	// csrf fetches the page at path and returns the CSRF token of its form.
	csrf := func(path string) string {
		t.Helper()
		return do(http.MethodGet, path, nil).CSRF(t)
	}
	tok := csrf(login.LoginPath)
	res := do(http.MethodPost, login.LoginPath, url.Values{"csrf_token": {tok}, "email": {m.Email}, "password": {schools.Password}})
	if res.Status != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), login.FactorPath) {
		t.Fatalf("password: %d %q", res.Status, res.Header.Get("Location"))
	}
	tok = csrf(res.Header.Get("Location"))
	clk.Advance(login.PendingLifetime)
	code := totpAt(t, e.Secret, clk.Now())
	res = do(http.MethodPost, login.FactorPath, url.Values{"csrf_token": {tok}, "code": {code}})
	if res.Status != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), login.LoginPath+"?") {
		t.Fatalf("an expired pending sign-in: %d %q", res.Status, res.Header.Get("Location"))
	}
	if res := do(http.MethodGet, login.DonePath, nil); res.Status != http.StatusSeeOther {
		t.Fatalf("signed in after an expired pending sign-in: %d", res.Status)
	}
	// The code was not used up: a fresh sign-in takes it.
	tok = csrf(login.LoginPath)
	do(http.MethodPost, login.LoginPath, url.Values{"csrf_token": {tok}, "email": {m.Email}, "password": {schools.Password}})
	tok = csrf(login.FactorPath)
	res = do(http.MethodPost, login.FactorPath, url.Values{"csrf_token": {tok}, "code": {code}})
	if res.Status != http.StatusSeeOther || res.Header.Get("Location") != login.DefaultReturnTo {
		t.Fatalf("a fresh pending sign-in: %d %q", res.Status, res.Header.Get("Location"))
	}

	// Step-up: the factor entered at sign-in counts for login.StepUpWindow, then not.
	clk.Advance(login.StepUpWindow - time.Second)
	if res := do(http.MethodGet, "/gate", nil); res.Status != http.StatusOK {
		t.Fatalf("gate within the window: %d %q %s", res.Status, res.Header.Get("Location"), res.Body)
	}
	clk.Advance(time.Second)
	res = do(http.MethodGet, "/gate", nil)
	if want := login.FactorPath + "?step_up=1&return_to=%2Fgate"; res.Status != http.StatusSeeOther || res.Header.Get("Location") != want {
		t.Fatalf("gate after the window: %d %q, want %q", res.Status, res.Header.Get("Location"), want)
	}
	tok = csrf(res.Header.Get("Location"))
	res = do(http.MethodPost, login.FactorPath, url.Values{"csrf_token": {tok}, "step_up": {"1"}, "return_to": {"/gate"},
		"code": {totpAt(t, e.Secret, clk.Now())}})
	if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/gate" {
		t.Fatalf("step-up: %d %q", res.Status, res.Header.Get("Location"))
	}
	if res := do(http.MethodGet, "/gate", nil); res.Status != http.StatusOK {
		t.Fatalf("gate after the step-up: %d", res.Status)
	}
}
