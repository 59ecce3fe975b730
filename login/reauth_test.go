package login

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/proctorhq/proctor/i18n"
	"github.com/proctorhq/proctor/password"
)

// checkCurrent runs CheckCurrentPassword for Ann at school A and fails the test on an error.
func (e *env) checkCurrent(t *testing.T, pw string) (PasswordCheck, string) {
	t.Helper()
	c, hash, err := e.h.CheckCurrentPassword(e.ctx(hostA), e.ann.ID, pw)
	if err != nil {
		t.Fatal(err)
	}
	return c, hash
}

// A right password is given back to the budget and answers the hash it matched; wrong ones stay
// charged until the budget is spent, and then even the right one is not checked.
func TestCheckCurrentPassword(t *testing.T) {
	e := newEnv(t, nil)
	for range 2 {
		if c, hash := e.checkCurrent(t, annPassword); c != PasswordRight || !password.IsHash(hash) {
			t.Fatalf("right password: %v, hash %q", c, hash)
		}
	}
	// An empty password is missing and never charged: the whole budget is left for wrong ones.
	for range CurrentPasswordBudget.Max + 1 {
		if c, hash := e.checkCurrent(t, ""); c != PasswordMissing || hash != "" {
			t.Fatalf("empty password: %v, hash %q", c, hash)
		}
	}
	for i := range CurrentPasswordBudget.Max {
		if c, hash := e.checkCurrent(t, "not the password"); c != PasswordWrong || hash != "" {
			t.Fatalf("wrong password %d: %v, hash %q", i+1, c, hash)
		}
	}
	if c, _ := e.checkCurrent(t, annPassword); c != PasswordLimited {
		t.Fatalf("after the budget: %v", c)
	}
}

// A form's confirmation answers a refusal through the page's refuse, with the status and words
// of Refusal, and a right password with the hash it matched, refuse not called.
func TestConfirmCurrentPassword(t *testing.T) {
	e := newEnv(t, nil)
	v := Visit{School: e.schools[hostA], Session: Session{Member: e.ann}}
	var status int
	var msg string
	refuse := func(s int, m string) error { status, msg = s, m; return nil }
	for pw, want := range map[string]PasswordCheck{"": PasswordMissing, "not the password": PasswordWrong} {
		status, msg = 0, ""
		hash, ok, err := e.h.ConfirmCurrentPassword(e.ctx(hostA), v, pw, "test change", refuse)
		wantStatus, wantMsg := want.Refusal(e.ctx(hostA))
		if err != nil || ok || hash != "" || status != wantStatus || msg != wantMsg {
			t.Errorf("password %q: hash %q, ok %v, err %v, refused with %d %q; want %d %q", pw, hash, ok, err, status, msg, wantStatus, wantMsg)
		}
	}
	status, msg = 0, ""
	hash, ok, err := e.h.ConfirmCurrentPassword(e.ctx(hostA), v, annPassword, "test change", refuse)
	if err != nil || !ok || !password.IsHash(hash) || status != 0 || msg != "" {
		t.Errorf("right password: hash %q, ok %v, err %v, refused with %d %q", hash, ok, err, status, msg)
	}
}

// The check hashes in one of the sign-in form's hash slots: with every slot taken and no wait
// allowed it is a 503 and costs the member nothing. The slot is held by a check whose hash is
// kept in flight (a wrapped verify and channels, not timing); the wrapper holds only the
// first hash, so a check that skipped the slot would answer instead of waiting.
func TestCheckCurrentPasswordTakesAHashSlot(t *testing.T) {
	e := newEnv(t, func(d *Deps) { d.HashSlots, d.HashWait = 1, -1 })
	entered, release := make(chan struct{}), make(chan struct{})
	var held atomic.Bool
	e.h.verify = func(pw, hash string) error {
		if held.CompareAndSwap(false, true) { // the first check only
			entered <- struct{}{}
			<-release
		}
		return password.Verify(pw, hash)
	}
	type outcome struct {
		c   PasswordCheck
		err error
	}
	first := make(chan outcome, 1)
	go func() {
		c, _, err := e.h.CheckCurrentPassword(e.ctx(hostA), e.ann.ID, annPassword)
		first <- outcome{c, err}
	}()
	<-entered
	_, _, err := e.h.CheckCurrentPassword(e.ctx(hostA), e.ann.ID, "not the password")
	var pe *PageError
	if !errors.As(err, &pe) || pe.Status != http.StatusServiceUnavailable {
		t.Errorf("with the one slot taken: %v, want a 503", err)
	}
	close(release)
	if o := <-first; o.err != nil || o.c != PasswordRight {
		t.Fatalf("the check holding the slot: %v %v", o.c, o.err)
	}
	// The refused check was not charged: the whole budget of wrong passwords is left.
	for i := range CurrentPasswordBudget.Max {
		if c, _ := e.checkCurrent(t, "not the password"); c != PasswordWrong {
			t.Fatalf("wrong password %d: %v", i+1, c)
		}
	}
	if c, _ := e.checkCurrent(t, "not the password"); c != PasswordLimited {
		t.Fatalf("after the budget: %v", c)
	}
}

// A new password is hashed in one of the sign-in form's hash slots: with every slot taken and
// no wait allowed it is a 503 and nothing is hashed; with a slot free it is a hash of it. The
// slot is held by a current-password check whose hash is kept in flight (newOneSlotEnv).
func TestHashNewPasswordTakesAHashSlot(t *testing.T) {
	e, entered, release := newOneSlotEnv(t)
	done := make(chan error, 1)
	go func() {
		_, _, err := e.h.CheckCurrentPassword(e.ctx(hostA), e.ann.ID, annPassword)
		done <- err
	}()
	<-entered
	hash, err := e.h.HashNewPassword(e.ctx(hostA), "a new passphrase", cheap)
	var pe *PageError
	if !errors.As(err, &pe) || pe.Status != http.StatusServiceUnavailable || hash != "" {
		t.Errorf("with the one slot taken: %q, %v, want a 503", hash, err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	hash, err = e.h.HashNewPassword(e.ctx(hostA), "a new passphrase", cheap)
	if err != nil || password.Verify("a new passphrase", hash) != nil {
		t.Fatalf("with the slot free: %q, %v", hash, err)
	}
}

// Refusal words each outcome once for every page that asks for the current password, in the
// request's language; only the spent budget is a 429.
func TestPasswordCheckRefusal(t *testing.T) {
	c, err := i18n.Load()
	if err != nil {
		t.Fatal(err)
	}
	ja := i18n.NewContext(context.Background(), c.Localizer("ja", time.UTC))
	for check, want := range map[PasswordCheck]struct {
		status int
		en, ja string
	}{
		PasswordRight:   {0, "", ""},
		PasswordMissing: {http.StatusOK, "Enter your current password.", "現在のパスワードを入力してください。"},
		PasswordWrong:   {http.StatusOK, "Your current password is not right.", "現在のパスワードが正しくありません。"},
		PasswordNone:    {http.StatusOK, "Your account has no password yet.", "アカウントにはまだパスワードがありません。"},
		PasswordLimited: {http.StatusTooManyRequests, "Too many wrong passwords.", "パスワードの誤りが多すぎます。"},
	} {
		status, en := check.Refusal(context.Background())
		_, inJA := check.Refusal(ja)
		if status != want.status || !strings.HasPrefix(en, want.en) || !strings.HasPrefix(inJA, want.ja) || (want.en == "") != (en == "") {
			t.Errorf("%v: %d %q / %q, want %d %q / %q", check, status, en, inJA, want.status, want.en, want.ja)
		}
	}
}
