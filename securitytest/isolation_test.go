package securitytest

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/account"
	"github.com/proctorhq/proctor/admin"
	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/mfa"
	"github.com/proctorhq/proctor/passkey"
	"github.com/proctorhq/proctor/resource"
	"github.com/proctorhq/proctor/scope"
	"github.com/proctorhq/proctor/server/servertest"
	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/templates"
)

// sweep holds school A's credentials, which every probe presents at school B.
type sweep struct {
	e    *servertest.Env
	a, b *servertest.School
	// member is a token of A's student (identity and account scopes); op a token of A's owner
	// with every operator scope.
	member, op servertest.Tokens
	// ownerA is a browser signed in at A as A's owner; sessionA its session cookie and csrfA
	// the session's CSRF token.
	ownerA          *servertest.Browser
	sessionA, csrfA string
	// ownerB is a browser signed in at B as B's owner; csrfB its CSRF token.
	ownerB *servertest.Browser
	csrfB  string
	// appA is a confidential member client of A created through A's operator pages.
	appA string
	// office makes and reads links; sharedA and sharedB are browsers of the member of both
	// schools (Env.Shared) signed in at A and at B.
	office           *postOffice
	sharedA, sharedB *servertest.Browser
}

func newSweep(t *testing.T, e *servertest.Env) *sweep {
	t.Helper()
	s := &sweep{e: e, a: e.A, b: e.B}
	s.member = e.Tokens(e.A, e.A.Student.Email, scope.OpenID, scope.Profile, scope.Email, scope.AccountRead, scope.AccountWrite)
	s.op = e.Tokens(e.A, e.A.Owner.Email, append([]string{scope.OpenID}, scope.NamesFor(scope.Operator)...)...)
	s.ownerA = e.Browser()
	s.ownerA.SignIn(e.A, e.A.Owner.Email)
	s.sessionA = s.ownerA.Cookie(e.A, servertest.SessionCookie(e.A))
	s.csrfA = s.ownerA.SessionCSRF(e.A)
	s.ownerB = e.Browser()
	s.ownerB.SignIn(e.B, e.B.Owner.Email)
	s.csrfB = s.ownerB.SessionCSRF(e.B)
	s.appA = createApp(t, s.ownerA, e.A, "Isolation Probe", true)
	s.office = newPostOffice(t, e)
	s.sharedA, s.sharedB = e.Browser(), e.Browser()
	s.sharedA.SignIn(e.A, e.Shared.Email)
	s.sharedB.SignIn(e.B, e.Shared.Email)
	return s
}

// createApp creates a member client of school s through its operator pages as the signed-in
// browser and returns its client_id.
func createApp(t testing.TB, b *servertest.Browser, s *servertest.School, name string, confidential bool) string {
	t.Helper()
	form := b.Get(s.URL(admin.NewAppPath))
	f, ok := form.FormWith("redirect_uris")
	if form.Status != http.StatusOK || !ok {
		t.Fatalf("creation form at %s: %d\n%s", s.Subdomain, form.Status, form.Body)
	}
	f.Values.Set("name", name)
	f.Values.Set("redirect_uris", "http://127.0.0.1/"+s.Subdomain+"/app/callback")
	f.Values["scope"] = []string{scope.OpenID, scope.AccountRead}
	if confidential {
		f.Values.Set("confidential", "yes")
	}
	r := b.Submit(f, "")
	var id string
	switch r.Status {
	case http.StatusOK: // confidential: the secret page
		id = elementText(r.Body, "client-id")
	case http.StatusSeeOther:
		id = elementText(b.Get(r.Location()).Body, "client-id")
	}
	if id == "" {
		t.Fatalf("create application at %s: %d\n%s", s.Subdomain, r.Status, r.Body)
	}
	return id
}

var elementPattern = regexp.MustCompile(`id="([a-z-]+)"[^>]*>([^<]*)<`)

// elementText returns the text of the element with the given id ("" if there is none).
func elementText(body, id string) string {
	for _, m := range elementPattern.FindAllStringSubmatch(body, -1) {
		if m[1] == id {
			return strings.TrimSpace(m[2])
		}
	}
	return ""
}

// probe checks one route of school B with school A's credentials; path is the route's
// template with its variables filled in.
type probe func(t *testing.T, s *sweep, rt route, path string)

// routeCases has one case per route of the public and internal listeners, keyed by route.key.
// TestSchoolIsolationEveryRoute fails for a route without a case and for a case without a route.
var routeCases = map[string]probe{
	// discovery: documents of B name B only.
	"GET,HEAD,OPTIONS /.well-known/oauth-authorization-server":              publicDocument,
	"GET,HEAD,OPTIONS /.well-known/openid-configuration":                    publicDocument,
	"GET,HEAD,OPTIONS /.well-known/oauth-protected-resource":                publicDocument,
	"GET,HEAD,OPTIONS /.well-known/oauth-protected-resource/mcp":            publicDocument,
	"GET,HEAD,OPTIONS /.well-known/oauth-protected-resource/member/graphql": publicDocument,
	"GET,HEAD,OPTIONS /auth.md":                                             publicDocument,
	"GET,HEAD,OPTIONS /llms.txt":                                            publicDocument,
	"GET,HEAD,OPTIONS /pricing.md":                                          publicDocument,
	"GET,HEAD,OPTIONS /openapi.json":                                        publicDocument,
	"GET,HEAD /.well-known/jwks.json":                                       jwks,
	"GET,HEAD /assets/{file}":                                               stylesheet,

	// consent: A's session means nothing at B.
	"GET /login":                sessionAtLoginForm,
	"POST /login":               memberOfAOnlySignsInAtB,
	"GET /login/done":           sessionAtSignedIn,
	"GET /logout":               sessionAtLogoutForm,
	"POST /logout":              sessionAtLogout,
	"GET,POST /oauth/authorize": authorizeAcrossSchools,
	"GET " + login.LanguagePath: languageChoiceAtB,

	// account: A's session, and links made at A, mean nothing at B.
	"GET " + account.ForgotPath:            forgotFormAtB,
	"POST " + account.ForgotPath:           forgotAtBForMemberOfA,
	"GET " + account.ResetPath:             resetLinkOfA,
	"POST " + account.ResetPath:            resetLinkOfA,
	"GET " + account.InvitationPath:        invitationLinkOfA,
	"POST " + account.InvitationPath:       invitationLinkOfA,
	"GET " + account.AccountPath:           accountPageAtB,
	"POST " + account.ProfilePath:          profileAtB,
	"POST " + account.PasswordPath:         passwordAtB,
	"POST " + account.EmailPath:            emailAtB,
	"GET " + account.EmailConfirmPath:      emailConfirmLinkOfA,
	"POST " + account.EmailConfirmPath:     emailConfirmLinkOfA,
	"POST " + account.SessionEndPath:       endSessionAtB,
	"POST " + account.SessionEndOthersPath: endOtherSessionsAtB,
	"POST " + account.AppRemovePath:        removeAppAtB,

	// second factors: A's session and A's pending sign-in mean nothing at B.
	"GET " + login.FactorPath:       factorStepAtB,
	"POST " + login.FactorPath:      factorStepAtB,
	"GET " + mfa.SecurityPath:       accountPageAtB,
	"GET " + mfa.TOTPPath:           accountPageAtB,
	"POST " + mfa.TOTPPath:          factorFormAtB,
	"POST " + mfa.RemoveTOTPPath:    factorFormAtB,
	"POST " + mfa.RecoveryCodesPath: factorFormAtB,

	// passkey: A's session and tokens mean nothing at B, and A's passkeys are not B's.
	"GET " + passkey.AccountPath:         accountPageAtB,
	"POST " + passkey.RegisterBeginPath:  passkeyJSONAtB,
	"POST " + passkey.RegisterFinishPath: passkeyJSONAtB,
	"POST " + passkey.RenamePath:         passkeyFormAtB,
	"POST " + passkey.RemovePath:         passkeyFormAtB,
	"GET " + passkey.SignInPath:          passkeySignInPageAtB,
	"POST " + passkey.SignInBeginPath:    passkeySignInAtB,
	"POST " + passkey.SignInFinishPath:   passkeySignInAtB,
	"GET " + passkey.FactorPagePath:      passkeyFactorAtB,
	"POST " + passkey.FactorBeginPath:    passkeyFactorAtB,
	"POST " + passkey.FactorFinishPath:   passkeyFactorAtB,

	// admin: A's session and A's applications mean nothing at B.
	"GET " + admin.AppsPath:                   operatorPageNeedsSignIn,
	"GET " + admin.NewAppPath:                 operatorPageNeedsSignIn,
	"POST " + admin.AppsPath:                  operatorCreateAcrossSchools,
	"GET " + admin.AppsPath + "/{id}":         operatorPageOfAApp,
	"GET " + admin.AppsPath + "/{id}/rotate":  operatorPageOfAApp,
	"GET " + admin.AppsPath + "/{id}/delete":  operatorPageOfAApp,
	"POST " + admin.AppsPath + "/{id}/rotate": operatorRotateAcrossSchools,
	"POST " + admin.AppsPath + "/{id}/delete": operatorDeleteAcrossSchools,
	"GET " + admin.EventsPath:                 securityEventsAcrossSchools,
	// admin's member pages: A's session and A's members mean nothing at B.
	"GET " + admin.MembersPath:                            operatorPageNeedsSignIn,
	"GET " + admin.MembersPath + "/{member_id}":           memberPageOfA,
	"GET " + admin.MembersPath + "/{member_id}/{action}":  memberPageOfA,
	"POST " + admin.MembersPath + "/{member_id}/{action}": memberActionAcrossSchools,

	// authz
	"POST /api/oauth/token":        tokenEndpointAcrossSchools,
	"POST /api/oauth/revoke":       revokeAcrossSchools,
	"GET,POST /api/oauth/userinfo": bearerRefused(memberToken),
	"POST /api/oauth/register":     registrationPerSchool,

	// resource servers
	"POST /member/graphql": bearerRefused(memberToken),
	"* /mcp":               mcpAcrossSchools,

	// the operator REST API: A's operator token at B.
	"GET /api/v1/courses":                                              operatorAPI,
	"GET /api/v1/courses/{course_id}":                                  operatorAPI,
	"POST /api/v1/courses":                                             operatorAPI,
	"PATCH /api/v1/courses/{course_id}":                                operatorAPI,
	"GET /api/v1/courses/{course_id}/curriculum":                       operatorAPI,
	"POST /api/v1/courses/{course_id}/sections":                        operatorAPI,
	"POST /api/v1/courses/{course_id}/sections/{section_id}/lectures":  operatorAPI,
	"GET /api/v1/courses/{course_id}/enrollments":                      operatorAPI,
	"POST /api/v1/courses/{course_id}/enrollments":                     operatorAPI,
	"DELETE /api/v1/courses/{course_id}/enrollments/{member_id}":       operatorAPI,
	"GET /api/v1/courses/{course_id}/enrollments/{member_id}/progress": operatorAPI,
	"GET /api/v1/members":                                              operatorAPI,
	"POST /api/v1/members":                                             inviteAcrossSchools,
	"PUT /api/v1/members/{member_id}/roles":                            operatorAPI,
	"GET /api/v1/analytics/courses":                                    operatorAPI,
	"GET /api/v1/analytics/revenue":                                    operatorAPI,
	"GET /api/v1/payments":                                             operatorAPI,
	"GET /api/v1/payments/{payment_id}":                                operatorAPI,
	"GET /api/v1/school":                                               operatorAPI,
	"PATCH /api/v1/school":                                             operatorAPI,
	"GET /api/v1/school/appearance":                                    operatorAPI,
	"PATCH /api/v1/school/appearance":                                  operatorAPI,
	"GET /api/v1/events":                                               operatorAPI,
	"POST /api/v1/events":                                              operatorAPI,
	"GET /api/v1/events/{event_id}/registrations":                      operatorAPI,
	"GET /api/v1/membership-plans":                                     operatorAPI,
	"POST /api/v1/membership-plans":                                    operatorAPI,
	"GET /api/v1/subscriptions":                                        operatorAPI,
	"PATCH /api/v1/subscriptions/{subscription_id}":                    operatorAPI,
	"GET /api/v1/coupons":                                              operatorAPI,
	"POST /api/v1/coupons":                                             operatorAPI,
	"GET /api/v1/digital-products":                                     operatorAPI,
	"POST /api/v1/digital-products":                                    operatorAPI,
	"GET /api/v1/posts":                                                operatorAPI,
	"POST /api/v1/posts":                                               operatorAPI,
	"GET /api/v1/comments":                                             operatorAPI,
	"GET /api/v1/lecturers":                                            operatorAPI,
	"POST /api/v1/lecturers":                                           operatorAPI,
	"POST /api/v1/files":                                               operatorAPI,
	"GET /api/v1/forms":                                                operatorAPI,
	"GET /api/v1/forms/{form_id}/submissions":                          operatorAPI,
	"GET /api/v1/pages":                                                operatorAPI,
	"POST /api/v1/pages":                                               operatorAPI,
	"PATCH /api/v1/pages/{page_id}":                                    operatorAPI,
}

// internalCases are the internal listener's routes (sweptRoutes).
var internalCases = map[string]probe{
	"GET,HEAD /healthz":         noSchoolData,
	"GET,HEAD /readyz":          noSchoolData,
	"GET /metrics":              noSchoolData,
	"POST /internal/introspect": introspectAcrossSchools,
	"GET /debug/pprof/":         apiKeyRequired,
	"GET /mail":                 demoMailboxOnly,
}

// TestSchoolIsolationEveryRoute takes the routes the server lists and, for each, presents school
// A's credentials (tokens, codes, session, CSRF token, client ids) at school B: nothing of A is
// honoured at B, nothing at A is changed by it, and B's answers name only B. Every answer is
// also checked for framing headers, and every public route is checked to have been reached:
// the server matched a request of the sweep to it (by its metrics).
func TestSchoolIsolationEveryRoute(t *testing.T) {
	schools.Backends(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend)
		public, internal := sweptRoutes(t, e)
		checkCases(t, "public", public, routeCases)
		checkCases(t, "internal", internal, internalCases)

		s := newSweep(t, e)
		for _, rt := range public {
			p, ok := routeCases[rt.key()]
			if !ok {
				continue
			}
			t.Run(rt.key(), func(t *testing.T) { p(t, s, rt, fillPath(s, rt.path)) })
		}
		for _, rt := range internal {
			p, ok := internalCases[rt.key()]
			if !ok {
				continue
			}
			t.Run("internal "+rt.key(), func(t *testing.T) { p(t, s, rt, rt.path) })
		}

		t.Run("every route is reached by the sweep", func(t *testing.T) {
			metrics := e.Send(http.MethodGet, e.InternalURL+"/metrics", nil).Body
			for _, rt := range public {
				if !strings.Contains(metrics, `listener="public"`) || !strings.Contains(metrics, `route="`+rt.path+`"`) {
					t.Errorf("route %s was swept but the server never matched a request to it (metrics have no route=%q): its case does not reach it", rt.key(), rt.path)
				}
			}
		})
		t.Run("every answer refuses framing", func(t *testing.T) {
			for _, x := range publicAnswers(e) {
				for _, p := range framingProblems(x.Header) {
					t.Errorf("%s %s (%d): %s", x.Method, x.URL, x.Status, p)
				}
			}
		})
	})
}

// checkCases fails for every route without a case and every case without a route.
func checkCases(t *testing.T, listener string, routes []route, cases map[string]probe) {
	t.Helper()
	seen := map[string]bool{}
	for _, rt := range routes {
		seen[rt.key()] = true
		if _, ok := cases[rt.key()]; !ok {
			t.Errorf("%s route %q has no isolation case: add one to the suite's case table", listener, rt.key())
		}
	}
	for k := range cases {
		if !seen[k] {
			t.Errorf("%s case %q matches no route: the route changed or was removed", listener, k)
		}
	}
}

var pathVar = regexp.MustCompile(`\{([a-z_]+)\}`)

// fillPath fills a route template's variables: A's application for the operator pages, the
// stylesheet's name for assets, and an id for everything else.
func fillPath(s *sweep, tpl string) string {
	return pathVar.ReplaceAllStringFunc(tpl, func(v string) string {
		switch v {
		case "{id}":
			return url.PathEscape(s.appA)
		case "{member_id}":
			return strconv.FormatInt(s.a.Student.ID, 10)
		case "{action}":
			return admin.ActionRemove
		case "{file}":
			pages, _ := templates.New()
			return strings.TrimPrefix(pages.StylesheetPath(), endpoint.Assets)
		}
		return "1"
	})
}

// mentionsA returns what in body belongs to school A.
func mentionsA(s *sweep, body string) []string {
	var out []string
	for _, needle := range []string{s.a.Origin, s.a.Host, s.a.Name, s.a.MemberClient.ID, s.a.OperatorClient.ID} {
		if strings.Contains(body, needle) {
			out = append(out, needle)
		}
	}
	return out
}

// publicDocument: B's document, in every method of the route, names B and nothing of A.
func publicDocument(t *testing.T, s *sweep, rt route, path string) {
	for _, m := range rt.methods {
		r := s.e.Send(m, s.b.URL(path), nil, "Origin", "https://app.example")
		if r.Status >= 400 {
			t.Errorf("%s %s at B: %d", m, path, r.Status)
		}
		if got := mentionsA(s, r.Body); len(got) > 0 {
			t.Errorf("%s %s at B names school A: %q", m, path, got)
		}
		if m == http.MethodGet && !strings.Contains(r.Body, s.b.Origin) && !strings.Contains(r.Body, s.b.Name) {
			t.Errorf("GET %s at B names neither B's origin nor its name:\n%.300s", path, r.Body)
		}
	}
}

// jwks: A's signing keys are not served at B (B issues no ID tokens, so it has no JWKS).
func jwks(t *testing.T, s *sweep, _ route, path string) {
	a := s.e.Send(http.MethodGet, s.a.URL(path), nil)
	var keys struct {
		Keys []struct {
			Kid string `json:"kid"`
		} `json:"keys"`
	}
	if a.Status != http.StatusOK || !a.JSON(&keys) || len(keys.Keys) == 0 {
		t.Fatalf("A's JWKS: %d %s", a.Status, a.Body)
	}
	b := s.e.Send(http.MethodGet, s.b.URL(path), nil)
	if b.Status != http.StatusNotFound {
		t.Errorf("JWKS at B (no ID tokens): %d, want 404", b.Status)
	}
	for _, k := range keys.Keys {
		if strings.Contains(b.Body, k.Kid) {
			t.Errorf("B's answer holds A's key %s", k.Kid)
		}
	}
}

// stylesheet: the shared stylesheet holds nothing of a school.
func stylesheet(t *testing.T, s *sweep, rt route, path string) {
	for _, m := range rt.methods {
		r := s.e.Send(m, s.b.URL(path), nil)
		if r.Status != http.StatusOK || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/css") {
			t.Errorf("%s %s at B: %d %s", m, path, r.Status, r.Header.Get("Content-Type"))
		}
		if got := mentionsA(s, r.Body); len(got) > 0 {
			t.Errorf("stylesheet names school A: %q", got)
		}
	}
}

// withSessionOfA sends a request to B carrying A's session cookie (as a cookie planted at B's
// host would be sent) and A's session CSRF token in a form, if any.
func withSessionOfA(s *sweep, method, rawURL string, form url.Values) *servertest.Response {
	req := s.e.Request(method, rawURL, form)
	req.AddCookie(&http.Cookie{Name: servertest.SessionCookie(s.a), Value: s.sessionA})
	return s.e.Do(s.e.Client(), req)
}

// aStillSignedIn fails unless A's owner is still signed in at A.
func aStillSignedIn(t *testing.T, s *sweep) {
	t.Helper()
	if !s.ownerA.SignedIn(s.a) {
		t.Errorf("A's session no longer works at A")
	}
}

func sessionAtLoginForm(t *testing.T, s *sweep, _ route, path string) {
	r := withSessionOfA(s, http.MethodGet, s.b.URL(path)+"?return_to=%2Flogin%2Fdone", nil)
	if _, ok := r.FormWith("password"); r.Status != http.StatusOK || !ok {
		t.Errorf("GET /login at B with A's session: %d (Location %q), want the sign-in form", r.Status, r.Header.Get("Location"))
	}
}

// languageChoiceAtB: the switcher at B sets B's cookie and goes back to a path of B, even when
// return_to names A's origin.
func languageChoiceAtB(t *testing.T, s *sweep, _ route, path string) {
	q := url.Values{"lang": {"ja"}, "return_to": {s.a.URL(login.LoginPath)}}
	r := withSessionOfA(s, http.MethodGet, s.b.URL(path)+"?"+q.Encode(), nil)
	if loc := r.Header.Get("Location"); r.Status != http.StatusSeeOther || loc != login.DefaultReturnTo {
		t.Errorf("GET %s at B with return_to at A: %d (Location %q), want 303 to %s", path, r.Status, loc, login.DefaultReturnTo)
	}
	if got := mentionsA(s, r.Body); len(got) > 0 {
		t.Errorf("the switcher at B names school A: %q", got)
	}
}

func sessionAtSignedIn(t *testing.T, s *sweep, _ route, path string) {
	r := withSessionOfA(s, http.MethodGet, s.b.URL(path), nil)
	if r.Status != http.StatusSeeOther || !strings.HasPrefix(r.Header.Get("Location"), login.LoginPath) {
		t.Errorf("GET /login/done at B with A's session: %d (Location %q), want 303 to /login", r.Status, r.Header.Get("Location"))
	}
	if strings.Contains(r.Body, s.a.Owner.Email) {
		t.Error("B's answer names A's owner")
	}
}

func sessionAtLogoutForm(t *testing.T, s *sweep, _ route, path string) {
	r := withSessionOfA(s, http.MethodGet, s.b.URL(path), nil)
	if _, ok := r.FormWith(login.CSRFField); ok || strings.Contains(r.Body, s.a.Owner.Email) {
		t.Errorf("GET /logout at B with A's session shows a signed-in member's form (%d)", r.Status)
	}
}

func sessionAtLogout(t *testing.T, s *sweep, _ route, path string) {
	withSessionOfA(s, http.MethodPost, s.b.URL(path), url.Values{login.CSRFField: {s.csrfA}})
	aStillSignedIn(t, s)
}

// memberOfAOnlySignsInAtB: A's student has no role at B. Identities are deployment-wide, so the
// sign-in itself may succeed (docs/sessions.md), but it grants nothing at B: no authorization,
// no operator page, and A's owner signed in at B is nobody there either.
func memberOfAOnlySignsInAtB(t *testing.T, s *sweep, _ route, _ string) {
	for _, m := range []servertest.Member{s.a.Student, s.a.Owner} {
		b := s.e.Browser()
		r := b.TrySignIn(s.b, m.Email, servertest.Password)
		if r.Status != http.StatusSeeOther {
			continue // refused outright: nothing more to check
		}
		p := servertest.NewPKCE()
		for _, c := range []servertest.Client{s.b.MemberClient, s.b.OperatorClient} {
			page := b.Get(servertest.AuthorizeURL(s.b, c, p, c.Scopes[0]))
			if page.Status != http.StatusForbidden || page.Header.Get("Location") != "" {
				t.Errorf("%s (no role at B) authorizing %s at B: %d (Location %q), want the 403 page", m.Email, c.ID, page.Status, page.Header.Get("Location"))
			}
			if _, ok := page.FormWith("decision"); ok {
				t.Errorf("%s (no role at B) was shown B's consent form", m.Email)
			}
		}
		if page := b.Get(s.b.URL(admin.AppsPath)); page.Status != http.StatusForbidden {
			t.Errorf("%s (no role at B) at B's operator pages: %d, want 403", m.Email, page.Status)
		}
	}
}

// authorizeAcrossSchools: A's client is unknown at B (an error page, never a redirect), and A's
// session does not carry a valid B request past the sign-in.
func authorizeAcrossSchools(t *testing.T, s *sweep, rt route, path string) {
	p := servertest.NewPKCE()
	params := servertest.AuthorizeParams(s.b, s.a.MemberClient, p, scope.OpenID)
	for _, m := range rt.methods {
		var r *servertest.Response
		if m == http.MethodGet {
			r = s.e.Send(m, s.b.URL(path)+"?"+params.Encode(), nil)
		} else {
			r = s.e.Send(m, s.b.URL(path), params)
		}
		if r.Status < 400 || r.Header.Get("Location") != "" || !r.IsHTML() {
			t.Errorf("%s authorize at B with A's client_id: %d (Location %q), want an error page", m, r.Status, r.Header.Get("Location"))
		}
	}
	own := servertest.AuthorizeURL(s.b, s.b.MemberClient, p, scope.OpenID)
	r := withSessionOfA(s, http.MethodGet, own, nil)
	if r.Status != http.StatusSeeOther || !strings.HasPrefix(r.Header.Get("Location"), login.LoginPath) {
		t.Errorf("authorize at B with A's session: %d (Location %q), want 303 to /login", r.Status, r.Header.Get("Location"))
	}
	// The consent POST with A's session and CSRF token issues nothing at B.
	r = withSessionOfA(s, http.MethodPost, own, url.Values{login.CSRFField: {s.csrfA}, "decision": {"approve"}})
	if strings.Contains(r.Header.Get("Location"), "code=") {
		t.Errorf("consent POST at B with A's session issued a code: %s", r.Header.Get("Location"))
	}
}

// operatorPageNeedsSignIn: A's operator session is not a session at B.
func operatorPageNeedsSignIn(t *testing.T, s *sweep, _ route, path string) {
	r := withSessionOfA(s, http.MethodGet, s.b.URL(path), nil)
	if r.Status != http.StatusSeeOther || !strings.HasPrefix(r.Header.Get("Location"), login.LoginPath) {
		t.Errorf("GET %s at B with A's session: %d (Location %q), want 303 to /login", path, r.Status, r.Header.Get("Location"))
	}
}

// securityEventsAcrossSchools: A's session is nobody at B's events page, and B's owner sees
// B's log only, never A's (whose events name A's application, created through A's pages).
func securityEventsAcrossSchools(t *testing.T, s *sweep, rt route, path string) {
	operatorPageNeedsSignIn(t, s, rt, path)
	if err := s.e.Store.AppendSecurityEvent(s.e.Ctx(s.a), audit.Event{Kind: audit.KindClientCreated, Actor: audit.ActorCLI, ClientID: s.appA}); err != nil {
		t.Fatal(err)
	}
	r := s.ownerB.Get(s.b.URL(path))
	if r.Status != http.StatusOK || strings.Contains(r.Body, s.appA) {
		t.Errorf("GET %s as B's owner: %d, or it shows A's application %s", path, r.Status, s.appA)
	}
}

// memberClients counts school s's member clients.
func memberClients(t *testing.T, e *servertest.Env, s *servertest.School) int {
	t.Helper()
	cs, _, err := e.Store.ListClients(e.Ctx(s), storage.ClientMember, storage.Page{First: 1000})
	if err != nil {
		t.Fatal(err)
	}
	return len(cs)
}

func operatorCreateAcrossSchools(t *testing.T, s *sweep, _ route, path string) {
	before := memberClients(t, s.e, s.b)
	form := url.Values{login.CSRFField: {s.csrfA}, "name": {"Cross School"}, "redirect_uris": {"http://127.0.0.1/x"}, "scope": {scope.OpenID}}
	r := withSessionOfA(s, http.MethodPost, s.b.URL(path), form)
	if r.Status != http.StatusSeeOther || !strings.HasPrefix(r.Header.Get("Location"), login.LoginPath) {
		t.Errorf("POST %s at B with A's session: %d (Location %q), want 303 to /login", path, r.Status, r.Header.Get("Location"))
	}
	// B's own owner with A's CSRF token is refused too.
	r = s.ownerB.Post(s.b.URL(path), form)
	if r.Status != http.StatusForbidden {
		t.Errorf("POST %s at B with A's CSRF token: %d, want 403", path, r.Status)
	}
	if after := memberClients(t, s.e, s.b); after != before {
		t.Errorf("B's member clients went from %d to %d", before, after)
	}
}

// operatorPageOfAApp: A's application is not found at B, even by B's owner.
func operatorPageOfAApp(t *testing.T, s *sweep, _ route, path string) {
	operatorPageNeedsSignIn(t, s, route{}, path)
	r := s.ownerB.Get(s.b.URL(path))
	if r.Status != http.StatusNotFound || strings.Contains(r.Body, s.appA) && strings.Contains(r.Body, "Isolation Probe") {
		t.Errorf("GET %s (A's application) by B's owner: %d, want the 404 page", path, r.Status)
	}
}

func appOfA(t *testing.T, s *sweep) storage.Client {
	t.Helper()
	c, err := s.e.Store.GetClient(s.e.Ctx(s.a), s.appA)
	if err != nil {
		t.Fatalf("A's application: %v", err)
	}
	return c
}

func operatorRotateAcrossSchools(t *testing.T, s *sweep, _ route, path string) {
	before := appOfA(t, s).SecretHash
	withSessionOfA(s, http.MethodPost, s.b.URL(path), url.Values{login.CSRFField: {s.csrfA}})
	r := s.ownerB.Post(s.b.URL(path), url.Values{login.CSRFField: {s.csrfB}})
	if r.Status != http.StatusNotFound {
		t.Errorf("POST %s (A's application) by B's owner: %d, want 404", path, r.Status)
	}
	if appOfA(t, s).SecretHash != before {
		t.Error("A's application got a new secret through B")
	}
}

func operatorDeleteAcrossSchools(t *testing.T, s *sweep, _ route, path string) {
	withSessionOfA(s, http.MethodPost, s.b.URL(path), url.Values{login.CSRFField: {s.csrfA}})
	r := s.ownerB.Post(s.b.URL(path), url.Values{login.CSRFField: {s.csrfB}})
	if r.Status != http.StatusNotFound {
		t.Errorf("POST %s (A's application) by B's owner: %d, want 404", path, r.Status)
	}
	appOfA(t, s) // still there
}

// memberPageOfA: A's session is nobody at B, and B's owner cannot see A's student (a member of
// A only) at B.
func memberPageOfA(t *testing.T, s *sweep, _ route, path string) {
	operatorPageNeedsSignIn(t, s, route{}, path)
	r := s.ownerB.Get(s.b.URL(path))
	if r.Status != http.StatusNotFound || strings.Contains(r.Body, s.a.Student.Email) {
		t.Errorf("GET %s (A's member) by B's owner: %d, want the 404 page", path, r.Status)
	}
}

// memberActionAcrossSchools: neither A's session at B nor B's owner can act on A's student.
func memberActionAcrossSchools(t *testing.T, s *sweep, _ route, path string) {
	roles := func() []storage.Role {
		rs, err := s.e.Store.GetRoles(s.e.Ctx(s.a), s.a.Student.ID)
		if err != nil {
			t.Fatal(err)
		}
		return rs
	}
	before := roles()
	r := withSessionOfA(s, http.MethodPost, s.b.URL(path), url.Values{login.CSRFField: {s.csrfA}, "role": {"admin"}})
	if r.Status != http.StatusSeeOther || !strings.HasPrefix(r.Header.Get("Location"), login.LoginPath) {
		t.Errorf("POST %s at B with A's session: %d (Location %q), want 303 to /login", path, r.Status, r.Header.Get("Location"))
	}
	r = s.ownerB.Post(s.b.URL(path), url.Values{login.CSRFField: {s.csrfB}, "role": {"admin"}})
	if r.Status != http.StatusNotFound {
		t.Errorf("POST %s (A's member) by B's owner: %d, want 404", path, r.Status)
	}
	if after := roles(); !slices.Equal(after, before) {
		t.Errorf("A's student's roles went from %v to %v", before, after)
	}
}

// tokenEndpointAcrossSchools: A's code and refresh token are worthless at B, with A's client id
// or B's, and using them there does not spend them at A.
func tokenEndpointAcrossSchools(t *testing.T, s *sweep, _ route, _ string) {
	e := s.e
	c := s.a.MemberClient
	code, p := e.Code(s.a, s.a.Student.Email, c, scope.OpenID, scope.AccountRead)
	tr := e.Tokens(s.a, s.a.Student.Email, scope.OpenID, scope.AccountRead)
	for _, id := range []string{c.ID, s.b.MemberClient.ID} {
		for _, form := range []url.Values{
			{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {c.RedirectURI}, "client_id": {id},
				"code_verifier": {p.Verifier}, "resource": {s.b.Origin}},
			{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {c.RedirectURI}, "client_id": {id},
				"code_verifier": {p.Verifier}, "resource": {s.a.Origin}},
			{"grant_type": {"refresh_token"}, "refresh_token": {tr.RefreshToken}, "client_id": {id}, "resource": {s.b.Origin}},
			{"grant_type": {"refresh_token"}, "refresh_token": {tr.RefreshToken}, "client_id": {id}},
		} {
			r, got := e.TokenRequest(s.b, form)
			if r.Status < 400 || got.AccessToken != "" {
				t.Errorf("B's token endpoint with A's %s as %s: %d %s", form.Get("grant_type"), id, r.Status, r.Body)
			}
		}
	}
	if r, got := e.Exchange(s.a, c, code, p); r.Status != http.StatusOK || got.AccessToken == "" {
		t.Errorf("A's code no longer exchanges at A after B refused it: %d %s", r.Status, r.Body)
	}
	if r, got := e.Refresh(s.a, c, tr.RefreshToken); r.Status != http.StatusOK || got.AccessToken == "" {
		t.Errorf("A's refresh token no longer works at A after B refused it: %d %s", r.Status, r.Body)
	}
}

// revokeAcrossSchools: revoking A's tokens at B revokes nothing.
func revokeAcrossSchools(t *testing.T, s *sweep, _ route, _ string) {
	e := s.e
	tr := e.Tokens(s.a, s.a.Student.Email, scope.OpenID, scope.AccountRead)
	for _, c := range []servertest.Client{s.a.MemberClient, s.b.MemberClient} {
		for _, tok := range []string{tr.AccessToken, tr.RefreshToken} {
			e.Revoke(s.b, c, tok)
		}
	}
	if got := e.Userinfo(s.a, tr.AccessToken); got != http.StatusOK {
		t.Errorf("A's access token after revocations at B: userinfo %d, want 200", got)
	}
	if _, in := e.Introspect(s.a, tr.AccessToken); !in.Active {
		t.Error("A's access token is inactive after revocations at B")
	}
}

// tokenKind picks the token a bearer probe presents.
type tokenKind func(*sweep) string

func memberToken(s *sweep) string { return s.member.AccessToken }

// bearerRefused: A's token at B, in every method of the route, is 401 invalid_token with a
// challenge that points at B's metadata; the same token works at A.
func bearerRefused(tok tokenKind) probe {
	return func(t *testing.T, s *sweep, rt route, path string) {
		body, ctype := "", ""
		if path == endpoint.MemberGraphQL {
			body, ctype = `{"query":"{ viewer { id email } }"}`, "application/json"
		}
		for _, m := range rt.methods {
			r := s.e.Bearer(m, s.b.URL(path), tok(s), ctype, body)
			checkRefusedAtB(t, s, m+" "+path, r)
			if a := s.e.Bearer(m, s.a.URL(path), tok(s), ctype, body); a.Status != http.StatusOK {
				t.Errorf("%s %s at A with A's token: %d %s (the probe's token does not work at home)", m, path, a.Status, a.Body)
			}
		}
	}
}

// checkRefusedAtB fails unless r is B's 401 invalid_token challenge naming B only.
func checkRefusedAtB(t *testing.T, s *sweep, what string, r *servertest.Response) {
	t.Helper()
	ch := r.Header.Get("WWW-Authenticate")
	if r.Status != http.StatusUnauthorized || !strings.Contains(ch, `error="invalid_token"`) {
		t.Errorf("%s at B with A's token: %d (%s), want 401 invalid_token\n%.300s", what, r.Status, ch, r.Body)
	}
	if strings.Contains(ch, s.a.Origin) || !strings.Contains(ch, s.b.Origin) {
		t.Errorf("%s at B: challenge %q should point at B's metadata only", what, ch)
	}
	if got := mentionsA(s, r.Body); len(got) > 0 {
		t.Errorf("%s at B: the answer names A: %q", what, got)
	}
}

// mcpAcrossSchools: a member tool called at B with A's token is refused before any tool runs.
func mcpAcrossSchools(t *testing.T, s *sweep, _ route, path string) {
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"my_courses","arguments":{}}}`
	hdr := []string{"Accept", "application/json, text/event-stream", "MCP-Protocol-Version", "2025-06-18"}
	checkRefusedAtB(t, s, "POST "+path, s.e.Bearer(http.MethodPost, s.b.URL(path), s.member.AccessToken, "application/json", call, hdr...))
	a := s.e.Bearer(http.MethodPost, s.a.URL(path), s.member.AccessToken, "application/json", call, hdr...)
	if a.Status != http.StatusOK || strings.Contains(a.Body, `"isError":true`) {
		t.Errorf("my_courses at A with A's token: %d %s", a.Status, a.Body)
	}
	if s.a.URL(path) != s.a.Origin+endpoint.MCP {
		t.Errorf("MCP path %q", path)
	}
}

// operatorAPI: A's operator token (every operator scope) is 401 at B; at A it is accepted
// (GET operations only, so the probe changes nothing).
func operatorAPI(t *testing.T, s *sweep, rt route, path string) {
	for _, m := range rt.methods {
		body, ctype := "", ""
		if m != http.MethodGet && m != http.MethodDelete {
			body, ctype = "{}", "application/json"
		}
		checkRefusedAtB(t, s, m+" "+path, s.e.Bearer(m, s.b.URL(path), s.op.AccessToken, ctype, body))
		if m == http.MethodGet {
			a := s.e.Bearer(m, s.a.URL(path), s.op.AccessToken, "", "")
			if a.Status == http.StatusUnauthorized || a.Status == http.StatusForbidden {
				t.Errorf("GET %s at A with A's operator token: %d %s", path, a.Status, a.Body)
			}
		}
	}
}

// registrationPerSchool: registration answers from the school's own list of integrations: an
// integration A accepts and B does not is refused at B.
func registrationPerSchool(t *testing.T, s *sweep, _ route, path string) {
	body := `{"client_name":"Course Copilot","redirect_uris":["http://127.0.0.1:4567/copilot/callback"]}`
	a := s.e.Bearer(http.MethodPost, s.a.URL(path), "", "application/json", body)
	if a.Status != http.StatusCreated {
		t.Fatalf("registration at A: %d %s", a.Status, a.Body)
	}
	b := s.e.Bearer(http.MethodPost, s.b.URL(path), "", "application/json", body)
	var out struct {
		ClientID string `json:"client_id"`
	}
	if b.Status != http.StatusBadRequest || (b.JSON(&out) && out.ClientID != "") {
		t.Errorf("registration at B of an integration only A accepts: %d %s", b.Status, b.Body)
	}
}

// noSchoolData: the internal probes answer without naming any school.
func noSchoolData(t *testing.T, s *sweep, rt route, path string) {
	for _, m := range rt.methods {
		r := s.e.Send(m, s.e.InternalURL+path, nil)
		if r.Status != http.StatusOK {
			t.Errorf("%s %s: %d", m, path, r.Status)
		}
		for _, sc := range s.e.Schools() {
			if strings.Contains(r.Body, sc.Origin) || strings.Contains(r.Body, sc.Name) {
				t.Errorf("%s %s names school %s", m, path, sc.Subdomain)
			}
		}
	}
}

// demoMailboxOnly: the mailbox page exists only where a mailbox is wired in (`proctor demo`);
// a server without one answers 404 there.
func demoMailboxOnly(t *testing.T, s *sweep, rt route, path string) {
	for _, p := range []string{path, path + "/messages.json"} {
		if r := s.e.Send(http.MethodGet, s.e.InternalURL+p, nil); r.Status != http.StatusNotFound {
			t.Errorf("GET %s without a mailbox: %d", p, r.Status)
		}
	}
}

// introspectAcrossSchools: A's token introspected for B is inactive; for A it is active; without
// the API key nothing is answered.
func introspectAcrossSchools(t *testing.T, s *sweep, _ route, path string) {
	if _, in := s.e.Introspect(s.b, s.member.AccessToken); in.Active {
		t.Errorf("A's token introspected for B: %+v, want inactive", in)
	}
	if _, in := s.e.Introspect(s.a, s.member.AccessToken); !in.Active || in.SchoolID != s.a.SchoolID {
		t.Errorf("A's token introspected for A: %+v, want active", in)
	}
	r := s.e.Send(http.MethodPost, s.e.InternalURL+path, url.Values{"token": {s.member.AccessToken}, "school_id": {s.a.SchoolIDString()}})
	if r.Status != http.StatusUnauthorized {
		t.Errorf("introspection without the API key: %d", r.Status)
	}
	var in resource.Introspection
	if json.Unmarshal([]byte(r.Body), &in) == nil && in.Active {
		t.Error("introspection without the API key answered active")
	}
	if path != resource.IntrospectPath {
		t.Errorf("introspection path %q", path)
	}
}

// apiKeyRequired: the route answers only with the internal API key.
func apiKeyRequired(t *testing.T, s *sweep, rt route, path string) {
	for _, m := range rt.methods {
		for _, key := range []string{"", "wrong-" + s.e.APIKey, s.member.AccessToken} {
			hdr := []string{}
			if key != "" {
				hdr = []string{"Authorization", "Bearer " + key}
			}
			if r := s.e.Send(m, s.e.InternalURL+path, nil, hdr...); r.Status != http.StatusUnauthorized {
				t.Errorf("%s %s with key %.12q...: %d, want 401", m, path, key, r.Status)
			}
		}
		if r := s.e.Send(m, s.e.InternalURL+path, nil, "Authorization", "Bearer "+s.e.APIKey); r.Status != http.StatusOK {
			t.Errorf("%s %s with the API key: %d", m, path, r.Status)
		}
	}
}

// TestSchoolIsolationSweepCoversTheDocumentedRoutes: every route named in the route lists of the
// packages' documentation (server, authz, login, admin, discovery, operator) is among
// the swept routes, so the documentation and the sweep cannot drift apart unnoticed.
func TestSchoolIsolationSweepCoversTheDocumentedRoutes(t *testing.T) {
	e := newEnv(t, "sqlite")
	var paths []string
	public, _ := sweptRoutes(t, e)
	for _, rt := range public {
		paths = append(paths, rt.path)
	}
	documented := []string{
		endpoint.Authorize, endpoint.Token, endpoint.Revoke, endpoint.Userinfo, endpoint.Register, endpoint.JWKS,
		login.LoginPath, login.DonePath, login.LogoutPath, login.FactorPath, admin.AppsPath, admin.NewAppPath, admin.MembersPath, admin.EventsPath,
		mfa.SecurityPath, mfa.TOTPPath, mfa.RemoveTOTPPath, mfa.RecoveryCodesPath,
		endpoint.MemberGraphQL, endpoint.MCP, "/openapi.json", "/auth.md", "/llms.txt", "/pricing.md",
		"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration", endpoint.ProtectedResourceMetadata,
	}
	for _, p := range documented {
		if !slices.Contains(paths, p) {
			t.Errorf("documented route %s is not among the swept routes", p)
		}
	}
}
