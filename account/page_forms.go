package account

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/i18n"
	"github.com/proctorhq/proctor/login"
	mailqueue "github.com/proctorhq/proctor/mail"
	"github.com/proctorhq/proctor/password"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/templates"
)

// emailChangeLifetime is how long a confirmation link of a new address works (the mail says
// "in 24 hours").
const emailChangeLifetime = 24 * time.Hour

// errPasswordMoved stops a password change whose member's hash is no longer the one verified.
var errPasswordMoved = errors.New("account: the password changed since it was verified")

// updateProfile saves the member's name and picture address.
func (h *Handler) updateProfile(w http.ResponseWriter, r *http.Request, v login.Visit) error {
	ctx := r.Context()
	loc := i18n.FromContext(ctx)
	name := strings.TrimSpace(r.PostForm.Get("name"))
	picture := strings.TrimSpace(r.PostForm.Get("picture"))
	msg := profileNameProblem(loc, name)
	if msg == "" && !pictureAcceptable(picture) {
		msg = loc.Text("account.picture_invalid")
	}
	if msg != "" {
		return h.showAccount(w, r, v, http.StatusOK, templates.AccountPage{Name: name, Picture: picture, ProfileMessage: msg})
	}
	err := storage.InTx(ctx, h.svc.store, func(ctx context.Context) error {
		if _, err := h.svc.store.UpdateMember(ctx, v.Session.Member.ID, func(m storage.Member) (storage.Member, error) {
			m.Name, m.AvatarURL = name, picture
			return m, nil
		}); err != nil {
			return fmt.Errorf("account: update profile: %w", err)
		}
		return h.svc.audit.Record(ctx, h.requestEvent(r, v.Session.Member.ID, audit.KindProfileChanged, ""))
	})
	if err != nil {
		return err
	}
	h.svc.log.InfoContext(ctx, "profile changed", v.LogArgs(ctx)...)
	accountDone(w, "profile")
	return nil
}

// profileNameProblem says what is wrong with a trimmed name, or "".
func profileNameProblem(loc *i18n.Localizer, name string) string {
	switch {
	case name == "":
		return loc.Text("account.name_required")
	case !utf8.ValidString(name):
		return loc.Text("account.name_unprintable")
	case utf8.RuneCountInString(name) > profileMaxName:
		return loc.Text("account.name_too_long")
	}
	for _, c := range name {
		// unicode.IsPrint admits letters, marks, numbers, punctuation, symbols and the ASCII
		// space: no control characters, no line breaks, no invisible format characters such as
		// bidirectional overrides, which could make a name read as something else.
		if !unicode.IsPrint(c) {
			return loc.Text("account.name_unprintable")
		}
	}
	return ""
}

// pictureAcceptable reports whether p may be saved as the picture address: empty, or an
// absolute https URL of printable ASCII without credentials, within the bound.
func pictureAcceptable(p string) bool {
	if p == "" {
		return true
	}
	if len(p) > profileMaxPicture {
		return false
	}
	for i := 0; i < len(p); i++ {
		if p[i] <= ' ' || p[i] >= 0x7f {
			return false
		}
	}
	u, err := url.Parse(p)
	return err == nil && u.Scheme == "https" && u.Host != "" && u.User == nil && u.Opaque == ""
}

// changePassword sets a new password after checking the current one. The new password ends
// every other session of the member at every school and every outstanding reset link; with
// sign_out_apps it also revokes every application's tokens.
func (h *Handler) changePassword(w http.ResponseWriter, r *http.Request, v login.Visit) error {
	ctx := r.Context()
	loc := i18n.FromContext(ctx)
	m := v.Session.Member
	current, next, repeat := r.PostForm.Get("current_password"), r.PostForm.Get("new_password"), r.PostForm.Get("repeat_password")
	signOutApps := r.PostForm.Get("sign_out_apps") == "yes"
	refuse := func(status int, msg string) error {
		return h.showAccount(w, r, v, status, templates.AccountPage{PasswordMessage: msg})
	}
	if err := password.CheckPolicy(next, m.Email, m.Name); err != nil {
		return refuse(http.StatusOK, policyMessage(loc, err, false))
	}
	if next != repeat {
		return refuse(http.StatusOK, loc.Text("account.repeat_mismatch"))
	}
	verified, ok, err := h.login.ConfirmCurrentPassword(ctx, v, current, "password change", refuse)
	if !ok {
		return err
	}
	hash, err := h.svc.hashPassword(ctx, next)
	if err != nil {
		return fmt.Errorf("account: hash password: %w", err)
	}
	var ended, revoked int
	err = storage.InTx(ctx, h.svc.store, func(ctx context.Context) error {
		if _, err := h.svc.store.UpdateMember(ctx, m.ID, func(cur storage.Member) (storage.Member, error) {
			// Only over the hash that was verified: a reset or another tab that changed the
			// password meanwhile wins, and this form is asked again.
			if !accountStampEqual(cur.PasswordHash, verified) {
				return cur, errPasswordMoved
			}
			cur.PasswordHash = hash
			return cur, nil
		}); err != nil {
			return err
		}
		var err error
		if ended, err = h.svc.store.DeleteOtherSessions(ctx, m.ID, v.Session.ID, true); err != nil {
			return fmt.Errorf("account: end other sessions: %w", err)
		}
		if err := h.svc.store.DeleteMemberLinks(ctx, m.ID, PurposeReset); err != nil {
			return fmt.Errorf("account: delete reset links: %w", err)
		}
		if signOutApps {
			if revoked, err = h.svc.store.RevokeAllConnectedApps(ctx, m.ID, h.svc.now()); err != nil {
				return fmt.Errorf("account: revoke applications: %w", err)
			}
		}
		return h.svc.audit.Record(ctx, h.requestEvent(r, m.ID, audit.KindPasswordChanged, signedOutNote(signOutApps)))
	})
	if errors.Is(err, errPasswordMoved) {
		return refuse(http.StatusConflict, loc.Text("account.password_moved"))
	}
	if err != nil {
		return err
	}
	h.svc.log.InfoContext(ctx, "password changed", v.LogArgs(ctx, "sessions_ended", ended, "token_pairs_revoked", revoked)...)
	if signOutApps {
		accountDone(w, "password-all")
	} else {
		accountDone(w, "password")
	}
	return nil
}

// policyReasons are password.CheckPolicy's reasons with their sentences: the account page's
// and the sign-in pages' (the recovery form), which some languages word differently.
var policyReasons = []struct {
	err                   error
	accountKey, signInKey string
}{
	{err: password.ErrTooShort, accountKey: "account.password_too_short", signInKey: "signin.password_too_short"},
	{err: password.ErrTooLongNew, accountKey: "account.password_too_long", signInKey: "signin.password_too_long"},
	{err: password.ErrCommon, accountKey: "account.password_common", signInKey: "signin.password_common"},
	{err: password.ErrContext, accountKey: "account.password_context", signInKey: "signin.password_context"},
}

// policyMessage is the sentence of a password.CheckPolicy refusal in the member's language
// (the package's own texts are English), in the sign-in pages' words when signIn is set.
func policyMessage(loc *i18n.Localizer, err error, signIn bool) string {
	for _, r := range policyReasons {
		switch {
		case !errors.Is(err, r.err):
		case signIn:
			return loc.Text(r.signInKey)
		default:
			return loc.Text(r.accountKey)
		}
	}
	return err.Error()
}

// newAddress normalises an address typed into the e-mail form as the sign-in form does
// (storage.NormaliseEmail) and reports whether it is one by the rule every entry point shares
// (storage.ValidEmail).
func newAddress(raw string) (string, bool) {
	a := storage.NormaliseEmail(raw)
	if !storage.ValidEmail(a) {
		return "", false
	}
	return a, true
}

// requestEmailChange sends a confirmation link to a new address. The answer is the same
// whether or not the address belongs to someone (then nothing is sent), so the form cannot
// tell who has an account.
func (h *Handler) requestEmailChange(w http.ResponseWriter, r *http.Request, v login.Visit) error {
	ctx := r.Context()
	loc := i18n.FromContext(ctx)
	m := v.Session.Member
	refuse := func(status int, msg string) error {
		return h.showAccount(w, r, v, status, templates.AccountPage{EmailMessage: msg})
	}
	addr, ok := newAddress(r.PostForm.Get("email"))
	if !ok {
		return refuse(http.StatusOK, loc.Text("account.email_invalid"))
	}
	if addr == storage.NormaliseEmail(m.Email) {
		return refuse(http.StatusOK, loc.Text("account.email_unchanged"))
	}
	verified, ok, err := h.login.ConfirmCurrentPassword(ctx, v, r.PostForm.Get("current_password"), "e-mail change", refuse)
	if !ok {
		return err
	}
	_, err = h.svc.store.GetMemberByEmail(ctx, addr)
	switch {
	case err == nil:
		// Taken: nothing is sent, and the page says what it says to everyone.
		h.svc.log.InfoContext(ctx, "e-mail change not sent: the address is a member's", v.LogArgs(ctx)...)
		accountDone(w, "email-sent")
		return nil
	case !errors.Is(err, storage.ErrNotFound):
		return fmt.Errorf("account: look up address: %w", err)
	}

	token, now := login.NewToken(), h.svc.now()
	expires := now.Add(emailChangeLifetime)
	content, err := h.svc.tpl.EmailChange(r.Context(), templates.EmailChangeMail{
		School: v.School.Name, MemberName: m.Name, NewEmail: addr,
		Link:    v.School.URL(EmailConfirmPath + "?token=" + token),
		Expires: expiresText(i18n.FromContext(ctx), emailChangeLifetime, expires),
	})
	if err != nil {
		return err
	}
	err = storage.InTx(ctx, h.svc.store, func(ctx context.Context) error {
		if err := h.svc.store.CreateLink(ctx, Link{
			ID: linkID(h.svc.linkKey, token), MemberID: m.ID, Purpose: PurposeEmailChange, Email: addr,
			PasswordStamp: PasswordStamp(h.svc.stampKey, verified), CreatedAt: now, ExpiresAt: expires,
		}); err != nil {
			return fmt.Errorf("account: create e-mail link: %w", err)
		}
		return h.svc.mail.Send(ctx, mailqueue.Message{
			SchoolID: v.School.SchoolID, Kind: kindEmailChange, To: addr, ToName: m.Name,
			Subject: content.Subject, Text: content.Text, HTML: content.HTML,
		})
	})
	if err != nil {
		return err
	}
	h.svc.log.InfoContext(ctx, "e-mail change requested", v.LogArgs(ctx)...)
	accountDone(w, "email-sent")
	return nil
}
