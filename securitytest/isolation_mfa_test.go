package securitytest

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/login"
)

// factorStepAtB: A's session asks nothing of B's second step (a step-up at B needs B's
// session) and signs in nobody there; a browser without a pending sign-in is sent to the
// password. (A pending sign-in of A refused at B: package mfa's TestPendingCookieRefused.)
func factorStepAtB(t *testing.T, s *sweep, _ route, path string) {
	q := "?step_up=1&return_to=" + url.QueryEscape("/login/done")
	get := withSessionOfA(s, http.MethodGet, s.b.URL(path+q), nil)
	checkLoginRedirect(t, s, "GET "+path+" (step-up)", get)
	post := withSessionOfA(s, http.MethodPost, s.b.URL(path), url.Values{
		login.CSRFField: {s.csrfA}, "step_up": {"1"}, "code": {"123456"}, "return_to": {"/login/done"},
	})
	checkLoginRedirect(t, s, "POST "+path+" (step-up)", post)
	for _, method := range []string{http.MethodGet, http.MethodPost} {
		r := s.e.Send(method, s.b.URL(path), url.Values{"code": {"123456"}})
		if r.Status != http.StatusSeeOther || !strings.HasPrefix(r.Header.Get("Location"), login.LoginPath) {
			t.Errorf("%s %s without a pending sign-in: %d (Location %q)", method, path, r.Status, r.Header.Get("Location"))
		}
	}
	aStillSignedIn(t, s)
}

// factorFormAtB: A's session and CSRF token turn nothing on or off at B, and B's owner cannot
// use A's token.
func factorFormAtB(t *testing.T, s *sweep, _ route, path string) {
	form := url.Values{login.CSRFField: {s.csrfA}, "code": {"123456"}, "current_password": {"correct horse battery staple"}}
	checkLoginRedirect(t, s, "POST "+path, withSessionOfA(s, http.MethodPost, s.b.URL(path), form))
	if r := s.ownerB.Post(s.b.URL(path), form); r.Status != http.StatusForbidden {
		t.Errorf("POST %s by B's owner with A's CSRF token: %d, want 403", path, r.Status)
	}
	aStillSignedIn(t, s)
}
