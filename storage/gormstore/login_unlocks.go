package gormstore

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// loginUnlockRow is an operator's latest lift of an account's sign-in lockout.
type loginUnlockRow struct {
	AccountKey string `gorm:"primaryKey"`
	UnlockedAt time.Time
}

func (loginUnlockRow) TableName() string { return "login_unlocks" }

// AccountUnlockedAt returns the latest unlock of the account digest names, or the zero time.
// It implements login.Unlocks (declared there, not in storage.Store: only sign-in reads it).
func (s *Store) AccountUnlockedAt(ctx context.Context, digest string) (time.Time, error) {
	var row loginUnlockRow
	err := s.conn(ctx).Where("account_key = ?", digest).Take(&row).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, wrap("get login unlock", err)
	}
	return utc(row.UnlockedAt), nil
}

// UnlockAccount records an unlock of the account digest names at at, in one statement (an
// upsert on the key). It implements login.Unlocks.
func (s *Store) UnlockAccount(ctx context.Context, digest string, at time.Time) error {
	const op = "unlock account"
	switch {
	case digest == "":
		return invalidArg(op, "empty account key")
	case at.IsZero():
		return invalidArg(op, "no time")
	}
	row := loginUnlockRow{AccountKey: digest, UnlockedAt: dbTime(at)}
	return wrap(op, s.conn(ctx).Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "account_key"}},
		DoUpdates: clause.AssignmentColumns([]string{"unlocked_at"}),
	}).Create(&row).Error)
}
