package main

import (
	"strings"
	"testing"
	"time"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/factor"
	"github.com/proctorhq/proctor/school"
)

// TestMembersResetMFA: the command removes a member's factors at the named school only, and
// refuses an address that is nobody there.
func TestMembersResetMFA(t *testing.T) {
	root := adaAndBo(t, "owner")
	s := openDeployment(t, root)
	ada, err := s.GetMemberByEmail(t.Context(), "ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	one := school.NewContext(t.Context(), &school.School{SchoolID: 1})
	two := school.NewContext(t.Context(), &school.School{SchoolID: 2})
	// Ada has TOTP and recovery codes at school 1, and (as the store allows, whatever her role)
	// TOTP at school 2.
	now := time.Now()
	if err := s.PutPendingTOTP(one, ada.ID, []byte("sealed"), now); err != nil {
		t.Fatal(err)
	}
	if err := s.ConfirmTOTP(one, ada.ID, 1, now); err != nil {
		t.Fatal(err)
	}
	if err := s.ReplaceRecoveryCodes(one, ada.ID, []string{"h1", "h2"}, now); err != nil {
		t.Fatal(err)
	}
	if err := s.PutPendingTOTP(two, ada.ID, []byte("sealed"), now); err != nil {
		t.Fatal(err)
	}
	if err := s.ConfirmTOTP(two, ada.ID, 1, now); err != nil {
		t.Fatal(err)
	}

	refusesNonMembers(t, "reset-mfa")

	code, out, stderr := runCmd(t, "", "members", "reset-mfa", "--school", "1", "--email", "Ada@Example.com")
	if code != 0 || !strings.Contains(out, "removed the second factors of member") || !strings.Contains(out, "<ada@example.com> at school 1") {
		t.Fatalf("reset-mfa: %d %q %q", code, out, stderr)
	}
	if sums, err := s.FactorSummaries(one, []int64{ada.ID}); err != nil || len(sums) != 0 {
		t.Errorf("factors at school 1 after the reset: %v, %v", sums, err)
	}
	if sums, err := s.FactorSummaries(two, []int64{ada.ID}); err != nil || sums[ada.ID] != (factor.Summary{TOTP: true}) {
		t.Errorf("factors at school 2 after a reset at school 1: %v, %v", sums, err)
	}
	evs, err := s.ListSecurityEvents(one, audit.Filter{Kinds: []audit.Kind{audit.KindFactorsReset}, Limit: 100})
	if err != nil || len(evs) != 1 || evs[0].Actor != audit.ActorCLI || evs[0].SubjectID != ada.ID {
		t.Errorf("factors_reset events: %+v, %v", evs, err)
	}
	code, out, _ = runCmd(t, "", "members", "reset-mfa", "--school", "1", "--email", "ada@example.com")
	if code != 0 || !strings.Contains(out, "has no second factor at school 1") {
		t.Errorf("reset-mfa twice: %d %q", code, out)
	}
}
