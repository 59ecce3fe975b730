package passkey

import (
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/factor"
	"github.com/proctorhq/proctor/i18n"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/templates"
)

// notices are the sentences a finished form's redirect names with ?done=.
var notices = map[string]string{
	"added":   "passkey.notice.added",
	"renamed": "passkey.notice.renamed",
	"removed": "passkey.notice.removed",
}

// memberPage runs fn for a signed-in member of the request's school (login.MemberPage):
// without a session a POST goes to sign in and then to the list. A POST without the session's
// CSRF token is refused with the list and a message.
func (h *Handler) memberPage(fn login.VisitPage) http.Handler {
	return h.login.MemberPage(AccountPath, func(w http.ResponseWriter, r *http.Request, v login.Visit, status int, msg string) error {
		return h.showList(w, r, v, status, templates.PasskeysPage{Message: msg})
	}, fn)
}

// listPage shows the member's passkeys, with the sentence of a form that just finished.
func (h *Handler) listPage(w http.ResponseWriter, r *http.Request, v login.Visit) error {
	return h.showList(w, r, v, http.StatusOK, templates.PasskeysPage{Notice: i18n.FromContext(r.Context()).NoticeText(notices, r.URL.Query().Get("done"))})
}

// showList fills in the member's passkeys and writes the list page.
func (h *Handler) showList(w http.ResponseWriter, r *http.Request, v login.Visit, status int, page templates.PasskeysPage) error {
	loc := i18n.FromContext(r.Context())
	keys, err := h.store.ListPasskeys(r.Context(), v.Session.Member.ID)
	if err != nil {
		return fmt.Errorf("passkey: list: %w", err)
	}
	_, available := relyingParty(v.School)
	page.School, page.MemberName, page.MemberEmail = v.School.Name, v.Session.Member.Name, v.Session.Member.Email
	page.CSRFToken, page.Available, page.NeedPassword, page.MaxName = h.login.CSRFToken(v.Session), available, !h.login.FactorFresh(v.Session), maxNameRunes
	page.BeginURL, page.FinishURL, page.RenameURL, page.RemoveURL = RegisterBeginPath, RegisterFinishPath, RenamePath, RemovePath
	never := loc.Text("account.never")
	for _, p := range keys {
		kind := loc.Text("passkey.device_only")
		if p.BackupEligible {
			kind = loc.Text("passkey.synced")
		}
		page.Passkeys = append(page.Passkeys, templates.PasskeyItem{
			ID: p.ID, Name: p.Name, Kind: kind, CreatedAt: loc.DateTimeOr(p.CreatedAt, never), LastUsed: loc.DateTimeOr(p.LastUsedAt, never),
		})
	}
	if status == http.StatusTooManyRequests {
		login.RetryCurrentPassword(w)
	}
	h.login.WritePage(w, r, status, Policy, func(out io.Writer) error { return h.tpl.Passkeys(r.Context(), out, page) })
	return nil
}

// registerBegin answers the options of a new passkey for the signed-in member: a discoverable
// credential with user verification, none of the member's passkeys here again (the browser
// skips an authenticator that holds one), no attestation.
func (h *Handler) registerBegin(w http.ResponseWriter, r *http.Request, v login.Visit) error {
	wa, ok := relyingParty(v.School)
	if !ok {
		return errUnavailable
	}
	keys, err := h.store.ListPasskeys(r.Context(), v.Session.Member.ID)
	if err != nil {
		return fmt.Errorf("passkey: list: %w", err)
	}
	if len(keys) >= maxPasskeys {
		return errTooMany
	}
	u := h.newUser(v.School.SchoolID, v.Session.Member, keys)
	creation, sd, err := wa.BeginRegistration(u,
		webauthn.WithExclusions(webauthn.Credentials(u.credentials).CredentialDescriptors()),
		webauthn.WithConveyancePreference(protocol.PreferNoAttestation))
	if err != nil {
		return fmt.Errorf("passkey: begin registration: %w", err)
	}
	if err := h.startCeremony(w, r, factor.ChallengeRegister, v.Session.Member.ID, sd); err != nil {
		return err
	}
	writeJSON(w, creation)
	return nil
}

// registerFinish checks the browser's new credential against the ceremony the member began and
// stores it.
func (h *Handler) registerFinish(w http.ResponseWriter, r *http.Request, v login.Visit) error {
	ctx := r.Context()
	wa, ok := relyingParty(v.School)
	if !ok {
		return errUnavailable
	}
	m := v.Session.Member
	c, sd, err := h.finishCeremony(w, r, factor.ChallengeRegister)
	if errors.Is(err, errNoCeremony) {
		return refused(errNotCompleted, err)
	}
	if err != nil {
		return err
	}
	if c.MemberID != m.ID {
		// Begun by another member in this browser (who signed out, and this one in, since).
		return refused(errNotCompleted, errors.New("passkey: the ceremony was begun by another member"))
	}
	parsed, err := parseCreation(r.PostForm)
	if err != nil {
		return refused(errNotCompleted, err)
	}
	cred, err := wa.CreateCredential(h.newUser(v.School.SchoolID, m, nil), sd, parsed)
	if err != nil {
		return refused(errNotCompleted, err)
	}
	name := cleanName(r.PostForm.Get("name"))
	if name == "" {
		name = "Passkey"
	}
	_, err = h.store.CreatePasskey(ctx, factor.Passkey{
		MemberID: m.ID, CredentialID: cred.ID, PublicKey: cred.PublicKey, AttestationFormat: cred.AttestationFormat,
		SignCount: cred.Authenticator.SignCount, AAGUID: cred.Authenticator.AAGUID, Transports: cleanTransports(cred.Transport),
		BackupEligible: cred.Flags.BackupEligible, BackupState: cred.Flags.BackupState, Name: name, CreatedAt: h.now(),
	})
	if errors.Is(err, storage.ErrAlreadyExists) {
		return refused(errRegistered, err)
	}
	if err != nil {
		return fmt.Errorf("passkey: store: %w", err)
	}
	h.log.InfoContext(ctx, "passkey added", v.LogArgs(ctx, "backup_eligible", cred.Flags.BackupEligible)...)
	h.note(r, m.ID, audit.KindFactorEnrolled, audit.ResultSuccess)
	writeJSON(w, redirect{Redirect: AccountPath + "?done=added"})
	return nil
}

// rename sets a passkey's name.
func (h *Handler) rename(w http.ResponseWriter, r *http.Request, v login.Visit) error {
	id, err := readID(r.PostForm)
	if err != nil {
		return h.showList(w, r, v, http.StatusBadRequest, templates.PasskeysPage{Message: i18n.FromContext(r.Context()).Text("passkey.gone")})
	}
	name := cleanName(r.PostForm.Get("name"))
	if name == "" {
		return h.showList(w, r, v, http.StatusOK, templates.PasskeysPage{Message: i18n.FromContext(r.Context()).Text("passkey.name_empty")})
	}
	err = h.store.RenamePasskey(r.Context(), v.Session.Member.ID, id, name)
	if errors.Is(err, storage.ErrNotFound) {
		return h.showList(w, r, v, http.StatusNotFound, templates.PasskeysPage{Message: i18n.FromContext(r.Context()).Text("passkey.gone")})
	}
	if err != nil {
		return fmt.Errorf("passkey: rename: %w", err)
	}
	login.SeeOther(w, AccountPath+"?done=renamed")
	return nil
}

// remove deletes a passkey once the member has given their current password, or entered a
// second factor within login.StepUpWindow: a session alone (a browser left signed in) must
// not be enough to take away a factor.
func (h *Handler) remove(w http.ResponseWriter, r *http.Request, v login.Visit) error {
	ctx := r.Context()
	m := v.Session.Member
	id, err := readID(r.PostForm)
	if err != nil {
		return h.showList(w, r, v, http.StatusBadRequest, templates.PasskeysPage{Message: i18n.FromContext(r.Context()).Text("passkey.gone")})
	}
	// A second factor entered in the last minutes stands in for the password.
	if !h.login.FactorFresh(v.Session) {
		_, ok, err := h.login.ConfirmCurrentPassword(ctx, v, r.PostForm.Get("current_password"), "passkey removal", func(status int, msg string) error {
			return h.showList(w, r, v, status, templates.PasskeysPage{Message: msg})
		})
		if !ok {
			return err
		}
	}
	err = h.store.DeletePasskey(ctx, m.ID, id)
	if errors.Is(err, storage.ErrNotFound) {
		return h.showList(w, r, v, http.StatusNotFound, templates.PasskeysPage{Message: i18n.FromContext(r.Context()).Text("passkey.gone")})
	}
	if err != nil {
		return fmt.Errorf("passkey: remove: %w", err)
	}
	h.log.InfoContext(ctx, "passkey removed", v.LogArgs(ctx)...)
	h.note(r, m.ID, audit.KindFactorRemoved, audit.ResultSuccess)
	login.SeeOther(w, AccountPath+"?done=removed")
	return nil
}
