package gormstore

import (
	"context"
	"fmt"
	"time"

	"github.com/proctorhq/proctor/storage"
)

func (r signingKeyRow) key() storage.SigningKey {
	return storage.SigningKey{
		KID:                 r.KID,
		Algorithm:           r.Algorithm,
		PublicJWK:           []byte(r.PublicJWK),
		PrivateKeyEncrypted: r.PrivateKeyEncrypted,
		CreatedAt:           utc(r.CreatedAt),
		RetiredAt:           utcPtr(r.RetiredAt),
	}
}

// CreateSigningKey stores a key at the context's school. A zero CreatedAt is the store's clock.
func (s *Store) CreateSigningKey(ctx context.Context, k storage.SigningKey) error {
	const op = "create signing key"
	sc, err := s.scopedInput(ctx, op,
		invalid{k.KID == "" || k.Algorithm == "" || len(k.PublicJWK) == 0 || len(k.PrivateKeyEncrypted) == 0,
			"kid, algorithm, public JWK and encrypted private key are required"})
	if err != nil {
		return err
	}
	created := s.orNow(k.CreatedAt)
	row := signingKeyRow{
		KID:                 k.KID,
		SchoolID:            sc.schoolID,
		Algorithm:           k.Algorithm,
		PublicJWK:           string(k.PublicJWK),
		PrivateKeyEncrypted: k.PrivateKeyEncrypted,
		CreatedAt:           dbTime(created),
		RetiredAt:           dbTimePtr(k.RetiredAt),
	}
	return wrap(op, s.conn(ctx).Create(&row).Error)
}

// ListSigningKeys returns the school's keys, newest first (ties by kid, descending, so that the
// order is the same on every database).
func (s *Store) ListSigningKeys(ctx context.Context) ([]storage.SigningKey, error) {
	return listScoped(s, ctx, "list signing keys", "created_at DESC, kid DESC", signingKeyRow.key, "")
}

// RetireSigningKey stamps a key retired. A key already retired keeps its first stamp (two
// replicas rotating at once may both retire it), which COALESCE does in the same statement
// that tells a missing key apart: the row still matches, so it counts as affected.
func (s *Store) RetireSigningKey(ctx context.Context, kid string, at time.Time) error {
	sc, err := s.scoped(ctx)
	if err != nil {
		return err
	}
	op := fmt.Sprintf("retire signing key %q", kid)
	res := s.conn(ctx).Exec("UPDATE signing_keys SET retired_at = COALESCE(retired_at, ?) WHERE kid = ? AND school_id = ?",
		dbTime(at), kid, sc.schoolID)
	return rowsOrNotFound(op, res)
}
