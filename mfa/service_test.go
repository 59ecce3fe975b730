package mfa

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pquerna/otp/hotp"

	"github.com/proctorhq/proctor/factor"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/gormstore"
	"github.com/proctorhq/proctor/storage/gormstore/storetest"
)

var testSecret = schools.Secret

type fixture struct {
	svc          *Service
	store        *gormstore.Store
	clock        *schools.Clock
	ctxA, ctxB   context.Context
	member       int64
	secretBase32 string
}

// newFixture is a Service over a real SQLite store with schools A and B and one member, whose
// TOTP is enrolled and confirmed at A at the clock's time.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	gs := storetest.Open(t, gormstore.DriverSQLite)
	f := &fixture{store: gs, clock: schools.NewClock(time.Date(2031, 5, 6, 7, 8, 0, 0, time.UTC))}
	a := &school.School{SchoolID: 1, Subdomain: "a", Name: "A"}
	b := &school.School{SchoolID: 2, Subdomain: "b", Name: "B"}
	for _, tn := range []*school.School{a, b} {
		if err := gs.SyncSchool(t.Context(), tn.SchoolID, tn.Subdomain, tn.Name); err != nil {
			t.Fatal(err)
		}
	}
	f.ctxA, f.ctxB = school.NewContext(t.Context(), a), school.NewContext(t.Context(), b)
	m, err := gs.CreateMember(t.Context(), storage.Member{Email: "ann@example.com", Name: "Ann"})
	if err != nil {
		t.Fatal(err)
	}
	f.member = m.ID
	if f.svc, err = NewService(ServiceDeps{Store: gs, Secret: testSecret, Now: f.clock.Now}); err != nil {
		t.Fatal(err)
	}
	e, err := f.svc.BeginTOTP(f.ctxA, f.member, "A", "ann@example.com")
	if err != nil {
		t.Fatal(err)
	}
	f.secretBase32 = e.Secret
	codes, ok, err := f.svc.ConfirmTOTP(f.ctxA, f.member, f.code(f.clock.Now()))
	if err != nil || !ok || len(codes) != RecoveryCodeCount {
		t.Fatalf("ConfirmTOTP: %v, %v, %d codes", ok, err, len(codes))
	}
	return f
}

// code is the TOTP code of the member's secret at t.
func (f *fixture) code(at time.Time) string {
	c, err := hotp.GenerateCodeCustom(f.secretBase32, uint64(at.Unix()/30), totpOpts)
	if err != nil {
		panic(err)
	}
	return c
}

func (f *fixture) verify(t *testing.T, ctx context.Context, code string) bool {
	t.Helper()
	_, ok, err := f.svc.VerifyCode(ctx, f.member, code)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

func TestTOTPSkewAndReplay(t *testing.T) {
	f := newFixture(t)
	start := f.clock.Now()
	// The code that confirmed enrolment is used up.
	if f.verify(t, f.ctxA, f.code(start)) {
		t.Error("the confirming code was accepted again")
	}
	f.clock.Set(start.Add(90 * time.Second)) // three steps later
	now := f.clock.Now()
	for _, c := range []struct {
		what string
		at   time.Time
		ok   bool
	}{
		{"two steps old", now.Add(-60 * time.Second), false},
		{"two steps ahead", now.Add(60 * time.Second), false},
		{"one step old", now.Add(-30 * time.Second), true},
		// An earlier step than the last accepted one is refused even within the skew.
		{"two steps old after one step old", now.Add(-60 * time.Second), false},
		{"current", now, true},
		{"current again (replay)", now, false},
		{"one step ahead", now.Add(30 * time.Second), true},
		{"current after one step ahead", now, false},
	} {
		if got := f.verify(t, f.ctxA, f.code(c.at)); got != c.ok {
			t.Errorf("%s: accepted %v, want %v", c.what, got, c.ok)
		}
	}
	for _, junk := range []string{"", "12345", "1234567", "abcdef", "12 34 5x"} {
		if f.verify(t, f.ctxA, junk) {
			t.Errorf("%q accepted", junk)
		}
	}
	// The code is no factor at another school.
	f.clock.Set(now.Add(5 * time.Minute))
	if f.verify(t, f.ctxB, f.code(f.clock.Now())) {
		t.Error("a code of A's factor accepted at B")
	}
	if !f.verify(t, f.ctxA, f.code(f.clock.Now())) {
		t.Error("a fresh code refused")
	}
}

func TestTOTPConcurrentUse(t *testing.T) {
	f := newFixture(t)
	f.clock.Set(f.clock.Now().Add(time.Minute))
	code := f.code(f.clock.Now())
	var wg sync.WaitGroup
	var won atomic.Int32
	for range 8 {
		wg.Go(func() {
			_, ok, err := f.svc.VerifyCode(f.ctxA, f.member, code)
			if err != nil {
				t.Error(err)
			}
			if ok {
				won.Add(1)
			}
		})
	}
	wg.Wait()
	if n := won.Load(); n != 1 {
		t.Errorf("%d uses of one code won, want exactly one", n)
	}
}

func TestRecoveryCodes(t *testing.T) {
	f := newFixture(t)
	codes, err := f.svc.NewRecoveryCodes(f.ctxA, f.member)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, c := range codes {
		if len(c) != 11 || c[5] != '-' || seen[c] {
			t.Errorf("recovery code %q: want 5+5 characters, unique", c)
		}
		seen[c] = true
	}
	kind, ok, err := f.svc.VerifyCode(f.ctxA, f.member, codes[0])
	if err != nil || !ok || kind != factor.KindRecoveryCode {
		t.Fatalf("first use: %v %v %v", kind, ok, err)
	}
	if f.verify(t, f.ctxA, codes[0]) {
		t.Error("a recovery code was accepted twice")
	}
	// Typed without the hyphen, in capitals, spaced: the same code.
	if !f.verify(t, f.ctxA, " "+upper(codes[1][:5])+" "+codes[1][6:]) {
		t.Error("a recovery code typed differently was refused")
	}
	if f.verify(t, f.ctxB, codes[2]) {
		t.Error("A's recovery code accepted at B")
	}
	sum, err := f.svc.Summary(f.ctxA, f.member)
	if err != nil || sum != (factor.Summary{TOTP: true, RecoveryCodesLeft: RecoveryCodeCount - 2}) {
		t.Errorf("summary %+v, %v", sum, err)
	}
	// New codes end the old ones.
	if _, err := f.svc.NewRecoveryCodes(f.ctxA, f.member); err != nil {
		t.Fatal(err)
	}
	if f.verify(t, f.ctxA, codes[3]) {
		t.Error("a replaced recovery code was accepted")
	}
	// Removing TOTP ends the factor and the codes.
	if err := f.svc.RemoveTOTP(f.ctxA, f.member); err != nil {
		t.Fatal(err)
	}
	if sum, _ := f.svc.Summary(f.ctxA, f.member); sum.Any() || sum.RecoveryCodesLeft != 0 {
		t.Errorf("summary after removal: %+v", sum)
	}
}

func TestSealedSecret(t *testing.T) {
	f := newFixture(t)
	row, err := f.store.GetTOTP(f.ctxA, f.member)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := b32.DecodeString(f.secretBase32)
	if err != nil {
		t.Fatal(err)
	}
	if contains(row.Sealed, raw) {
		t.Fatal("the store holds the secret in the clear")
	}
	// A sealed secret opens only for its school and member.
	if _, err := f.svc.open(f.ctxB, f.member, row.Sealed); err == nil {
		t.Error("A's sealed secret opened at B")
	}
	if _, err := f.svc.open(f.ctxA, f.member+1, row.Sealed); err == nil {
		t.Error("the sealed secret opened for another member")
	}
	if _, err := f.svc.BeginTOTP(f.ctxA, f.member, "A", "ann@example.com"); !errors.Is(err, ErrEnrolled) {
		t.Errorf("BeginTOTP with TOTP on: %v, want ErrEnrolled", err)
	}
}

func TestPendingTOTPIsNoFactor(t *testing.T) {
	f := newFixture(t)
	// At B the member only begins: nothing counts, and the pending secret is shown again.
	e1, err := f.svc.BeginTOTP(f.ctxB, f.member, "B", "ann@example.com")
	if err != nil {
		t.Fatal(err)
	}
	e2, err := f.svc.BeginTOTP(f.ctxB, f.member, "B", "ann@example.com")
	if err != nil || e2.Secret != e1.Secret {
		t.Fatalf("a pending secret shown again: %v (same: %v)", err, e2.Secret == e1.Secret)
	}
	if sum, _ := f.svc.Summary(f.ctxB, f.member); sum.Any() {
		t.Error("a pending factor counts")
	}
	c, _ := hotp.GenerateCodeCustom(e1.Secret, uint64(f.clock.Now().Unix()/30), totpOpts)
	if _, ok, _ := f.svc.VerifyCode(f.ctxB, f.member, c); ok {
		t.Error("a pending factor's code signs in")
	}
	if _, ok, _ := f.svc.ConfirmTOTP(f.ctxB, f.member, "000000"); ok && c != "000000" {
		t.Error("a wrong code confirmed")
	}
	if _, ok, err := f.svc.ConfirmTOTP(f.ctxB, f.member, c); !ok || err != nil {
		t.Errorf("confirm: %v %v", ok, err)
	}
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

func contains(hay, needle []byte) bool {
	for i := 0; i+len(needle) <= len(hay); i++ {
		if string(hay[i:i+len(needle)]) == string(needle) {
			return true
		}
	}
	return false
}
