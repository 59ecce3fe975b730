package securitytest

import (
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/proctorhq/proctor/account"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/mail"
	"github.com/proctorhq/proctor/mail/mailbox"
	"github.com/proctorhq/proctor/scope"
	"github.com/proctorhq/proctor/server/servertest"
	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/templates"
)

// postOffice makes links the way the server does and reads them the way a member would: an
// account.Service over the environment's store and system secret (so its links are the
// server's links), and the real mail worker sending the outbox (the server's entries and the
// service's) over SMTP to an in-process mailbox. servertest configures no mail, so this worker
// is the only one.
type postOffice struct {
	*servertest.PostOffice
	svc *account.Service
}

func newPostOffice(t *testing.T, e *servertest.Env) *postOffice {
	t.Helper()
	tpl, err := templates.New()
	if err != nil {
		t.Fatal(err)
	}
	q, err := mail.NewQueue(e.Store, e.Config.Secret, nil)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := account.NewService(account.ServiceDeps{
		Store: e.Store, Mail: q, Templates: tpl, Secret: e.Config.Secret, Schools: e.Registry.BySchoolID,
	})
	if err != nil {
		t.Fatal(err)
	}
	office := servertest.NewPostOffice(t, e.Store, e.Config.Secret, mail.Options{Expanders: svc.Expanders(), MaxAttempts: 1})
	return &postOffice{PostOffice: office, svc: svc}
}

var linkPattern = regexp.MustCompile(`https?://[^\s"<>]+\?token=[A-Za-z0-9_-]+`)

// linkTo returns the link of the one message to addr among msgs, and fails without one.
func linkTo(t *testing.T, msgs []mailbox.Message, addr string) *url.URL {
	t.Helper()
	var links []string
	for _, m := range msgs {
		if strings.EqualFold(strings.Join(m.To, ","), addr) {
			links = append(links, linkPattern.FindString(m.Text))
		}
	}
	if len(links) != 1 || links[0] == "" {
		t.Fatalf("want one message with a link to %s, got %q", addr, links)
	}
	u, err := url.Parse(links[0])
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// linkAt delivers the outbox and returns the link of its one message to addr (linkTo), failing
// unless the link leads to path: the route under test.
func (po *postOffice) linkAt(t *testing.T, addr, path string) *url.URL {
	t.Helper()
	link := linkTo(t, po.Deliver(), addr)
	if link.Path != path {
		t.Fatalf("link mailed to %s: %s, want path %s", addr, link, path)
	}
	return link
}

// atB is link u moved to school B's origin.
func atB(s *sweep, u *url.URL) string { return s.b.URL(u.Path) + "?" + u.RawQuery }

// memberOf reads a member from the store (identities are deployment-wide).
func memberOf(t *testing.T, s *sweep, email string) storage.Member {
	t.Helper()
	return schools.MemberByEmail(t, s.e.Store, email)
}

// formTokenAtB returns a browser holding a sign-in form token of B, and the token.
func formTokenAtB(t *testing.T, s *sweep) (*servertest.Browser, string) {
	t.Helper()
	b := s.e.Browser()
	return b, b.Get(s.b.URL(account.ForgotPath)).CSRF(t)
}

// checkLoginRedirect fails unless r sends the browser to B's sign-in and names nothing of A.
func checkLoginRedirect(t *testing.T, s *sweep, what string, r *servertest.Response) {
	t.Helper()
	if r.Status != http.StatusSeeOther || !strings.HasPrefix(r.Header.Get("Location"), login.LoginPath) {
		t.Errorf("%s at B with A's session: %d (Location %q), want 303 to %s", what, r.Status, r.Header.Get("Location"), login.LoginPath)
	}
	if strings.Contains(r.Body, s.a.Owner.Email) || len(mentionsA(s, r.Body)) > 0 {
		t.Errorf("%s at B: the answer names A or A's owner", what)
	}
}

// forgotFormAtB: B's form, with A's session, is B's and shows nothing of A's member.
func forgotFormAtB(t *testing.T, s *sweep, _ route, path string) {
	r := withSessionOfA(s, http.MethodGet, s.b.URL(path), nil)
	if _, ok := r.FormWith("email"); r.Status != http.StatusOK || !ok {
		t.Errorf("GET %s at B: %d, want B's form", path, r.Status)
	}
	if strings.Contains(r.Body, s.a.Owner.Email) || len(mentionsA(s, r.Body)) > 0 || !strings.Contains(r.Body, s.b.Name) {
		t.Errorf("GET %s at B names A or not B", path)
	}
}

// forgotAtBForMemberOfA: asking B for a reset of an address that is a member of A only sends
// nothing (and makes no link), while the same request for B's own member does, at B's origin.
func forgotAtBForMemberOfA(t *testing.T, s *sweep, _ route, path string) {
	po := s.office
	po.Deliver() // whatever earlier probes left
	for _, m := range []servertest.Member{s.a.Owner, s.b.Student} {
		b, tok := formTokenAtB(t, s)
		r := b.Post(s.b.URL(path), url.Values{login.CSRFField: {tok}, "email": {m.Email}})
		if r.Status >= 400 {
			t.Fatalf("POST %s at B for %s: %d\n%.300s", path, m.Email, r.Status, r.Body)
		}
	}
	msgs := po.Deliver()
	for _, msg := range msgs {
		if strings.EqualFold(strings.Join(msg.To, ","), s.a.Owner.Email) {
			t.Errorf("a reset request at B sent A's owner (a member of A only) a message: %q", msg.Subject)
		}
	}
	// The control: B's student got B's link, so the worker did expand the requests.
	if u := linkTo(t, msgs, s.b.Student.Email); u.Scheme+"://"+u.Host != s.b.Origin {
		t.Errorf("B's reset link points at %s", u)
	}
}

// resetLinkOfA: a reset link made at A is dead at B, on the form and on its POST; the password
// stays, and the link still opens at A.
func resetLinkOfA(t *testing.T, s *sweep, _ route, path string) {
	po := s.office
	student := s.a.Student.Email
	if err := po.svc.RequestReset(s.e.Ctx(s.a), student); err != nil {
		t.Fatal(err)
	}
	link := po.linkAt(t, student, path)
	deadAtB(t, s, link, student)
	if r := s.e.Send(http.MethodGet, link.String(), nil); r.Status != http.StatusOK {
		t.Errorf("A's reset link at A after B refused it: %d", r.Status)
	}
}

// invitationLinkOfA: an invitation made at A is dead at B; the invitee gets no password and
// no role at B, and the link still opens at A.
func invitationLinkOfA(t *testing.T, s *sweep, rt route, path string) {
	po := s.office
	addr := "invitee-" + strings.ToLower(rt.methods[0]) + "@example.com"
	res, err := po.svc.Invite(s.e.Ctx(s.a), account.Invitation{Email: addr, Name: "Ivy Invitee"})
	if err != nil {
		t.Fatal(err)
	}
	link := po.linkAt(t, addr, path)
	deadAtB(t, s, link, addr)
	roles, err := s.e.Store.GetRoles(s.e.Ctx(s.b), res.Member.ID)
	if err != nil || len(roles) != 0 {
		t.Errorf("the invitee of A has roles at B: %v %v", roles, err)
	}
	if r := s.e.Send(http.MethodGet, link.String(), nil); r.Status != http.StatusOK {
		t.Errorf("A's invitation at A after B refused it: %d", r.Status)
	}
}

// deadAtB checks that link (made at A for email) is the dead-link page at B on GET and on a
// POST that passes B's CSRF check, and that email's password did not change.
func deadAtB(t *testing.T, s *sweep, link *url.URL, email string) {
	t.Helper()
	before := memberOf(t, s, email).PasswordHash
	if r := s.e.Send(http.MethodGet, atB(s, link), nil); r.Status != http.StatusGone || strings.Contains(r.Body, email) {
		t.Errorf("GET %s at B (A's link): %d, want the 410 page without the address", link.Path, r.Status)
	}
	b, tok := formTokenAtB(t, s)
	const pw = "a fresh passphrase set through B"
	r := b.Post(s.b.URL(link.Path), url.Values{
		login.CSRFField: {tok}, "token": {link.Query().Get("token")}, "password": {pw}, "password2": {pw},
	})
	if r.Status != http.StatusGone {
		t.Errorf("POST %s at B (A's link): %d (Location %q), want 410", link.Path, r.Status, r.Header.Get("Location"))
	}
	if b.Cookie(s.b, servertest.SessionCookie(s.b)) != "" {
		t.Errorf("POST %s at B with A's link signed the browser in at B", link.Path)
	}
	if memberOf(t, s, email).PasswordHash != before {
		t.Errorf("%s's password changed through A's link at B", email)
	}
}

// accountPageAtB: A's session is nobody at B's account page.
func accountPageAtB(t *testing.T, s *sweep, _ route, path string) {
	checkLoginRedirect(t, s, "GET "+path, withSessionOfA(s, http.MethodGet, s.b.URL(path), nil))
}

// profileAtB: A's session and CSRF token change nothing at B (nor does B's owner with A's
// token): A's owner keeps its name.
func profileAtB(t *testing.T, s *sweep, _ route, path string) {
	before := memberOf(t, s, s.a.Owner.Email).Name
	form := url.Values{login.CSRFField: {s.csrfA}, "name": {"Renamed Through B"}}
	checkLoginRedirect(t, s, "POST "+path, withSessionOfA(s, http.MethodPost, s.b.URL(path), form))
	if r := s.ownerB.Post(s.b.URL(path), form); r.Status != http.StatusForbidden {
		t.Errorf("POST %s by B's owner with A's CSRF token: %d, want 403", path, r.Status)
	}
	if after := memberOf(t, s, s.a.Owner.Email).Name; after != before {
		t.Errorf("A's owner was renamed through B: %q -> %q", before, after)
	}
	if after := memberOf(t, s, s.b.Owner.Email).Name; after == "Renamed Through B" {
		t.Error("B's owner was renamed with A's CSRF token")
	}
}

// passwordAtB: A's session cannot change A's owner's password through B.
func passwordAtB(t *testing.T, s *sweep, _ route, path string) {
	before := memberOf(t, s, s.a.Owner.Email).PasswordHash
	const pw = "a fresh passphrase set through B"
	form := url.Values{login.CSRFField: {s.csrfA}, "current_password": {servertest.Password}, "new_password": {pw}, "repeat_password": {pw}}
	checkLoginRedirect(t, s, "POST "+path, withSessionOfA(s, http.MethodPost, s.b.URL(path), form))
	if memberOf(t, s, s.a.Owner.Email).PasswordHash != before {
		t.Error("A's owner's password changed through B")
	}
	aStillSignedIn(t, s)
}

// emailAtB: A's session cannot ask for an e-mail change through B: no confirmation is sent.
func emailAtB(t *testing.T, s *sweep, _ route, path string) {
	po := s.office
	po.Deliver()
	const addr = "moved-through-b@example.com"
	form := url.Values{login.CSRFField: {s.csrfA}, "email": {addr}, "current_password": {servertest.Password}}
	checkLoginRedirect(t, s, "POST "+path, withSessionOfA(s, http.MethodPost, s.b.URL(path), form))
	for _, m := range po.Deliver() {
		if strings.EqualFold(strings.Join(m.To, ","), addr) {
			t.Errorf("an e-mail change asked through B with A's session sent a confirmation: %q", m.Subject)
		}
	}
	if memberOf(t, s, s.a.Owner.Email).Email != s.a.Owner.Email {
		t.Error("A's owner's address changed")
	}
}

// signedInAt fails unless b's session at school sc still works.
func signedInAt(t *testing.T, b *servertest.Browser, sc *servertest.School, what string) {
	t.Helper()
	if !b.SignedIn(sc) {
		t.Errorf("%s: the member's session at %s no longer works", what, sc.Subdomain)
	}
}

// emailConfirmLinkOfA: a confirmation link the member of both schools asked for at A does not
// work at B, even for that member signed in at B; the address stays, and the link still opens
// at A.
func emailConfirmLinkOfA(t *testing.T, s *sweep, rt route, path string) {
	po := s.office
	po.Deliver()
	atA, atBrowser := s.sharedA, s.sharedB
	addr := "confirm-" + strings.ToLower(rt.methods[0]) + "@example.com"
	r := atA.Post(s.a.URL(account.EmailPath), url.Values{
		login.CSRFField: {atA.SessionCSRF(s.a)}, "email": {addr}, "current_password": {servertest.Password},
	})
	if r.Status != http.StatusSeeOther {
		t.Fatalf("e-mail change at A: %d\n%.300s", r.Status, r.Body)
	}
	link := po.linkAt(t, addr, path)
	// A's session at B: sign in first.
	checkLoginRedirect(t, s, "GET "+path, withSessionOfA(s, http.MethodGet, atB(s, link), nil))
	// The same member signed in at B: the link is unknown there.
	if r := atBrowser.Get(atB(s, link)); r.Status != http.StatusNotFound || strings.Contains(r.Body, addr) {
		t.Errorf("GET %s at B (A's link) by the member signed in at B: %d, want the 404 page", path, r.Status)
	}
	r = atBrowser.Post(s.b.URL(path), url.Values{
		login.CSRFField: {atBrowser.SessionCSRF(s.b)}, "token": {link.Query().Get("token")},
	})
	if r.Status != http.StatusNotFound {
		t.Errorf("POST %s at B (A's link) by the member signed in at B: %d, want 404", path, r.Status)
	}
	if got := memberOf(t, s, s.e.Shared.Email).Email; got != s.e.Shared.Email {
		t.Errorf("the member's address changed through B to %s", got)
	}
	if r := atA.Get(link.String()); r.Status != http.StatusOK {
		t.Errorf("A's confirmation link at A after B refused it: %d", r.Status)
	}
}

// sessionIDAt returns the store id of the member's one session at school sc.
func sessionIDAt(t *testing.T, s *sweep, sc *servertest.School) string {
	t.Helper()
	ss, err := s.e.Store.ListMemberSessions(s.e.Ctx(sc), s.e.Shared.ID, time.Now())
	if err != nil || len(ss) == 0 {
		t.Fatalf("the member's sessions at %s: %v %v", sc.Subdomain, ss, err)
	}
	return ss[0].ID
}

// endSessionAtB: the member of both schools, signed in at B, cannot end their session at A
// from B's account page; A's session with A's CSRF token at B is sent to sign in.
func endSessionAtB(t *testing.T, s *sweep, _ route, path string) {
	atA, atBrowser := s.sharedA, s.sharedB
	id := sessionIDAt(t, s, s.a)
	checkLoginRedirect(t, s, "POST "+path, withSessionOfA(s, http.MethodPost, s.b.URL(path), url.Values{login.CSRFField: {s.csrfA}, "session_id": {id}}))
	r := atBrowser.Post(s.b.URL(path), url.Values{login.CSRFField: {atBrowser.SessionCSRF(s.b)}, "session_id": {id}})
	if r.Status >= 500 {
		t.Errorf("POST %s at B: %d", path, r.Status)
	}
	signedInAt(t, atA, s.a, "ending A's session from B")
	if sessionIDAt(t, s, s.a) != id {
		t.Error("the member's session at A is not the one it was")
	}
	aStillSignedIn(t, s)
}

// endOtherSessionsAtB: ending "every other session" at B leaves the member's session at A.
func endOtherSessionsAtB(t *testing.T, s *sweep, _ route, path string) {
	atA, atBrowser := s.sharedA, s.sharedB
	checkLoginRedirect(t, s, "POST "+path, withSessionOfA(s, http.MethodPost, s.b.URL(path), url.Values{login.CSRFField: {s.csrfA}}))
	r := atBrowser.Post(s.b.URL(path), url.Values{login.CSRFField: {atBrowser.SessionCSRF(s.b)}})
	if r.Status != http.StatusSeeOther {
		t.Errorf("POST %s at B by the member: %d, want 303", path, r.Status)
	}
	signedInAt(t, atA, s.a, "ending other sessions at B")
	signedInAt(t, atBrowser, s.b, "ending other sessions at B")
	aStillSignedIn(t, s)
}

// removeAppAtB: removing A's application at B leaves the member's grant at A: the tokens keep
// working.
func removeAppAtB(t *testing.T, s *sweep, _ route, path string) {
	atBrowser := s.sharedB
	tr := s.e.Tokens(s.a, s.e.Shared.Email, scope.OpenID, scope.AccountRead)
	ownerTokens := s.e.Tokens(s.a, s.a.Owner.Email, scope.OpenID, scope.AccountRead)
	form := url.Values{"client_id": {s.a.MemberClient.ID}}
	form.Set(login.CSRFField, s.csrfA)
	checkLoginRedirect(t, s, "POST "+path, withSessionOfA(s, http.MethodPost, s.b.URL(path), form))
	form.Set(login.CSRFField, atBrowser.SessionCSRF(s.b))
	if r := atBrowser.Post(s.b.URL(path), form); r.Status != http.StatusSeeOther {
		t.Errorf("POST %s at B by the member: %d, want 303", path, r.Status)
	}
	for who, tok := range map[string]servertest.Tokens{"the member of both schools": tr, "A's owner": ownerTokens} {
		if got := s.e.Userinfo(s.a, tok.AccessToken); got != http.StatusOK {
			t.Errorf("%s's access token at A after the removal at B: userinfo %d, want 200", who, got)
		}
		if r, got := s.e.Refresh(s.a, s.a.MemberClient, tok.RefreshToken); r.Status != http.StatusOK || got.AccessToken == "" {
			t.Errorf("%s's refresh token at A after the removal at B: %d %s", who, r.Status, r.Body)
		}
	}
}

// inviteAcrossSchools: A's operator token cannot invite at B: 401, and nobody is created.
func inviteAcrossSchools(t *testing.T, s *sweep, _ route, path string) {
	const addr = "invited-through-b@example.com"
	body := `{"email":"` + addr + `","roles":["owner"]}`
	checkRefusedAtB(t, s, "POST "+path, s.e.Bearer(http.MethodPost, s.b.URL(path), s.op.AccessToken, "application/json", body))
	if _, err := s.e.Store.GetMemberByEmail(s.e.Ctx(s.b), addr); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("an invitation at B with A's token created %s (%v)", addr, err)
	}
	// The control: the same call at A is accepted, so the refusal at B is the school's.
	const ctl = "invited-at-a@example.com"
	r := s.e.Bearer(http.MethodPost, s.a.URL(path), s.op.AccessToken, "application/json", `{"email":"`+ctl+`"}`)
	if r.Status != http.StatusCreated {
		t.Errorf("POST %s at A with A's operator token: %d %s", path, r.Status, r.Body)
	}
	m, err := s.e.Store.GetMemberByEmail(s.e.Ctx(s.a), ctl)
	if err != nil {
		t.Fatalf("the invitee at A: %v", err)
	}
	if roles, err := s.e.Store.GetRoles(s.e.Ctx(s.b), m.ID); err != nil || len(roles) != 0 {
		t.Errorf("A's invitee has roles at B: %v %v", roles, err)
	}
}
