package authz

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"time"

	"github.com/ory/fosite"
	"github.com/ory/fosite/handler/oauth2"
	"github.com/ory/fosite/handler/openid"
	"github.com/ory/fosite/handler/pkce"
	fstorage "github.com/ory/fosite/storage"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
)

// fositeStore maps fosite's narrow storage interfaces onto the store's grants. Codes and tokens
// are stored by their HMAC signatures only (fosite hands us signatures, never the raw values),
// except for the OpenID Connect session, which fosite keys by the raw code: that key is hashed
// here before it reaches the database. The refresh grant's part (rotation, reuse) is in
// refresh.go.
type fositeStore struct {
	grants    grantStore
	tx        transactions
	clients   *clientSource
	now       func() time.Time
	signature func(ctx context.Context, code string) string
	// audit records the grants revoked on refresh token reuse.
	audit *audit.Recorder
	log   *slog.Logger
	// counters count refresh token reuse and grants revoked at the revocation endpoint.
	counters Counters
}

var (
	_ fosite.ClientManager               = (*fositeStore)(nil)
	_ oauth2.CoreStorage                 = (*fositeStore)(nil)
	_ oauth2.TokenRevocationStorage      = (*fositeStore)(nil)
	_ pkce.PKCERequestStorage            = (*fositeStore)(nil)
	_ openid.OpenIDConnectRequestStorage = (*fositeStore)(nil)
	_ fstorage.Transactional             = (*fositeStore)(nil)
)

// fositeErr turns storage's not-found into fosite's, which fosite's handlers branch on; every
// other error passes through wrapped (storage.ErrUnavailable stays recognisable at the edge).
func fositeErr(err error) error {
	if errors.Is(err, storage.ErrNotFound) {
		return fmt.Errorf("%w: %w", fosite.ErrNotFound, err)
	}
	return err
}

// ---- clients ----

func (s *fositeStore) GetClient(ctx context.Context, id string) (fosite.Client, error) {
	t, err := school.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	c, err := s.clients.resolve(ctx, t, id)
	if err != nil {
		return nil, fositeErr(err)
	}
	return fositeClient(t, c), nil
}

// Client assertions (private_key_jwt) are never accepted: every client authenticates with
// "none" or client_secret_post, and fosite refuses assertions before it gets here.
func (s *fositeStore) ClientAssertionJWTValid(context.Context, string) error {
	return fosite.ErrJTIKnown
}
func (s *fositeStore) SetClientAssertionJWT(context.Context, string, time.Time) error {
	return fosite.ErrJTIKnown
}

// ---- serialized requests ----

// storedRequest is the JSON form of a fosite request kept in the data column of codes, PKCE and
// OpenID Connect records and token pairs. The form is already sanitized by fosite.
type storedRequest struct {
	ID                string     `json:"id"`
	RequestedAt       time.Time  `json:"requested_at"`
	ClientID          string     `json:"client_id"`
	RequestedScopes   []string   `json:"requested_scopes"`
	GrantedScopes     []string   `json:"granted_scopes"`
	RequestedAudience []string   `json:"requested_audience"`
	GrantedAudience   []string   `json:"granted_audience"`
	Form              url.Values `json:"form"`
	// Session is the session, encoded and decoded in the same pass as the rest: to decode, set
	// it to the (pointer to the) session to fill before calling json.Unmarshal, which decodes
	// into the value an interface's pointer points to. (A json.RawMessage here cost a second
	// scan and a copy of the session's JSON each way: the session is most of a request.)
	Session any `json:"session"`
}

func marshalRequest(r fosite.Requester) ([]byte, error) {
	return json.Marshal(storedRequest{
		ID:                r.GetID(),
		RequestedAt:       r.GetRequestedAt(),
		ClientID:          r.GetClient().GetID(),
		RequestedScopes:   r.GetRequestedScopes(),
		GrantedScopes:     r.GetGrantedScopes(),
		RequestedAudience: r.GetRequestedAudience(),
		GrantedAudience:   r.GetGrantedAudience(),
		Form:              r.GetRequestForm(),
		Session:           r.GetSession(),
	})
}

// SessionData encodes the data column of a request that carries only sess, in the form this
// package reads back: a harness that stores tokens of its own (servertest.MintToken) writes
// them as the token endpoint would, without knowing the form.
func SessionData(sess *Session) ([]byte, error) {
	return json.Marshal(storedRequest{Session: sess})
}

// unmarshalRequest rebuilds the whole requester, filling the session fosite handed in.
func (s *fositeStore) unmarshalRequest(ctx context.Context, data []byte, session fosite.Session) (fosite.Requester, error) {
	if session == nil {
		session = newSession()
	}
	sr := storedRequest{Session: session}
	if err := json.Unmarshal(data, &sr); err != nil {
		return nil, fmt.Errorf("authz: stored request: %w", err)
	}
	client, err := s.GetClient(ctx, sr.ClientID)
	if err != nil {
		return nil, err
	}
	return &fosite.Request{
		ID:                sr.ID,
		RequestedAt:       sr.RequestedAt,
		Client:            client,
		RequestedScope:    sr.RequestedScopes,
		GrantedScope:      sr.GrantedScopes,
		RequestedAudience: sr.RequestedAudience,
		GrantedAudience:   sr.GrantedAudience,
		Form:              sr.Form,
		Session:           session,
	}, nil
}

// sessionOf returns Proctor's session of a requester.
func sessionOf(r fosite.Requester) (*Session, error) {
	s, ok := r.GetSession().(*Session)
	if !ok || s == nil {
		return nil, fmt.Errorf("authz: unexpected session type %T", r.GetSession())
	}
	return s, nil
}

// sessionAndRequest returns what a stored code or token pair is made of: Proctor's session,
// whose fields become columns, and the whole request encoded.
func sessionAndRequest(r fosite.Requester) (*Session, []byte, error) {
	sess, err := sessionOf(r)
	if err != nil {
		return nil, nil, err
	}
	data, err := marshalRequest(r)
	if err != nil {
		return nil, nil, err
	}
	return sess, data, nil
}

// ---- authorization codes ----

func (s *fositeStore) CreateAuthorizeCodeSession(ctx context.Context, signature string, r fosite.Requester) error {
	sess, data, err := sessionAndRequest(r)
	if err != nil {
		return err
	}
	return s.pendingCode(ctx, signature, func(g *storage.CodeGrant) {
		g.Code = storage.AuthorizationCode{
			Signature:   signature,
			RequestID:   r.GetID(),
			ClientID:    r.GetClient().GetID(),
			MemberID:    sess.MemberID,
			Active:      true,
			Data:        data,
			RequestedAt: r.GetRequestedAt(),
			ExpiresAt:   sess.GetExpiresAt(fosite.AuthorizeCode),
		}
	})
}

// GetAuthorizeCodeSession returns a used code's request together with
// ErrInvalidatedAuthorizeCode, so that fosite revokes what its first use issued (RFC 6749
// section 4.1.2). fosite reads the code twice in an exchange; the second read is the memo's.
func (s *fositeStore) GetAuthorizeCodeSession(ctx context.Context, signature string, session fosite.Session) (fosite.Requester, error) {
	g, err := s.codeGrant(ctx, signature)
	if err != nil {
		return nil, fositeErr(err)
	}
	r, err := s.codeRequest(ctx, signature, g.Code.Data, session)
	if err != nil {
		return nil, err
	}
	if !g.Code.Active {
		return r, fosite.ErrInvalidatedAuthorizeCode
	}
	return r, nil
}

// InvalidateAuthorizeCodeSession records the code's use, which is stored with the pair when
// fosite commits (ExchangeCode, unit.go). That store call is the arbiter: of two concurrent
// exchanges of one code only one stores its pair; the other gets ErrInvalidatedAuthorizeCode
// from Commit (answered invalid_grant).
func (s *fositeStore) InvalidateAuthorizeCodeSession(ctx context.Context, signature string) error {
	w, err := pendingFrom(ctx)
	if err != nil {
		return err
	}
	w.spend = signature
	return nil
}

// ---- PKCE and OpenID Connect records ----

// grantSession is a PKCE or OpenID Connect record of the request.
func (s *fositeStore) grantSession(signature string, r fosite.Requester) (*storage.GrantSession, error) {
	data, err := marshalRequest(r)
	if err != nil {
		return nil, err
	}
	exp := r.GetSession().GetExpiresAt(fosite.AuthorizeCode)
	if exp.IsZero() {
		exp = s.now().Add(time.Hour)
	}
	return &storage.GrantSession{Signature: signature, RequestID: r.GetID(), Data: data, ExpiresAt: exp}, nil
}

func (s *fositeStore) CreatePKCERequestSession(ctx context.Context, signature string, r fosite.Requester) error {
	rec, err := s.grantSession(signature, r)
	if err != nil {
		return err
	}
	return s.pendingCode(ctx, signature, func(g *storage.CodeGrant) { g.PKCE = rec })
}

// GetPKCERequestSession reads the record from the code's read (codeGrant). A record fosite has
// deleted in this request is gone.
func (s *fositeStore) GetPKCERequestSession(ctx context.Context, signature string, session fosite.Session) (fosite.Requester, error) {
	g, err := s.codeGrant(ctx, signature)
	if err != nil {
		return nil, fositeErr(err)
	}
	if memo := memoFrom(ctx); g.PKCE == nil || (memo != nil && slices.Contains(memo.pkceUsed, signature)) {
		return nil, fositeErr(fmt.Errorf("authz: no PKCE record: %w", storage.ErrNotFound))
	}
	return s.unmarshalRequest(ctx, g.PKCE.Data, session)
}

// DeletePKCERequestSession is deferred within a request to the exchange, which deletes the
// record with the code's use, or to the request's end (requestMemo.pkceUsed).
func (s *fositeStore) DeletePKCERequestSession(ctx context.Context, signature string) error {
	memo := memoFrom(ctx)
	if memo == nil {
		return s.deleteGrantSession(ctx, storage.SessionPKCE, signature)
	}
	memo.mu.Lock()
	memo.pkceUsed = append(memo.pkceUsed, signature)
	memo.mu.Unlock()
	return nil
}

// deleteGrantSession treats an already deleted record as deleted: of two concurrent exchanges
// of one code, the loser may find it gone, and must then fail at the code's atomic
// invalidation (invalid_grant), not here with a server error.
func (s *fositeStore) deleteGrantSession(ctx context.Context, kind storage.SessionKind, signature string) error {
	err := s.grants.DeleteGrantSession(ctx, kind, signature)
	if errors.Is(err, storage.ErrNotFound) {
		return nil
	}
	return err
}

func (s *fositeStore) CreateOpenIDConnectSession(ctx context.Context, code string, r fosite.Requester) error {
	signature := s.signature(ctx, code)
	rec, err := s.grantSession(signature, r)
	if err != nil {
		return err
	}
	return s.pendingCode(ctx, signature, func(g *storage.CodeGrant) { g.OIDC = rec })
}

// GetOpenIDConnectSession reads the record from the code's read (codeGrant). fosite reads it once,
// at the code exchange, after the exchange deleted it with the code's use in a committed
// transaction (ExchangeCode), so DeleteOpenIDConnectSession has nothing left to do and nothing
// can need the record again: a failed exchange cannot be retried with the same code.
func (s *fositeStore) GetOpenIDConnectSession(ctx context.Context, code string, r fosite.Requester) (fosite.Requester, error) {
	g, err := s.codeGrant(ctx, s.signature(ctx, code))
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		return nil, err
	}
	if g.OIDC == nil {
		// fosite's OpenID Connect handler treats this error as "no openid scope was granted".
		return nil, openid.ErrNoSessionFound
	}
	return s.unmarshalRequest(ctx, g.OIDC.Data, r.GetSession())
}
func (s *fositeStore) DeleteOpenIDConnectSession(context.Context, string) error { return nil }

// ---- token pairs ----

func (s *fositeStore) CreateAccessTokenSession(ctx context.Context, signature string, r fosite.Requester) error {
	sess, data, err := sessionAndRequest(r)
	if err != nil {
		return err
	}
	w, err := pendingFrom(ctx)
	if err != nil {
		return err
	}
	// Stored when fosite commits, with its refresh half if one follows (unit.go).
	w.pair = &storage.TokenPair{
		RequestID:       r.GetID(),
		ClientID:        r.GetClient().GetID(),
		MemberID:        sess.MemberID,
		AccessSignature: signature,
		Resource:        sess.Resource,
		Scopes:          r.GetGrantedScopes(),
		Data:            data,
		RequestedAt:     s.now(),
		AccessExpiresAt: sess.GetExpiresAt(fosite.AccessToken),
		ReplacesPairID:  replacedPair(sess),
		SchoolID:        sess.SchoolID,
		AMR:             sess.amr(),
	}
	return nil
}

func (s *fositeStore) getPair(ctx context.Context, kind storage.TokenKind, signature string, session fosite.Session) (fosite.Requester, error) {
	p, err := s.grants.GetTokenPair(ctx, kind, signature)
	if err != nil {
		return nil, fositeErr(err)
	}
	r, err := s.unmarshalRequest(ctx, p.Data, session)
	if err != nil {
		return nil, err
	}
	if sess, ok := r.GetSession().(*Session); ok {
		sess.pairID = p.ID // what a refresh of this pair replaces (refresh.go)
	}
	if p.RevokedAt != nil {
		// For a refresh token this makes fosite treat the request as reuse and revoke the
		// whole grant (RFC 9700 section 4.14.2; docs/decisions.md).
		return r, fosite.ErrInactiveToken
	}
	return r, nil
}

func (s *fositeStore) GetAccessTokenSession(ctx context.Context, signature string, session fosite.Session) (fosite.Requester, error) {
	return s.getPair(ctx, storage.AccessToken, signature, session)
}

// deletePair is what fosite calls "deleting" a token: it only does so on the way to revoking the
// token's grant, so the pair is revoked (its row is kept to recognise a replay).
func (s *fositeStore) deletePair(ctx context.Context, kind storage.TokenKind, signature string) error {
	ctx, err := s.within(ctx)
	if err != nil {
		return err
	}
	p, err := s.grants.GetTokenPair(ctx, kind, signature)
	if err != nil {
		return fositeErr(err)
	}
	_, err = s.grants.RevokeGrant(ctx, p.RequestID, s.now())
	return err
}

func (s *fositeStore) DeleteAccessTokenSession(ctx context.Context, signature string) error {
	return s.deletePair(ctx, storage.AccessToken, signature)
}

func (s *fositeStore) RevokeAccessToken(ctx context.Context, requestID string) error {
	return s.revokeGrant(ctx, requestID)
}

// revokeGrant revokes a grant, in fosite's transaction when the call is made in one.
func (s *fositeStore) revokeGrant(ctx context.Context, requestID string) error {
	ctx, err := s.within(ctx)
	if err != nil {
		return err
	}
	_, err = s.grants.RevokeGrant(ctx, requestID, s.now())
	return err
}

// ---- transactions ----

// transactions are what fosite's storage.Transactional asks for: the code exchange, a refresh
// and the revocation of a reused refresh token each run in one transaction. Only the adapter
// opens them; the endpoints write in single store calls.
type transactions interface {
	BeginTx(ctx context.Context) (context.Context, error)
	Commit(ctx context.Context) error
	Rollback(ctx context.Context) error
}

// BeginTX opens fosite's transaction as a pendingWrite, which Commit stores. The store's own
// transaction is begun only for writes made directly in fosite's transaction (within): an
// exchange or a refresh writes nothing but its pending write, one store call that is atomic on
// its own, and so spends no BEGIN and COMMIT round trips.
func (s *fositeStore) BeginTX(ctx context.Context) (context.Context, error) {
	return context.WithValue(ctx, pendingWriteKey{}, &pendingWrite{}), nil
}

// within is the context the adapter's direct writes in fosite's transaction go through: the
// store's transaction, begun at the first of them (the revocation of a reused refresh token,
// whose security event commits with it). Outside fosite's transaction (a used code's
// revocation) it is ctx: each store call is atomic on its own.
func (s *fositeStore) within(ctx context.Context) (context.Context, error) {
	w, err := pendingFrom(ctx)
	if err != nil {
		return ctx, nil
	}
	if w.tx == nil {
		tx, err := s.tx.BeginTx(ctx)
		if err != nil {
			return ctx, err
		}
		w.tx = tx
	}
	return w.tx, nil
}

// Commit stores the pending write, in the store's transaction if one was begun, and commits
// it; a write refused rolls it back.
func (s *fositeStore) Commit(ctx context.Context) error {
	w, err := pendingFrom(ctx)
	if err != nil {
		return err
	}
	if w.tx == nil {
		return s.flush(ctx, w)
	}
	if err := s.flush(w.tx, w); err != nil {
		if rbErr := s.tx.Rollback(w.tx); rbErr != nil {
			return fmt.Errorf("%w (rollback: %v)", err, rbErr)
		}
		return err
	}
	return s.tx.Commit(w.tx)
}

// Rollback drops the pending write (by not storing it) and rolls the store's transaction back
// if one was begun.
func (s *fositeStore) Rollback(ctx context.Context) error {
	w, err := pendingFrom(ctx)
	if err != nil || w.tx == nil {
		return nil
	}
	return s.tx.Rollback(w.tx)
}
