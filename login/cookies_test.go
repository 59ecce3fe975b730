package login

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
)

// TestHTTPSSchoolCookiesAreHostPrefixed: at a school whose base_url is https, the session,
// sign-in CSRF and known-device cookies are only ever the Secure "__Host-" ones, set and read, even on a request
// the edge says came over plain http (the server never lets one through; this is the second
// line). An un-prefixed cookie presented there, which a sibling host or a plain-http response
// could have planted, is ignored.
func TestHTTPSSchoolCookiesAreHostPrefixed(t *testing.T) {
	const hostS = "s.test"
	e := newEnv(t, nil)
	e.schools[hostS] = &school.School{SchoolID: 3, Subdomain: "s", Name: "School S", Origin: "https://" + hostS, Host: hostS}
	if err := e.store.SyncSchool(t.Context(), 3, "s", "School S"); err != nil {
		t.Fatal(err)
	}
	if err := e.store.SetRoles(e.ctx(hostS), e.ann.ID, []storage.Role{storage.RoleStudent}); err != nil {
		t.Fatal(err)
	}
	for _, secure := range []bool{false, true} {
		b := e.browser(hostS, secure)
		form := b.do(http.MethodGet, LoginPath, nil)
		res := b.do(http.MethodPost, LoginPath, url.Values{
			"email": {annEmail}, "password": {annPassword}, CSRFField: {csrfFrom(t, form.body)},
		})
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("secure=%v: sign-in %d", secure, res.StatusCode)
		}
		for _, r := range []response{form, res} {
			for _, c := range r.Cookies() {
				if !strings.HasPrefix(c.Name, "__Host-") || !c.Secure || c.Path != "/" {
					t.Errorf("secure=%v: cookie %s set (Secure %v, Path %q)", secure, c.Name, c.Secure, c.Path)
				}
			}
		}
		token := b.cookies[SecureSessionCookie]
		if token == nil {
			t.Fatalf("secure=%v: no %s after signing in", secure, SecureSessionCookie)
		}
		if _, ok := b.current(); !ok {
			t.Errorf("secure=%v: the __Host- session is not read", secure)
		}

		// The same token under the un-prefixed name is not a session here.
		planted := e.browser(hostS, secure)
		planted.cookies[SessionCookie] = &http.Cookie{Name: SessionCookie, Value: token.Value}
		if _, ok := planted.current(); ok {
			t.Errorf("secure=%v: an un-prefixed session cookie is read at an https school", secure)
		}
		// Nor is an un-prefixed login CSRF cookie: the form's token does not verify against it.
		v := NewToken()
		planted.cookies[LoginCSRFCookie] = &http.Cookie{Name: LoginCSRFCookie, Value: v}
		res = planted.do(http.MethodPost, LoginPath, url.Values{
			"email": {annEmail}, "password": {annPassword}, CSRFField: {e.h.loginCSRFToken(v)},
		})
		if res.StatusCode == http.StatusSeeOther {
			t.Errorf("secure=%v: sign-in accepted against an un-prefixed CSRF cookie", secure)
		}
	}
	// A school whose base_url is http keeps the un-prefixed names over http.
	b := e.browser(hostA, false)
	b.mustLogin()
	if b.cookies[SessionCookie] == nil || b.cookies[SecureSessionCookie] != nil {
		t.Errorf("http school: cookies %v", b.cookies)
	}
}
