package securitytest

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/factor"
	"github.com/proctorhq/proctor/login"
)

// passkeyOfOwnerA gives A's owner a passkey at A (stored directly: A is served at an address,
// where no browser makes one) and returns it. Its id is what B's forms are tried with.
func passkeyOfOwnerA(t *testing.T, s *sweep) factor.Passkey {
	t.Helper()
	p, err := s.e.Store.CreatePasskey(s.e.Ctx(s.a), factor.Passkey{MemberID: s.a.Owner.ID,
		CredentialID: []byte("isolation-" + t.Name()), PublicKey: []byte("k"), Name: "A's key"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// passkeysUnchanged fails unless A's owner's passkey p is as it was.
func passkeysUnchanged(t *testing.T, s *sweep, p factor.Passkey) {
	t.Helper()
	got, err := s.e.Store.PasskeyByCredentialID(s.e.Ctx(s.a), p.CredentialID)
	if err != nil || got.Name != p.Name {
		t.Errorf("A's owner's passkey changed through B: %+v, %v", got, err)
	}
	if keys, _ := s.e.Store.ListPasskeys(s.e.Ctx(s.b), s.a.Owner.ID); len(keys) != 0 {
		t.Errorf("A's owner has %d passkeys at B", len(keys))
	}
}

// passkeyFormAtB: A's session and CSRF token neither rename nor remove A's passkey through B
// (sent to sign in), nor does B's owner with A's token (403).
func passkeyFormAtB(t *testing.T, s *sweep, _ route, path string) {
	p := passkeyOfOwnerA(t, s)
	form := url.Values{login.CSRFField: {s.csrfA}, "id": {strconv.FormatInt(p.ID, 10)}, "name": {"Renamed Through B"},
		"current_password": {"correct horse battery staple"}}
	checkLoginRedirect(t, s, "POST "+path, withSessionOfA(s, http.MethodPost, s.b.URL(path), form))
	if r := s.ownerB.Post(s.b.URL(path), form); r.Status != http.StatusForbidden {
		t.Errorf("POST %s by B's owner with A's CSRF token: %d, want 403", path, r.Status)
	}
	form.Set(login.CSRFField, s.csrfB)
	if r := s.ownerB.Post(s.b.URL(path), form); r.Status != http.StatusNotFound {
		t.Errorf("POST %s by B's owner, with A's passkey id: %d, want 404", path, r.Status)
	}
	passkeysUnchanged(t, s, p)
	aStillSignedIn(t, s)
}

// passkeyJSONAtB: a signed-in member's JSON endpoint at B with A's session answers that nobody
// is signed in (401), and with B's owner's session and A's token 403; nothing names A.
func passkeyJSONAtB(t *testing.T, s *sweep, _ route, path string) {
	p := passkeyOfOwnerA(t, s)
	form := url.Values{login.CSRFField: {s.csrfA}, "response": {"{}"}}
	r := withSessionOfA(s, http.MethodPost, s.b.URL(path), form)
	if r.Status != http.StatusUnauthorized || jsonError(r.Body) != "signed_out" {
		t.Errorf("POST %s at B with A's session: %d %s, want 401 signed_out", path, r.Status, r.Body)
	}
	if r := s.ownerB.Post(s.b.URL(path), form); r.Status != http.StatusForbidden {
		t.Errorf("POST %s by B's owner with A's CSRF token: %d, want 403", path, r.Status)
	}
	if len(mentionsA(s, r.Body)) > 0 || strings.Contains(r.Body, s.a.Owner.Email) {
		t.Errorf("POST %s at B names A", path)
	}
	passkeysUnchanged(t, s, p)
}

// passkeySignInPageAtB: A's session is no session at B: B's passkey sign-in page is shown, of B.
func passkeySignInPageAtB(t *testing.T, s *sweep, _ route, path string) {
	r := withSessionOfA(s, http.MethodGet, s.b.URL(path)+"?return_to=%2Flogin%2Fdone", nil)
	if r.Status != http.StatusOK || !strings.Contains(r.Body, s.b.Name) || !strings.Contains(r.Body, `data-passkey="sign-in"`) {
		t.Errorf("GET %s at B with A's session: %d (Location %q), want B's page", path, r.Status, r.Header.Get("Location"))
	}
	if len(mentionsA(s, r.Body)) > 0 || strings.Contains(r.Body, s.a.Owner.Email) {
		t.Errorf("GET %s at B names A", path)
	}
}

// passkeySignInAtB: the passwordless endpoints at B refuse A's tokens (A's session's and A's
// sign-in form's): 403, no ceremony begun, nobody signed in.
func passkeySignInAtB(t *testing.T, s *sweep, _ route, path string) {
	loginA := s.e.Browser().Get(s.a.URL(login.LoginPath)).CSRF(t)
	for _, tok := range []string{s.csrfA, loginA} {
		r := withSessionOfA(s, http.MethodPost, s.b.URL(path), url.Values{login.CSRFField: {tok}, "response": {"{}"}})
		if r.Status != http.StatusForbidden || strings.Contains(r.Header.Get("Set-Cookie"), "passkey") {
			t.Errorf("POST %s at B with A's token: %d %s, want 403 and no ceremony", path, r.Status, r.Body)
		}
	}
}

func jsonError(body string) string {
	var v struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal([]byte(body), &v)
	return v.Error
}

// passkeyFactorAtB: A's session (and a step-up with A's token) opens no second step at B: the
// page sends to sign in, the endpoints refuse without beginning a ceremony.
func passkeyFactorAtB(t *testing.T, s *sweep, _ route, path string) {
	if strings.HasSuffix(path, "/passkey") {
		for _, q := range []string{"", "?step_up=1"} {
			r := withSessionOfA(s, http.MethodGet, s.b.URL(path)+q, nil)
			if r.Status != http.StatusSeeOther || !strings.HasPrefix(r.Header.Get("Location"), login.LoginPath) {
				t.Errorf("GET %s%s at B with A's session: %d (Location %q), want 303 to %s", path, q, r.Status, r.Header.Get("Location"), login.LoginPath)
			}
		}
		return
	}
	for _, stepUp := range []string{"", "1"} {
		r := withSessionOfA(s, http.MethodPost, s.b.URL(path), url.Values{login.CSRFField: {s.csrfA}, "step_up": {stepUp}, "response": {"{}"}})
		if r.Status != http.StatusUnauthorized || strings.Contains(r.Header.Get("Set-Cookie"), "passkey") {
			t.Errorf("POST %s (step_up %q) at B with A's session: %d %s, want 401 and no ceremony", path, stepUp, r.Status, r.Body)
		}
	}
	if r := s.ownerB.Post(s.b.URL(path), url.Values{login.CSRFField: {s.csrfA}, "step_up": {"1"}}); r.Status != http.StatusForbidden {
		t.Errorf("POST %s step-up by B's owner with A's CSRF token: %d, want 403", path, r.Status)
	}
}
