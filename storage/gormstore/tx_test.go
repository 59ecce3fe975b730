package gormstore

import (
	"errors"
	"testing"
	"time"

	"github.com/proctorhq/proctor/storage"
)

func TestTransactionEnds(t *testing.T) {
	s := newSQLiteStore(t)
	ctx := t.Context()

	tx, err := s.BeginTx(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(tx); err != nil {
		t.Fatal(err)
	}
	// A deferred Rollback after Commit is harmless; a second Commit is a mistake.
	if err := s.Rollback(tx); err != nil {
		t.Errorf("Rollback after Commit: %v", err)
	}
	if err := s.Commit(tx); err == nil {
		t.Error("second Commit succeeded")
	}

	// A transaction belongs to the store that began it: another store handed the context
	// works outside it (here it would otherwise write into the wrong database).
	other := newSQLiteStore(t)
	tx, err = s.BeginTx(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.Rollback(tx) }()
	if other.txFrom(tx) != nil {
		t.Error("another store found this store's transaction")
	}
	if err := other.Commit(tx); !errors.Is(err, storage.ErrInvalidArgument) {
		t.Errorf("Commit of another store's transaction: %v", err)
	}
	if _, err := other.CreateMember(tx, storage.Member{Email: "x@example.test"}); err != nil {
		t.Errorf("the other store, given a context with a foreign transaction: %v", err)
	}
}

func TestCursorFormats(t *testing.T) {
	at := time.Date(2024, 3, 1, 12, 0, 0, 123456000, time.UTC)
	c, ok, err := decodeTimeCursor(encodeTimeCursor(timeCursor{at: at, id: "https://app.example.test/client.json"}))
	if err != nil || !ok || !c.at.Equal(at) || c.id != "https://app.example.test/client.json" {
		t.Errorf("time cursor round trip: %+v, %v, %v", c, ok, err)
	}
	if _, ok, err := decodeTimeCursor(""); ok || err != nil {
		t.Errorf("empty time cursor: %v, %v", ok, err)
	}
	// Each list refuses the other's cursors.
	if _, _, err := decodeTimeCursor(encodeCursor(5)); !errors.Is(err, storage.ErrInvalidArgument) {
		t.Errorf("id cursor as a time cursor: %v", err)
	}
	if _, err := decodeCursor(encodeTimeCursor(timeCursor{at: at, id: "x"})); !errors.Is(err, storage.ErrInvalidArgument) {
		t.Errorf("time cursor as an id cursor: %v", err)
	}

	s := newSQLiteStore(t)
	ctx := inSchoolA(t, s, nil)
	if _, _, err := s.ListClients(ctx, "", storage.Page{After: encodeCursor(5)}); !errors.Is(err, storage.ErrInvalidArgument) {
		t.Errorf("ListClients with an id cursor: %v", err)
	}
	if _, _, err := s.ListCourses(ctx, false, storage.Page{After: encodeTimeCursor(timeCursor{at: at, id: "x"})}); !errors.Is(err, storage.ErrInvalidArgument) {
		t.Errorf("ListCourses with a time cursor: %v", err)
	}
}
