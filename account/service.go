package account

import (
	"context"
	"crypto/hmac"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/i18n"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/mail"
	"github.com/proctorhq/proctor/password"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/templates"
)

// Link lifetimes used when ServiceDeps leaves them zero.
const (
	DefaultInvitationTTL = 7 * 24 * time.Hour
	DefaultResetTTL      = 30 * time.Minute
)

// DefaultResetAccountLimit is how many reset messages one address receives at most (per
// school's worker, counted by the Limiter): enough for a member who lost a message, too few to
// fill a mailbox on a stranger's behalf.
var DefaultResetAccountLimit = login.Limit{Max: 3, Window: time.Hour}

// Mail kinds of this package.
const (
	// KindResetRequest is the outbox request a forgotten-password form leaves; the worker hands
	// it to the Expander of Service.Expanders.
	KindResetRequest = "password_reset_request"
	kindInvitation   = "invitation"
	kindReset        = "password_reset"
	kindEmailChange  = "email_change"
	kindEmailChanged = "email_changed"
)

// ErrLinkDead means a one-time link cannot be used: unknown, at another school, expired,
// already used, replaced by a newer one, or made under a password that has changed since.
// Callers do not learn which.
var ErrLinkDead = errors.New("account: the link has expired or was already used")

// PasswordError is a new password the policy refuses. Its text is a sentence for the member.
type PasswordError struct{ Err error }

func (e *PasswordError) Error() string { return e.Err.Error() }
func (e *PasswordError) Unwrap() error { return e.Err }

// ServiceDeps are what a Service is built from.
type ServiceDeps struct {
	Store Store
	// Mail queues messages and requests in the outbox; it must share Store's transactions
	// (the same gormstore.Store behind both).
	Mail      *mail.Queue
	Templates *templates.Set
	// Secret keys link ids and password stamps (each through a key derived for it).
	Secret config.Secret
	// Limiter counts reset messages per account (nil: a login.MemoryLimiter).
	Limiter login.Limiter
	// Schools finds a school by id: the worker's requests name their school by id only.
	// Needed by Expanders.
	Schools func(schoolID int64) (*school.School, bool)
	Logger  *slog.Logger     // nil: discard
	Now     func() time.Time // nil: time.Now
	// InvitationTTL and ResetTTL are the links' lifetimes (zero: DefaultInvitationTTL,
	// DefaultResetTTL).
	InvitationTTL, ResetTTL time.Duration
	// ResetAccountLimit bounds reset messages per address (zero: DefaultResetAccountLimit).
	ResetAccountLimit login.Limit
	// PasswordParams are the argon2id costs of every new password the service and the pages
	// built on it hash (zero: password.Default).
	PasswordParams password.Params
	// HashNew hashes those passwords (nil: at once, unbounded, as a command may).
	HashNew HashNew
	// Audit records security events (nil: a recorder over Store that counts nothing, so that
	// the account page's list of a member's events never misses one).
	Audit *audit.Recorder
	// Look gives the e-mails the outbox worker writes (reset requests) their school's colour
	// and logo; a message written during a page's request has its look already. nil: plain.
	Look func(ctx context.Context, t *school.School) templates.Look
}

// Service invites members and resets passwords without HTTP: the pages of this package, the
// CLI, the operator API and seed import all go through it.
type Service struct {
	store        Store
	mail         *mail.Queue
	tpl          *templates.Set
	limiter      login.Limiter
	schools      func(int64) (*school.School, bool)
	log          *slog.Logger
	now          func() time.Time
	invTTL       time.Duration
	resetTTL     time.Duration
	accountLimit login.Limit
	params       password.Params
	hashNew      HashNew
	// linkKey hashes link tokens into store ids; stampKey makes password stamps.
	linkKey, stampKey []byte
	audit             *audit.Recorder
	look              func(ctx context.Context, t *school.School) templates.Look
}

// deriveKeys is the one place the package's keys come from the system secret.
func deriveKeys(secret config.Secret) (linkKey, stampKey []byte) {
	return secret.Derive("account link id"), secret.Derive("account password stamp")
}

// NewService checks d and returns the service.
func NewService(d ServiceDeps) (*Service, error) {
	switch {
	case d.Store == nil:
		return nil, errors.New("account: no store")
	case d.Mail == nil:
		return nil, errors.New("account: no mail queue")
	case d.Templates == nil:
		return nil, errors.New("account: no templates")
	case len(d.Secret) < config.MinSecretBytes:
		return nil, fmt.Errorf("account: the secret must hold at least %d bytes", config.MinSecretBytes)
	case d.InvitationTTL < 0 || d.ResetTTL < 0:
		return nil, errors.New("account: link lifetimes must not be negative")
	}
	s := &Service{
		store: d.Store, mail: d.Mail, tpl: d.Templates, limiter: d.Limiter, schools: d.Schools,
		log: d.Logger, now: d.Now, invTTL: d.InvitationTTL, resetTTL: d.ResetTTL,
		accountLimit: d.ResetAccountLimit, params: d.PasswordParams, hashNew: d.HashNew,
		audit: d.Audit, look: d.Look,
	}
	s.linkKey, s.stampKey = deriveKeys(d.Secret)
	s.log, s.now = login.LoggerOrDiscard(s.log), login.ClockOrNow(s.now)
	if s.limiter == nil {
		s.limiter = login.NewMemoryLimiter(0, s.now)
	}
	if s.audit == nil {
		s.audit = audit.NewRecorder(s.store, s.log)
	}
	if s.invTTL == 0 {
		s.invTTL = DefaultInvitationTTL
	}
	if s.resetTTL == 0 {
		s.resetTTL = DefaultResetTTL
	}
	s.accountLimit = s.accountLimit.Or(DefaultResetAccountLimit)
	if err := s.accountLimit.Check(); err != nil {
		return nil, fmt.Errorf("account: %w", err)
	}
	if s.params == (password.Params{}) {
		s.params = password.Default
	}
	if s.hashNew == nil {
		s.hashNew = func(_ context.Context, pw string, p password.Params) (string, error) { return password.Hash(pw, p) }
	}
	return s, nil
}

// ResetTTL is how long a reset link works.
func (s *Service) ResetTTL() time.Duration { return s.resetTTL }

// Invitation asks for a person to become a member of the context's school.
type Invitation struct {
	Email, Name string
	// Roles are given at the school (empty: student). Roles the person already holds there
	// are kept.
	Roles []storage.Role
	// By says who invites and from where, for the security event log: its Actor, ActorID,
	// ClientID and UserAgent (an operator through the REST API, or ActorCLI at the command
	// line; an empty Actor is ActorSystem). The service fills in the rest.
	By audit.Event
}

// InviteResult says what an invitation did.
type InviteResult struct {
	// Member is the invited identity, without its password hash.
	Member storage.Member
	// Created is set when the identity is new.
	Created bool
	// HasPassword is set for an identity that already had a password (at another school): it
	// keeps it, and its invitation only confirms the new school.
	HasPassword bool
}

// Invite gives the person of inv.Email roles at the context's school, creating the identity
// (with no password) if there is none, and queues the invitation e-mail, all in one
// transaction: the roles, the link and the message commit together or not at all. A new
// invitation replaces the person's earlier one at the school. An existing identity's password
// and name are left alone.
func (s *Service) Invite(ctx context.Context, inv Invitation) (InviteResult, error) {
	t, err := school.FromContext(ctx)
	if err != nil {
		return InviteResult{}, err
	}
	email := storage.NormaliseEmail(inv.Email)
	if !storage.ValidEmail(email) {
		return InviteResult{}, fmt.Errorf("account: invite: not an e-mail address: %w", storage.ErrInvalidArgument)
	}
	roles := inv.Roles
	if len(roles) == 0 {
		roles = []storage.Role{storage.RoleStudent}
	}
	for _, r := range roles {
		if !r.Valid() {
			return InviteResult{}, fmt.Errorf("account: invite: unknown role %q: %w", r, storage.ErrInvalidArgument)
		}
	}

	res := InviteResult{}
	var m storage.Member
	err = storage.InTx(ctx, s.store, func(ctx context.Context) error {
		var err error
		m, err = s.store.GetMemberByEmail(ctx, email)
		switch {
		case errors.Is(err, storage.ErrNotFound):
			m, err = s.store.CreateMember(ctx, storage.Member{Email: email, Name: strings.TrimSpace(inv.Name)})
			if err != nil {
				return fmt.Errorf("account: invite: create member: %w", err)
			}
			res.Created = true
		case err != nil:
			return fmt.Errorf("account: invite: look up member: %w", err)
		}
		have, err := s.store.GetRoles(ctx, m.ID)
		if err != nil {
			return fmt.Errorf("account: invite: read roles: %w", err)
		}
		if merged := mergeRoles(have, roles); len(merged) != len(have) {
			if err := s.store.SetRoles(ctx, m.ID, merged); err != nil {
				return fmt.Errorf("account: invite: set roles: %w", err)
			}
		}

		res.HasPassword = m.PasswordHash != ""
		token, expires, err := s.createLink(ctx, m, PurposeInvitation, s.invTTL)
		if err != nil {
			return err
		}
		content, err := s.tpl.Invitation(ctx, templates.InvitationMail{
			School: t.Name, MemberName: m.Name, Link: t.URL("/invitation?token=" + token),
			Expires: expiresText(i18n.FromContext(ctx), s.invTTL, expires), HasPassword: res.HasPassword,
		})
		if err != nil {
			return err
		}
		if err := s.send(ctx, t, kindInvitation, m, content); err != nil {
			return err
		}
		if err := s.audit.Record(ctx, byEvent(inv.By, audit.KindInvitationSent, s.now(), m.ID, roleList(roles))); err != nil {
			return fmt.Errorf("account: invite: record event: %w", err)
		}
		return nil
	})
	if err != nil {
		return InviteResult{}, err
	}
	s.log.InfoContext(ctx, "member invited", "school_id", t.SchoolID, "member_id", m.ID, "created", res.Created, "has_password", res.HasPassword)
	m.PasswordHash = ""
	res.Member = m
	return res, nil
}

// byEvent is the event of kind, at `at`, done to subject by the Actor, ActorID, ClientID and
// UserAgent of by (ActorSystem when by names none).
func byEvent(by audit.Event, kind audit.Kind, at time.Time, subject int64, detail string) audit.Event {
	e := audit.Event{
		Kind: kind, At: at, Actor: by.Actor, ActorID: by.ActorID, SubjectID: subject,
		ClientID: by.ClientID, Scopes: by.Scopes, UserAgent: by.UserAgent, Detail: detail,
	}
	if e.Actor == "" {
		e.Actor = audit.ActorSystem
	}
	return e
}

// signedOutNote is the detail of a new password's event: whether the member also signed out of
// every application (every grant revoked, at every school).
func signedOutNote(signOutApps bool) string {
	if signOutApps {
		return "signed out of all applications"
	}
	return ""
}

// roleList names roles for an event's detail: "admin, student".
func roleList(roles []storage.Role) string {
	return strings.Join(storage.RoleNames(roles), ", ")
}

// mergeRoles returns have with the roles of add it lacks, most powerful first.
func mergeRoles(have, add []storage.Role) []storage.Role {
	set := map[storage.Role]bool{}
	for _, r := range have {
		set[r] = true
	}
	for _, r := range add {
		set[r] = true
	}
	out := make([]storage.Role, 0, len(set))
	for _, r := range storage.Roles {
		if set[r] {
			out = append(out, r)
		}
	}
	return out
}

// createLink stores a new link for m (replacing m's earlier one of purpose at the context's
// school) and returns its token and expiry.
func (s *Service) createLink(ctx context.Context, m storage.Member, purpose Purpose, ttl time.Duration) (string, time.Time, error) {
	token := login.NewToken()
	now := s.now()
	l := Link{
		ID: linkID(s.linkKey, token), MemberID: m.ID, Purpose: purpose, Email: m.Email,
		PasswordStamp: PasswordStamp(s.stampKey, m.PasswordHash), CreatedAt: now, ExpiresAt: now.Add(ttl),
	}
	if err := s.store.CreateLink(ctx, l); err != nil {
		return "", time.Time{}, fmt.Errorf("account: create %s link: %w", purpose, err)
	}
	return token, l.ExpiresAt, nil
}

func (s *Service) send(ctx context.Context, t *school.School, kind string, m storage.Member, c templates.MailContent) error {
	return s.mail.Send(ctx, mail.Message{
		SchoolID: t.SchoolID, Kind: kind, To: m.Email, ToName: m.Name,
		Subject: c.Subject, Text: c.Text, HTML: c.HTML,
	})
}

// expiresText says when a link expires, as the messages put it, in loc's language and time
// zone: "in 7 days (2 Dec 2026, 18:00 CST)". The messages are rendered with the same localizer
// (the ctx the mail is rendered with).
func expiresText(loc *i18n.Localizer, ttl time.Duration, at time.Time) string {
	when := loc.DateTime(at)
	switch {
	case ttl >= 48*time.Hour && ttl%(24*time.Hour) == 0:
		return loc.Text("mail.expires_days", "Count", int(ttl/(24*time.Hour)), "At", when)
	case ttl >= 2*time.Hour && ttl%time.Hour == 0:
		return loc.Text("mail.expires_hours", "Count", int(ttl/time.Hour), "At", when)
	}
	return loc.Text("mail.expires_minutes", "Count", int((ttl+time.Minute-1)/time.Minute), "At", when)
}

// resetPayload is the outbox request of a reset: the address, after the language of the page
// that asked (a tag of i18n.Supported and a line break), so that the message the worker
// writes later is in the language the member read the form in.
func resetPayload(lang, email string) []byte { return []byte(lang + "\n" + email) }

// readResetPayload undoes resetPayload; a request without a language (queued before requests
// carried one) has lang "".
func readResetPayload(payload []byte) (lang, email string) {
	lang, email, ok := strings.Cut(string(payload), "\n")
	if !ok {
		return "", lang
	}
	return lang, email
}

// schoolLocalizer writes a message of school t for a reader whose language nothing says: in
// the school's locale and time zone, as its pages are for a browser that asks for none of ours.
func (s *Service) schoolLocalizer(t *school.School, lang string) *i18n.Localizer {
	if !i18n.Supports(lang) {
		lang = t.Locale
	}
	return s.tpl.Catalog().Localizer(lang, t.Location)
}

// RequestReset asks for a reset link for email at the context's school. It only leaves a
// request in the outbox, whoever the address belongs to: the request costs the same and
// answers the same for a member's address and a stranger's, and the worker's Expander decides,
// later and out of the request's sight, whether a message goes out. Input that cannot be an
// address is dropped here (that depends on the input alone).
func (s *Service) RequestReset(ctx context.Context, email string) error {
	t, err := school.FromContext(ctx)
	if err != nil {
		return err
	}
	email = storage.NormaliseEmail(email)
	if !storage.ValidEmail(email) {
		return nil
	}
	if err := s.mail.Request(ctx, t.SchoolID, KindResetRequest, resetPayload(i18n.FromContext(ctx).Lang(), email)); err != nil {
		return fmt.Errorf("account: request reset: %w", err)
	}
	return nil
}

// Expanders returns the mail worker's expanders of this package's requests, by kind.
func (s *Service) Expanders() map[string]mail.Expander {
	return map[string]mail.Expander{KindResetRequest: s.expandReset}
}

// expandReset turns a reset request into a reset message, inside the worker's transaction, if
// the address is a member's at the school and has not had too many lately. Otherwise it does
// nothing, and logs without the address.
func (s *Service) expandReset(ctx context.Context, schoolID int64, payload []byte) error {
	if s.schools == nil {
		return errors.New("account: reset request: the service has no school lookup")
	}
	t, ok := s.schools(schoolID)
	if !ok {
		s.log.WarnContext(ctx, "password reset request for a school that is not configured", "school_id", schoolID)
		return nil
	}
	lang, email := readResetPayload(payload)
	ctx = i18n.NewContext(school.NewContext(ctx, t), s.schoolLocalizer(t, lang))
	if s.look != nil {
		schoolCtx := ctx
		ctx = templates.NewLookContext(ctx, func() templates.Look { return s.look(schoolCtx, t) })
	}
	email = storage.NormaliseEmail(email)
	m, member, err := s.resetMember(ctx, email, "reset request")
	if errors.Is(err, storage.ErrNotFound) {
		s.log.InfoContext(ctx, "password reset requested for an address that is no member's", "school_id", schoolID)
		return nil
	}
	if err != nil {
		return err
	}
	if !member {
		s.log.InfoContext(ctx, "password reset requested by a person who is not a member of this school", "school_id", schoolID, "member_id", m.ID)
		return nil
	}
	ok, err = s.limiter.Take(ctx, "reset-account:"+login.AccountDigest(email), s.accountLimit)
	if err != nil {
		return fmt.Errorf("account: reset request: rate limiter: %w", err)
	}
	// The request's sender is unknown (anyone may type an address into the form): the event
	// names the member whose account it is as its subject only.
	requested := audit.Event{Kind: audit.KindPasswordResetRequested, At: s.now(), Actor: audit.ActorMember, SubjectID: m.ID}
	if !ok {
		s.log.InfoContext(ctx, "password reset message withheld: too many for this account", "school_id", schoolID, "member_id", m.ID)
		requested.Result = audit.ResultThrottled
		return s.audit.Record(ctx, requested)
	}
	if err := s.queueReset(ctx, t, m); err != nil {
		return err
	}
	if err := s.audit.Record(ctx, requested); err != nil {
		return fmt.Errorf("account: reset request: record event: %w", err)
	}
	s.log.InfoContext(ctx, "password reset message queued", "school_id", schoolID, "member_id", m.ID)
	return nil
}

// SendResetLink sends a member of the context's school a password-reset link at an operator's
// request (`proctor members reset-link`): the link and its message commit together in one
// transaction, and the running server's mail worker sends it. Unlike RequestReset it answers:
// storage.ErrNotFound for an address that is no identity's or whose identity holds no role at
// the school, storage.ErrInvalidArgument for input that is no address. The per-account budget
// of the sign-in page's requests does not apply: the operator is not a stranger. by says who
// asked, for the security event log, as Invitation.By does.
func (s *Service) SendResetLink(ctx context.Context, email string, by audit.Event) error {
	t, err := school.FromContext(ctx)
	if err != nil {
		return err
	}
	email = storage.NormaliseEmail(email)
	if !storage.ValidEmail(email) {
		return fmt.Errorf("account: reset link: not an e-mail address: %w", storage.ErrInvalidArgument)
	}
	var m storage.Member
	err = storage.InTx(ctx, s.store, func(ctx context.Context) error {
		var member bool
		m, member, err = s.resetMember(ctx, email, "reset link")
		if err != nil {
			return err
		}
		if !member {
			return fmt.Errorf("account: reset link: member %d holds no role at school %d: %w", m.ID, t.SchoolID, storage.ErrNotFound)
		}
		if err := s.queueReset(ctx, t, m); err != nil {
			return err
		}
		return s.audit.Record(ctx, byEvent(by, audit.KindPasswordResetRequested, s.now(), m.ID, ""))
	})
	if err != nil {
		return err
	}
	s.log.InfoContext(ctx, "password reset message queued by an operator", "school_id", t.SchoolID, "member_id", m.ID)
	return nil
}

// resetMember finds the identity of email and says whether it is a member of the context's
// school (holds a role there): only a member gets a reset link, whoever asks. A lookup that
// finds no identity wraps storage.ErrNotFound; what names the caller in errors.
func (s *Service) resetMember(ctx context.Context, email, what string) (m storage.Member, member bool, err error) {
	m, err = s.store.GetMemberByEmail(ctx, email)
	if err != nil {
		return storage.Member{}, false, fmt.Errorf("account: %s: look up member: %w", what, err)
	}
	roles, err := s.store.GetRoles(ctx, m.ID)
	if err != nil {
		return storage.Member{}, false, fmt.Errorf("account: %s: read roles: %w", what, err)
	}
	return m, len(roles) > 0, nil
}

// queueReset makes a reset link for m and queues its message, in ctx's transaction: the one
// way a reset link is made and sent, whether a member asked (expandReset) or an operator did
// (SendResetLink).
func (s *Service) queueReset(ctx context.Context, t *school.School, m storage.Member) error {
	token, expires, err := s.createLink(ctx, m, PurposeReset, s.resetTTL)
	if err != nil {
		return err
	}
	content, err := s.tpl.PasswordReset(ctx, templates.ResetMail{
		School: t.Name, MemberName: m.Name, Link: t.URL("/login/reset?token=" + token),
		Expires: expiresText(i18n.FromContext(ctx), s.resetTTL, expires),
	})
	if err != nil {
		return err
	}
	return s.send(ctx, t, kindReset, m, content)
}

// LinkMember is the member a live link belongs to.
type LinkMember struct {
	Member      storage.Member // without its password hash
	HasPassword bool
}

// PeekLink returns the member of a live link of purpose at the context's school, without using
// it (the pages a link opens show a form; only the form's POST uses the link). ErrLinkDead if
// the link cannot be used. Junk tokens are refused before any store call.
func (s *Service) PeekLink(ctx context.Context, token string, purpose Purpose) (LinkMember, error) {
	if !login.WellFormedToken(token) {
		return LinkMember{}, ErrLinkDead
	}
	l, err := s.store.GetLink(ctx, linkID(s.linkKey, token), purpose, s.now())
	if errors.Is(err, storage.ErrNotFound) {
		return LinkMember{}, ErrLinkDead
	}
	if err != nil {
		return LinkMember{}, fmt.Errorf("account: get link: %w", err)
	}
	m, err := s.store.GetMember(ctx, l.MemberID)
	if errors.Is(err, storage.ErrNotFound) {
		return LinkMember{}, ErrLinkDead
	}
	if err != nil {
		return LinkMember{}, fmt.Errorf("account: get member: %w", err)
	}
	if !s.stampMatches(l, m.PasswordHash) {
		return LinkMember{}, ErrLinkDead
	}
	lm := LinkMember{Member: m, HasPassword: m.PasswordHash != ""}
	lm.Member.PasswordHash = ""
	return lm, nil
}

// stampMatches reports whether hash is still the password l was made under.
func (s *Service) stampMatches(l Link, hash string) bool {
	return hmac.Equal([]byte(l.PasswordStamp), []byte(PasswordStamp(s.stampKey, hash)))
}

// Origin is where a request that uses a link came from, for the member's security events.
type Origin struct {
	ClientAddr, UserAgent string
}

// event is the member's own event of kind at `at`, from o. The request id and, when o has
// none, the address come from the context (audit.Recorder).
func (o Origin) event(memberID int64, kind audit.Kind, at time.Time) Event {
	return Event{
		Kind: kind, At: at, Actor: audit.ActorMember, ActorID: memberID, SubjectID: memberID,
		ClientAddr: o.ClientAddr, UserAgent: audit.ClipUserAgent(o.UserAgent),
	}
}

// ResetRequest is a new password from a reset link.
type ResetRequest struct {
	Token, Password string
	// SignOutApps also revokes every token pair of the member ("also sign out of all
	// applications"); without it the member's grants survive the new password.
	SignOutApps bool
	Origin      Origin
}

// ResetPassword uses a reset link: in one transaction it uses the link, sets the new password
// (if the member's password is still the one the link was made under), ends every session of
// the member at every school, deletes their other reset links, revokes their token pairs when
// asked and records the event. A refused password is a *PasswordError; a link that cannot be
// used, ErrLinkDead. It returns the member (without the hash), ready to be signed in.
func (s *Service) ResetPassword(ctx context.Context, req ResetRequest) (storage.Member, error) {
	lm, err := s.PeekLink(ctx, req.Token, PurposeReset)
	if err != nil {
		return storage.Member{}, err
	}
	hash, err := s.checkAndHash(ctx, req.Password, lm.Member)
	if err != nil {
		return storage.Member{}, err
	}
	var m storage.Member
	err = s.useLink(ctx, req.Token, PurposeReset, func(ctx context.Context, l Link, now time.Time) (err error) {
		if m, err = s.setPassword(ctx, l, hash); err != nil {
			return err
		}
		if _, err := s.store.DeleteOtherSessions(ctx, m.ID, "", true); err != nil {
			return fmt.Errorf("account: end sessions: %w", err)
		}
		if err := s.store.DeleteMemberLinks(ctx, m.ID, PurposeReset); err != nil {
			return fmt.Errorf("account: delete reset links: %w", err)
		}
		if req.SignOutApps {
			if _, err := s.store.RevokeAllConnectedApps(ctx, m.ID, now); err != nil {
				return fmt.Errorf("account: revoke applications: %w", err)
			}
		}
		e := req.Origin.event(m.ID, audit.KindPasswordResetCompleted, now)
		e.Detail = signedOutNote(req.SignOutApps)
		if err := s.audit.Record(ctx, e); err != nil {
			return fmt.Errorf("account: record event: %w", err)
		}
		return nil
	})
	if err != nil {
		return storage.Member{}, err
	}
	m.PasswordHash = ""
	return m, nil
}

// AcceptRequest answers an invitation link.
type AcceptRequest struct {
	Token string
	// Password is the password chosen by a member who has none; it is ignored for a member who
	// already has one (an invitation never changes an existing password).
	Password string
	Origin   Origin
}

// AcceptResult says what accepting an invitation did.
type AcceptResult struct {
	Member storage.Member // without its password hash
	// PasswordSet is set when the member chose their first password (and may be signed in);
	// otherwise the member already had one and signs in with it.
	PasswordSet bool
}

// AcceptInvitation uses an invitation link in one transaction: for a member with no password,
// it sets the chosen one; for a member who has one, it only uses the link. Either way the link
// must still match the member's password as it was when the invitation was sent.
func (s *Service) AcceptInvitation(ctx context.Context, req AcceptRequest) (AcceptResult, error) {
	lm, err := s.PeekLink(ctx, req.Token, PurposeInvitation)
	if err != nil {
		return AcceptResult{}, err
	}
	var hash string
	if !lm.HasPassword {
		if hash, err = s.checkAndHash(ctx, req.Password, lm.Member); err != nil {
			return AcceptResult{}, err
		}
	}
	var m storage.Member
	err = s.useLink(ctx, req.Token, PurposeInvitation, func(ctx context.Context, l Link, now time.Time) (err error) {
		if hash != "" {
			m, err = s.setPassword(ctx, l, hash)
		} else {
			m, err = s.store.GetMember(ctx, l.MemberID)
			if err == nil && !s.stampMatches(l, m.PasswordHash) {
				err = ErrLinkDead
			}
		}
		if err != nil {
			return err
		}
		if err := s.audit.Record(ctx, req.Origin.event(m.ID, audit.KindInvitationAccepted, now)); err != nil {
			return fmt.Errorf("account: record event: %w", err)
		}
		return nil
	})
	if err != nil {
		return AcceptResult{}, err
	}
	m.PasswordHash = ""
	return AcceptResult{Member: m, PasswordSet: hash != ""}, nil
}

// HashNew hashes a new password at the given costs. The server gives the service
// login.Handler.HashNewPassword, which runs it in one of the sign-in form's hash slots, so that a
// burst of new passwords is bounded in memory as sign-ins are; a command hashes at once.
type HashNew func(ctx context.Context, pw string, p password.Params) (string, error)

// hashPassword hashes a new password pw at the service's costs (ServiceDeps.HashNew). Hashing
// costs the memory of one argon2id run, so it happens before any transaction is open.
func (s *Service) hashPassword(ctx context.Context, pw string) (string, error) {
	return s.hashNew(ctx, pw, s.params)
}

// checkAndHash checks pw against the policy and hashes it (hashPassword).
func (s *Service) checkAndHash(ctx context.Context, pw string, m storage.Member) (string, error) {
	if err := password.CheckPolicy(pw, m.Email, m.Name); err != nil {
		return "", &PasswordError{Err: err}
	}
	h, err := s.hashPassword(ctx, pw)
	if err != nil {
		return "", fmt.Errorf("account: hash password: %w", err)
	}
	return h, nil
}

// useLink uses the link of token in a transaction and runs fn in it, with the link and the
// time it was used: fn's work commits with the link's use or not at all. ErrLinkDead if
// another request used the link first.
func (s *Service) useLink(ctx context.Context, token string, purpose Purpose, fn func(ctx context.Context, l Link, now time.Time) error) error {
	return storage.InTx(ctx, s.store, func(ctx context.Context) error {
		now := s.now()
		l, err := s.store.ConsumeLink(ctx, linkID(s.linkKey, token), purpose, now)
		if errors.Is(err, storage.ErrNotFound) {
			return ErrLinkDead
		}
		if err != nil {
			return fmt.Errorf("account: use link: %w", err)
		}
		return fn(ctx, l, now)
	})
}

// setPassword sets the member's password to hash, holding the row, unless the password
// changed since l was made (the link is then dead).
func (s *Service) setPassword(ctx context.Context, l Link, hash string) (storage.Member, error) {
	m, err := s.store.UpdateMember(ctx, l.MemberID, func(old storage.Member) (storage.Member, error) {
		if !s.stampMatches(l, old.PasswordHash) {
			return old, ErrLinkDead
		}
		old.PasswordHash = hash
		return old, nil
	})
	if errors.Is(err, ErrLinkDead) || errors.Is(err, storage.ErrNotFound) {
		return storage.Member{}, ErrLinkDead
	}
	if err != nil {
		return storage.Member{}, fmt.Errorf("account: set password: %w", err)
	}
	return m, nil
}
