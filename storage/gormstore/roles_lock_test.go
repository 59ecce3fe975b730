package gormstore

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/proctorhq/proctor/storage"
)

// On PostgreSQL, roles read inside a transaction are held until it ends: a change of them made
// elsewhere waits for it, and a read that follows a change not yet committed waits for that
// change. (SQLite transactions are serialised from BEGIN, so only PostgreSQL is asked.) Whether
// the other side waits is seen from the server, as a statement blocked by the transaction's
// backend, never from how long anything took.

// roleLockFixture is school a with an owner, and a student there, whose id it returns.
func roleLockFixture(t *testing.T) (*Store, context.Context, int64) {
	t.Helper()
	s := newPostgresStore(t)
	ctx := inSchoolA(t, s, nil)
	member := func(email string, role storage.Role) int64 {
		m, err := s.CreateMember(ctx, storage.Member{Email: email, Name: email})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SetRoles(ctx, m.ID, []storage.Role{role}); err != nil {
			t.Fatal(err)
		}
		return m.ID
	}
	member("olga@example.com", storage.RoleOwner)
	return s, ctx, member("ben@example.com", storage.RoleStudent)
}

// beginTx begins a transaction that is rolled back when the test ends, unless committed before.
func beginTx(t *testing.T, s *Store, ctx context.Context) context.Context {
	t.Helper()
	txCtx, err := s.BeginTx(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Rollback(txCtx) })
	return txCtx
}

// backendPID is the server process of the context's transaction.
func backendPID(t *testing.T, s *Store, ctx context.Context) int64 {
	t.Helper()
	var pid int64
	if err := s.conn(ctx).Raw("SELECT pg_backend_pid()").Scan(&pid).Error; err != nil {
		t.Fatal(err)
	}
	return pid
}

// waitBlocked returns once some statement waits on a lock held by the backend pid, and fails
// the test if done is closed first: the other side finished without waiting.
func waitBlocked(t *testing.T, s *Store, pid int64, done <-chan struct{}, what string) {
	t.Helper()
	for {
		select {
		case <-done:
			t.Fatalf("%s did not wait for the open transaction", what)
		default:
		}
		var n int64
		err := s.db.WithContext(t.Context()).
			Raw("SELECT count(*) FROM pg_stat_activity WHERE ? = ANY(pg_blocking_pids(pid))", pid).Scan(&n).Error
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
		time.Sleep(time.Millisecond) // a pause between polls, not a bound on anything
	}
}

func TestPostgresRolesReadInTransactionHoldPromotion(t *testing.T) {
	s, ctx, ben := roleLockFixture(t)

	// An admin's change: the roles are read and judged inside the write's transaction.
	txCtx := beginTx(t, s, ctx)
	current, err := s.GetRoles(txCtx, ben)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(current, []storage.Role{storage.RoleStudent}) {
		t.Fatalf("roles read in the transaction = %v, want [student]", current)
	}

	// An owner promotes Ben meanwhile.
	done := make(chan struct{})
	var promoteErr error
	go func() {
		defer close(done)
		_, promoteErr = s.SetSchoolRoles(ctx, ben, []storage.Role{storage.RoleOwner, storage.RoleStudent})
	}()
	waitBlocked(t, s, backendPID(t, s, txCtx), done, "the promotion")

	if _, err := s.SetSchoolRoles(txCtx, ben, []storage.Role{storage.RoleStudent, storage.RoleLecturer}); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(txCtx); err != nil {
		t.Fatal(err)
	}
	<-done
	if promoteErr != nil {
		t.Fatal(promoteErr)
	}
	got, err := s.GetRoles(ctx, ben)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(got, storage.RoleOwner) {
		t.Fatalf("roles after both changes = %v: the promotion was overwritten", got)
	}
}

func TestPostgresRolesReadInTransactionWaitForPromotion(t *testing.T) {
	s, ctx, ben := roleLockFixture(t)

	// An owner's promotion, not yet committed.
	promoCtx := beginTx(t, s, ctx)
	if _, err := s.SetSchoolRoles(promoCtx, ben, []storage.Role{storage.RoleOwner, storage.RoleStudent}); err != nil {
		t.Fatal(err)
	}

	// An admin's change reads Ben's roles in its own transaction meanwhile.
	done := make(chan struct{})
	var read []storage.Role
	var readErr error
	go func() {
		defer close(done)
		txCtx, err := s.BeginTx(ctx)
		if err != nil {
			readErr = err
			return
		}
		defer func() { _ = s.Rollback(txCtx) }()
		read, readErr = s.GetRoles(txCtx, ben)
	}()
	waitBlocked(t, s, backendPID(t, s, promoCtx), done, "the read of the roles")

	if err := s.Commit(promoCtx); err != nil {
		t.Fatal(err)
	}
	<-done
	if readErr != nil {
		t.Fatal(readErr)
	}
	if !slices.Contains(read, storage.RoleOwner) {
		t.Fatalf("roles read after the promotion committed = %v, want the owner role among them", read)
	}
}
