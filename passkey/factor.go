package passkey

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"

	"github.com/proctorhq/proctor/factor"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/templates"
)

// Paths of the passkey as the second sign-in step. consent's second-step page
// (login.FactorPath) links to FactorPagePath for a member with a passkey.
const (
	FactorPagePath   = "/login/factor/passkey"
	FactorBeginPath  = "/login/factor/passkey/begin"
	FactorFinishPath = "/login/factor/passkey/finish"
)

// factorChallenge reads the second step the request belongs to (login.Challenge: the
// pending sign-in after a password, or with step_up=1 the signed-in member asked again) and
// checks its CSRF token: the session's for a step-up, the sign-in form's double submit
// otherwise.
func (h *Handler) factorChallenge(r *http.Request, form url.Values) (login.FactorChallenge, error) {
	ch, ok, err := h.login.Challenge(r, form.Get("step_up") == "1", form.Get("return_to"))
	if err != nil {
		return ch, err
	}
	if !ok {
		return ch, errSignedOut
	}
	csrf := false
	if ch.StepUp {
		csrf = h.login.CheckCSRF(r, ch.Session)
	} else {
		csrf = h.login.CheckFormToken(r)
	}
	if !csrf {
		return ch, errExpired
	}
	return ch, nil
}

// factorPage shows the passkey step; without a second step in progress it sends the browser to
// sign in.
func (h *Handler) factorPage(w http.ResponseWriter, r *http.Request) error {
	t, err := school.FromContext(r.Context())
	if err != nil {
		return err
	}
	q := r.URL.Query()
	ch, ok, err := h.login.Challenge(r, q.Get("step_up") == "1", q.Get("return_to"))
	if err != nil {
		return err
	}
	if !ok {
		login.SeeOther(w, login.WithReturnTo(login.LoginPath, ch.ReturnTo))
		return nil
	}
	_, available := relyingParty(t)
	password := login.FactorPath
	if ch.StepUp {
		password += "?step_up=1"
	}
	page := templates.PasskeySignInPage{
		School: t.Name, ReturnTo: ch.ReturnTo, Available: available, StepUp: ch.StepUp,
		BeginURL: FactorBeginPath, FinishURL: FactorFinishPath,
		PasswordURL: login.WithReturnTo(password, ch.ReturnTo),
	}
	if ch.StepUp {
		page.CSRFToken = h.login.CSRFToken(ch.Session)
	} else {
		page.CSRFToken = h.login.FormToken(w, r)
	}
	h.login.WritePage(w, r, http.StatusOK, Policy, func(out io.Writer) error { return h.tpl.PasskeySignIn(r.Context(), out, page) })
	return nil
}

// factorStep is the second step the request belongs to (factorChallenge) and the relying
// party of school t, which has one where the step is offered at all.
func (h *Handler) factorStep(r *http.Request, t *school.School) (login.FactorChallenge, *webauthn.WebAuthn, error) {
	ch, err := h.factorChallenge(r, r.PostForm)
	if err != nil {
		return ch, nil, err
	}
	wa, ok := relyingParty(t)
	if !ok {
		return ch, nil, errUnavailable
	}
	return ch, wa, nil
}

// factorBegin answers the options of the second step: the member's passkeys at the school
// listed, user verification required.
func (h *Handler) factorBegin(w http.ResponseWriter, r *http.Request, t *school.School) error {
	ch, wa, err := h.factorStep(r, t)
	if err != nil {
		return err
	}
	keys, err := h.store.ListPasskeys(r.Context(), ch.MemberID)
	if err != nil {
		return fmt.Errorf("passkey: list: %w", err)
	}
	if len(keys) == 0 {
		return refused(errRefused, errors.New("passkey: the member has no passkey here"))
	}
	m, err := h.store.GetMember(r.Context(), ch.MemberID)
	if err != nil {
		return fmt.Errorf("passkey: get member: %w", err)
	}
	assertion, sd, err := wa.BeginLogin(h.newUser(t.SchoolID, m, keys), webauthn.WithUserVerification(protocol.VerificationRequired))
	if err != nil {
		return fmt.Errorf("passkey: begin second step: %w", err)
	}
	if err := h.startCeremony(w, r, factor.ChallengeFactor, ch.MemberID, sd); err != nil {
		return err
	}
	writeJSON(w, assertion)
	return nil
}

// factorFinish checks the assertion of the member the step is for, charged to their and the
// address's second-step budgets first, and ends the step as consent's code form does: a
// session with [pwd, hwk|swk, mfa] after a password, or a refreshed factor time for a step-up.
func (h *Handler) factorFinish(w http.ResponseWriter, r *http.Request, t *school.School) error {
	ctx := r.Context()
	ch, wa, err := h.factorStep(r, t)
	if err != nil {
		return err
	}
	detail := string(factor.KindPasskey)
	charged, err := h.login.TakeFactorAttempt(ctx, ch)
	if err != nil {
		return fmt.Errorf("passkey: rate limiter: %w", err)
	}
	if charged == nil {
		h.login.FactorThrottled(w, r, ch, detail)
		return errLimited
	}
	p, _, err := h.assert(w, r, t, wa, factor.ChallengeFactor, ch.MemberID)
	if err != nil {
		var je *jsonError
		if errors.As(err, &je) {
			h.login.FactorFailed(r, ch, detail)
		}
		return err
	}
	loc, err := h.login.CompleteFactor(w, r, ch, charged, factor.KindPasskey, detail, p.AMR())
	if err != nil {
		return err
	}
	writeJSON(w, redirect{Redirect: loc})
	return nil
}

// formJSONAny adapts a JSON endpoint whose token fn checks itself (the second step's is the
// session's or the sign-in form's): the form is read first.
func (h *Handler) formJSONAny(fn login.SchoolPage) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		err := func() error {
			t, err := school.FromContext(r.Context())
			if err != nil {
				return err
			}
			if err := r.ParseForm(); err != nil {
				return err
			}
			return fn(w, r, t)
		}()
		if err != nil {
			h.writeJSONError(w, r, err)
		}
	})
}
