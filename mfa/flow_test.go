package mfa_test

import (
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/pquerna/otp"
	"github.com/pquerna/otp/hotp"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/mfa"
	"github.com/proctorhq/proctor/server/servertest"
)

var (
	secretPattern = regexp.MustCompile(`<code id="totp-secret">([A-Z2-7 ]+)</code>`)
	codesPattern  = regexp.MustCompile(`<li><code>([a-z2-7]{5}-[a-z2-7]{5})</code></li>`)
)

// totpAt is the code of secret (base32, as the page shows it) at t.
func totpAt(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	c, err := hotp.GenerateCodeCustom(strings.ReplaceAll(secret, " ", ""), uint64(at.Unix()/30),
		hotp.ValidateOpts{Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// enrolment is a member's TOTP secret and recovery codes, as the pages showed them.
type enrolment struct {
	secret string
	codes  []string
	page   *servertest.Response // the recovery codes page
}

// enrol turns TOTP on for the browser's member at school s through the pages: the enrolment
// page (from path, which may carry return_to), then the code of the current step. The server's
// clock is the real one: a later sign-in uses the next step's code (nextCode), within the skew.
func enrol(t *testing.T, b *servertest.Browser, s *servertest.School, path string) enrolment {
	t.Helper()
	page := b.Get(s.URL(path))
	m := secretPattern.FindStringSubmatch(page.Body)
	if page.Status != http.StatusOK || m == nil {
		t.Fatalf("enrolment page: %d\n%s", page.Status, page.Body)
	}
	if !strings.Contains(page.Body, `src="data:image/png;base64,`) {
		t.Error("the enrolment page shows no QR code")
	}
	f, ok := page.FormWith("code")
	if !ok {
		t.Fatal("no code form on the enrolment page")
	}
	// A wrong code first: nothing is turned on.
	f.Values.Set("code", wrongCode(totpAt(t, m[1], time.Now())))
	if r := b.Submit(f, ""); r.Status != http.StatusOK || !strings.Contains(r.Body, "not right") {
		t.Fatalf("a wrong confirmation code: %d\n%s", r.Status, r.Body)
	}
	f.Values.Set("code", totpAt(t, m[1], time.Now()))
	res := b.Submit(f, "")
	if res.Status != http.StatusOK {
		t.Fatalf("confirm TOTP: %d (%s)\n%s", res.Status, res.Header.Get("Location"), res.Body)
	}
	if cc := res.Header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("recovery codes page: Cache-Control %q", cc)
	}
	e := enrolment{secret: m[1], page: res}
	for _, c := range codesPattern.FindAllStringSubmatch(res.Body, -1) {
		e.codes = append(e.codes, c[1])
	}
	if len(e.codes) != mfa.RecoveryCodeCount {
		t.Fatalf("%d recovery codes shown\n%s", len(e.codes), res.Body)
	}
	return e
}

// enrolled signs a new browser in at school s as email and turns TOTP on there (enrol).
func enrolled(t *testing.T, e *servertest.Env, s *servertest.School, email string) (*servertest.Browser, enrolment) {
	t.Helper()
	b := e.Browser()
	b.SignIn(s, email)
	return b, enrol(t, b, s, mfa.TOTPPath)
}

// nextCode is the code of the step after the current one: accepted once (skew) after the
// enrolment used the current step.
func (en enrolment) nextCode(t *testing.T) string {
	return totpAt(t, en.secret, time.Now().Add(30*time.Second))
}

// wrongCode is a six-digit code other than c.
func wrongCode(c string) string {
	if c == "000000" {
		return "111111"
	}
	return "000000"
}

// passwordStep signs a new browser in with the password and expects it to be asked for the
// second factor: the browser and the factor page.
func passwordStep(t *testing.T, e *servertest.Env, s *servertest.School, email string) (*servertest.Browser, *servertest.Response) {
	t.Helper()
	b := e.Browser()
	r := b.TrySignIn(s, email, servertest.Password)
	if r.Status != http.StatusSeeOther || !strings.HasPrefix(r.Header.Get("Location"), login.FactorPath+"?") {
		t.Fatalf("password step: %d, Location %q", r.Status, r.Header.Get("Location"))
	}
	if b.Cookie(s, servertest.SessionCookie(s)) != "" {
		t.Fatal("a session before the second factor")
	}
	page := b.Get(r.Location())
	if page.Status != http.StatusOK {
		t.Fatalf("factor page: %d\n%s", page.Status, page.Body)
	}
	return b, page
}

// enterCode posts code on a factor page.
func enterCode(t *testing.T, b *servertest.Browser, page *servertest.Response, code string) *servertest.Response {
	t.Helper()
	f, ok := page.FormWith("code")
	if !ok {
		t.Fatalf("no code form\n%s", page.Body)
	}
	f.Values.Set("code", code)
	return b.Submit(f, "")
}

func TestSignInWithSecondFactor(t *testing.T) {
	e := servertest.New(t, servertest.Options{})
	a := e.A
	b1, en := enrolled(t, e, a, a.Student.Email)

	// The password alone no longer signs in; a wrong code is refused; the right one does.
	b2, page := passwordStep(t, e, a, a.Student.Email)
	if r := enterCode(t, b2, page, wrongCode(en.nextCode(t))); r.Status != http.StatusOK || !strings.Contains(r.Body, login.MsgFactorFailed) {
		t.Fatalf("wrong code: %d\n%s", r.Status, r.Body)
	}
	if b2.SignedIn(a) {
		t.Fatal("signed in after a wrong code")
	}
	r := enterCode(t, b2, page, en.nextCode(t))
	if r.Status != http.StatusSeeOther || r.Header.Get("Location") != login.DefaultReturnTo {
		t.Fatalf("right code: %d, Location %q\n%s", r.Status, r.Header.Get("Location"), r.Body)
	}
	if !b2.SignedIn(a) {
		t.Fatal("not signed in after the right code")
	}
	if b2.Cookie(a, login.PendingCookie) != "" {
		t.Error("the pending cookie outlived the sign-in")
	}

	// The same code again (another browser) is a replay.
	b3, page := passwordStep(t, e, a, a.Student.Email)
	if r := enterCode(t, b3, page, en.nextCode(t)); r.Status != http.StatusOK {
		t.Fatalf("replayed code: %d", r.Status)
	}
	// A recovery code signs in once.
	if r := enterCode(t, b3, page, en.codes[0]); r.Status != http.StatusSeeOther {
		t.Fatalf("recovery code: %d\n%s", r.Status, r.Body)
	}
	b4, page := passwordStep(t, e, a, a.Student.Email)
	if r := enterCode(t, b4, page, en.codes[0]); r.Status != http.StatusOK {
		t.Fatalf("a used recovery code: %d", r.Status)
	}

	// The security page counts what is left.
	sec := b1.Get(a.URL(mfa.SecurityPath))
	if !strings.Contains(sec.Body, "Recovery codes left: 9") {
		t.Errorf("security page:\n%s", sec.Body)
	}
	// The factor belongs to school A: at B the same member (Shared is everywhere; the student
	// is A's) signs in with the password alone.
	bs := e.Browser()
	bs.SignIn(e.B, e.Shared.Email)

	// The log tells it, oldest first, and names the factor, never the code.
	evs, err := e.Store.ListSecurityEvents(e.Ctx(a), audit.Filter{MemberID: a.Student.ID,
		Kinds: []audit.Kind{audit.KindFactorEnrolled, audit.KindFactorUsed}, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := len(evs) - 1; i >= 0; i-- {
		ev := evs[i]
		got = append(got, string(ev.Kind)+" "+string(ev.Result)+" "+ev.Detail)
		for _, c := range en.codes {
			if strings.Contains(ev.Detail, c) {
				t.Errorf("event %d holds a recovery code", ev.ID)
			}
		}
	}
	want := []string{
		"factor_enrolled success totp",
		"factor_used failure totp", "factor_used success totp",
		"factor_used failure totp", "factor_used success recovery_code",
		"factor_used failure recovery_code",
	}
	if !slices.Equal(got, want) {
		t.Errorf("events:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Each, and each sign-in, is the member's own, from the browser's request.
	evs, err = e.Store.ListSecurityEvents(e.Ctx(a), audit.Filter{MemberID: a.Student.ID,
		Kinds: []audit.Kind{audit.KindSignIn, audit.KindFactorEnrolled, audit.KindFactorUsed}, Limit: 100})
	if err != nil || len(evs) != len(want)+3 {
		t.Fatalf("events %+v, %v", evs, err)
	}
	for _, ev := range evs {
		if ev.Actor != audit.ActorMember || ev.ActorID != a.Student.ID || ev.SubjectID != a.Student.ID ||
			!strings.HasPrefix(ev.UserAgent, "Go-http-client/") || ev.ClientAddr == "" || ev.At.IsZero() {
			t.Errorf("event %+v", ev)
		}
	}
}

func TestFactorStepThrottled(t *testing.T) {
	e := servertest.New(t, servertest.Options{})
	a := e.A
	_, en := enrolled(t, e, a, a.Student.Email)
	b, page := passwordStep(t, e, a, a.Student.Email)
	for i := range 5 {
		if r := enterCode(t, b, page, wrongCode(en.nextCode(t))); r.Status != http.StatusOK {
			t.Fatalf("wrong code %d: %d", i, r.Status)
		}
	}
	// The member's budget is spent: even the right code is refused, unevaluated.
	r := enterCode(t, b, page, en.nextCode(t))
	if r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" || b.SignedIn(a) {
		t.Fatalf("after five failures: %d\n%s", r.Status, r.Body)
	}
	// ... from another browser too (the count is the member's).
	b2, page := passwordStep(t, e, a, a.Student.Email)
	if r := enterCode(t, b2, page, en.codes[0]); r.Status != http.StatusTooManyRequests {
		t.Fatalf("another browser after five failures: %d", r.Status)
	}
	evs, err := e.Store.ListSecurityEvents(e.Ctx(a), audit.Filter{MemberID: a.Student.ID, Kinds: []audit.Kind{audit.KindFactorUsed}, Limit: 100})
	if err != nil || len(evs) != 7 || evs[0].Result != audit.ResultThrottled || evs[0].Detail != "recovery_code" || evs[1].Result != audit.ResultThrottled {
		t.Errorf("factor_used events: %+v, %v", evs, err)
	}
}

func TestPendingCookieRefused(t *testing.T) {
	e := servertest.New(t, servertest.Options{})
	a, bSchool := e.A, e.B
	_, en := enrolled(t, e, a, e.Shared.Email)
	b2, page := passwordStep(t, e, a, e.Shared.Email)
	pending := b2.Cookie(a, login.PendingCookie)
	if pending == "" {
		t.Fatal("no pending cookie")
	}

	set := func(b *servertest.Browser, s *servertest.School, v string) {
		u, _ := url.Parse(s.Origin + "/")
		b.Jar.SetCookies(u, []*http.Cookie{{Name: login.PendingCookie, Value: v, Path: "/"}})
	}
	// Each alteration changes the first character of a part: a base64 character's every bit
	// counts there, whereas the last character may carry unused bits that decode the same.
	body, sig, _ := strings.Cut(pending, ".")
	tampered := body + "." + otherFirst(sig)
	for _, c := range []struct {
		what   string
		school *servertest.School
		value  string
	}{
		{"of another school", bSchool, pending},
		{"tampered with", a, tampered},
		{"with another body", a, otherFirst(body) + "." + sig},
		{"forged", a, "MXwxfHB3ZHw5OTk5OTk5OTk5.AAAA"},
	} {
		b := e.Browser()
		set(b, c.school, c.value)
		if r := b.Get(c.school.URL(login.FactorPath)); r.Status != http.StatusSeeOther || !strings.HasPrefix(r.Header.Get("Location"), login.LoginPath+"?") {
			t.Errorf("GET with a pending cookie %s: %d %q", c.what, r.Status, r.Header.Get("Location"))
		}
		f, _ := page.FormWith("code")
		f.Values.Set("code", en.nextCode(t))
		f.Action = c.school.URL(login.FactorPath)
		if r := b.Submit(f, ""); r.Status != http.StatusSeeOther || b.SignedIn(c.school) {
			t.Errorf("POST with a pending cookie %s: %d, signed in %v", c.what, r.Status, b.SignedIn(c.school))
		}
	}
	// The genuine one still works where it was made.
	if r := enterCode(t, b2, page, en.nextCode(t)); r.Status != http.StatusSeeOther || !b2.SignedIn(a) {
		t.Fatalf("genuine pending cookie: %d", r.Status)
	}
}

// withOperatorMFA is a servertest env whose school subdomain has the operator_mfa setting mode.
func withOperatorMFA(t *testing.T, subdomain, mode string) *servertest.Env {
	return servertest.New(t, servertest.Options{ConfigureSchool: func(c *config.School) {
		if c.Subdomain == subdomain {
			c.Security.OperatorMFA = mode
		}
	}})
}

func TestOperatorMFARequired(t *testing.T) {
	e := withOperatorMFA(t, "north", config.OperatorMFARequired)
	a := e.A
	owner := e.Browser()
	owner.SignIn(a, a.Owner.Email)
	const adminPage = "/admin/developers/oauth-applications"
	r := owner.Get(a.URL(adminPage))
	want := login.FactorEnrolPath + "?return_to=" + url.QueryEscape(adminPage)
	if r.Status != http.StatusSeeOther || r.Header.Get("Location") != want {
		t.Fatalf("admin page without a factor: %d, Location %q, want %q", r.Status, r.Header.Get("Location"), want)
	}
	// Operator scopes at consent are refused the same way, back to the request afterwards.
	authURL := servertest.AuthorizeURL(a, a.OperatorClient, servertest.NewPKCE(), "openid", "school:read")
	r = owner.Get(authURL)
	if r.Status != http.StatusSeeOther || !strings.HasPrefix(r.Header.Get("Location"), login.FactorEnrolPath+"?return_to=%2Foauth%2Fauthorize") {
		t.Fatalf("operator consent without a factor: %d, Location %q", r.Status, r.Header.Get("Location"))
	}
	// At B (optional) the same pages are open to B's owner.
	ob := e.Browser()
	ob.SignIn(e.B, e.B.Owner.Email)
	if r := ob.Get(e.B.URL(adminPage)); r.Status != http.StatusOK {
		t.Fatalf("B's admin page: %d", r.Status)
	}
	// A student of A is not asked.
	st := e.Browser()
	st.SignIn(a, a.Student.Email)
	st.Approve(servertest.AuthorizeURL(a, a.MemberClient, servertest.NewPKCE(), "openid", "account:read"))

	// The owner enrols from where they were sent and goes on.
	en := enrol(t, owner, a, r.Header.Get("Location"))
	if !strings.Contains(en.page.Body, `href="/oauth/authorize?`) {
		t.Errorf("the recovery codes page does not lead back to the request\n%s", en.page.Body)
	}
	if r := owner.Get(a.URL(adminPage)); r.Status != http.StatusOK {
		t.Fatalf("admin page after enrolment: %d", r.Status)
	}
	owner.Approve(authURL)
}

func TestStepUpAndAMR(t *testing.T) {
	e := withOperatorMFA(t, "lumen", config.OperatorMFAOff)
	a := e.A
	// This browser signs in with the password while the owner has no factor yet...
	stale := e.Browser()
	stale.SignIn(a, a.Owner.Email)
	// ... and the owner turns TOTP on in another.
	_, en := enrolled(t, e, a, a.Owner.Email)

	// Member scopes need no step-up.
	stale.Approve(servertest.AuthorizeURL(a, a.MemberClient, servertest.NewPKCE(), "openid", "account:read"))
	// Operator scopes do: the session has no second factor.
	p := servertest.NewPKCE()
	authURL := servertest.AuthorizeURL(a, a.OperatorClient, p, "openid", "school:read")
	r := stale.Get(authURL)
	loc := r.Header.Get("Location")
	if r.Status != http.StatusSeeOther || !strings.HasPrefix(loc, login.FactorPath+"?step_up=1&return_to=") {
		t.Fatalf("operator consent with a stale factor: %d, Location %q", r.Status, loc)
	}
	page := stale.Get(r.Location())
	if page.Status != http.StatusOK || !strings.Contains(page.Body, "Confirm it is you") {
		t.Fatalf("step-up page: %d\n%s", page.Status, page.Body)
	}
	if r := enterCode(t, stale, page, wrongCode(en.nextCode(t))); r.Status != http.StatusOK {
		t.Fatalf("wrong step-up code: %d", r.Status)
	}
	r = enterCode(t, stale, page, en.nextCode(t))
	back, _ := url.Parse(loc)
	if r.Status != http.StatusSeeOther || r.Header.Get("Location") != back.Query().Get("return_to") {
		t.Fatalf("step-up: %d, Location %q", r.Status, r.Header.Get("Location"))
	}
	code := stale.Approve(authURL)
	res, tok := e.Exchange(a, a.OperatorClient, code, p)
	if res.Status != http.StatusOK || tok.IDToken == "" {
		t.Fatalf("exchange: %d %s", res.Status, res.Body)
	}

	// The ID token (verified through discovery and the JWKS) and UserInfo say how.
	ctx := oidc.ClientContext(t.Context(), &http.Client{Transport: http.DefaultTransport})
	provider, err := oidc.NewProvider(ctx, a.Origin)
	if err != nil {
		t.Fatal(err)
	}
	idt, err := provider.Verifier(&oidc.Config{ClientID: a.OperatorClient.ID}).Verify(ctx, tok.IDToken)
	if err != nil {
		t.Fatal(err)
	}
	var claims struct {
		AMR []string `json:"amr"`
	}
	if err := idt.Claims(&claims); err != nil || !slices.Equal(claims.AMR, []string{"pwd", "otp", "mfa"}) {
		t.Errorf("id_token amr %v (%v)", claims.AMR, err)
	}
	ui := e.Browser().Do(bearer(e, a, tok.AccessToken))
	var info struct {
		AMR []string `json:"amr"`
	}
	if ui.Status != http.StatusOK || !ui.JSON(&info) || !slices.Equal(info.AMR, []string{"pwd", "otp", "mfa"}) {
		t.Errorf("userinfo: %d %s", ui.Status, ui.Body)
	}

	// A member without a factor: amr is the password alone.
	st, sp := e.Code(a, a.Student.Email, a.MemberClient, "openid")
	_, stok := e.Exchange(a, a.MemberClient, st, sp)
	idt, err = provider.Verifier(&oidc.Config{ClientID: a.MemberClient.ID}).Verify(ctx, stok.IDToken)
	if err != nil {
		t.Fatal(err)
	}
	if err := idt.Claims(&claims); err != nil || !slices.Equal(claims.AMR, []string{"pwd"}) {
		t.Errorf("student's id_token amr %v", claims.AMR)
	}

	// With operator_mfa off (B), no step-up: B's owner enrols in one browser, and another
	// browser signed in before it grants operator scopes without entering the factor.
	b := e.B
	stale = e.Browser()
	stale.SignIn(b, b.Owner.Email)
	enrolled(t, e, b, b.Owner.Email)
	stale.Approve(servertest.AuthorizeURL(b, b.OperatorClient, servertest.NewPKCE(), "openid", "school:read"))
}

func bearer(e *servertest.Env, s *servertest.School, token string) *http.Request {
	req := e.Request(http.MethodGet, s.URL(endpoint.Userinfo), nil)
	req.Header.Set("Authorization", "Bearer "+token)
	return req
}

func TestRemoveAndNewCodesNeedThePassword(t *testing.T) {
	e := servertest.New(t, servertest.Options{})
	a := e.A
	// This browser signed in before the factor existed: no fresh factor in its session.
	b := e.Browser()
	b.SignIn(a, a.Student.Email)
	fresh, en := enrolled(t, e, a, a.Student.Email)

	page := b.Get(a.URL(mfa.SecurityPath))
	var remove, codes servertest.Form
	for _, f := range page.Forms() {
		switch f.Action {
		case a.URL(mfa.RemoveTOTPPath):
			remove = f
		case a.URL(mfa.RecoveryCodesPath):
			codes = f
		}
	}
	if !remove.Values.Has("current_password") || !codes.Values.Has("current_password") {
		t.Fatalf("the forms ask for no password\n%s", page.Body)
	}
	on := func() bool {
		sums, err := e.Store.FactorSummaries(e.Ctx(a), []int64{a.Student.ID})
		if err != nil {
			t.Fatal(err)
		}
		return sums[a.Student.ID].TOTP
	}
	for name, mutate := range map[string]func(url.Values){
		"no token":       func(v url.Values) { v.Del(login.CSRFField) },
		"wrong token":    func(v url.Values) { v.Set(login.CSRFField, "x"+v.Get(login.CSRFField)) },
		"wrong password": func(v url.Values) { v.Set("current_password", "not the password") },
	} {
		v := url.Values{}
		for k, vs := range remove.Values {
			v[k] = slices.Clone(vs)
		}
		v.Set("current_password", servertest.Password)
		mutate(v)
		r := b.Post(remove.Action, v)
		if r.Status == http.StatusSeeOther || !on() {
			t.Fatalf("%s: TOTP removed (%d)", name, r.Status)
		}
	}
	// New codes with the password: the old ones end.
	codes.Values.Set("current_password", servertest.Password)
	r := b.Submit(codes, "")
	if r.Status != http.StatusOK || len(codesPattern.FindAllString(r.Body, -1)) != mfa.RecoveryCodeCount || r.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("new codes: %d\n%s", r.Status, r.Body)
	}
	signer, factorPage := passwordStep(t, e, a, a.Student.Email)
	if r := enterCode(t, signer, factorPage, en.codes[0]); r.Status != http.StatusOK {
		t.Errorf("an old recovery code after new ones: %d", r.Status)
	}
	// The browser that just entered its factor needs no password to turn it off.
	fp := fresh.Get(a.URL(mfa.SecurityPath))
	f, ok := fp.FormWith(login.CSRFField)
	for _, g := range fp.Forms() {
		if g.Action == a.URL(mfa.RemoveTOTPPath) {
			f, ok = g, true
		}
	}
	if !ok || f.Values.Has("current_password") {
		t.Fatalf("remove form of a fresh session\n%s", fp.Body)
	}
	if r := fresh.Submit(f, ""); r.Status != http.StatusSeeOther || on() {
		t.Fatalf("remove: %d, on %v", r.Status, on())
	}
	// The password alone signs in again.
	e.Browser().SignIn(a, a.Student.Email)
	evs, err := e.Store.ListSecurityEvents(e.Ctx(a), audit.Filter{MemberID: a.Student.ID, Kinds: []audit.Kind{audit.KindFactorRemoved}, Limit: 10})
	if err != nil || len(evs) != 1 || evs[0].Detail != "totp" {
		t.Errorf("factor_removed events: %+v, %v", evs, err)
	}
}

// A form without the current password is refused with the words every page uses and charges
// nothing. Once the member's one budget of current passwords is spent, the second factors' forms
// answer 429 with the budget's Retry-After, as the account and passkey pages do, and change
// nothing.
func TestPasswordLimitSaysWhenToRetry(t *testing.T) {
	e := servertest.New(t, servertest.Options{})
	a := e.A
	// Signed in before the factor existed: the forms ask for the password.
	b := e.Browser()
	b.SignIn(a, a.Student.Email)
	enrolled(t, e, a, a.Student.Email)
	var remove servertest.Form
	for _, f := range b.Get(a.URL(mfa.SecurityPath)).Forms() {
		if f.Action == a.URL(mfa.RemoveTOTPPath) {
			remove = f
		}
	}
	if !remove.Values.Has("current_password") {
		t.Fatal("no remove form asking for the password")
	}
	// A form without the password is refused with the account page's words and costs nothing.
	remove.Values.Set("current_password", "")
	for range login.CurrentPasswordBudget.Max + 1 {
		if r := b.Submit(remove, ""); r.Status != http.StatusOK || !strings.Contains(r.Body, "Enter your current password.") {
			t.Fatalf("no password: %d\n%s", r.Status, r.Body)
		}
	}
	remove.Values.Set("current_password", "not the password")
	for i := range login.CurrentPasswordBudget.Max {
		if r := b.Submit(remove, ""); r.Status != http.StatusOK || !strings.Contains(r.Body, "Your current password is not right.") {
			t.Fatalf("wrong password %d: %d\n%s", i, r.Status, r.Body)
		}
	}
	remove.Values.Set("current_password", servertest.Password)
	r := b.Submit(remove, "")
	wait, err := time.ParseDuration(r.Header.Get("Retry-After") + "s")
	if r.Status != http.StatusTooManyRequests || err != nil || wait != login.CurrentPasswordBudget.Window {
		t.Fatalf("after the budget: %d, Retry-After %q, want 429 and the budget's window", r.Status, r.Header.Get("Retry-After"))
	}
	sums, err := e.Store.FactorSummaries(e.Ctx(a), []int64{a.Student.ID})
	if err != nil || !sums[a.Student.ID].TOTP {
		t.Errorf("TOTP removed past the budget (%v)", err)
	}
}

// otherFirst returns s with its first character replaced by another base64url character.
func otherFirst(s string) string {
	if s[0] == 'A' {
		return "B" + s[1:]
	}
	return "A" + s[1:]
}
