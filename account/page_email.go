package account

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/i18n"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/templates"
)

// Pages of a confirmation link that cannot be used. The first says the same whether the link
// never existed, expired, was used, was made at another school or was outdated by a new
// password.
func viewEmailLinkInvalid(r *http.Request) login.ErrorView {
	loc := i18n.FromContext(r.Context())
	return login.ErrorView{Title: loc.Text("account.link_invalid_title"), Message: loc.Text("account.link_invalid")}
}

func viewEmailLinkOtherMember(r *http.Request) login.ErrorView {
	loc := i18n.FromContext(r.Context())
	return login.ErrorView{Title: loc.Text("account.link_other_title"), Message: loc.Text("account.link_other")}
}

func viewEmailTaken(r *http.Request) login.ErrorView {
	loc := i18n.FromContext(r.Context())
	return login.ErrorView{Title: loc.Text("account.email_taken_title"), Message: loc.Text("account.email_taken")}
}

// errEmailLinkGone stops a confirmation whose link was used (or outdated) meanwhile.
var errEmailLinkGone = errors.New("account: the e-mail link is gone")

// emailLink finds the unused e-mail-change link of token at the request's school that belongs
// to the signed-in member and was made under their current password. It writes the page that
// explains a refusal and returns ok=false then.
func (h *Handler) emailLink(w http.ResponseWriter, r *http.Request, v login.Visit, token string) (Link, bool, error) {
	ctx := r.Context()
	if !login.WellFormedToken(token) {
		h.login.RenderError(w, r, http.StatusNotFound, viewEmailLinkInvalid(r))
		return Link{}, false, nil
	}
	l, err := h.svc.store.GetLink(ctx, linkID(h.svc.linkKey, token), PurposeEmailChange, h.svc.now())
	if errors.Is(err, storage.ErrNotFound) {
		h.login.RenderError(w, r, http.StatusNotFound, viewEmailLinkInvalid(r))
		return Link{}, false, nil
	}
	if err != nil {
		return Link{}, false, fmt.Errorf("account: get e-mail link: %w", err)
	}
	if l.MemberID != v.Session.Member.ID {
		h.svc.log.InfoContext(ctx, "e-mail link refused: another member is signed in", v.LogArgs(ctx)...)
		h.login.RenderError(w, r, http.StatusForbidden, viewEmailLinkOtherMember(r))
		return Link{}, false, nil
	}
	m, err := h.svc.store.GetMember(ctx, l.MemberID)
	if err != nil {
		return Link{}, false, fmt.Errorf("account: get member: %w", err)
	}
	if !accountStampEqual(PasswordStamp(h.svc.stampKey, m.PasswordHash), l.PasswordStamp) {
		h.login.RenderError(w, r, http.StatusNotFound, viewEmailLinkInvalid(r))
		return Link{}, false, nil
	}
	return l, true, nil
}

// emailConfirmForm shows the confirmation form of a link. It never uses the link: mail
// scanners open links before people do.
func (h *Handler) emailConfirmForm(w http.ResponseWriter, r *http.Request, v login.Visit) error {
	token := r.URL.Query().Get("token")
	l, ok, err := h.emailLink(w, r, v, token)
	if err != nil || !ok {
		return err
	}
	page := templates.EmailConfirmPage{
		School: v.School.Name, MemberName: v.Session.Member.Name, MemberEmail: v.Session.Member.Email,
		NewEmail: l.Email, Token: token, CSRFToken: h.login.CSRFToken(v.Session),
	}
	h.login.WritePage(w, r, http.StatusOK, login.PagePolicy, func(out io.Writer) error { return h.svc.tpl.EmailConfirm(r.Context(), out, page) })
	return nil
}

// confirmEmailChange uses the link and makes its address the member's, in one transaction:
// the link is consumed (of two concurrent confirmations one wins), the address set (refused if
// another member took it meanwhile), the member's other e-mail links deleted and the event
// recorded.
func (h *Handler) confirmEmailChange(w http.ResponseWriter, r *http.Request, v login.Visit) error {
	ctx := r.Context()
	token := r.PostForm.Get("token")
	l, ok, err := h.emailLink(w, r, v, token)
	if err != nil || !ok {
		return err
	}
	err = storage.InTx(ctx, h.svc.store, func(ctx context.Context) error {
		used, err := h.svc.store.ConsumeLink(ctx, l.ID, PurposeEmailChange, h.svc.now())
		if errors.Is(err, storage.ErrNotFound) || (err == nil && used.MemberID != v.Session.Member.ID) {
			return errEmailLinkGone
		}
		if err != nil {
			return fmt.Errorf("account: consume e-mail link: %w", err)
		}
		var previous storage.Member
		if _, err := h.svc.store.UpdateMember(ctx, used.MemberID, func(m storage.Member) (storage.Member, error) {
			if !accountStampEqual(PasswordStamp(h.svc.stampKey, m.PasswordHash), used.PasswordStamp) {
				return m, errEmailLinkGone
			}
			previous = m
			m.Email = used.Email
			return m, nil
		}); err != nil {
			return err
		}
		// The previous address hears of it, in the same transaction: if someone else made the
		// change, the owner learns of it where they still read mail.
		notice, err := h.svc.tpl.EmailChanged(r.Context(), templates.EmailChangedMail{
			School: v.School.Name, MemberName: previous.Name, At: i18n.FromContext(ctx).DateTime(h.svc.now()),
		})
		if err != nil {
			return err
		}
		if err := h.svc.send(ctx, v.School, kindEmailChanged, previous, notice); err != nil {
			return err
		}
		if err := h.svc.store.DeleteMemberLinks(ctx, used.MemberID, PurposeEmailChange); err != nil {
			return fmt.Errorf("account: delete e-mail links: %w", err)
		}
		return h.svc.audit.Record(ctx, h.requestEvent(r, used.MemberID, audit.KindEmailChanged, ""))
	})
	switch {
	case errors.Is(err, errEmailLinkGone):
		h.login.RenderError(w, r, http.StatusNotFound, viewEmailLinkInvalid(r))
		return nil
	case errors.Is(err, storage.ErrAlreadyExists):
		h.svc.log.InfoContext(ctx, "e-mail change refused: the address was taken meanwhile", v.LogArgs(ctx)...)
		h.login.RenderError(w, r, http.StatusConflict, viewEmailTaken(r))
		return nil
	case err != nil:
		return err
	}
	h.svc.log.InfoContext(ctx, "e-mail address changed", v.LogArgs(ctx)...)
	accountDone(w, "email")
	return nil
}

// accountStampEqual compares two password stamps in constant time.
func accountStampEqual(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}
