package gormstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/proctorhq/proctor/factor"
	"github.com/proctorhq/proctor/storage"
)

// The passkey tables (migration 010) implement factor.Passkeys, declared in the leaf package
// factor.
var _ factor.Passkeys = (*Store)(nil)

type passkeyRow struct {
	ID                int64
	SchoolID          int64
	MemberID          int64
	CredentialID      []byte
	PublicKey         []byte
	AttestationFormat string
	SignCount         int64
	AAGUID            []byte `gorm:"column:aaguid"`
	Transports        string // space-separated
	BackupEligible    bool
	BackupState       bool
	Name              string
	CreatedAt         time.Time `gorm:"autoCreateTime:false"`
	LastUsedAt        *time.Time
}

func (passkeyRow) TableName() string { return "member_passkeys" }

func (r passkeyRow) passkey() factor.Passkey {
	p := factor.Passkey{
		ID: r.ID, SchoolID: r.SchoolID, MemberID: r.MemberID,
		CredentialID: r.CredentialID, PublicKey: r.PublicKey, AttestationFormat: r.AttestationFormat,
		SignCount: uint32(r.SignCount), AAGUID: r.AAGUID, Transports: strings.Fields(r.Transports),
		BackupEligible: r.BackupEligible, BackupState: r.BackupState,
		Name: r.Name, CreatedAt: utc(r.CreatedAt),
	}
	if r.LastUsedAt != nil {
		p.LastUsedAt = utc(*r.LastUsedAt)
	}
	return p
}

type passkeyChallengeRow struct {
	ID        string `gorm:"primaryKey"`
	SchoolID  int64
	Purpose   string
	MemberID  *int64
	Session   string
	CreatedAt time.Time `gorm:"autoCreateTime:false"`
	ExpiresAt time.Time
}

func (passkeyChallengeRow) TableName() string { return "passkey_challenges" }

// CreatePasskey implements factor.Passkeys.
func (s *Store) CreatePasskey(ctx context.Context, p factor.Passkey) (factor.Passkey, error) {
	const op = "create passkey"
	sc, err := s.scopedInput(ctx, op,
		invalid{p.MemberID <= 0, "no member"},
		invalid{len(p.CredentialID) == 0, "no credential id"},
		invalid{len(p.PublicKey) == 0, "no public key"})
	if err != nil {
		return factor.Passkey{}, err
	}
	for _, tr := range p.Transports {
		if tr == "" || strings.ContainsAny(tr, " \t\r\n") {
			return factor.Passkey{}, invalidArg(op, "transport %q", tr)
		}
	}
	created := s.orNow(p.CreatedAt)
	row := passkeyRow{
		SchoolID: sc.schoolID, MemberID: p.MemberID,
		CredentialID: p.CredentialID, PublicKey: p.PublicKey, AttestationFormat: p.AttestationFormat,
		SignCount: int64(p.SignCount), AAGUID: p.AAGUID, Transports: strings.Join(p.Transports, " "),
		BackupEligible: p.BackupEligible, BackupState: p.BackupState,
		Name: p.Name, CreatedAt: dbTime(created),
	}
	if !p.LastUsedAt.IsZero() {
		t := dbTime(p.LastUsedAt)
		row.LastUsedAt = &t
	}
	// A taken credential id fails on the unique key (ErrAlreadyExists), an unknown member on the
	// foreign key (ErrNotFound).
	if err := s.conn(ctx).Create(&row).Error; err != nil {
		return factor.Passkey{}, wrap(op, err)
	}
	return row.passkey(), nil
}

// ListPasskeys implements factor.Passkeys.
func (s *Store) ListPasskeys(ctx context.Context, memberID int64) ([]factor.Passkey, error) {
	return listScoped(s, ctx, "list passkeys", "created_at, id", passkeyRow.passkey, "member_id = ?", memberID)
}

// PasskeyByCredentialID implements factor.Passkeys.
func (s *Store) PasskeyByCredentialID(ctx context.Context, credentialID []byte) (factor.Passkey, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return factor.Passkey{}, err
	}
	if len(credentialID) == 0 {
		return factor.Passkey{}, fmt.Errorf("gormstore: get passkey: %w", storage.ErrNotFound)
	}
	var row passkeyRow
	if err := sc.in(s.conn(ctx)).Where("credential_id = ?", credentialID).Take(&row).Error; err != nil {
		return factor.Passkey{}, wrap("get passkey", err)
	}
	return row.passkey(), nil
}

// UsePasskey implements factor.Passkeys. The counter rule is the UPDATE's condition (WebAuthn
// Level 3, section 7.2 step 22): the new count must exceed the stored one, unless both are 0.
func (s *Store) UsePasskey(ctx context.Context, id int64, signCount uint32, backupState bool, at time.Time) error {
	sc, err := s.scoped(ctx)
	if err != nil {
		return err
	}
	const op = "use passkey"
	n := int64(signCount)
	// A new count of 0 may only follow 0 (sign_count < 0 never holds).
	forward := "sign_count < ?"
	if n == 0 {
		forward = "sign_count = ?"
	}
	res := s.conn(ctx).Exec(`UPDATE member_passkeys SET sign_count = ?, backup_state = ?, last_used_at = ?
WHERE id = ? AND school_id = ? AND `+forward,
		n, backupState, dbTime(at), id, sc.schoolID, n)
	if res.Error != nil {
		return wrap(op, res.Error)
	}
	if res.RowsAffected == 1 {
		return nil
	}
	// Nothing changed: either the counter went back, or there is no such passkey.
	if err := requireRow(sc.in(s.conn(ctx)).Model(&passkeyRow{}).Where("id = ?", id), op); err != nil {
		return err
	}
	return fmt.Errorf("gormstore: %s %d: %w", op, id, factor.ErrCounterRegressed)
}

// RenamePasskey implements factor.Passkeys.
func (s *Store) RenamePasskey(ctx context.Context, memberID, id int64, name string) error {
	return updateScoped[passkeyRow](s, ctx, "rename passkey", map[string]any{"name": name}, "id = ? AND member_id = ?", id, memberID)
}

// DeletePasskey implements factor.Passkeys.
func (s *Store) DeletePasskey(ctx context.Context, memberID, id int64) error {
	return deleteScoped[passkeyRow](s, ctx, "delete passkey", "id = ? AND member_id = ?", id, memberID)
}

// CreatePasskeyChallenge implements factor.Passkeys.
func (s *Store) CreatePasskeyChallenge(ctx context.Context, c factor.Challenge) error {
	const op = "create passkey challenge"
	sc, err := s.scopedInput(ctx, op,
		invalid{c.ID == "", "empty id"},
		invalid{c.Purpose == "", "no purpose"},
		invalid{c.ExpiresAt.IsZero(), "no expiry"})
	if err != nil {
		return err
	}
	created := s.orNow(c.CreatedAt)
	row := passkeyChallengeRow{
		ID: c.ID, SchoolID: sc.schoolID, Purpose: string(c.Purpose), Session: string(c.Session),
		CreatedAt: dbTime(created), ExpiresAt: dbTime(c.ExpiresAt),
	}
	if c.MemberID != 0 {
		row.MemberID = &c.MemberID
	}
	return wrap(op, s.conn(ctx).Create(&row).Error)
}

// ConsumePasskeyChallenge implements factor.Passkeys: one DELETE ... RETURNING, so that the
// database decides between concurrent consumers (PostgreSQL's second DELETE waits for the
// first's row lock and then finds the row gone; SQLite serialises writers).
func (s *Store) ConsumePasskeyChallenge(ctx context.Context, id string, purpose factor.ChallengePurpose, at time.Time) (factor.Challenge, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return factor.Challenge{}, err
	}
	at = dbTime(at)
	var (
		member           sql.NullInt64
		session          string
		created, expires textTime
	)
	err = s.conn(ctx).Raw(`DELETE FROM passkey_challenges
WHERE id = ? AND school_id = ? AND purpose = ? AND expires_at > ?
RETURNING member_id, session, created_at, expires_at`,
		id, sc.schoolID, string(purpose), at).
		Row().Scan(&member, &session, &created, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return factor.Challenge{}, fmt.Errorf("gormstore: consume passkey challenge: %w", storage.ErrNotFound)
	}
	if err != nil {
		return factor.Challenge{}, wrap("consume passkey challenge", err)
	}
	return factor.Challenge{
		ID: id, SchoolID: sc.schoolID, Purpose: purpose, MemberID: member.Int64, Session: []byte(session),
		CreatedAt: created.Time, ExpiresAt: expires.Time,
	}, nil
}
