package login

import (
	"context"

	"github.com/proctorhq/proctor/storage"
)

// Store is what sign-in reads and writes of the identity store: the member an e-mail names (to
// check the password, and to store its rehash when the hashing parameters changed) and the
// login sessions the session cookie points to.
type Store interface {
	GetMember(ctx context.Context, id int64) (storage.Member, error)
	GetMemberByEmail(ctx context.Context, email string) (storage.Member, error)
	UpdateMember(ctx context.Context, id int64, fn func(storage.Member) (storage.Member, error)) (storage.Member, error)
	storage.LoginSessions
}
