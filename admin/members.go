package admin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/gorilla/mux"

	"github.com/proctorhq/proctor/account"
	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/factor"
	"github.com/proctorhq/proctor/i18n"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/roster"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/templates"
)

// MembersPath is the member administration list; a member's page is MembersPath/{member_id},
// and each action's confirmation page (GET) and form (POST) MembersPath/{member_id}/{action}.
const MembersPath = "/admin/members"

// Member actions, as the last segment of their path.
const (
	ActionRoles        = "roles"
	ActionInvite       = "invite"
	ActionResetLink    = "reset-link"
	ActionUnlock       = "unlock"
	ActionResetFactors = "reset-factors"
	ActionSignOut      = "sign-out"
	ActionRemove       = "remove"
)

// memberActions lists every action, in the order the member's page offers them.
var memberActions = []string{ActionRoles, ActionInvite, ActionResetLink, ActionUnlock, ActionResetFactors, ActionSignOut, ActionRemove}

// MemberMail sends the messages an operator asks for (account.Service implements it). It
// records their events itself, in the transaction that queues the message, from the by event
// it is given.
type MemberMail interface {
	Invite(ctx context.Context, inv account.Invitation) (account.InviteResult, error)
	SendResetLink(ctx context.Context, email string, by audit.Event) error
}

// notices are the sentences shown after a POST, by the word the redirect carries (?done=):
// fixed sentences, so that nothing of the URL is echoed onto the page.
var notices = map[string]string{
	ActionRoles:        "admin.notice.roles",
	"roles-unchanged":  "admin.notice.roles_unchanged",
	ActionInvite:       "admin.notice.invite",
	ActionResetLink:    "admin.notice.reset_link",
	ActionUnlock:       "admin.notice.unlock",
	ActionResetFactors: "admin.notice.reset_factors",
	ActionSignOut:      "admin.notice.sign_out",
	ActionRemove:       "admin.notice.remove",
}

// refusal is a reason an action is not taken; refusalText says it in the request's language.
type refusal string

// Refusals; "" is none.
const (
	refuseLastOwner    refusal = "last-owner"
	refuseSelf         refusal = "self"
	refuseAdminOwner   refusal = "admin-owner"
	refuseAdminFactors refusal = "admin-factors"
	refuseNoRole       refusal = "no-role"
	refuseGrantOwner   refusal = "grant-owner"
)

// refusalText is the sentence of why, about t at v's school.
func refusalText(why refusal, t target, v visit) string {
	switch why {
	case refuseLastOwner:
		return v.loc.Text("admin.refusal.last_owner", "Name", t.name(), "School", v.school.Name)
	case refuseSelf:
		return v.loc.Text("admin.refusal.self")
	case refuseAdminOwner:
		return v.loc.Text("admin.refusal.admin_owner")
	case refuseAdminFactors:
		return v.loc.Text("admin.refusal.admin_factors")
	case refuseNoRole:
		return v.loc.Text("admin.refusal.no_role")
	case refuseGrantOwner:
		return v.loc.Text("admin.refusal.grant_owner")
	}
	return ""
}

func memberURL(id int64) string { return MembersPath + "/" + strconv.FormatInt(id, 10) }

// mountMembers registers the member administration pages (/admin/members). They need the
// roster store; unlike the OAuth applications pages they do not depend on a feature.
func (h *Handler) mountMembers(r *mux.Router) {
	if h.roster == nil {
		h.log.Warn("the store keeps no member roster: no member administration pages")
		return
	}
	r.Handle(MembersPath, h.operator(h.members)).Methods(http.MethodGet)
	r.Handle(MembersPath+"/{member_id}", h.operator(h.member)).Methods(http.MethodGet)
	r.Handle(MembersPath+"/{member_id}/{action}", h.operator(h.confirmMemberAction)).Methods(http.MethodGet)
	r.Handle(MembersPath+"/{member_id}/{action}", h.operator(h.memberAction)).Methods(http.MethodPost)
}

// The member pages' failures; RenderError writes their words in the request's language.
var (
	failNoMember  = failure{http.StatusNotFound, login.ErrorView{TitleKey: "admin.member.not_found_title", MessageKey: "admin.member.not_found"}}
	failNoAction  = failure{http.StatusNotFound, login.ErrorView{TitleKey: "admin.member.no_page_title", MessageKey: "admin.member.no_page"}}
	failNoUnlocks = failure{http.StatusServiceUnavailable, login.ErrorView{TitleKey: "admin.member.no_unlocks_title", MessageKey: "admin.member.no_unlocks"}}
)

// members lists one page of the school's members, optionally searched.
func (h *Handler) members(w http.ResponseWriter, r *http.Request, v visit) error {
	ctx := r.Context()
	q := r.URL.Query()
	search, after := strings.TrimSpace(q.Get("q")), q.Get("after")
	if len(search) > roster.MaxSearch || len(after) > maxCursor {
		return login.BadForm(nil)
	}
	entries, next, err := h.roster.ListRoster(ctx, roster.Query{Search: search, Page: storage.Page{First: listPageSize, After: after}}, h.now())
	if errors.Is(err, storage.ErrInvalidArgument) {
		return login.BadForm(err)
	}
	if err != nil {
		return fmt.Errorf("admin: list members: %w", err)
	}
	summaries, err := h.summaries(ctx, v.loc, entries)
	if err != nil {
		return err
	}
	page := templates.MembersPage{
		School: v.school.Name, Operator: h.operatorView(v), SearchAction: MembersPath, Search: search,
		Members: summaries, FactorsShown: h.factors != nil,
	}
	if q.Get("done") == ActionRemove {
		page.Notice = v.loc.NoticeText(notices, ActionRemove)
	}
	if next != "" {
		nq := url.Values{"after": {next}}
		if search != "" {
			nq.Set("q", search)
		}
		page.NextURL = MembersPath + "?" + nq.Encode()
	}
	h.writePage(w, r, http.StatusOK, func(out io.Writer) error { return h.tpl.AdminMembers(r.Context(), out, page) })
	return nil
}

// summaries completes roster entries with what the store does not know: lockouts (the sign-in
// limiter's) and second factors (the factor store's, one read for the page).
func (h *Handler) summaries(ctx context.Context, loc *i18n.Localizer, entries []roster.Entry) ([]templates.MemberSummary, error) {
	var factors map[int64]factor.Summary
	if h.factors != nil && len(entries) > 0 {
		ids := make([]int64, len(entries))
		for i, e := range entries {
			ids[i] = e.Member.ID
		}
		var err error
		if factors, err = h.factors.FactorSummaries(ctx, ids); err != nil {
			return nil, fmt.Errorf("admin: factor summaries: %w", err)
		}
	}
	out := make([]templates.MemberSummary, len(entries))
	for i, e := range entries {
		locked, err := h.login.AccountLocked(ctx, e.Member.Email)
		if err != nil {
			return nil, fmt.Errorf("admin: lockout of member %d: %w", e.Member.ID, err)
		}
		out[i] = h.summary(loc, e, locked, factors[e.Member.ID])
	}
	return out, nil
}

func (h *Handler) summary(loc *i18n.Localizer, e roster.Entry, locked bool, f factor.Summary) templates.MemberSummary {
	s := templates.MemberSummary{
		Name: e.Member.Name, Email: e.Member.Email, URL: memberURL(e.Member.ID),
		FactorsShown: h.factors != nil, Factors: factorsText(loc, f),
	}
	for _, r := range e.Roles {
		s.Roles = append(s.Roles, roleName(loc, r))
	}
	if !e.LastSignInAt.IsZero() {
		s.LastSignIn = loc.DateTime(e.LastSignInAt)
	}
	s.Status, s.StatusText = memberStatus(loc, e, locked)
	if e.Invited() {
		s.InvitationExpires = loc.DateTime(e.InvitationExpiresAt)
	}
	return s
}

// memberStatus names where the member stands: locked (the sign-in page refuses their account
// now) before anything else, then invited (no password yet, a live invitation), no password
// (the invitation lapsed or was never sent), active.
func memberStatus(loc *i18n.Localizer, e roster.Entry, locked bool) (status, text string) {
	switch {
	case locked:
		return "locked", loc.Text("admin.member.status.locked")
	case e.Invited():
		return "invited", loc.Text("admin.member.status.invited")
	case !e.HasPassword:
		return "no-password", loc.Text("admin.member.status.no_password")
	}
	return "active", loc.Text("admin.member.status.active")
}

func factorsText(loc *i18n.Localizer, f factor.Summary) string {
	var parts []string
	if f.TOTP {
		parts = append(parts, loc.Text("admin.member.factor.totp"))
	}
	if f.RecoveryCodesLeft > 0 {
		parts = append(parts, loc.Text("admin.member.factor.recovery_codes", "Count", f.RecoveryCodesLeft))
	}
	if f.Passkeys > 0 {
		parts = append(parts, loc.Text("admin.member.factor.passkeys", "Count", f.Passkeys))
	}
	return strings.Join(parts, loc.Text("admin.member.factor.separator"))
}

// roleWords are a role's words: nameKey as the lists name it, labelKey as the roles form's
// box says it.
var roleWords = map[storage.Role]struct{ nameKey, labelKey string }{
	storage.RoleOwner:    {nameKey: "admin.role.owner", labelKey: "admin.role.owner_label"},
	storage.RoleAdmin:    {nameKey: "admin.role.admin", labelKey: "admin.role.admin_label"},
	storage.RoleLecturer: {nameKey: "admin.role.lecturer", labelKey: "admin.role.lecturer_label"},
	storage.RoleStudent:  {nameKey: "admin.role.student", labelKey: "admin.role.student_label"},
}

// roleName is a role as the lists name it.
func roleName(loc *i18n.Localizer, r storage.Role) string {
	if w, ok := roleWords[r]; ok {
		return loc.Text(w.nameKey)
	}
	return string(r)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// target is the member a page is about, with what the pages need to decide.
type target struct {
	entry  roster.Entry
	locked bool
	f      factor.Summary
}

// target reads the member named by the path at the request's school. A malformed id, an
// unknown member and another school's member are all the same 404 page.
func (h *Handler) target(r *http.Request) (target, error) {
	ctx := r.Context()
	id, ok := parseMemberID(mux.Vars(r)["member_id"])
	if !ok {
		return target{}, failNoMember.with(nil)
	}
	e, err := h.roster.GetRosterEntry(ctx, id, h.now())
	if errors.Is(err, storage.ErrNotFound) {
		return target{}, failNoMember.with(err)
	}
	if err != nil {
		return target{}, fmt.Errorf("admin: get member %d: %w", id, err)
	}
	t := target{entry: e}
	if t.locked, err = h.login.AccountLocked(ctx, e.Member.Email); err != nil {
		return target{}, fmt.Errorf("admin: lockout of member %d: %w", id, err)
	}
	if h.factors != nil {
		fs, err := h.factors.FactorSummaries(ctx, []int64{id})
		if err != nil {
			return target{}, fmt.Errorf("admin: factor summary of member %d: %w", id, err)
		}
		t.f = fs[id]
	}
	return t, nil
}

// parseMemberID reads a member id from a path: the canonical decimal form of a positive
// int64 only, so that one member has one URL ("01" and "+1" are not theirs).
func parseMemberID(raw string) (int64, bool) {
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id <= 0 || strconv.FormatInt(id, 10) != raw {
		return 0, false
	}
	return id, true
}

func (t target) id() int64 { return t.entry.Member.ID }

// errOwnerNow is a sign-out refused inside its transaction: the member became an owner after
// the page read them, and the operator is an admin.
var errOwnerNow = errors.New("admin: the member is an owner")

// stillNotOwner repeats, inside the sign-out's transaction, the check an admin passed on the
// member's roles as the page read them, so that a member made an owner meanwhile is not
// signed out by an admin. Changes of roles (and removal) ask storage.RoleChangeRefusal instead.
func (h *Handler) stillNotOwner(ctx context.Context, v visit, t target) error {
	if v.isOwner() {
		return nil
	}
	roles, err := h.store.GetRoles(ctx, t.id())
	if err != nil {
		return err
	}
	if slices.Contains(roles, storage.RoleOwner) {
		return errOwnerNow
	}
	return nil
}

func (t target) name() string {
	if t.entry.Member.Name != "" {
		return t.entry.Member.Name
	}
	return t.entry.Member.Email
}

func (t target) isOwner() bool { return slices.Contains(t.entry.Roles, storage.RoleOwner) }

func (v visit) isOwner() bool { return slices.Contains(v.roles, storage.RoleOwner) }

// refusal says why the operator may not take action on t, or "" if they may. The rules
// (docs/security.md, "Member administration"): owners may do everything; admins may not touch
// an owner's roles, factors, sessions or membership, nor make anyone an owner (the roles rule,
// storage.RoleChangeRefusal, checked again on the form's input in the change's transaction),
// nor reset anyone's factors; nobody resets their own factors or signs themself out
// everywhere here (their account page does both). An operator may change their
// own roles or leave the school: the school's last owner cannot (storage.ErrLastOwner), and an
// admin cannot make themself an owner. Whether an action applies at all (a reset link for a
// member without a password ...) is available's business.
func (h *Handler) refusal(v visit, t target, action string) refusal {
	self := t.id() == v.session.Member.ID
	switch action {
	case ActionSignOut, ActionResetFactors:
		if self {
			return refuseSelf
		}
	}
	switch action {
	case ActionResetFactors:
		if !v.isOwner() {
			return refuseAdminFactors
		}
	case ActionRoles, ActionRemove:
		// storage.RoleChangeRefusal refuses removal (no roles wanted) only when it refuses every
		// change of the member's roles: then neither form is offered.
		if storage.RoleChangeRefusal(v.roles, t.entry.Roles, nil) != nil {
			return refuseAdminOwner
		}
	case ActionSignOut:
		if t.isOwner() && !v.isOwner() {
			return refuseAdminOwner
		}
	}
	return ""
}

// available reports whether the action applies to t on this server.
func (h *Handler) available(t target, action string) bool {
	switch action {
	case ActionRoles, ActionSignOut, ActionRemove, ActionUnlock:
		return true
	case ActionInvite:
		return h.accounts != nil && !t.entry.HasPassword
	case ActionResetLink:
		return h.accounts != nil && t.entry.HasPassword
	case ActionResetFactors:
		return h.factors != nil
	}
	return false
}

// member is one member's page.
func (h *Handler) member(w http.ResponseWriter, r *http.Request, v visit) error {
	t, err := h.target(r)
	if err != nil {
		return err
	}
	page := templates.MemberPage{
		School: v.school.Name, Operator: h.operatorView(v), ListURL: MembersPath, Member: h.summary(v.loc, t.entry, t.locked, t.f),
		Notice: v.loc.NoticeText(notices, r.URL.Query().Get("done")),
	}
	refused := map[refusal]bool{}
	for _, a := range memberActions {
		if !h.available(t, a) {
			continue
		}
		// Lifting a lockout is offered while there is one; the reset of factors while there
		// are some. Their POSTs work regardless (nothing happens twice).
		if (a == ActionUnlock && !t.locked) || (a == ActionResetFactors && t.f == (factor.Summary{})) {
			continue
		}
		if why := h.refusal(v, t, a); why != "" {
			refused[why] = true
			continue
		}
		c := actionCopy(a, t, v)
		page.Actions = append(page.Actions, templates.MemberAction{ID: "action-" + a, URL: memberURL(t.id()) + "/" + a, Label: c.link, Danger: c.danger})
	}
	for _, why := range []refusal{refuseSelf, refuseAdminOwner, refuseAdminFactors} {
		if refused[why] {
			page.Refusals = append(page.Refusals, refusalText(why, t, v))
		}
	}
	h.writePage(w, r, http.StatusOK, func(out io.Writer) error { return h.tpl.AdminMember(r.Context(), out, page) })
	return nil
}

// copyOf is what the pages say about an action.
type copyOf struct {
	link, title, explanation, button string
	danger                           bool
}

// actionKeys holds, for each action, the catalogue keys of its copy. A title is written with
// the member's name and the school, an explanation with the member's e-mail and the school:
// each message uses the ones it names.
var actionKeys = map[string]copyOf{
	ActionRoles:        {link: "admin.action.roles.link", title: "admin.action.roles.title", explanation: "admin.action.roles.explanation", button: "admin.action.roles.button"},
	ActionInvite:       {link: "admin.action.invite.link", title: "admin.action.invite.title", explanation: "admin.action.invite.explanation", button: "admin.action.invite.button"},
	ActionResetLink:    {link: "admin.action.reset_link.link", title: "admin.action.reset_link.title", explanation: "admin.action.reset_link.explanation", button: "admin.action.reset_link.button"},
	ActionUnlock:       {link: "admin.action.unlock.link", title: "admin.action.unlock.title", explanation: "admin.action.unlock.explanation", button: "admin.action.unlock.button"},
	ActionResetFactors: {link: "admin.action.reset_factors.link", title: "admin.action.reset_factors.title", explanation: "admin.action.reset_factors.explanation", button: "admin.action.reset_factors.button", danger: true},
	ActionSignOut:      {link: "admin.action.sign_out.link", title: "admin.action.sign_out.title", explanation: "admin.action.sign_out.explanation", button: "admin.action.sign_out.button", danger: true},
	ActionRemove:       {link: "admin.action.remove.link", title: "admin.action.remove.title", explanation: "admin.action.remove.explanation", button: "admin.action.remove.button", danger: true},
}

func actionCopy(action string, t target, v visit) copyOf {
	keys, ok := actionKeys[action]
	if !ok {
		return copyOf{}
	}
	loc, school := v.loc, v.school.Name
	return copyOf{
		link:        loc.Text(keys.link),
		title:       loc.Text(keys.title, "Name", t.name(), "School", school),
		explanation: loc.Text(keys.explanation, "Email", t.entry.Member.Email, "School", school),
		button:      loc.Text(keys.button),
		danger:      keys.danger,
	}
}

// confirmPage is the confirmation page of action on t.
func (h *Handler) confirmPage(v visit, t target, action string) templates.MemberConfirmPage {
	c := actionCopy(action, t, v)
	page := templates.MemberConfirmPage{
		School: v.school.Name, Operator: h.operatorView(v), Member: h.summary(v.loc, t.entry, t.locked, t.f),
		Confirmation: templates.Confirmation{
			Title: c.title, Explanation: c.explanation, FormAction: memberURL(t.id()) + "/" + action, Button: c.button, Danger: c.danger,
			CancelURL: memberURL(t.id()), ListURL: MembersPath,
		},
	}
	if action == ActionRoles {
		for _, r := range storage.Roles {
			// An admin is not offered the owner box; the POST refuses it too.
			if r == storage.RoleOwner && !v.isOwner() {
				continue
			}
			page.Roles = append(page.Roles, templates.RoleChoice{
				Name: string(r), Label: roleLabel(v.loc, r), Checked: slices.Contains(t.entry.Roles, r),
			})
		}
	}
	return page
}

// roleLabel is a role as the roles form's box says it.
func roleLabel(loc *i18n.Localizer, r storage.Role) string {
	if w, ok := roleWords[r]; ok {
		return loc.Text(w.labelKey)
	}
	return string(r)
}

func (h *Handler) renderConfirm(w http.ResponseWriter, r *http.Request, status int, page templates.MemberConfirmPage) {
	h.writePage(w, r, status, func(out io.Writer) error { return h.tpl.AdminMemberConfirm(r.Context(), out, page) })
}

// checkAction returns the target and whether action may be taken on it, having answered the
// request itself when not: 404 for an unknown action or one that does not apply, 403 with the
// confirmation page carrying the reason for a refused one.
func (h *Handler) checkAction(w http.ResponseWriter, r *http.Request, v visit) (target, string, bool, error) {
	action := mux.Vars(r)["action"]
	if !slices.Contains(memberActions, action) {
		return target{}, "", false, failNoAction.with(nil)
	}
	t, err := h.target(r)
	if err != nil {
		return target{}, "", false, err
	}
	if !h.available(t, action) {
		return target{}, "", false, failNoAction.with(nil)
	}
	if why := h.refusal(v, t, action); why != "" {
		h.log.InfoContext(r.Context(), "member action refused", "request_id", edge.FromContext(r.Context()).ID, "school_id", v.school.SchoolID,
			"member_id", v.session.Member.ID, "subject_id", t.id(), "action", action)
		page := h.confirmPage(v, t, action)
		page.Refusal = refusalText(why, t, v)
		h.renderConfirm(w, r, http.StatusForbidden, page)
		return target{}, "", false, nil
	}
	return t, action, true, nil
}

func (h *Handler) confirmMemberAction(w http.ResponseWriter, r *http.Request, v visit) error {
	t, action, ok, err := h.checkAction(w, r, v)
	if !ok || err != nil {
		return err
	}
	h.renderConfirm(w, r, http.StatusOK, h.confirmPage(v, t, action))
	return nil
}

// memberAction takes a confirmed action and redirects to the member's page (the list, after a
// removal) with a notice.
func (h *Handler) memberAction(w http.ResponseWriter, r *http.Request, v visit) error {
	t, action, ok, err := h.checkAction(w, r, v)
	if !ok || err != nil {
		return err
	}
	if !h.checkCSRF(r, v) {
		page := h.confirmPage(v, t, action)
		page.Message = v.loc.Text("admin.form_expired")
		h.renderConfirm(w, r, http.StatusForbidden, page)
		return nil
	}
	done, why, err := h.act(r, v, t, action)
	if err != nil {
		return err
	}
	if why != "" {
		page := h.confirmPage(v, t, action)
		page.Refusal = refusalText(why, t, v)
		h.renderConfirm(w, r, refusalStatus(why), page)
		return nil
	}
	h.log.InfoContext(r.Context(), "member action", "request_id", edge.FromContext(r.Context()).ID, "school_id", v.school.SchoolID,
		"member_id", v.session.Member.ID, "subject_id", t.id(), "action", action)
	if action == ActionRemove {
		login.SeeOther(w, MembersPath+"?done="+ActionRemove)
		return nil
	}
	login.SeeOther(w, memberURL(t.id())+"?done="+url.QueryEscape(done))
	return nil
}

// refusalStatus is 409 for the last owner (the state of the school refuses it, as the REST
// API answers), 422 for a roles form that cannot be saved, 403 for what the operator may not do.
func refusalStatus(why refusal) int {
	switch why {
	case refuseLastOwner:
		return http.StatusConflict
	case refuseNoRole:
		return http.StatusUnprocessableEntity
	}
	return http.StatusForbidden
}

// event is the security event of an operator's action on t.
func event(r *http.Request, v visit, t target, kind audit.Kind, detail string) audit.Event {
	return audit.FromRequest(r, audit.Event{
		Kind: kind, Actor: audit.ActorOperator, ActorID: v.session.Member.ID, SubjectID: t.id(), Detail: detail,
	})
}

// act takes the action. It returns the notice's key, or why the action was refused (the last
// owner, a roles form without a role).
func (h *Handler) act(r *http.Request, v visit, t target, action string) (done string, why refusal, err error) {
	ctx := r.Context()
	switch action {
	case ActionRoles:
		return h.setRoles(r, v, t)
	case ActionInvite:
		// The member's own roles are passed so that the invitation adds none.
		// The service records invitation_sent with the invitation, in its transaction.
		inv := account.Invitation{Email: t.entry.Member.Email, Name: t.entry.Member.Name, Roles: t.entry.Roles, By: event(r, v, t, "", "")}
		if _, err := h.accounts.Invite(ctx, inv); err != nil {
			return "", "", fmt.Errorf("admin: invite member %d: %w", t.id(), err)
		}
	case ActionResetLink:
		// The service records password_reset_requested with the link, in its transaction.
		if err := h.accounts.SendResetLink(ctx, t.entry.Member.Email, event(r, v, t, "", "")); err != nil {
			return "", "", fmt.Errorf("admin: reset link for member %d: %w", t.id(), err)
		}
	case ActionUnlock:
		err := h.login.UnlockAccount(ctx, t.entry.Member.Email)
		if errors.Is(err, login.ErrNoUnlocks) {
			return "", "", failNoUnlocks.with(err)
		}
		if err != nil {
			return "", "", fmt.Errorf("admin: unlock member %d: %w", t.id(), err)
		}
		h.audit.Note(ctx, event(r, v, t, audit.KindLockoutLifted, ""))
	case ActionResetFactors:
		n, err := h.factors.ResetMemberFactors(ctx, t.id())
		if err != nil {
			return "", "", fmt.Errorf("admin: reset factors of member %d: %w", t.id(), err)
		}
		h.audit.Note(ctx, event(r, v, t, audit.KindFactorsReset, plural(n, "factor", "factors")+" removed"))
	case ActionSignOut:
		err := storage.InTx(ctx, h.store, func(ctx context.Context) error {
			if err := h.stillNotOwner(ctx, v, t); err != nil {
				return err
			}
			sessions, grants, err := h.endAtSchool(ctx, t)
			if err != nil {
				return err
			}
			return h.audit.Record(ctx, event(r, v, t, audit.KindSignedOutEverywhere, ended(sessions, grants)))
		})
		if errors.Is(err, errOwnerNow) {
			return "", refuseAdminOwner, nil
		}
		if err != nil {
			return "", "", fmt.Errorf("admin: sign out member %d: %w", t.id(), err)
		}
	case ActionRemove:
		err := storage.InTx(ctx, h.store, func(ctx context.Context) error {
			// Removal takes every role: the roles rule decides it, on the roles read here.
			if _, _, err := storage.ChangeRoles(ctx, h.store, v.roles, t.id(), nil); err != nil {
				return err
			}
			sessions, grants, err := h.endAtSchool(ctx, t)
			if err != nil {
				return err
			}
			return h.audit.Record(ctx, event(r, v, t, audit.KindMemberRemoved, rolesText(t.entry.Roles)+"; "+ended(sessions, grants)))
		})
		if err != nil {
			why, err := changeRefused(err, v, t, "remove member")
			return "", why, err
		}
	}
	return action, "", nil
}

// changeRefused turns the error a change of the member's roles ended with into the page's
// answer: a refusal shown on the member's page (storage.RoleChangeRefusal's: they became an
// owner meanwhile, or the operator would make an owner; or they were the last owner), a 404
// page (they are gone), or the error itself, saying what was being done.
func changeRefused(err error, v visit, t target, doing string) (refusal, error) {
	switch {
	case errors.Is(err, storage.ErrOwnersRoles):
		return refuseAdminOwner, nil
	case errors.Is(err, storage.ErrOwnerGrant):
		return refuseGrantOwner, nil
	case errors.Is(err, storage.ErrLastOwner):
		return refuseLastOwner, nil
	case errors.Is(err, storage.ErrNotFound):
		return "", failNoMember.with(err)
	default:
		return "", fmt.Errorf("admin: %s %d: %w", doing, t.id(), err)
	}
}

// setRoles replaces the member's roles with the form's, in one transaction with its event.
func (h *Handler) setRoles(r *http.Request, v visit, t target) (done string, why refusal, err error) {
	var roles []storage.Role
	for _, name := range r.PostForm["role"] {
		role := storage.Role(name)
		if !role.Valid() {
			return "", "", login.BadForm(nil)
		}
		if !slices.Contains(roles, role) {
			roles = append(roles, role)
		}
	}
	if len(roles) == 0 {
		return "", refuseNoRole, nil
	}
	var changed bool
	err = storage.InTx(r.Context(), h.store, func(ctx context.Context) error {
		// The one rule of who may change whose roles, on the roles as read in this
		// transaction: a member made an owner after the page read them is not changed by an
		// admin, and only an owner makes an owner.
		current, got, err := storage.ChangeRoles(ctx, h.store, v.roles, t.id(), roles)
		if err != nil {
			return err
		}
		var detail string
		if detail, changed = audit.RoleChange(storage.RoleNames(current), storage.RoleNames(got)); !changed {
			return nil
		}
		return h.audit.Record(ctx, event(r, v, t, audit.KindRoleChanged, detail))
	})
	if err != nil {
		why, err := changeRefused(err, v, t, "set roles of member")
		return "", why, err
	}
	if !changed {
		return "roles-unchanged", "", nil
	}
	return ActionRoles, "", nil
}

// endAtSchool ends every session of the member at the request's school and revokes every
// grant they gave there; sessions and grants at other schools stay.
func (h *Handler) endAtSchool(ctx context.Context, t target) (sessions, grants int, err error) {
	if sessions, err = h.roster.DeleteOtherSessions(ctx, t.id(), "", false); err != nil {
		return 0, 0, err
	}
	if grants, err = h.roster.RevokeSchoolGrants(ctx, t.id(), h.now()); err != nil {
		return 0, 0, err
	}
	return sessions, grants, nil
}

func ended(sessions, grants int) string {
	return plural(sessions, "session", "sessions") + " ended, " + plural(grants, "token pair", "token pairs") + " revoked"
}

// rolesText is a role list as events write it (audit.RoleList).
func rolesText(roles []storage.Role) string {
	return audit.RoleList(storage.RoleNames(roles))
}
