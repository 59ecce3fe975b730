package conformance

import (
	"fmt"
	"testing"

	"github.com/proctorhq/proctor/factor"
	"github.com/proctorhq/proctor/storage"
)

func testTOTPFactor(t *testing.T, s storage.Store) {
	fs := narrow[factor.Store](t, s)
	ctxA, _, member := oauthSetup(t, s)
	_, err := fs.GetTOTP(ctxA, member)
	wantErr(t, "GetTOTP before enrolment", err, storage.ErrNotFound)
	wantErr(t, "PutPendingTOTP for an unknown member", fs.PutPendingTOTP(ctxA, member+1000, []byte("x"), at(1, 8)), storage.ErrNotFound)
	wantErr(t, "PutPendingTOTP without a secret", fs.PutPendingTOTP(ctxA, member, nil, at(1, 8)), storage.ErrInvalidArgument)

	must(t, "PutPendingTOTP", fs.PutPendingTOTP(ctxA, member, []byte("sealed-1"), at(1, 8)))
	// A second pending one replaces the first.
	must(t, "PutPendingTOTP again", fs.PutPendingTOTP(ctxA, member, []byte("sealed-2"), at(1, 9)))
	got, err := fs.GetTOTP(ctxA, member)
	must(t, "GetTOTP", err)
	wantEqual(t, "pending totp", got, factor.TOTP{MemberID: member, Sealed: []byte("sealed-2"), CreatedAt: at(1, 9)})
	// A pending factor is no factor: no step is accepted, and summaries do not count it.
	wantErr(t, "AcceptTOTPStep while pending", fs.AcceptTOTPStep(ctxA, member, 5), storage.ErrNotFound)
	sums, err := fs.FactorSummaries(ctxA, []int64{member})
	must(t, "FactorSummaries", err)
	wantEqual(t, "summaries with a pending factor", sums, map[int64]factor.Summary{})

	must(t, "ConfirmTOTP", fs.ConfirmTOTP(ctxA, member, 100, at(1, 10)))
	wantErr(t, "ConfirmTOTP twice", fs.ConfirmTOTP(ctxA, member, 101, at(1, 11)), storage.ErrNotFound)
	got, err = fs.GetTOTP(ctxA, member)
	must(t, "GetTOTP", err)
	wantEqual(t, "confirmed totp", got, factor.TOTP{MemberID: member, Sealed: []byte("sealed-2"), CreatedAt: at(1, 9), ConfirmedAt: at(1, 10), LastStep: 100})
	wantErr(t, "PutPendingTOTP over a confirmed factor", fs.PutPendingTOTP(ctxA, member, []byte("sealed-3"), at(1, 12)), storage.ErrAlreadyExists)

	// Steps only move forward: the confirmed step, an earlier one and a repeat are refused.
	wantErr(t, "AcceptTOTPStep of the confirming step", fs.AcceptTOTPStep(ctxA, member, 100), storage.ErrNotFound)
	wantErr(t, "AcceptTOTPStep of an earlier step", fs.AcceptTOTPStep(ctxA, member, 99), storage.ErrNotFound)
	must(t, "AcceptTOTPStep", fs.AcceptTOTPStep(ctxA, member, 102))
	wantErr(t, "AcceptTOTPStep twice", fs.AcceptTOTPStep(ctxA, member, 102), storage.ErrNotFound)
	wantErr(t, "AcceptTOTPStep of a step between", fs.AcceptTOTPStep(ctxA, member, 101), storage.ErrNotFound)
	wantErr(t, "AcceptTOTPStep for another member", fs.AcceptTOTPStep(ctxA, member+1000, 200), storage.ErrNotFound)

	// Deleting TOTP takes the recovery codes with it.
	must(t, "ReplaceRecoveryCodes", fs.ReplaceRecoveryCodes(ctxA, member, []string{"h1", "h2"}, at(1, 10)))
	must(t, "DeleteTOTP", fs.DeleteTOTP(ctxA, member))
	wantErr(t, "DeleteTOTP twice", fs.DeleteTOTP(ctxA, member), storage.ErrNotFound)
	_, err = fs.GetTOTP(ctxA, member)
	wantErr(t, "GetTOTP after DeleteTOTP", err, storage.ErrNotFound)
	wantErr(t, "ConsumeRecoveryCode after DeleteTOTP", fs.ConsumeRecoveryCode(ctxA, member, "h1", at(1, 11)), storage.ErrNotFound)
	// A new enrolment may begin.
	must(t, "PutPendingTOTP after DeleteTOTP", fs.PutPendingTOTP(ctxA, member, []byte("sealed-4"), at(2, 8)))
}

func testRecoveryCodes(t *testing.T, s storage.Store) {
	fs := narrow[factor.Store](t, s)
	ctxA, _, member := oauthSetup(t, s)
	other := otherMember(t, s)
	must(t, "ReplaceRecoveryCodes", fs.ReplaceRecoveryCodes(ctxA, member, []string{"h1", "h2", "h3"}, at(1, 8)))
	must(t, "ReplaceRecoveryCodes for another member", fs.ReplaceRecoveryCodes(ctxA, other.ID, []string{"h1"}, at(1, 8)))
	wantErr(t, "ReplaceRecoveryCodes with an empty hash", fs.ReplaceRecoveryCodes(ctxA, member, []string{""}, at(1, 8)), storage.ErrInvalidArgument)
	must(t, "ConsumeRecoveryCode", fs.ConsumeRecoveryCode(ctxA, member, "h2", at(1, 9)))
	wantErr(t, "ConsumeRecoveryCode twice", fs.ConsumeRecoveryCode(ctxA, member, "h2", at(1, 10)), storage.ErrNotFound)
	wantErr(t, "ConsumeRecoveryCode of an unknown code", fs.ConsumeRecoveryCode(ctxA, member, "nope", at(1, 10)), storage.ErrNotFound)
	must(t, "PutPendingTOTP", fs.PutPendingTOTP(ctxA, member, []byte("sealed"), at(1, 8)))
	must(t, "ConfirmTOTP", fs.ConfirmTOTP(ctxA, member, 1, at(1, 8)))

	sums, err := fs.FactorSummaries(ctxA, []int64{member, other.ID, member + 1000})
	must(t, "FactorSummaries", err)
	wantEqual(t, "summaries", sums, map[int64]factor.Summary{
		member:   {TOTP: true, RecoveryCodesLeft: 2},
		other.ID: {RecoveryCodesLeft: 1},
	})
	if sums, err := fs.FactorSummaries(ctxA, nil); err != nil || len(sums) != 0 {
		t.Errorf("FactorSummaries of nobody: %v, %v", sums, err)
	}

	// New codes replace the old ones, used or not.
	must(t, "ReplaceRecoveryCodes again", fs.ReplaceRecoveryCodes(ctxA, member, []string{"h4", "h2"}, at(2, 8)))
	wantErr(t, "ConsumeRecoveryCode of a replaced code", fs.ConsumeRecoveryCode(ctxA, member, "h1", at(2, 9)), storage.ErrNotFound)
	must(t, "ConsumeRecoveryCode of a reissued hash", fs.ConsumeRecoveryCode(ctxA, member, "h2", at(2, 9)))

	// ResetMemberFactors deletes the member's factor and codes, no one else's.
	n, err := fs.ResetMemberFactors(ctxA, member)
	must(t, "ResetMemberFactors", err)
	if n != 3 {
		t.Errorf("ResetMemberFactors deleted %d, want 3 (TOTP and two codes)", n)
	}
	if n, err := fs.ResetMemberFactors(ctxA, member); err != nil || n != 0 {
		t.Errorf("ResetMemberFactors twice: %d, %v", n, err)
	}
	sums, err = fs.FactorSummaries(ctxA, []int64{member, other.ID})
	must(t, "FactorSummaries", err)
	wantEqual(t, "summaries after the reset", sums, map[int64]factor.Summary{other.ID: {RecoveryCodesLeft: 1}})
}

func testConcurrentFactorUse(t *testing.T, s storage.Store) {
	fs := narrow[factor.Store](t, s)
	ctxA, _, member := oauthSetup(t, s)
	must(t, "PutPendingTOTP", fs.PutPendingTOTP(ctxA, member, []byte("sealed"), at(1, 8)))
	must(t, "ConfirmTOTP", fs.ConfirmTOTP(ctxA, member, 1, at(1, 8)))
	const rounds, racers = 3, 8
	for round := range rounds {
		step := int64(10 + round)
		exactlyOneWins(t, fmt.Sprintf("round %d: uses of one TOTP step", round), racers, func() error {
			return fs.AcceptTOTPStep(ctxA, member, step)
		})
		hash := fmt.Sprintf("code-%d", round)
		must(t, "ReplaceRecoveryCodes", fs.ReplaceRecoveryCodes(ctxA, member, []string{hash}, at(1, 8)))
		exactlyOneWins(t, fmt.Sprintf("round %d: uses of one recovery code", round), racers, func() error {
			return fs.ConsumeRecoveryCode(ctxA, member, hash, at(1, 9))
		})
	}
}

func testFactorIsolation(t *testing.T, s storage.Store) {
	fs := narrow[factor.Store](t, s)
	ctxA, ctxB, member := oauthSetup(t, s)
	must(t, "PutPendingTOTP at A", fs.PutPendingTOTP(ctxA, member, []byte("sealed-a"), at(1, 8)))
	must(t, "ConfirmTOTP at A", fs.ConfirmTOTP(ctxA, member, 1, at(1, 8)))
	must(t, "ReplaceRecoveryCodes at A", fs.ReplaceRecoveryCodes(ctxA, member, []string{"h1", "h2"}, at(1, 8)))

	// B sees nothing of A's and cannot use, confirm, delete or count it.
	_, err := fs.GetTOTP(ctxB, member)
	wantErr(t, "GetTOTP at B", err, storage.ErrNotFound)
	wantErr(t, "AcceptTOTPStep at B", fs.AcceptTOTPStep(ctxB, member, 5), storage.ErrNotFound)
	wantErr(t, "ConsumeRecoveryCode at B", fs.ConsumeRecoveryCode(ctxB, member, "h1", at(1, 9)), storage.ErrNotFound)
	wantErr(t, "DeleteTOTP at B", fs.DeleteTOTP(ctxB, member), storage.ErrNotFound)
	if sums, err := fs.FactorSummaries(ctxB, []int64{member}); err != nil || len(sums) != 0 {
		t.Errorf("FactorSummaries at B: %v, %v", sums, err)
	}
	if n, err := fs.ResetMemberFactors(ctxB, member); err != nil || n != 0 {
		t.Errorf("ResetMemberFactors at B: %d, %v", n, err)
	}
	// The member's own enrolment at B is a separate factor; replacing B's codes leaves A's.
	must(t, "PutPendingTOTP at B", fs.PutPendingTOTP(ctxB, member, []byte("sealed-b"), at(1, 9)))
	must(t, "ReplaceRecoveryCodes at B", fs.ReplaceRecoveryCodes(ctxB, member, []string{"h1"}, at(1, 9)))
	sums, err := fs.FactorSummaries(ctxA, []int64{member})
	must(t, "FactorSummaries at A", err)
	wantEqual(t, "A's summary", sums, map[int64]factor.Summary{member: {TOTP: true, RecoveryCodesLeft: 2}})
	must(t, "AcceptTOTPStep at A", fs.AcceptTOTPStep(ctxA, member, 5))

	// A session of A is not marked from B.
	must(t, "CreateLoginSession at A", s.CreateLoginSession(ctxA, storage.LoginSession{ID: "sess-a", MemberID: member, CreatedAt: at(1, 8), ExpiresAt: at(2, 8)}))
	wantErr(t, "MarkSessionFactor at B", fs.MarkSessionFactor(ctxB, "sess-a", []string{"pwd", "otp"}, at(1, 9)), storage.ErrNotFound)

	// Without a school, every method refuses.
	ctx := t.Context()
	calls := map[string]func() error{
		"PutPendingTOTP": func() error { return fs.PutPendingTOTP(ctx, member, []byte("x"), at(1, 8)) },
		"GetTOTP": func() error {
			_, err := fs.GetTOTP(ctx, member)
			return err
		},
		"ConfirmTOTP":          func() error { return fs.ConfirmTOTP(ctx, member, 1, at(1, 8)) },
		"AcceptTOTPStep":       func() error { return fs.AcceptTOTPStep(ctx, member, 50) },
		"DeleteTOTP":           func() error { return fs.DeleteTOTP(ctx, member) },
		"ReplaceRecoveryCodes": func() error { return fs.ReplaceRecoveryCodes(ctx, member, []string{"x"}, at(1, 8)) },
		"ConsumeRecoveryCode":  func() error { return fs.ConsumeRecoveryCode(ctx, member, "h2", at(1, 8)) },
		"FactorSummaries": func() error {
			_, err := fs.FactorSummaries(ctx, []int64{member})
			return err
		},
		"ResetMemberFactors": func() error {
			_, err := fs.ResetMemberFactors(ctx, member)
			return err
		},
		"MarkSessionFactor": func() error { return fs.MarkSessionFactor(ctx, "sess-a", nil, at(1, 8)) },
	}
	for name, call := range calls {
		if err := call(); err == nil {
			t.Errorf("%s without a school succeeded", name)
		}
	}
	if err := fs.ConsumeRecoveryCode(ctxA, member, "h2", at(1, 10)); err != nil {
		t.Errorf("ConsumeRecoveryCode at A after the refused calls: %v", err)
	}
}

func testSessionFactor(t *testing.T, s storage.Store) {
	fs := narrow[factor.Store](t, s)
	ctxA, _, member := oauthSetup(t, s)
	// A session remembers how it was signed in.
	ls := storage.LoginSession{ID: "sess-1", MemberID: member, CreatedAt: at(1, 8), LastSeenAt: at(1, 8), ExpiresAt: at(2, 8),
		AMR: []string{factor.AMRPassword, factor.AMROTP, factor.AMRMultiFactor}, FactorAt: at(1, 8)}
	must(t, "CreateLoginSession", s.CreateLoginSession(ctxA, ls))
	got, _, err := s.GetLoginSession(ctxA, "sess-1")
	must(t, "GetLoginSession", err)
	wantEqual(t, "session with a factor", got, ls)

	// A password-only session has no factor time until a step-up marks it.
	pw := storage.LoginSession{ID: "sess-2", MemberID: member, CreatedAt: at(1, 8), LastSeenAt: at(1, 8), ExpiresAt: at(2, 8),
		AMR: []string{factor.AMRPassword}}
	must(t, "CreateLoginSession", s.CreateLoginSession(ctxA, pw))
	must(t, "MarkSessionFactor", fs.MarkSessionFactor(ctxA, "sess-2", []string{"pwd", "otp", "mfa"}, at(1, 9)))
	got, _, err = s.GetLoginSession(ctxA, "sess-2")
	must(t, "GetLoginSession", err)
	pw.AMR, pw.FactorAt = []string{"pwd", "otp", "mfa"}, at(1, 9)
	wantEqual(t, "marked session", got, pw)
	wantErr(t, "MarkSessionFactor of an unknown session", fs.MarkSessionFactor(ctxA, "nope", nil, at(1, 9)), storage.ErrNotFound)
	if got, _, err := s.GetLoginSession(ctxA, "sess-1"); err != nil || !got.FactorAt.Equal(at(1, 8)) {
		t.Errorf("another session changed with the marked one: %+v, %v", got, err)
	}
}
