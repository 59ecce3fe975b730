package account

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/i18n"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/templates"
)

// Bounds of the ids the session and application forms post: a session id is a hex HMAC-SHA256,
// a client id at most a metadata-document URL.
const (
	sessionIDLength = 64
	maxClientIDForm = 2048
	// maxEventDetail bounds the client name kept with an app_removed event.
	maxEventDetail = 200
)

// endSession signs one of the member's other devices out. Ending the session in use is refused
// (that is signing out, with its own form). An id that is not one of the member's sessions at
// the school ends nothing and is answered as if it did: the session is gone either way.
func (h *Handler) endSession(w http.ResponseWriter, r *http.Request, v login.Visit) error {
	ctx := r.Context()
	id := r.PostForm.Get("session_id")
	if subtle.ConstantTimeCompare([]byte(id), []byte(v.Session.ID)) == 1 {
		return h.showAccount(w, r, v, http.StatusBadRequest, templates.AccountPage{SessionsMessage: i18n.FromContext(ctx).Text("account.session_is_current")})
	}
	if !isHex(id, sessionIDLength) {
		accountDone(w, "session")
		return nil
	}
	sessions, err := h.svc.store.ListMemberSessions(ctx, v.Session.Member.ID, h.svc.now())
	if err != nil {
		return fmt.Errorf("account: list sessions: %w", err)
	}
	device := ""
	for _, s := range sessions {
		if s.ID == id {
			device = deviceSummary(s.UserAgent)
		}
	}
	err = h.svc.store.DeleteMemberSession(ctx, v.Session.Member.ID, id)
	switch {
	case errors.Is(err, storage.ErrNotFound):
		accountDone(w, "session")
		return nil
	case err != nil:
		return fmt.Errorf("account: end session: %w", err)
	}
	if err := h.svc.audit.Record(ctx, h.requestEvent(r, v.Session.Member.ID, audit.KindSessionEnded, device)); err != nil {
		return fmt.Errorf("account: record event: %w", err)
	}
	h.svc.log.InfoContext(ctx, "session ended from the account page", v.LogArgs(ctx)...)
	accountDone(w, "session")
	return nil
}

// endOtherSessions signs every other device out at this school.
func (h *Handler) endOtherSessions(w http.ResponseWriter, r *http.Request, v login.Visit) error {
	ctx := r.Context()
	n, err := h.svc.store.DeleteOtherSessions(ctx, v.Session.Member.ID, v.Session.ID, false)
	if err != nil {
		return fmt.Errorf("account: end other sessions: %w", err)
	}
	if n > 0 {
		if err := h.svc.audit.Record(ctx, h.requestEvent(r, v.Session.Member.ID, audit.KindSessionEnded, otherDevicesNote(n))); err != nil {
			return fmt.Errorf("account: record event: %w", err)
		}
	}
	h.svc.log.InfoContext(ctx, "other sessions ended from the account page", v.LogArgs(ctx, "sessions_ended", n)...)
	accountDone(w, "sessions")
	return nil
}

// removeApp revokes every token pair of one client for the member at this school, at once:
// its access tokens stop working and its refresh tokens are refused.
func (h *Handler) removeApp(w http.ResponseWriter, r *http.Request, v login.Visit) error {
	ctx := r.Context()
	clientID := r.PostForm.Get("client_id")
	if clientID == "" || len(clientID) > maxClientIDForm {
		accountDone(w, "app")
		return nil
	}
	now := h.svc.now()
	apps, err := h.svc.store.ListConnectedApps(ctx, v.Session.Member.ID, now)
	if err != nil {
		return fmt.Errorf("account: list applications: %w", err)
	}
	name := clientID
	var scopes []string
	for _, a := range apps {
		if a.ClientID == clientID {
			scopes = a.Scopes
			if a.ClientName != "" {
				name = a.ClientName
			}
		}
	}
	n, err := h.svc.store.RevokeConnectedApp(ctx, v.Session.Member.ID, clientID, now)
	if err != nil {
		return fmt.Errorf("account: revoke application: %w", err)
	}
	if n > 0 {
		e := h.requestEvent(r, v.Session.Member.ID, audit.KindGrantRevoked, clipText(name, maxEventDetail))
		e.ClientID, e.Scopes = clientID, scopes
		if err := h.svc.audit.Record(ctx, e); err != nil {
			return fmt.Errorf("account: record event: %w", err)
		}
	}
	h.svc.log.InfoContext(ctx, "application removed from the account page", v.LogArgs(ctx, "client_id", clientID, "token_pairs_revoked", n)...)
	accountDone(w, "app")
	return nil
}

// isHex reports whether s is n lower-case hexadecimal digits.
func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
