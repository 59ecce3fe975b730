package account_test

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/binary"
	"encoding/json"
	"time"

	"github.com/proctorhq/proctor/mail"
)

// postman plays the mail worker until package mail has one: it claims due entries from the
// real outbox, opens them as the worker does, hands requests to the service's expanders in a
// transaction of their own and collects the messages.
type postman struct {
	e    *env
	aead cipher.AEAD
}

func newPostman(e *env) *postman {
	block, err := aes.NewCipher(testSecret.Derive("mail outbox encryption v1"))
	if err != nil {
		e.t.Fatal(err)
	}
	aead, err := cipher.NewGCMWithNonceSize(block, 12)
	if err != nil {
		e.t.Fatal(err)
	}
	return &postman{e: e, aead: aead}
}

func (p *postman) open(en mail.Entry) []byte {
	ad := binary.BigEndian.AppendUint64([]byte{1}, uint64(en.SchoolID))
	ad = append(ad, en.Kind...)
	plain, err := p.aead.Open(nil, en.Payload[1:13], en.Payload[13:], ad)
	if err != nil {
		p.e.t.Fatalf("open outbox entry %d: %v", en.ID, err)
	}
	return plain
}

// deliver runs every due entry and returns the messages sent.
func (p *postman) deliver() []mail.Message {
	t := p.e.t
	t.Helper()
	ctx := t.Context()
	var out []mail.Message
	for {
		entries, err := p.e.gs.ClaimMail(ctx, p.e.clock.Now(), time.Minute, 100)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) == 0 {
			return out
		}
		for _, en := range entries {
			plain := p.open(en)
			if exp, ok := p.e.svc.Expanders()[en.Kind]; ok {
				txCtx, err := p.e.gs.BeginTx(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if err := exp(txCtx, en.SchoolID, plain); err != nil {
					_ = p.e.gs.Rollback(txCtx)
					t.Fatalf("expand %s: %v", en.Kind, err)
				}
				if err := p.e.gs.Commit(txCtx); err != nil {
					t.Fatal(err)
				}
			} else {
				var m mail.Message
				if err := json.Unmarshal(plain, &m); err != nil {
					t.Fatal(err)
				}
				out = append(out, m)
			}
			if err := p.e.gs.MarkMailSent(ctx, en.ID, p.e.clock.Now()); err != nil {
				t.Fatal(err)
			}
		}
	}
}
