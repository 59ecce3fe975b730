package gormstore

import (
	"context"
	"crypto/subtle"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/proctorhq/proctor/storage"
)

// The authorization and token endpoints' reads and writes. An authorization stores its code with
// the code's PKCE and OpenID Connect records in one write (CreateCodeGrant). A code exchange reads its code with the code's PKCE and
// OpenID Connect records in one query (GetCodeGrant) and writes once (ExchangeCode); a refresh
// reads its pair (GetTokenPair) and writes once (RefreshPair). On PostgreSQL each write is one
// statement, which does its check and its insert together: the statement count of the token
// endpoint, not the work in each statement, is what bounds its throughput (docs/benchmarks.md).
// SQLite has no data-modifying WITH, so there each write is a few statements in a transaction,
// which holds the database's write lock from its first write.

// CreateCodeGrant stores a code, its records and its security event at the context's school:
// one statement on PostgreSQL (the other rows' INSERTs in a WITH), a transaction on SQLite.
func (s *Store) CreateCodeGrant(ctx context.Context, g storage.CodeGrant) error {
	const op = "create code grant"
	c := g.Code
	sc, err := s.scopedInput(ctx, op,
		invalid{c.Signature == "" || c.RequestID == "" || c.ClientID == "", "signature, request id and client id are required"},
		// A code is always issued to a signed-in member.
		invalid{c.MemberID <= 0, "no member"},
		invalid{c.ExpiresAt.IsZero(), "no expiry"})
	if err != nil {
		return err
	}
	rows := []any{&authorizationCodeRow{
		Signature:   c.Signature,
		RequestID:   c.RequestID,
		SchoolID:    sc.schoolID,
		ClientID:    c.ClientID,
		MemberID:    c.MemberID,
		Active:      c.Active,
		Data:        string(c.Data),
		RequestedAt: dbTime(s.orNow(c.RequestedAt)),
		ExpiresAt:   dbTime(c.ExpiresAt),
	}}
	for _, rec := range []struct {
		table string
		g     *storage.GrantSession
	}{{pkceSessionRow{}.TableName(), g.PKCE}, {oidcSessionRow{}.TableName(), g.OIDC}} {
		switch {
		case rec.g == nil:
			continue
		case rec.g.Signature != "" && subtle.ConstantTimeCompare([]byte(rec.g.Signature), []byte(c.Signature)) != 1:
			return invalidArg(op, "a record's signature is not its code's")
		case rec.g.RequestID == "" || rec.g.ExpiresAt.IsZero():
			return invalidArg(op, "a record without request id or expiry")
		}
		rows = append(rows, &sideRow{table: rec.table, grantSessionRow: grantSessionRow{
			Signature: c.Signature, RequestID: rec.g.RequestID, SchoolID: sc.schoolID, Data: string(rec.g.Data), ExpiresAt: dbTime(rec.g.ExpiresAt),
		}})
	}
	if g.Event != nil {
		ev, err := s.eventRow(ctx, op, *g.Event)
		if err != nil {
			return err
		}
		rows = append(rows, &ev)
	}
	// An unknown member fails on the foreign key, which wrap reports as ErrNotFound; a
	// signature already stored fails on its unique index (ErrAlreadyExists).
	if s.driver == DriverPostgres {
		q, args := codeGrantInsert(rows)
		return wrap(op, s.conn(ctx).Exec(q, args...).Error)
	}
	return s.inTx(ctx, op, func(tx *gorm.DB) error {
		for _, r := range rows {
			db := tx
			if side, ok := r.(*sideRow); ok {
				db, r = tx.Table(side.table), &side.grantSessionRow
			}
			if err := db.Create(r).Error; err != nil {
				return wrap(op, err)
			}
		}
		return nil
	})
}

// sideRow is a PKCE or OpenID Connect record with the table it goes to.
type sideRow struct {
	table string
	grantSessionRow
}

// codeGrantInsert is one PostgreSQL statement that inserts a code's rows: every row but the
// last as an INSERT in a WITH, the last as the statement itself.
func codeGrantInsert(rows []any) (string, []any) {
	var (
		parts []string
		args  []any
	)
	for _, r := range rows {
		switch r := r.(type) {
		case *authorizationCodeRow:
			parts = append(parts, "INSERT INTO "+r.TableName()+" (signature, request_id, school_id, client_id, member_id, active, data, requested_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
			args = append(args, r.Signature, r.RequestID, r.SchoolID, r.ClientID, r.MemberID, r.Active, r.Data, r.RequestedAt, r.ExpiresAt)
		case *sideRow:
			parts = append(parts, "INSERT INTO "+r.table+" (signature, request_id, school_id, data, expires_at) VALUES (?, ?, ?, ?, ?)")
			args = append(args, r.Signature, r.RequestID, r.SchoolID, r.Data, r.ExpiresAt)
		case *securityEventRow:
			parts = append(parts, "INSERT INTO "+r.TableName()+" (school_id, kind, result, at, actor, actor_id, subject_id, client_id, scopes, client_addr, user_agent, request_id, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
			args = append(args, r.SchoolID, r.Kind, r.Result, r.At, r.Actor, r.ActorID, r.SubjectID, r.ClientID, r.Scopes, r.ClientAddr, r.UserAgent, r.RequestID, r.Detail)
		}
	}
	q := parts[len(parts)-1]
	if len(parts) > 1 {
		with := make([]string, len(parts)-1)
		for i, p := range parts[:len(parts)-1] {
			with[i] = fmt.Sprintf("r%d AS (%s)", i, p)
		}
		q = "WITH " + strings.Join(with, ", ") + " " + q
	}
	return q, args
}

// GetCodeGrant reads a code and its PKCE and OpenID Connect records in one query.
func (s *Store) GetCodeGrant(ctx context.Context, signature string) (storage.CodeGrant, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return storage.CodeGrant{}, err
	}
	var (
		c            authorizationCodeRow
		pkce, oidc   sideRecord
		pkceT, oidcT = pkceSessionRow{}.TableName(), oidcSessionRow{}.TableName()
		codeT        = authorizationCodeRow{}.TableName()
		sideOn       = func(t string) string { return t + ".school_id = c.school_id AND " + t + ".signature = c.signature" }
		query        = "SELECT c.signature, c.request_id, c.client_id, c.member_id, c.active, c.data, c.requested_at, c.expires_at, " +
			pkceT + ".request_id, " + pkceT + ".data, " + pkceT + ".expires_at, " +
			oidcT + ".request_id, " + oidcT + ".data, " + oidcT + ".expires_at FROM " + codeT + " c " +
			"LEFT JOIN " + pkceT + " ON " + sideOn(pkceT) + " LEFT JOIN " + oidcT + " ON " + sideOn(oidcT) +
			" WHERE c.school_id = ? AND c.signature = ?"
	)
	err = s.conn(ctx).Raw(query, sc.schoolID, signature).Row().Scan(
		&c.Signature, &c.RequestID, &c.ClientID, &c.MemberID, &c.Active, &c.Data, &c.RequestedAt, &c.ExpiresAt,
		&pkce.requestID, &pkce.data, &pkce.expiresAt, &oidc.requestID, &oidc.data, &oidc.expiresAt)
	if err != nil {
		return storage.CodeGrant{}, wrap("get code grant", err)
	}
	return storage.CodeGrant{Code: c.code(), PKCE: pkce.session(signature), OIDC: oidc.session(signature)}, nil
}

// code is the stored code of a row GetCodeGrant read.
func (r authorizationCodeRow) code() storage.AuthorizationCode {
	return storage.AuthorizationCode{
		Signature:   r.Signature,
		RequestID:   r.RequestID,
		ClientID:    r.ClientID,
		MemberID:    r.MemberID,
		Active:      r.Active,
		Data:        []byte(r.Data),
		RequestedAt: utc(r.RequestedAt),
		ExpiresAt:   utc(r.ExpiresAt),
	}
}

// sideRecord is a PKCE or OpenID Connect record as a LEFT JOIN reads it: all NULL when there
// is none.
type sideRecord struct {
	requestID, data *string
	expiresAt       *time.Time
}

func (r sideRecord) session(signature string) *storage.GrantSession {
	if r.requestID == nil {
		return nil
	}
	g := &storage.GrantSession{Signature: signature, RequestID: *r.requestID}
	if r.data != nil {
		g.Data = []byte(*r.data)
	}
	if r.expiresAt != nil {
		g.ExpiresAt = utc(*r.expiresAt)
	}
	return g
}

// ExchangeCode spends an active code, deletes its PKCE and OpenID Connect records and stores the
// pair, in one statement on PostgreSQL. The conditional UPDATE is the arbiter of the code's
// single use: of two concurrent exchanges the second waits for the first's row lock, re-checks
// active, finds it false and updates nothing, so its INSERT ... SELECT FROM spent inserts
// nothing. The row lock is held until the caller commits, which is what RevokeGrant waits on.
func (s *Store) ExchangeCode(ctx context.Context, signature string, p storage.TokenPair) (storage.TokenPair, error) {
	const op = "exchange code"
	sc, row, err := s.newPairRow(ctx, op, p)
	if err != nil {
		return storage.TokenPair{}, err
	}
	if row.ReplacesPairID != nil {
		return storage.TokenPair{}, invalidArg(op, "a code exchange replaces no pair")
	}
	spent := fmt.Errorf("gormstore: %s: no active code: %w", op, storage.ErrNotFound)
	codes, pkce, oidc := authorizationCodeRow{}.TableName(), pkceSessionRow{}.TableName(), oidcSessionRow{}.TableName()
	if s.driver == DriverPostgres {
		q := "WITH spent AS (UPDATE " + codes + " SET active = false WHERE school_id = ? AND signature = ? AND active RETURNING 1), " +
			"pkce AS (DELETE FROM " + pkce + " WHERE school_id = ? AND signature = ?), " +
			"oidc AS (DELETE FROM " + oidc + " WHERE school_id = ? AND signature = ?) " +
			"INSERT INTO oauth_token_pairs (" + pairInsertColumns + ") SELECT " + pairInsertValues + " FROM spent RETURNING id"
		args := append([]any{sc.schoolID, signature, sc.schoolID, signature, sc.schoolID, signature}, row.insertArgs()...)
		return s.insertPair(ctx, op, row, spent, q, args...)
	}
	err = s.inTx(ctx, op, func(tx *gorm.DB) error {
		res := sc.in(tx.Model(&authorizationCodeRow{})).Where("signature = ? AND active = ?", signature, true).Update("active", false)
		switch {
		case res.Error != nil:
			return wrap(op, res.Error)
		case res.RowsAffected == 0:
			return spent
		}
		for _, side := range []string{pkce, oidc} {
			if err := sc.in(tx.Table(side)).Where("signature = ?", signature).Delete(&grantSessionRow{}).Error; err != nil {
				return wrap(op, err)
			}
		}
		return wrap(op, tx.Create(&row).Error)
	})
	if err != nil {
		return storage.TokenPair{}, err
	}
	return row.pair(), nil
}

// RefreshPair stores p as the child of a live pair of its grant. On PostgreSQL one statement
// locks the replaced pair and inserts only if it is live. Locking that one pair is enough to
// order the refresh against a revocation of the grant, which locks every pair of the grant
// before it revokes them in a later statement (RevokeGrant, and the member's and client's
// revocations): whichever locks the replaced pair first goes first, and a revocation's later
// statement sees the pair a refresh committed. The check is on the locked row itself, which FOR
// UPDATE re-reads at its latest committed version after waiting, so a pair revoked while this
// statement waited is seen revoked. (A check in another subquery of the statement would read
// the statement's snapshot, taken before the wait.) Holding only one row, and nothing a
// revocation holds while waiting for it, the refresh cannot deadlock against the lockers that
// take several pairs in id order; and its cost does not grow with the grant, which gains a pair
// at every refresh. For that the locking query finds the pair by its id alone: with request_id
// among its conditions PostgreSQL's generic plan found the pair through the grant index
// (school_id, request_id), both estimates being one row, and read every pair of the grant to
// keep one (docs/benchmarks.md, "The token endpoint with 10 million pairs"). The grant is
// checked on the locked row instead, which never changes it. MATERIALIZED keeps PostgreSQL from
// folding the locking query into the INSERT.
func (s *Store) RefreshPair(ctx context.Context, p storage.TokenPair) (storage.TokenPair, error) {
	const op = "refresh pair"
	sc, row, err := s.newPairRow(ctx, op, p)
	if err != nil {
		return storage.TokenPair{}, err
	}
	if row.ReplacesPairID == nil {
		return storage.TokenPair{}, invalidArg(op, "no replaced pair")
	}
	gone := fmt.Errorf("gormstore: %s: pair %d is not a live pair of grant %q: %w", op, p.ReplacesPairID, p.RequestID, storage.ErrNotFound)
	if s.driver == DriverPostgres {
		args := append([]any{sc.schoolID, p.ReplacesPairID}, row.insertArgs()...)
		return s.insertPair(ctx, op, row, gone, refreshPairPostgres, append(args, p.RequestID)...)
	}
	err = s.inTx(ctx, op, func(tx *gorm.DB) error {
		var n int64
		err := sc.in(tx.Model(&tokenPairRow{})).
			Where("id = ? AND request_id = ? AND revoked_at IS NULL", p.ReplacesPairID, p.RequestID).Count(&n).Error
		switch {
		case err != nil:
			return wrap(op, err)
		case n == 0:
			return gone
		}
		return wrap(op, tx.Create(&row).Error)
	})
	if err != nil {
		return storage.TokenPair{}, err
	}
	return row.pair(), nil
}

// refreshPairPostgres is RefreshPair's statement on PostgreSQL: school, replaced pair, the new
// pair's insertArgs, grant.
const refreshPairPostgres = "WITH replaced AS MATERIALIZED (SELECT id, request_id FROM oauth_token_pairs WHERE school_id = ? AND id = ? AND revoked_at IS NULL FOR UPDATE) " +
	"INSERT INTO oauth_token_pairs (" + pairInsertColumns + ") SELECT " + pairInsertValues + " FROM replaced WHERE replaced.request_id = ? RETURNING id"

// insertPair runs an INSERT ... RETURNING id of row that inserts nothing when its condition
// fails, which is then the error none.
func (s *Store) insertPair(ctx context.Context, op string, row tokenPairRow, none error, q string, args ...any) (storage.TokenPair, error) {
	err := s.conn(ctx).Raw(q, args...).Row().Scan(&row.ID)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		// The condition failed. (A foreign key that fails is an error, which wrap reports as
		// ErrNotFound too, but with the database's reason.)
		return storage.TokenPair{}, none
	case err != nil:
		return storage.TokenPair{}, wrap(op, err)
	}
	return row.pair(), nil
}

// pairInsertColumns and pairInsertValues are the columns of a pair an INSERT ... SELECT writes
// and their typed placeholders (PostgreSQL cannot infer a parameter's type from an INSERT's
// target through a SELECT); insertArgs gives the values in their order.
const (
	pairInsertColumns = "request_id, school_id, client_id, member_id, access_signature, refresh_signature, resource, scopes, data, " +
		"requested_at, access_expires_at, refresh_expires_at, revoked_at, first_used_at, replaces_pair_id, grant_school_id, amr"
	pairInsertValues = "?::text, ?::bigint, ?::text, ?::bigint, ?::text, ?::text, ?::text, ?::text, ?::text, " +
		"?::timestamptz, ?::timestamptz, ?::timestamptz, ?::timestamptz, ?::timestamptz, ?::bigint, ?::bigint, ?::text"
)

func (r tokenPairRow) insertArgs() []any {
	return []any{r.RequestID, r.SchoolID, r.ClientID, r.MemberID, r.AccessSignature, r.RefreshSignature, r.Resource, r.Scopes, r.Data,
		r.RequestedAt, r.AccessExpiresAt, r.RefreshExpiresAt, r.RevokedAt, r.FirstUsedAt, r.ReplacesPairID, r.GrantSchoolID, r.AMR}
}
