package mail

import (
	"bytes"
	"encoding/hex"
	"errors"
	"testing"

	"github.com/proctorhq/proctor/config"
)

// storedV1 is a message payload sealed for school 7 and kind "invitation" with the system
// secret 0x5a×32, as version 1 of the format wrote it. Outboxes hold rows like it: it must open
// for as long as version 1 is read, whatever the code that opens it.
const storedV1 = "016ae6783f4fbde91b6eb88b737a94b4b8e9242bdce5e76d62e156d5337cefd9cf04da33556952bbddd41e2be0fb14156a9b187c999dc0de"

func TestOpenStoredV1(t *testing.T) {
	blob, err := hex.DecodeString(storedV1)
	if err != nil {
		t.Fatal(err)
	}
	q, err := NewQueue(noOutbox{}, config.Secret(bytes.Repeat([]byte{0x5a}, 32)), nil)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := q.open(Entry{SchoolID: 7, Kind: "invitation", Payload: blob})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"to":"member@example.com"}`; string(plain) != want {
		t.Fatalf("opened %q, want %q", plain, want)
	}
	if _, err := q.open(Entry{SchoolID: 7, Kind: "password_reset", Payload: blob}); !errors.Is(err, ErrOpen) {
		t.Fatalf("opened under another kind: err = %v, want ErrOpen", err)
	}
}

// noOutbox is an Outbox for tests that enqueue nothing.
type noOutbox struct{ Outbox }
