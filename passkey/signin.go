package passkey

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/factor"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/templates"
)

// signInPage shows the passwordless sign-in (through login.SignInPage: a member who is already
// signed in goes on to return_to).
func (h *Handler) signInPage(w http.ResponseWriter, r *http.Request, t *school.School, returnTo string) error {
	_, available := relyingParty(t)
	page := templates.PasskeySignInPage{
		School: t.Name, CSRFToken: h.login.FormToken(w, r), ReturnTo: returnTo, Available: available,
		BeginURL: SignInBeginPath, FinishURL: SignInFinishPath, PasswordURL: login.WithReturnTo(login.LoginPath, returnTo),
	}
	h.login.WritePage(w, r, http.StatusOK, Policy, func(out io.Writer) error { return h.tpl.PasskeySignIn(r.Context(), out, page) })
	return nil
}

// signInBegin answers the options of a passwordless sign-in: no credentials listed (the browser
// offers the passkeys it holds for this host), user verification required.
func (h *Handler) signInBegin(w http.ResponseWriter, r *http.Request, t *school.School) error {
	wa, ok := relyingParty(t)
	if !ok {
		return errUnavailable
	}
	assertion, sd, err := wa.BeginDiscoverableLogin(webauthn.WithUserVerification(protocol.VerificationRequired))
	if err != nil {
		return fmt.Errorf("passkey: begin sign-in: %w", err)
	}
	if err := h.startCeremony(w, r, factor.ChallengeSignIn, 0, sd); err != nil {
		return err
	}
	writeJSON(w, assertion)
	return nil
}

// signInFinish checks the assertion and signs its member in. The attempt is charged to the
// client address's sign-in budget first and given back only when it succeeds.
func (h *Handler) signInFinish(w http.ResponseWriter, r *http.Request, t *school.School) error {
	ctx := r.Context()
	wa, ok := relyingParty(t)
	if !ok {
		return errUnavailable
	}
	info := edge.FromContext(ctx)
	key := login.AddressKey(info.ClientAddr)
	taken, err := h.limiter.Take(ctx, key, h.addressLimit)
	if err != nil {
		return fmt.Errorf("passkey: rate limiter: %w", err)
	}
	if !taken {
		h.note(r, 0, audit.KindSignIn, audit.ResultThrottled)
		login.SetRetryAfter(w, h.addressLimit.Window)
		return errLimited
	}
	p, m, err := h.assert(w, r, t, wa, factor.ChallengeSignIn, 0)
	if err != nil {
		var je *jsonError
		if errors.As(err, &je) && p.MemberID != 0 {
			h.note(r, p.MemberID, audit.KindFactorUsed, audit.ResultFailure)
		}
		return err
	}
	login.Refund(ctx, h.limiter, h.log, key)
	// A user-verified passkey is a second factor in itself: the session counts as one that
	// entered its factor now (step-up for operator scopes is satisfied).
	if err := h.login.StartSessionWith(ctx, w, r, m, SignInAMR(p), h.now()); err != nil {
		return err
	}
	h.log.InfoContext(ctx, "signed in with a passkey", "request_id", info.ID, "school_id", t.SchoolID, "member_id", m.ID, "amr", SignInAMR(p))
	h.note(r, m.ID, audit.KindSignIn, audit.ResultSuccess)
	h.note(r, m.ID, audit.KindFactorUsed, audit.ResultSuccess)
	writeJSON(w, redirect{Redirect: login.SafeReturnTo(r.PostForm.Get("return_to"))})
	return nil
}

// SignInAMR is the RFC 8176 methods of a passwordless sign-in with p: the key ("hwk" or "swk"),
// "user" for the user verification the ceremony required (the authenticator's PIN or biometric
// check, which RFC 8176 has no more precise value for when the relying party cannot tell which),
// and "mfa", since a user-verified passkey is something held and something known or been, a
// multi-factor authenticator in NIST SP 800-63B's terms (section 5.1.9).
func SignInAMR(p factor.Passkey) []string {
	return []string{p.AMR(), "user", factor.AMRMultiFactor}
}

// assert consumes the request's ceremony of purpose and verifies its assertion: the credential
// is a passkey of this school, of memberID when the ceremony was for one, its user handle the
// member's, the signature good over this school's relying party id and origin and the
// ceremony's challenge, the user verified, and the signature counter moving forward. It returns
// the passkey (with MemberID set as soon as it is known, for the caller's record of a failure)
// and its member. Every refusal is errRefused, its reason logged.
func (h *Handler) assert(w http.ResponseWriter, r *http.Request, t *school.School, wa *webauthn.WebAuthn, purpose factor.ChallengePurpose, memberID int64) (factor.Passkey, storage.Member, error) {
	ctx := r.Context()
	c, sd, err := h.finishCeremony(w, r, purpose)
	if errors.Is(err, errNoCeremony) {
		return factor.Passkey{}, storage.Member{}, refused(errRefused, err)
	}
	if err != nil {
		return factor.Passkey{}, storage.Member{}, err
	}
	if c.MemberID != memberID {
		return factor.Passkey{}, storage.Member{}, refused(errRefused, errors.New("passkey: the ceremony was begun for another member"))
	}
	parsed, err := parseAssertion(r.PostForm)
	if err != nil {
		return factor.Passkey{}, storage.Member{}, refused(errRefused, err)
	}
	var (
		p      factor.Passkey
		m      storage.Member
		lookup error // a store failure, as opposed to a refusal
	)
	find := func(rawID, userHandle []byte) (webauthn.User, error) {
		var err error
		if p, err = h.store.PasskeyByCredentialID(ctx, rawID); err != nil {
			if !errors.Is(err, storage.ErrNotFound) {
				lookup = err
			}
			return nil, errors.New("passkey: no such credential at this school")
		}
		if memberID != 0 && p.MemberID != memberID {
			return nil, errors.New("passkey: the credential is another member's")
		}
		if m, err = h.store.GetMember(ctx, p.MemberID); err != nil {
			lookup = err
			return nil, errors.New("passkey: member not read")
		}
		keys := []factor.Passkey{p}
		if memberID != 0 {
			// The ceremony listed every passkey of the member; the library checks that the
			// user holds them all.
			if keys, err = h.store.ListPasskeys(ctx, memberID); err != nil {
				lookup = err
				return nil, errors.New("passkey: passkeys not read")
			}
		}
		u := h.newUser(t.SchoolID, m, keys)
		if userHandle != nil && subtle.ConstantTimeCompare(userHandle, u.handle) != 1 {
			return nil, errors.New("passkey: the user handle is not the credential's member's")
		}
		return u, nil
	}
	var cred *webauthn.Credential
	if memberID == 0 {
		_, cred, err = wa.ValidatePasskeyLogin(find, sd, parsed)
	} else {
		var u webauthn.User
		if u, err = find(parsed.RawID, parsed.Response.UserHandle); err == nil {
			cred, err = wa.ValidateLogin(u, sd, parsed)
		}
	}
	if lookup != nil {
		return p, storage.Member{}, fmt.Errorf("passkey: look up credential: %w", lookup)
	}
	if err != nil {
		return p, storage.Member{}, refused(errRefused, fmt.Errorf("passkey: assertion refused: %w", describe(err)))
	}
	if cred.Authenticator.CloneWarning {
		// The counter went back (or stood still) on an authenticator that counts: its key may
		// have been copied. The assertion is refused, and the passkey stays as it was.
		h.log.WarnContext(ctx, "passkey refused: signature counter did not increase", "request_id", edge.FromContext(ctx).ID,
			"school_id", t.SchoolID, "member_id", p.MemberID, "passkey_id", p.ID, "stored", p.SignCount,
			"presented", parsed.Response.AuthenticatorData.Counter)
		return p, storage.Member{}, refused(errRefused, factor.ErrCounterRegressed)
	}
	err = h.store.UsePasskey(ctx, p.ID, cred.Authenticator.SignCount, cred.Flags.BackupState, h.now())
	if errors.Is(err, factor.ErrCounterRegressed) {
		// A concurrent use of the same counter value came first.
		h.log.WarnContext(ctx, "passkey refused: signature counter did not increase", "request_id", edge.FromContext(ctx).ID,
			"school_id", t.SchoolID, "member_id", p.MemberID, "passkey_id", p.ID, "presented", cred.Authenticator.SignCount)
		return p, storage.Member{}, refused(errRefused, err)
	}
	if errors.Is(err, storage.ErrNotFound) {
		return p, storage.Member{}, refused(errRefused, err) // removed meanwhile
	}
	if err != nil {
		return p, storage.Member{}, fmt.Errorf("passkey: record use: %w", err)
	}
	return p, m, nil
}

// describe adds the WebAuthn library's detail for the log.
func describe(err error) error {
	var pe *protocol.Error
	if errors.As(err, &pe) && pe.DevInfo != "" {
		return fmt.Errorf("%w (%s)", err, pe.DevInfo)
	}
	return err
}
