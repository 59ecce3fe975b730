package authz

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/ory/fosite"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/client"
	"github.com/proctorhq/proctor/i18n"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/scope"
	"github.com/proctorhq/proctor/storage"
)

// codeChallengePattern is RFC 7636 section 4.2: the base64url SHA-256 of the verifier is 43
// characters; the grammar allows 43 to 128 unreserved characters.
var codeChallengePattern = regexp.MustCompile(`^[A-Za-z0-9._~-]{43,128}$`)

// authorize handles GET (show consent, after login) and POST (the consent decision) of the
// authorization endpoint. Every check that can fail is made before the member is asked
// anything, so a consent screen is only shown for a request that would succeed.
func (h *Handler) authorize(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	t, ok := requestSchool(w, r)
	if !ok {
		return
	}
	// A malformed query or body is fosite's to report, below; what could be parsed is checked.
	_ = r.ParseForm()
	if len(r.Form["client_id"]) > 1 || len(r.Form["redirect_uri"]) > 1 {
		// Which client, or which of its URIs, is meant is unknown: an error page, never a
		// redirect (RFC 6749 sections 3.1 and 4.1.2.1).
		h.authorizeError(w, r, t, nil, errRepeated(repeatedParam(url.Values{
			"client_id": r.Form["client_id"], "redirect_uri": r.Form["redirect_uri"]})))
		return
	}
	if raw := r.Form.Get("redirect_uri"); raw != "" {
		// Before fosite, whose loopback matching is looser than exact (see redirectRegistered).
		// An unknown client is left to fosite, which shows the same page.
		if c, err := h.clients.resolve(ctx, t, r.Form.Get("client_id")); err == nil && !redirectRegistered(c.RedirectURIs, raw) {
			h.authorizeError(w, r, t, nil, fosite.ErrInvalidRequest.WithHint("The redirect_uri is not one registered for this client."))
			return
		}
	}
	ar, err := h.p.NewAuthorizeRequest(ctx, r)
	if name := repeatedParam(oauthParams(r.Form)); err == nil && name != "" {
		// The client and redirect URI are single and valid by now: the error is redirected.
		err = errRepeated(name)
	}
	if err == nil {
		err = checkAuthorizeRequest(t, ar)
	}
	if err != nil {
		h.authorizeError(w, r, t, ar, err)
		return
	}

	sess, err := h.login.Load(r)
	if err != nil && !errors.Is(err, login.ErrNoSession) {
		h.logError(ctx, "authorize: session lookup failed", err)
		h.login.RenderError(w, r, http.StatusServiceUnavailable, viewSignInUnavailable)
		return
	}
	if err != nil || needsFreshLogin(ar.GetRequestForm(), sess, h.now()) {
		h.login.RedirectToLogin(w, withoutParam(r, "prompt"))
		return
	}
	if msg := whyNotAllowed(ctx, t, sess.Roles, ar.GetRequestedScopes()); msg != "" {
		// The member is known but may not grant this: a page says why, and the client learns
		// access_denied if the member goes back to it.
		h.login.RenderError(w, r, http.StatusForbidden, login.ErrorView{
			TitleKey: "errors.authorize.not_allowed_title",
			Message:  msg,
		})
		return
	}

	if asksOperatorScope(ar.GetRequestedScopes()) {
		// security.operator_mfa: an operator may have to enrol a second factor, or enter theirs
		// again (step-up), before granting operator scopes; the redirect comes back here.
		if ok, err := h.login.OperatorFactorGate(w, r, sess, true); err != nil || !ok {
			if err != nil {
				h.logError(ctx, "authorize: second factor lookup failed", err)
				h.login.RenderError(w, r, http.StatusServiceUnavailable, viewSignInUnavailable)
			}
			return
		}
	}

	if r.Method == http.MethodGet {
		h.login.RenderConsent(w, r, sess, consentView(ar, r))
		return
	}
	if !h.login.CheckCSRF(r, sess) {
		h.login.RenderError(w, r, http.StatusForbidden, viewConsentExpired)
		return
	}
	switch r.PostForm.Get("decision") {
	case "approve":
		h.issueCode(w, r, t, ar, sess)
	case "deny":
		h.audit.Note(r.Context(), h.consentEvent(r, ar, sess, audit.KindConsentDenied))
		h.authorizeError(w, r, t, ar, fosite.ErrAccessDenied.WithHint("The member denied the request."))
	default:
		h.authorizeError(w, r, t, ar, fosite.ErrInvalidRequest.WithHint("The decision must be approve or deny."))
	}
}

// oauthParams is the authorization request's parameters without the consent form's own fields,
// which the consent decision checks itself (a repeated csrf_token is a failed CSRF check, 403,
// like any other wrong token).
func oauthParams(form url.Values) url.Values {
	out := make(url.Values, len(form))
	for k, v := range form {
		if k != login.CSRFField && k != "decision" {
			out[k] = v
		}
	}
	return out
}

// checkAuthorizeRequest applies the spec's rules fosite does not: PKCE with S256 only, the
// RFC 8707 resource, nonce, query response mode and no silent authorization.
func checkAuthorizeRequest(t *school.School, ar fosite.AuthorizeRequester) error {
	form := ar.GetRequestForm()
	if m := form.Get("response_mode"); m != "" && m != "query" {
		return fosite.ErrInvalidRequest.WithHint("Only response_mode=query is supported.")
	}
	if form.Get("code_challenge_method") != "S256" {
		return fosite.ErrInvalidRequest.WithHint("PKCE is required with code_challenge_method=S256.")
	}
	if !codeChallengePattern.MatchString(form.Get("code_challenge")) {
		return fosite.ErrInvalidRequest.WithHint("The code_challenge is missing or malformed.")
	}
	if len(form["resource"]) != 1 {
		return errInvalidTarget.WithHint("Exactly one resource parameter is required: the school's origin.")
	}
	if err := ParseResource(t, form.Get("resource")); err != nil {
		return errInvalidTarget.WithHint(err.Error() + ".")
	}
	if n := form.Get("nonce"); n != "" && (len(n) < fosite.MinParameterEntropy || len(n) > 512 || !printable(n)) {
		return fosite.ErrInvalidRequest.WithHint("The nonce must be 8 to 512 printable characters.")
	}
	for _, p := range strings.Fields(form.Get("prompt")) {
		if p == "none" {
			// Consent is shown on every authorization (spec), so nothing can be granted silently.
			return fosite.ErrConsentRequired.WithHint("Consent is required for every authorization.")
		}
	}
	return nil
}

func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// needsFreshLogin honours prompt=login and max_age (OpenID Connect Core section 3.1.2.1): the
// member signs in again; the login page returns here without the prompt.
func needsFreshLogin(form url.Values, s login.Session, now time.Time) bool {
	for _, p := range strings.Fields(form.Get("prompt")) {
		if p == "login" {
			return true
		}
	}
	if v := form.Get("max_age"); v != "" {
		if secs, err := strconv.ParseInt(v, 10, 64); err == nil && secs >= 0 && now.Sub(s.CreatedAt) > time.Duration(secs)*time.Second {
			return true
		}
	}
	return false
}

// withoutParam returns a copy of r whose query lacks name.
func withoutParam(r *http.Request, name string) *http.Request {
	r2 := r.Clone(r.Context())
	q := r2.URL.Query()
	q.Del(name)
	r2.URL.RawQuery = q.Encode()
	return r2
}

// Error pages of the authorization endpoint that every request shares.
var (
	viewSignInUnavailable = login.ErrorView{TitleKey: "errors.authorize.unavailable_title", MessageKey: "errors.authorize.unavailable_message"}
	viewConsentExpired    = login.ErrorView{TitleKey: "errors.authorize.expired_title", MessageKey: "errors.authorize.expired_message"}
)

// whyNotAllowed applies who may grant what (spec, Registration rule 5 and Authentication 11): a
// member with no role at the school cannot authorize at all; operator scopes need an owner or
// admin. It returns "" when the member may proceed, or the reason in the language of ctx.
func whyNotAllowed(ctx context.Context, t *school.School, roles []storage.Role, scopes []string) string {
	if len(roles) == 0 {
		return i18n.FromContext(ctx).Text("errors.authorize.no_role", "School", t.Name)
	}
	if !asksOperatorScope(scopes) {
		return ""
	}
	for _, r := range roles {
		if r.IsOperator() {
			return ""
		}
	}
	return i18n.FromContext(ctx).Text("errors.authorize.operator_only", "School", t.Name)
}

// asksOperatorScope reports whether any of scopes is an operator scope.
func asksOperatorScope(scopes []string) bool {
	for _, s := range scopes {
		if sc, ok := scope.Lookup(s); ok && sc.Audience == scope.Operator {
			return true
		}
	}
	return false
}

// consentView describes the request for the consent page.
func consentView(ar fosite.AuthorizeRequester, r *http.Request) login.ConsentView {
	v := login.ConsentView{FormAction: r.URL.RequestURI()}
	if c, ok := ar.GetClient().(*namedClient); ok {
		v.ClientName = c.name
		v.LoopbackOnly = client.LoopbackOnly(c.GetRedirectURIs())
		if IsMetadataDocumentURL(c.GetID()) {
			// The document's host is the only identity such a client has: show it prominently.
			if u, err := url.Parse(c.GetID()); err == nil {
				v.ClientIDHost = u.Host
			}
		}
	}
	if u := ar.GetRedirectURI(); u != nil {
		v.RedirectHost = u.Host
	}
	for _, s := range ar.GetRequestedScopes() {
		if sc, ok := scope.Lookup(s); ok {
			v.Scopes = append(v.Scopes, sc)
		}
	}
	return v
}

// issueCode grants what was asked and redirects with code, state and iss.
func (h *Handler) issueCode(w http.ResponseWriter, r *http.Request, t *school.School, ar fosite.AuthorizeRequester, s login.Session) {
	ctx := r.Context()
	for _, sc := range ar.GetRequestedScopes() {
		ar.GrantScope(sc)
	}
	// Every token is bound to the school's origin; the exact resource is kept for the token
	// request's comparison.
	ar.GrantAudience(t.Origin)

	sess := newSession()
	sess.MemberID = s.Member.ID
	sess.SchoolID = t.SchoolID
	sess.Subdomain = t.Subdomain
	sess.Resource = ar.GetRequestForm().Get("resource")
	sub := strconv.FormatInt(s.Member.ID, 10)
	sess.Subject = sub
	sess.Claims.Subject = sub
	sess.Claims.AuthTime = s.CreatedAt.UTC().Truncate(time.Second)
	// How the member signed in (RFC 8176): ["pwd"], or ["pwd", "otp", "mfa"] after a second
	// factor. It is kept with the grant, so a refreshed ID token and UserInfo repeat it.
	sess.Claims.AuthenticationMethodsReferences = s.AMR
	sess.Claims.RequestedAt = ar.GetRequestedAt()
	claims := memberClaims(t, s.Member, s.Roles, ar.GetGrantedScopes())
	delete(claims, "sub")
	sess.Claims.Extra = claims

	resp, err := h.p.NewAuthorizeResponse(ctx, ar, sess)
	if err == nil {
		// The approval is recorded with the code, in the same statement: no code goes out
		// without its record.
		err = h.audit.RecordWith(ctx, h.consentEvent(r, ar, s, audit.KindConsentApproved), func(ev *audit.Event) error {
			return h.adapter.storeCodes(ctx, ev)
		})
	}
	if err != nil {
		h.authorizeError(w, r, t, ar, err)
		return
	}
	resp.AddParameter("iss", t.Origin) // RFC 9207
	h.p.WriteAuthorizeResponse(ctx, w, ar, resp)
}

// consentEvent is the security event of the member's decision on the client's request for its
// scopes.
func (h *Handler) consentEvent(r *http.Request, ar fosite.AuthorizeRequester, s login.Session, kind audit.Kind) audit.Event {
	e := audit.MemberEvent(r, s.Member.ID, kind, "")
	e.At, e.ClientID, e.Scopes = h.now(), ar.GetClient().GetID(), []string(ar.GetRequestedScopes())
	return e
}

// authorizeError shows an HTML page while the client or its redirect URI is unknown (never
// redirecting to an unvalidated URI), and otherwise redirects the error to the client with
// state and iss.
func (h *Handler) authorizeError(w http.ResponseWriter, r *http.Request, t *school.School, ar fosite.AuthorizeRequester, err error) {
	e := normalize(err, authorizeCodes)
	h.spanError(r.Context(), e)
	if e.CodeField >= 500 || errors.Is(err, storage.ErrUnavailable) {
		h.logError(r.Context(), "authorize failed", err)
	}
	if ar == nil || !ar.IsRedirectURIValid() || ar.GetRedirectURI() == nil {
		msg := e.GetDescription()
		// A client that exists but cannot be used (a metadata document that failed to fetch
		// or validate) says why in plain words; the cause stays in the log.
		var ce *ClientError
		if errors.As(err, &ce) {
			msg = ce.Description
		}
		h.login.RenderError(w, r, e.CodeField, login.ErrorView{
			TitleKey: "errors.authorize.failed_title",
			Message:  msg,
		})
		return
	}
	u := *ar.GetRedirectURI()
	u.Fragment = ""
	q := u.Query()
	q.Set("error", e.ErrorField)
	if d := e.GetDescription(); d != "" {
		q.Set("error_description", d)
	}
	if st := ar.GetState(); st != "" {
		q.Set("state", st)
	}
	q.Set("iss", t.Origin)
	u.RawQuery = q.Encode()
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, u.String(), http.StatusSeeOther)
}
