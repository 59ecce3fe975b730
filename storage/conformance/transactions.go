package conformance

import (
	"errors"
	"testing"

	"github.com/proctorhq/proctor/storage"
)

// testTransactions checks that store calls made with BeginTx's context are one transaction: its
// writes are seen inside it, not outside before Commit, persist with Commit and vanish with
// Rollback, including those of methods that open a transaction of their own.
func testTransactions(t *testing.T, s storage.Store) {
	ctxA, _, member := oauthSetup(t, s)

	wantErr(t, "Commit without a transaction", s.Commit(ctxA), storage.ErrInvalidArgument)
	wantErr(t, "Rollback without a transaction", s.Rollback(ctxA), storage.ErrInvalidArgument)

	// Rolled back: nothing remains.
	tx, err := s.BeginTx(ctxA)
	must(t, "BeginTx", err)
	if _, err := s.BeginTx(tx); err == nil {
		t.Error("BeginTx inside a transaction succeeded")
	}
	_, err = s.CreateClient(tx, publicClient("c1"))
	must(t, "CreateClient in the transaction", err)
	p := mustPair(t, s, tx, pairOf("c1", "g1", "1", member))
	must(t, "CreateCodeGrant in the transaction", s.CreateCodeGrant(tx, storage.CodeGrant{Code: codeOf("c1", "g1", "code-1", member)}))
	if _, err := s.GetClient(tx, "c1"); err != nil {
		t.Errorf("GetClient inside the transaction that created it: %v", err)
	}
	if got := getPair(t, s, tx, "at-1"); got.ID != p.ID {
		t.Errorf("pair read inside the transaction: %+v", got)
	}
	_, err = s.GetClient(ctxA, "c1")
	wantErr(t, "GetClient outside an open transaction", err, storage.ErrNotFound)
	must(t, "Rollback", s.Rollback(tx))
	_, err = s.GetClient(ctxA, "c1")
	wantErr(t, "GetClient after Rollback", err, storage.ErrNotFound)
	_, err = s.GetTokenPair(ctxA, storage.AccessToken, "at-1")
	wantErr(t, "GetTokenPair after Rollback", err, storage.ErrNotFound)
	_, err = s.GetCodeGrant(ctxA, "code-1")
	wantErr(t, "GetCodeGrant after Rollback", err, storage.ErrNotFound)

	// Committed: everything persists.
	tx, err = s.BeginTx(ctxA)
	must(t, "BeginTx", err)
	_, err = s.CreateClient(tx, publicClient("c1"))
	must(t, "CreateClient in the transaction", err)
	p = mustPair(t, s, tx, pairOf("c1", "g1", "1", member))
	must(t, "CreateCodeGrant in the transaction", s.CreateCodeGrant(tx, storage.CodeGrant{Code: codeOf("c1", "g1", "code-1", member)}))
	exchanged, err := s.ExchangeCode(tx, "code-1", pairOf("c1", "g1", "2", member))
	must(t, "ExchangeCode in the transaction", err)
	must(t, "Commit", s.Commit(tx))
	if _, err := s.GetClient(ctxA, "c1"); err != nil {
		t.Errorf("GetClient after Commit: %v", err)
	}
	wantEqual(t, "pair after Commit", getPair(t, s, ctxA, "at-1"), p)
	if c := getCode(t, s, ctxA, "code-1").Code; c.Active {
		t.Errorf("code after Commit: %+v", c)
	}
	wantEqual(t, "exchanged pair after Commit", getPair(t, s, ctxA, "at-2"), exchanged)

	// Methods that run their own transaction join the caller's instead, so its Rollback undoes
	// them too.
	tx, err = s.BeginTx(ctxA)
	must(t, "BeginTx", err)
	_, err = s.UpdateClient(tx, "c1", func(c storage.Client) (storage.Client, error) {
		c.Name = "Renamed"
		return c, nil
	})
	must(t, "UpdateClient in the transaction", err)
	if c, err := s.GetClient(tx, "c1"); err != nil || c.Name != "Renamed" {
		t.Errorf("client read inside the transaction that renamed it: %+v, %v", c, err)
	}
	// First use before the revocation: a revoked pair is no live pair to mark.
	first, err := s.RetireReplaced(tx, p.ID, at(7, 0))
	must(t, "RetireReplaced in the transaction", err)
	if !first {
		t.Error("RetireReplaced in the transaction is not the first")
	}
	refreshed, err := s.RefreshPair(tx, refreshOf(pairOf("c1", "g1", "3", member), exchanged.ID))
	must(t, "RefreshPair in the transaction", err)
	n, err := s.RevokeGrant(tx, "g1", at(7, 0))
	must(t, "RevokeGrant in the transaction", err)
	if n != 3 {
		t.Errorf("RevokeGrant in the transaction revoked %d pairs", n)
	}
	must(t, "Rollback", s.Rollback(tx))
	if c, err := s.GetClient(ctxA, "c1"); err != nil || c.Name == "Renamed" {
		t.Errorf("client after a rolled back UpdateClient: %+v, %v", c, err)
	}
	if got := getPair(t, s, ctxA, "at-1"); got.RevokedAt != nil || got.FirstUsedAt != nil {
		t.Errorf("pair after a rolled back revocation and first use: %+v", got)
	}
	_, err = s.GetTokenPair(ctxA, storage.AccessToken, refreshed.AccessSignature)
	wantErr(t, "pair of a rolled back refresh", err, storage.ErrNotFound)

	// An error inside fn of a method running in the caller's transaction is returned as is and
	// leaves the transaction to the caller.
	tx, err = s.BeginTx(ctxA)
	must(t, "BeginTx", err)
	boom := errors.New("boom")
	_, err = s.UpdateClient(tx, "c1", func(c storage.Client) (storage.Client, error) { return c, boom })
	if !errors.Is(err, boom) {
		t.Errorf("UpdateClient's fn error in a transaction: %v", err)
	}
	must(t, "Commit after a refused update", s.Commit(tx))
}
