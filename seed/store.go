package seed

import (
	"context"

	"github.com/proctorhq/proctor/storage"
)

// Store is what applying a fixture needs: the member an e-mail names (a member who already has
// a password keeps it, so a re-run does not hash again) and the import, which writes the
// school's data and its members in one transaction.
type Store interface {
	GetMemberByEmail(ctx context.Context, email string) (storage.Member, error)
	storage.Importer
}
