package gormstore

import (
	"context"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/proctorhq/proctor/storage"
)

// Grants. Codes, PKCE and OpenID Connect records and token pairs are each found by a signature
// (a keyed hash of the token, never the token) and always within the context's school, so a
// signature that exists at another school is not found here.
//
// Concurrency. Every decision that two requests could race on is taken by one conditional
// statement whose result says who won (ExchangeCode, RetireReplaced), or ordered by locking
// every pair of the grant in id order (lockGrant), or, for a refresh, the one pair it replaces
// (RefreshPair). Every statement that locks several pairs takes them in that order, so the
// lockers queue instead of deadlocking.

// invalidArg reports malformed input to op.
func invalidArg(op, format string, args ...any) error {
	return fmt.Errorf("gormstore: %s: %s: %w", op, fmt.Sprintf(format, args...), storage.ErrInvalidArgument)
}

// sessionScope is the context's school and the table of a kind of grant session.
func (s *Store) sessionScope(ctx context.Context, kind storage.SessionKind) (scope, string, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return scope{}, "", err
	}
	switch kind {
	case storage.SessionPKCE:
		return sc, pkceSessionRow{}.TableName(), nil
	case storage.SessionOIDC:
		return sc, oidcSessionRow{}.TableName(), nil
	}
	return scope{}, "", fmt.Errorf("gormstore: unknown grant session kind %q: %w", kind, storage.ErrInvalidArgument)
}

// DeleteGrantSession deletes a PKCE or OpenID Connect record; ErrNotFound if there was none.
func (s *Store) DeleteGrantSession(ctx context.Context, kind storage.SessionKind, signature string) error {
	sc, table, err := s.sessionScope(ctx, kind)
	if err != nil {
		return err
	}
	op := fmt.Sprintf("delete %s session", kind)
	res := sc.in(s.conn(ctx).Table(table)).Where("signature = ?", signature).Delete(&grantSessionRow{})
	return rowsOrNotFound(op, res)
}

func (r tokenPairRow) pair() storage.TokenPair {
	p := storage.TokenPair{
		ID:               r.ID,
		RequestID:        r.RequestID,
		ClientID:         r.ClientID,
		AccessSignature:  r.AccessSignature,
		Resource:         r.Resource,
		Scopes:           strings.Fields(r.Scopes),
		Data:             []byte(r.Data),
		RequestedAt:      utc(r.RequestedAt),
		AccessExpiresAt:  utc(r.AccessExpiresAt),
		RefreshExpiresAt: utcPtr(r.RefreshExpiresAt),
		RevokedAt:        utcPtr(r.RevokedAt),
		FirstUsedAt:      utcPtr(r.FirstUsedAt),
		SchoolID:         r.GrantSchoolID,
	}
	if r.AMR != "" {
		p.AMR = strings.Fields(r.AMR)
	}
	if r.MemberID != nil {
		p.MemberID = *r.MemberID
	}
	if r.RefreshSignature != nil {
		p.RefreshSignature = *r.RefreshSignature
	}
	if r.ReplacesPairID != nil {
		p.ReplacesPairID = *r.ReplacesPairID
	}
	return p
}

// joinTokens writes scopes or authentication methods space-separated; a value that is empty or
// holds whitespace could not be read back as itself, and is not a scope token (RFC 6749 section
// 3.3) or an RFC 8176 value anyway.
func joinTokens(op, what string, values []string) (string, error) {
	for _, v := range values {
		if v == "" || strings.ContainsAny(v, " \t\r\n") {
			return "", invalidArg(op, "malformed %s %q", what, v)
		}
	}
	return strings.Join(values, " "), nil
}

// CreateTokenPair stores a new pair at the context's school.
func (s *Store) CreateTokenPair(ctx context.Context, p storage.TokenPair) (storage.TokenPair, error) {
	const op = "create token pair"
	sc, row, err := s.newPairRow(ctx, op, p)
	if err != nil {
		return storage.TokenPair{}, err
	}
	db := s.conn(ctx)
	if p.ReplacesPairID != 0 {
		// The foreign key only says the pair exists. It must also be this school's and of the
		// same grant: RetireReplaced revokes it, and RevokeGrant must reach every pair of a grant.
		var n int64
		err := sc.in(db.Model(&tokenPairRow{})).
			Where("id = ? AND request_id = ?", p.ReplacesPairID, p.RequestID).Count(&n).Error
		if err != nil {
			return storage.TokenPair{}, wrap(op, err)
		}
		if n == 0 {
			return storage.TokenPair{}, fmt.Errorf("gormstore: %s: replaced pair %d is not of grant %q: %w",
				op, p.ReplacesPairID, p.RequestID, storage.ErrNotFound)
		}
	}
	// An unknown member fails on the foreign key (ErrNotFound); a signature already stored fails
	// on its unique index (ErrAlreadyExists).
	if err := db.Create(&row).Error; err != nil {
		return storage.TokenPair{}, wrap(op, err)
	}
	return row.pair(), nil
}

// newPairRow checks a new pair and makes its row at the context's school.
func (s *Store) newPairRow(ctx context.Context, op string, p storage.TokenPair) (scope, tokenPairRow, error) {
	sc, err := s.scopedInput(ctx, op,
		invalid{p.AccessSignature == "" || p.RequestID == "" || p.ClientID == "", "access signature, request id and client id are required"},
		invalid{p.AccessExpiresAt.IsZero(), "no access token expiry"},
		invalid{p.MemberID < 0 || p.ReplacesPairID < 0 || p.SchoolID < 0, "negative id"})
	if err != nil {
		return scope{}, tokenPairRow{}, err
	}
	scopes, err := joinTokens(op, "scope", p.Scopes)
	if err != nil {
		return scope{}, tokenPairRow{}, err
	}
	amr, err := joinTokens(op, "authentication method", p.AMR)
	if err != nil {
		return scope{}, tokenPairRow{}, err
	}
	row := tokenPairRow{
		RequestID:        p.RequestID,
		SchoolID:         sc.schoolID,
		ClientID:         p.ClientID,
		AccessSignature:  p.AccessSignature,
		Resource:         p.Resource,
		Scopes:           scopes,
		Data:             string(p.Data),
		RequestedAt:      dbTime(s.orNow(p.RequestedAt)),
		AccessExpiresAt:  dbTime(p.AccessExpiresAt),
		RefreshExpiresAt: dbTimePtr(p.RefreshExpiresAt),
		RevokedAt:        dbTimePtr(p.RevokedAt),
		FirstUsedAt:      dbTimePtr(p.FirstUsedAt),
		GrantSchoolID:    p.SchoolID,
		AMR:              amr,
	}
	if p.MemberID != 0 {
		row.MemberID = &p.MemberID
	}
	if p.RefreshSignature != "" {
		row.RefreshSignature = &p.RefreshSignature
	}
	if p.ReplacesPairID != 0 {
		row.ReplacesPairID = &p.ReplacesPairID
	}
	return sc, row, nil
}

// GetTokenPair finds a pair by either signature, in one query on that signature's unique index.
func (s *Store) GetTokenPair(ctx context.Context, kind storage.TokenKind, signature string) (storage.TokenPair, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return storage.TokenPair{}, err
	}
	var column string
	switch kind {
	case storage.AccessToken:
		column = "access_signature"
	case storage.RefreshToken:
		column = "refresh_signature"
	default:
		return storage.TokenPair{}, invalidArg("get token pair", "unknown token kind %d", kind)
	}
	// Every bearer token a resource checks and every refresh reads a pair, so this read skips
	// gorm's query building and reflection: a fixed statement scanned straight into the row (a
	// NULL leaves a pointer field nil), a fifth cheaper than Take on SQLite
	// (BenchmarkGetTokenPair). sql.ErrNoRows is classified as ErrNotFound by wrap.
	row := tokenPairRow{SchoolID: sc.schoolID}
	err = s.conn(ctx).Raw("SELECT "+tokenPairColumns+" FROM oauth_token_pairs WHERE school_id = ? AND "+column+" = ?", sc.schoolID, signature).
		Row().Scan(&row.ID, &row.RequestID, &row.ClientID, &row.MemberID, &row.AccessSignature, &row.RefreshSignature,
		&row.Resource, &row.Scopes, &row.Data, &row.RequestedAt, &row.AccessExpiresAt, &row.RefreshExpiresAt,
		&row.RevokedAt, &row.FirstUsedAt, &row.ReplacesPairID, &row.GrantSchoolID, &row.AMR)
	if err != nil {
		return storage.TokenPair{}, wrap("get token pair", err)
	}
	return row.pair(), nil
}

// tokenPairColumns are the columns GetTokenPair scans, in its order.
const tokenPairColumns = "id, request_id, client_id, member_id, access_signature, refresh_signature, resource, scopes, data, " +
	"requested_at, access_expires_at, refresh_expires_at, revoked_at, first_used_at, replaces_pair_id, grant_school_id, amr"

// lockGrant locks the grant's pairs until tx ends, in id order. On PostgreSQL these are row locks;
// on SQLite forUpdate adds nothing, and the transaction already holds the database's write lock
// (BEGIN IMMEDIATE), which orders it against every other writer.
func lockGrant(tx *gorm.DB, sc scope, requestID string) error {
	var ids []int64
	return forUpdate(sc.in(tx.Model(&tokenPairRow{}))).
		Where("request_id = ?", requestID).Order("id").Pluck("id", &ids).Error
}

// RevokeGrant revokes every live pair of the grant and deactivates its codes, in the caller's
// transaction or one of its own.
//
// Why a refresh cannot slip past it: a refresh locks the pair it replaces (RefreshPair), checks it,
// inserts the new one and commits. If the refresh locks first, the lock below waits for it, and
// the revoking UPDATE, a separate statement, reads a fresh snapshot on PostgreSQL (READ
// COMMITTED), so it sees and revokes the new pair too. If the revocation locks first, the
// refresh waits, then finds the old pair revoked and issues nothing. The codes are deactivated
// before the pairs for the same reason: a code exchange in flight holds its code's row lock
// until it commits the pair it issued, so waiting on the code lets the UPDATE of the pairs see
// that pair.
func (s *Store) RevokeGrant(ctx context.Context, requestID string, at time.Time) (int, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return 0, err
	}
	const op = "revoke grant"
	at = dbTime(at)
	var revoked int
	err = s.inTx(ctx, op, func(tx *gorm.DB) error {
		if err := lockGrant(tx, sc, requestID); err != nil {
			return wrap(op+": lock", err)
		}
		n, err := revokeIssued(tx, op, sc.in, "request_id = ?", requestID, at)
		revoked = n
		return err
	})
	return revoked, err
}

// revokeIssued deactivates the active codes and then revokes the live pairs that cond (on a
// column the two tables share, with its argument) and which select, in that order for the
// reasons RevokeGrant gives, and returns how many pairs it revoked. The caller has locked the
// pairs.
func revokeIssued(tx *gorm.DB, op string, which func(*gorm.DB) *gorm.DB, cond string, arg any, at time.Time) (int, error) {
	err := which(tx.Model(&authorizationCodeRow{})).
		Where(cond+" AND active = ?", arg, true).Update("active", false).Error
	if err != nil {
		return 0, wrap(op+": deactivate codes", err)
	}
	res := which(tx.Model(&tokenPairRow{})).
		Where(cond+" AND revoked_at IS NULL", arg).Update("revoked_at", at)
	if res.Error != nil {
		return 0, wrap(op+": revoke pairs", res.Error)
	}
	return int(res.RowsAffected), nil
}

// RetireReplaced records the first use of a pair's access token and, for that first use only,
// revokes the pair it replaced, every other pair minted from that one (a fork: two refreshes of
// one refresh token) and every pair minted from those since. A grant is a tree of pairs (the
// code exchange's pair at the root, each refresh a child of the pair it replaced): the first use
// of a child says which line its holder continues. The pairs minted from the used pair stay: a
// client may refresh before it uses the access token it got. Pairs above the replaced one are
// left to the spec's retry rule (docs/decisions.md).
//
// The UPDATE conditioned on first_used_at IS NULL decides which of several concurrent calls is
// first. The grant is locked beforehand, in the same order as every other locker, because this
// transaction writes several pairs of the grant: taking the new pair's row and then the old
// one's could otherwise deadlock against a revocation locking them in id order. The locked rows
// are the whole tree, so finding the pairs to retire costs no further query. A pair that is
// revoked by the time the lock is held (a sibling was used first, or the grant was revoked) is
// ErrNotFound: no live pair, and nothing is changed.
func (s *Store) RetireReplaced(ctx context.Context, pairID int64, at time.Time) (bool, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return false, err
	}
	op := fmt.Sprintf("retire the pairs replaced by pair %d", pairID)
	at = dbTime(at)
	var first bool
	err = s.inTx(ctx, op, func(tx *gorm.DB) error {
		var grant []grantNode
		ofPair := sc.in(tx.Model(&tokenPairRow{})).Select("request_id").Where("id = ?", pairID)
		err := forUpdate(sc.in(tx.Model(&tokenPairRow{}))).Select("id", "replaces_pair_id", "revoked_at").
			Where("request_id = (?)", ofPair).Order("id").Scan(&grant).Error
		if err != nil {
			return wrap(op+": lock grant", err)
		}
		var self *grantNode
		for i := range grant {
			if grant[i].ID == pairID {
				self = &grant[i]
			}
		}
		switch {
		case self == nil:
			return fmt.Errorf("gormstore: %s: %w", op, storage.ErrNotFound)
		case self.RevokedAt != nil:
			return fmt.Errorf("gormstore: %s: the pair is revoked: %w", op, storage.ErrNotFound)
		}
		res := sc.in(tx.Model(&tokenPairRow{})).
			Where("id = ? AND first_used_at IS NULL", pairID).Update("first_used_at", at)
		if res.Error != nil {
			return wrap(op, res.Error)
		}
		if res.RowsAffected == 0 {
			return nil
		}
		first = true
		if self.ReplacesPairID == nil {
			return nil // the code exchange's pair replaced nothing
		}
		// The replaced pair and everything minted from it, less the used pair's own line.
		retire := lineage(grant, *self.ReplacesPairID, pairID)
		err = sc.in(tx.Model(&tokenPairRow{})).
			Where("id IN ? AND revoked_at IS NULL", retire).Update("revoked_at", at).Error
		return wrap(op+": revoke the replaced pair and its other lines", err)
	})
	return first, err
}

// grantNode is one pair of a grant's tree, as RetireReplaced locks it.
type grantNode struct {
	ID             int64
	ReplacesPairID *int64
	RevokedAt      *time.Time
}

// lineage returns the ids of root and of every pair minted from it, directly or through others,
// except keep and the pairs minted from keep.
func lineage(grant []grantNode, root, keep int64) []int64 {
	children := make(map[int64][]int64, len(grant))
	for _, n := range grant {
		if n.ReplacesPairID != nil && n.ID != keep {
			children[*n.ReplacesPairID] = append(children[*n.ReplacesPairID], n.ID)
		}
	}
	ids := []int64{root}
	for i := 0; i < len(ids); i++ {
		ids = append(ids, children[ids[i]]...)
	}
	return ids
}
