package gormstore

import (
	"context"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/proctorhq/proctor/factor"
)

// The factor tables (migration 009) implement factor.Store, declared in the leaf package
// factor so that the store needs none of the packages that show the pages.
var _ factor.Store = (*Store)(nil)

// memberTOTPRow is a member's TOTP factor at a school.
type memberTOTPRow struct {
	SchoolID    int64 `gorm:"primaryKey"`
	MemberID    int64 `gorm:"primaryKey"`
	Secret      []byte
	CreatedAt   time.Time `gorm:"autoCreateTime:false"`
	ConfirmedAt *time.Time
	LastStep    int64
}

func (memberTOTPRow) TableName() string { return "member_totp" }

// recoveryCodeRow is one recovery code's keyed hash.
type recoveryCodeRow struct {
	SchoolID  int64     `gorm:"primaryKey"`
	MemberID  int64     `gorm:"primaryKey"`
	CodeHash  string    `gorm:"primaryKey"`
	CreatedAt time.Time `gorm:"autoCreateTime:false"`
	UsedAt    *time.Time
}

func (recoveryCodeRow) TableName() string { return "member_recovery_codes" }

// PutPendingTOTP replaces the member's pending factor by a new one. The delete spares a
// confirmed factor, whose row then makes the insert fail on the primary key
// (ErrAlreadyExists).
func (s *Store) PutPendingTOTP(ctx context.Context, memberID int64, sealed []byte, at time.Time) error {
	const op = "put pending totp"
	sc, err := s.scopedInput(ctx, op,
		invalid{memberID <= 0, "no member"},
		invalid{len(sealed) == 0, "no secret"})
	if err != nil {
		return err
	}
	row := memberTOTPRow{SchoolID: sc.schoolID, MemberID: memberID, Secret: sealed, CreatedAt: dbTime(at)}
	return s.inTx(ctx, op, func(tx *gorm.DB) error {
		if err := sc.in(tx).Where("member_id = ? AND confirmed_at IS NULL", memberID).Delete(&memberTOTPRow{}).Error; err != nil {
			return wrap(op+": delete pending", err)
		}
		// An unknown member fails on the foreign key (ErrNotFound).
		return wrap(op, tx.Create(&row).Error)
	})
}

// GetTOTP returns the member's TOTP factor at the context's school.
func (s *Store) GetTOTP(ctx context.Context, memberID int64) (factor.TOTP, error) {
	row, err := takeScoped[memberTOTPRow](s, ctx, "get totp", "member_id = ?", memberID)
	if err != nil {
		return factor.TOTP{}, err
	}
	t := factor.TOTP{MemberID: row.MemberID, Sealed: row.Secret, CreatedAt: utc(row.CreatedAt), LastStep: row.LastStep}
	if row.ConfirmedAt != nil {
		t.ConfirmedAt = utc(*row.ConfirmedAt)
	}
	return t, nil
}

// ConfirmTOTP confirms the pending factor; the condition on confirmed_at makes it happen once.
func (s *Store) ConfirmTOTP(ctx context.Context, memberID int64, step int64, at time.Time) error {
	return updateScoped[memberTOTPRow](s, ctx, "confirm totp", map[string]any{"confirmed_at": dbTime(at), "last_step": step},
		"member_id = ? AND confirmed_at IS NULL", memberID)
}

// AcceptTOTPStep moves last_step forward. The UPDATE's condition decides between concurrent
// uses of one code: on PostgreSQL the second waits for the first's row lock and re-checks it, on
// SQLite writers are serialised; either way it changes nothing and gets ErrNotFound.
func (s *Store) AcceptTOTPStep(ctx context.Context, memberID int64, step int64) error {
	return updateScoped[memberTOTPRow](s, ctx, "accept totp step", map[string]any{"last_step": step},
		"member_id = ? AND confirmed_at IS NOT NULL AND last_step < ?", memberID, step)
}

// DeleteTOTP deletes the member's TOTP factor and recovery codes in one transaction.
func (s *Store) DeleteTOTP(ctx context.Context, memberID int64) error {
	sc, err := s.scoped(ctx)
	if err != nil {
		return err
	}
	const op = "delete totp"
	return s.inTx(ctx, op, func(tx *gorm.DB) error {
		if err := sc.in(tx).Where("member_id = ?", memberID).Delete(&recoveryCodeRow{}).Error; err != nil {
			return wrap(op+": recovery codes", err)
		}
		return rowsOrNotFound(op, sc.in(tx).Where("member_id = ?", memberID).Delete(&memberTOTPRow{}))
	})
}

// ReplaceRecoveryCodes swaps the member's recovery codes for new ones in one transaction.
func (s *Store) ReplaceRecoveryCodes(ctx context.Context, memberID int64, hashes []string, at time.Time) error {
	sc, err := s.scoped(ctx)
	if err != nil {
		return err
	}
	const op = "replace recovery codes"
	if memberID <= 0 {
		return invalidArg(op, "no member")
	}
	rows := make([]recoveryCodeRow, len(hashes))
	for i, h := range hashes {
		if h == "" {
			return invalidArg(op, "empty hash")
		}
		rows[i] = recoveryCodeRow{SchoolID: sc.schoolID, MemberID: memberID, CodeHash: h, CreatedAt: dbTime(at)}
	}
	return s.inTx(ctx, op, func(tx *gorm.DB) error {
		if err := sc.in(tx).Where("member_id = ?", memberID).Delete(&recoveryCodeRow{}).Error; err != nil {
			return wrap(op+": delete", err)
		}
		if len(rows) == 0 {
			return nil
		}
		return wrap(op, tx.Create(&rows).Error)
	})
}

// ConsumeRecoveryCode marks an unused code used; the condition on used_at decides between
// concurrent uses, as for AcceptTOTPStep.
func (s *Store) ConsumeRecoveryCode(ctx context.Context, memberID int64, hash string, at time.Time) error {
	return updateScoped[recoveryCodeRow](s, ctx, "consume recovery code", map[string]any{"used_at": dbTime(at)},
		"member_id = ? AND code_hash = ? AND used_at IS NULL", memberID, hash)
}

// FactorSummaries counts, for each of the members at the context's school, a confirmed TOTP
// factor and the unused recovery codes, in two statements whatever the number of members.
func (s *Store) FactorSummaries(ctx context.Context, memberIDs []int64) (map[int64]factor.Summary, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return nil, err
	}
	out := map[int64]factor.Summary{}
	if len(memberIDs) == 0 {
		return out, nil
	}
	db := s.conn(ctx)
	var totp []int64
	if err := sc.in(db.Model(&memberTOTPRow{})).Where("member_id IN ? AND confirmed_at IS NOT NULL", memberIDs).
		Pluck("member_id", &totp).Error; err != nil {
		return nil, wrap("factor summaries: totp", err)
	}
	for _, id := range totp {
		sm := out[id]
		sm.TOTP = true
		out[id] = sm
	}
	// count sets, for each member, the number of the model's rows that meet the condition.
	count := func(what string, model any, cond string, set func(*factor.Summary, int)) error {
		var counts []struct {
			MemberID int64
			N        int
		}
		if err := sc.in(db.Model(model)).Select("member_id, COUNT(*) AS n").
			Where(cond, memberIDs).Group("member_id").Scan(&counts).Error; err != nil {
			return wrap("factor summaries: "+what, err)
		}
		for _, c := range counts {
			sm := out[c.MemberID]
			set(&sm, c.N)
			out[c.MemberID] = sm
		}
		return nil
	}
	if err := count("recovery codes", &recoveryCodeRow{}, "member_id IN ? AND used_at IS NULL",
		func(sm *factor.Summary, n int) { sm.RecoveryCodesLeft = n }); err != nil {
		return nil, err
	}
	if err := count("passkeys", &passkeyRow{}, "member_id IN ?",
		func(sm *factor.Summary, n int) { sm.Passkeys = n }); err != nil {
		return nil, err
	}
	return out, nil
}

// ResetMemberFactors deletes the member's TOTP factor (pending or not), recovery codes and
// passkeys at the context's school in one transaction, and returns how many it deleted: 1 for
// the TOTP factor plus one per recovery code, used or not, and one per passkey. The member's
// passkey ceremonies in progress there go too (not counted): none may finish afterwards.
func (s *Store) ResetMemberFactors(ctx context.Context, memberID int64) (int, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return 0, err
	}
	const op = "reset member factors"
	n := 0
	err = s.inTx(ctx, op, func(tx *gorm.DB) error {
		for _, model := range []any{&recoveryCodeRow{}, &memberTOTPRow{}, &passkeyRow{}} {
			res := sc.in(tx).Where("member_id = ?", memberID).Delete(model)
			if res.Error != nil {
				return wrap(op, res.Error)
			}
			n += int(res.RowsAffected)
		}
		return wrap(op, sc.in(tx).Where("member_id = ?", memberID).Delete(&passkeyChallengeRow{}).Error)
	})
	return n, err
}

// MarkSessionFactor records how the session's member proved who they are, and when.
func (s *Store) MarkSessionFactor(ctx context.Context, sessionID string, amr []string, at time.Time) error {
	return updateScoped[loginSessionRow](s, ctx, "mark session factor", map[string]any{"amr": joinAMR(amr), "factor_at": dbTime(at)},
		"id = ?", sessionID)
}

// joinAMR and splitAMR are the amr column's form: the values, space-separated.
func joinAMR(amr []string) string { return strings.Join(amr, " ") }

func splitAMR(s string) []string {
	if s == "" {
		return nil // as a session created without any
	}
	return strings.Fields(s)
}
