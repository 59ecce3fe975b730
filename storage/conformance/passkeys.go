package conformance

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/proctorhq/proctor/factor"
	"github.com/proctorhq/proctor/storage"
)

// passkeyOf is a synced passkey of the member with credential id cred, made at day 1.
func passkeyOf(member int64, cred string) factor.Passkey {
	return factor.Passkey{
		MemberID: member, CredentialID: []byte(cred), PublicKey: []byte("cose-key-" + cred), AttestationFormat: "none",
		SignCount: 0, AAGUID: make([]byte, 16), Transports: []string{"hybrid", "internal"},
		BackupEligible: true, BackupState: true, Name: "Laptop", CreatedAt: at(1, 8),
	}
}

// mustPasskey stores p at the context's school and fails the test now if it cannot.
func mustPasskey(t *testing.T, ps factor.Passkeys, ctx context.Context, p factor.Passkey) factor.Passkey {
	t.Helper()
	got, err := ps.CreatePasskey(ctx, p)
	must(t, "CreatePasskey "+string(p.CredentialID), err)
	return got
}

func testPasskeys(t *testing.T, s storage.Store) {
	ps := narrow[factor.Passkeys](t, s)
	ctxA, _, member := oauthSetup(t, s)

	p := mustPasskey(t, ps, ctxA, passkeyOf(member, "cred-1"))
	if p.ID == 0 {
		t.Fatal("CreatePasskey returned no id")
	}
	want := passkeyOf(member, "cred-1")
	want.ID, want.SchoolID = p.ID, schoolA.SchoolID
	wantEqual(t, "created passkey", p, want)
	got, err := ps.PasskeyByCredentialID(ctxA, []byte("cred-1"))
	must(t, "PasskeyByCredentialID", err)
	wantEqual(t, "stored passkey", got, want)

	_, err = ps.CreatePasskey(ctxA, passkeyOf(member, "cred-1"))
	wantErr(t, "CreatePasskey with a taken credential id", err, storage.ErrAlreadyExists)
	_, err = ps.CreatePasskey(ctxA, passkeyOf(member+1000, "cred-x"))
	wantErr(t, "CreatePasskey for an unknown member", err, storage.ErrNotFound)
	_, err = ps.CreatePasskey(ctxA, passkeyOf(member, ""))
	wantErr(t, "CreatePasskey without a credential id", err, storage.ErrInvalidArgument)
	_, err = ps.PasskeyByCredentialID(ctxA, []byte("nope"))
	wantErr(t, "PasskeyByCredentialID of an unknown id", err, storage.ErrNotFound)

	// A device-bound one, made later, with no transports: listed after the first.
	hw := passkeyOf(member, "cred-2")
	hw.BackupEligible, hw.BackupState, hw.Transports, hw.AAGUID, hw.CreatedAt = false, false, nil, []byte("0123456789abcdef"), at(2, 8)
	hw.Name = "Key"
	p2 := mustPasskey(t, ps, ctxA, hw)
	other := otherMember(t, s)
	mustPasskey(t, ps, ctxA, passkeyOf(other.ID, "cred-grace"))
	list, err := ps.ListPasskeys(ctxA, member)
	must(t, "ListPasskeys", err)
	if len(list) != 2 || list[0].ID != p.ID || list[1].ID != p2.ID {
		t.Fatalf("ListPasskeys = %+v, want cred-1 then cred-2", list)
	}
	if list[1].AMR() != factor.AMRHardwareKey || list[0].AMR() != factor.AMRSoftwareKey {
		t.Errorf("AMR: %s, %s; want swk, hwk", list[0].AMR(), list[1].AMR())
	}
	if len(list[1].Transports) != 0 {
		t.Errorf("transports of cred-2 = %q, want none", list[1].Transports)
	}

	// Renaming and deleting: only the member's own passkey.
	must(t, "RenamePasskey", ps.RenamePasskey(ctxA, member, p.ID, "Work laptop"))
	wantErr(t, "RenamePasskey of another member's passkey", ps.RenamePasskey(ctxA, other.ID, p.ID, "x"), storage.ErrNotFound)
	got, err = ps.PasskeyByCredentialID(ctxA, []byte("cred-1"))
	must(t, "PasskeyByCredentialID", err)
	if got.Name != "Work laptop" {
		t.Errorf("name after RenamePasskey = %q", got.Name)
	}
	wantErr(t, "DeletePasskey of another member's passkey", ps.DeletePasskey(ctxA, other.ID, p.ID), storage.ErrNotFound)
	must(t, "DeletePasskey", ps.DeletePasskey(ctxA, member, p.ID))
	wantErr(t, "DeletePasskey twice", ps.DeletePasskey(ctxA, member, p.ID), storage.ErrNotFound)
	_, err = ps.PasskeyByCredentialID(ctxA, []byte("cred-1"))
	wantErr(t, "PasskeyByCredentialID of a deleted passkey", err, storage.ErrNotFound)
	wantErr(t, "UsePasskey of a deleted passkey", ps.UsePasskey(ctxA, p.ID, 1, true, at(3, 8)), storage.ErrNotFound)
}

func testPasskeyCounter(t *testing.T, s storage.Store) {
	ps := narrow[factor.Passkeys](t, s)
	ctxA, _, member := oauthSetup(t, s)

	// A counter of 0 that stays 0 (a synced passkey) is fine, again and again.
	zero := mustPasskey(t, ps, ctxA, passkeyOf(member, "zero"))
	must(t, "UsePasskey 0 -> 0", ps.UsePasskey(ctxA, zero.ID, 0, false, at(2, 8)))
	must(t, "UsePasskey 0 -> 0 again", ps.UsePasskey(ctxA, zero.ID, 0, true, at(2, 9)))
	got, err := ps.PasskeyByCredentialID(ctxA, []byte("zero"))
	must(t, "PasskeyByCredentialID", err)
	if !got.LastUsedAt.Equal(at(2, 9)) || !got.BackupState {
		t.Errorf("after use: last used %v, backup state %v; want %v, true", got.LastUsedAt, got.BackupState, at(2, 9))
	}

	hw := passkeyOf(member, "counting")
	hw.SignCount = 5
	p := mustPasskey(t, ps, ctxA, hw)
	must(t, "UsePasskey 5 -> 6", ps.UsePasskey(ctxA, p.ID, 6, false, at(2, 8)))
	for _, n := range []uint32{6, 5, 0} {
		err := ps.UsePasskey(ctxA, p.ID, n, false, at(2, 9))
		if !errors.Is(err, factor.ErrCounterRegressed) {
			t.Errorf("UsePasskey 6 -> %d: %v, want ErrCounterRegressed", n, err)
		}
	}
	got, err = ps.PasskeyByCredentialID(ctxA, []byte("counting"))
	must(t, "PasskeyByCredentialID", err)
	if got.SignCount != 6 || !got.LastUsedAt.Equal(at(2, 8)) {
		t.Errorf("after refused uses: count %d, last used %v; want 6, %v", got.SignCount, got.LastUsedAt, at(2, 8))
	}
	// The highest counter a uint32 holds.
	must(t, "UsePasskey 6 -> max", ps.UsePasskey(ctxA, p.ID, ^uint32(0), false, at(2, 10)))
	got, err = ps.PasskeyByCredentialID(ctxA, []byte("counting"))
	must(t, "PasskeyByCredentialID", err)
	if got.SignCount != ^uint32(0) {
		t.Errorf("count %d, want %d", got.SignCount, ^uint32(0))
	}

	// Of concurrent uses of one counter value, one wins.
	racer := passkeyOf(member, "racer")
	racer.SignCount = 1
	rp := mustPasskey(t, ps, ctxA, racer)
	exactlyOneWins(t, "concurrent UsePasskey of one counter value", 8, func() error {
		err := ps.UsePasskey(ctxA, rp.ID, 2, false, at(2, 8))
		if errors.Is(err, factor.ErrCounterRegressed) {
			return fmt.Errorf("%w: %w", storage.ErrNotFound, err)
		}
		return err
	})
}

func testPasskeyIsolation(t *testing.T, s storage.Store) {
	ps := narrow[factor.Passkeys](t, s)
	ctxA, ctxB, member := oauthSetup(t, s)
	p := mustPasskey(t, ps, ctxA, passkeyOf(member, "cred-a"))

	_, err := ps.PasskeyByCredentialID(ctxB, []byte("cred-a"))
	wantErr(t, "PasskeyByCredentialID of A's passkey at B", err, storage.ErrNotFound)
	list, err := ps.ListPasskeys(ctxB, member)
	must(t, "ListPasskeys at B", err)
	if len(list) != 0 {
		t.Errorf("ListPasskeys at B = %d passkeys, want none", len(list))
	}
	wantErr(t, "UsePasskey of A's passkey at B", ps.UsePasskey(ctxB, p.ID, 1, false, at(2, 8)), storage.ErrNotFound)
	wantErr(t, "RenamePasskey of A's passkey at B", ps.RenamePasskey(ctxB, member, p.ID, "x"), storage.ErrNotFound)
	wantErr(t, "DeletePasskey of A's passkey at B", ps.DeletePasskey(ctxB, member, p.ID), storage.ErrNotFound)

	// The same credential id at B is another passkey, and A's stays as it was.
	pb := mustPasskey(t, ps, ctxB, passkeyOf(member, "cred-a"))
	if pb.ID == p.ID || pb.SchoolID != schoolB.SchoolID {
		t.Errorf("B's passkey = %+v", pb)
	}
	got, err := ps.PasskeyByCredentialID(ctxA, []byte("cred-a"))
	must(t, "PasskeyByCredentialID at A", err)
	if got.ID != p.ID || got.Name != "Laptop" || got.SignCount != 0 {
		t.Errorf("A's passkey changed: %+v", got)
	}

	// Challenges likewise.
	c := factor.Challenge{ID: "ch-a", Purpose: factor.ChallengeSignIn, Session: []byte(`{}`), CreatedAt: at(1, 8), ExpiresAt: at(1, 9)}
	must(t, "CreatePasskeyChallenge at A", ps.CreatePasskeyChallenge(ctxA, c))
	_, err = ps.ConsumePasskeyChallenge(ctxB, "ch-a", factor.ChallengeSignIn, at(1, 8))
	wantErr(t, "ConsumePasskeyChallenge of A's challenge at B", err, storage.ErrNotFound)
	_, err = ps.ConsumePasskeyChallenge(ctxA, "ch-a", factor.ChallengeSignIn, at(1, 8))
	must(t, "ConsumePasskeyChallenge at A after B tried", err)

	// Without a school, nothing.
	_, err = ps.ListPasskeys(t.Context(), member)
	if err == nil {
		t.Error("ListPasskeys without a school succeeded")
	}
	_, err = ps.PasskeyByCredentialID(t.Context(), []byte("cred-a"))
	if err == nil {
		t.Error("PasskeyByCredentialID without a school succeeded")
	}
}

func testPasskeyChallenges(t *testing.T, s storage.Store) {
	ps := narrow[factor.Passkeys](t, s)
	ctxA, _, member := oauthSetup(t, s)
	c := factor.Challenge{ID: "ch-1", Purpose: factor.ChallengeRegister, MemberID: member,
		Session: []byte(`{"challenge":"abc"}`), CreatedAt: at(1, 8), ExpiresAt: at(1, 9)}
	must(t, "CreatePasskeyChallenge", ps.CreatePasskeyChallenge(ctxA, c))
	wantErr(t, "CreatePasskeyChallenge with a taken id", ps.CreatePasskeyChallenge(ctxA, c), storage.ErrAlreadyExists)
	wantErr(t, "CreatePasskeyChallenge without an id", ps.CreatePasskeyChallenge(ctxA, factor.Challenge{Purpose: factor.ChallengeSignIn, ExpiresAt: at(1, 9)}), storage.ErrInvalidArgument)

	for _, bad := range []struct {
		what    string
		purpose factor.ChallengePurpose
		at      int
	}{
		{"of another purpose", factor.ChallengeSignIn, 8},
		{"at its expiry", factor.ChallengeRegister, 9},
		{"after its expiry", factor.ChallengeRegister, 10},
	} {
		_, err := ps.ConsumePasskeyChallenge(ctxA, "ch-1", bad.purpose, at(1, bad.at))
		wantErr(t, "ConsumePasskeyChallenge "+bad.what, err, storage.ErrNotFound)
	}
	got, err := ps.ConsumePasskeyChallenge(ctxA, "ch-1", factor.ChallengeRegister, at(1, 8))
	must(t, "ConsumePasskeyChallenge", err)
	want := c
	want.SchoolID = schoolA.SchoolID
	wantEqual(t, "consumed challenge", got, want)
	_, err = ps.ConsumePasskeyChallenge(ctxA, "ch-1", factor.ChallengeRegister, at(1, 8))
	wantErr(t, "ConsumePasskeyChallenge twice", err, storage.ErrNotFound)

	// A sign-in challenge knows no member.
	must(t, "CreatePasskeyChallenge", ps.CreatePasskeyChallenge(ctxA, factor.Challenge{ID: "ch-2", Purpose: factor.ChallengeSignIn,
		Session: []byte(`{}`), ExpiresAt: at(1, 9)}))
	got, err = ps.ConsumePasskeyChallenge(ctxA, "ch-2", factor.ChallengeSignIn, at(1, 8))
	must(t, "ConsumePasskeyChallenge", err)
	if got.MemberID != 0 || got.CreatedAt.IsZero() {
		t.Errorf("sign-in challenge = %+v, want no member and the store's clock", got)
	}

	// Of concurrent consumers, one gets it.
	must(t, "CreatePasskeyChallenge", ps.CreatePasskeyChallenge(ctxA, factor.Challenge{ID: "ch-race", Purpose: factor.ChallengeFactor,
		MemberID: member, Session: []byte(`{}`), ExpiresAt: at(1, 9)}))
	exactlyOneWins(t, "concurrent ConsumePasskeyChallenge", 8, func() error {
		_, err := ps.ConsumePasskeyChallenge(ctxA, "ch-race", factor.ChallengeFactor, at(1, 8))
		return err
	})

	// The purge job deletes expired challenges, of every school, and no live one.
	ctxB := inSchool(t, schoolB)
	must(t, "CreatePasskeyChallenge", ps.CreatePasskeyChallenge(ctxA, factor.Challenge{ID: "old-a", Purpose: factor.ChallengeSignIn, Session: []byte(`{}`), ExpiresAt: at(2, 8)}))
	must(t, "CreatePasskeyChallenge", ps.CreatePasskeyChallenge(ctxB, factor.Challenge{ID: "old-b", Purpose: factor.ChallengeSignIn, Session: []byte(`{}`), ExpiresAt: at(2, 9)}))
	must(t, "CreatePasskeyChallenge", ps.CreatePasskeyChallenge(ctxA, factor.Challenge{ID: "live", Purpose: factor.ChallengeSignIn, Session: []byte(`{}`), ExpiresAt: at(3, 9)}))
	n, err := s.PurgeExpired(t.Context(), at(3, 8), 100)
	must(t, "PurgeExpired", err)
	if n != 2 {
		t.Errorf("PurgeExpired deleted %d rows, want the 2 expired challenges", n)
	}
	if _, err := ps.ConsumePasskeyChallenge(ctxA, "live", factor.ChallengeSignIn, at(3, 8)); err != nil {
		t.Errorf("the live challenge went with the purge: %v", err)
	}
}

// testPasskeyFactors: a member's passkeys count in their factor summary, and an owner's reset of
// the member's factors removes them (and the ceremonies in progress) at that school only.
func testPasskeyFactors(t *testing.T, s storage.Store) {
	ps := narrow[factor.Passkeys](t, s)
	admin := narrow[factor.Admin](t, s)
	ctxA, ctxB, member := oauthSetup(t, s)
	for _, cred := range []string{"a-1", "a-2"} {
		mustPasskey(t, ps, ctxA, passkeyOf(member, cred))
	}
	mustPasskey(t, ps, ctxB, passkeyOf(member, "b-1"))
	must(t, "CreatePasskeyChallenge", ps.CreatePasskeyChallenge(ctxA, factor.Challenge{ID: "reset-ch", Purpose: factor.ChallengeRegister,
		MemberID: member, Session: []byte(`{}`), ExpiresAt: at(30, 9)}))

	sums, err := admin.FactorSummaries(ctxA, []int64{member})
	must(t, "FactorSummaries", err)
	if sums[member].Passkeys != 2 || !sums[member].Any() {
		t.Errorf("summary at A = %+v, want 2 passkeys", sums[member])
	}
	n, err := admin.ResetMemberFactors(ctxA, member)
	must(t, "ResetMemberFactors", err)
	if n != 2 {
		t.Errorf("ResetMemberFactors removed %d, want the 2 passkeys", n)
	}
	if keys, _ := ps.ListPasskeys(ctxA, member); len(keys) != 0 {
		t.Errorf("%d passkeys left at A after the reset", len(keys))
	}
	_, err = ps.ConsumePasskeyChallenge(ctxA, "reset-ch", factor.ChallengeRegister, at(30, 8))
	wantErr(t, "a ceremony begun before the reset", err, storage.ErrNotFound)
	sums, err = admin.FactorSummaries(ctxB, []int64{member})
	must(t, "FactorSummaries at B", err)
	if sums[member].Passkeys != 1 {
		t.Errorf("summary at B after A's reset = %+v, want B's passkey", sums[member])
	}
}
