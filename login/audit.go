package login

import (
	"net/http"

	"github.com/proctorhq/proctor/audit"
)

// noteSignIn records a sign-in attempt in the security event log. memberID is the account the
// typed e-mail belongs to, 0 when none does or nothing was looked up (a throttled attempt): the
// typed e-mail itself is never recorded, so the log cannot be read for who tried which address.
func (h *Handler) noteSignIn(r *http.Request, res audit.Result, memberID int64) {
	e := audit.MemberEvent(r, memberID, audit.KindSignIn, "")
	e.Result, e.At = res, h.now()
	h.audit.Note(r.Context(), e)
}
