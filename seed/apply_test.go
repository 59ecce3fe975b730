package seed_test

import (
	"context"
	"errors"
	"maps"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/proctorhq/proctor/password"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/seed"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/gormstore"
	"github.com/proctorhq/proctor/storage/gormstore/storetest"
)

// cheap keeps the tests fast; the hashes are real argon2id all the same.
var cheap = seed.Options{Params: password.Params{MemoryKiB: 64, Time: 1, Threads: 1}}

// newStore returns a migrated SQLite store of its own and a context carrying school 1.
func newStore(t *testing.T) (context.Context, *gormstore.Store) {
	t.Helper()
	ctx := context.Background()
	st := storetest.Open(t, gormstore.DriverSQLite)
	if err := st.SyncSchool(ctx, 1, "seedtest", "Seed Test"); err != nil {
		t.Fatal(err)
	}
	return school.NewContext(ctx, &school.School{SchoolID: 1, Subdomain: "seedtest", Name: "Seed Test"}), st
}

// memberWithPassword returns the member with the address email and wants pw to be their
// password.
func memberWithPassword(ctx context.Context, t *testing.T, st *gormstore.Store, email, pw string) storage.Member {
	t.Helper()
	m, err := st.GetMemberByEmail(ctx, email)
	if err != nil {
		t.Fatal(err)
	}
	if err := password.Verify(pw, m.PasswordHash); err != nil {
		t.Errorf("%s's password: %v", email, err)
	}
	return m
}

func TestApplyTwice(t *testing.T) {
	ctx, st := newStore(t)
	f := loadFile(t, "testdata/full.yaml")

	var calls [][2]int
	opts := cheap
	opts.Progress = func(done, total int) { calls = append(calls, [2]int{done, total}) }
	first, err := f.Apply(ctx, st, opts)
	if err != nil {
		t.Fatal(err)
	}
	if first["members"] != 2 || first["courses"] != 1 || first["payments"] != 1 {
		t.Errorf("stats = %v", first)
	}

	// One plain password to hash, then every record.
	total := 1 + f.Data.Records()
	if len(calls) == 0 || calls[len(calls)-1] != [2]int{total, total} {
		t.Fatalf("progress calls %v, want them to end at %d/%d", calls, total, total)
	}
	for i, c := range calls {
		if c[1] != total || (i > 0 && c[0] <= calls[i-1][0]) {
			t.Fatalf("progress calls %v: not increasing to %d", calls, total)
		}
	}

	owner := memberWithPassword(ctx, t, st, "owner@seed-test.example", "owner-pass")
	if roles, err := st.GetRoles(ctx, owner.ID); err != nil || len(roles) != 1 || roles[0] != storage.RoleOwner {
		t.Errorf("owner's roles = %v, %v", roles, err)
	}
	// The student's password is given as password_hash: stored as given, it verifies.
	memberWithPassword(ctx, t, st, "student@seed-test.example", "student-pass")
	if f.Data.Members[0].Password != "owner-pass" || f.Data.Members[0].PasswordHash != "" {
		t.Error("Apply changed the Fixture's members")
	}

	second, err := f.Apply(ctx, st, cheap)
	if err != nil {
		t.Fatalf("second Apply: %v", err)
	}
	if !maps.Equal(first, second) {
		t.Errorf("second Apply stats = %v, first %v", second, first)
	}
	again, err := st.GetMemberByEmail(ctx, "owner@seed-test.example")
	if err != nil {
		t.Fatal(err)
	}
	if again.PasswordHash != owner.PasswordHash {
		t.Error("re-applying the same password re-hashed it")
	}
	courses, _, err := st.ListCourses(ctx, false, storage.Page{First: 10})
	if err != nil || len(courses) != 1 {
		t.Fatalf("courses after two applies = %v, %v", courses, err)
	}
	sections, lectures, err := st.GetCurriculum(ctx, courses[0].ID)
	if err != nil || len(sections) != 1 || len(lectures) != 2 {
		t.Errorf("curriculum after two applies: %d sections, %d lectures, %v", len(sections), len(lectures), err)
	}
}

// A reference the file cannot resolve goes to the store; its refusal names the record's line,
// and the transaction leaves nothing behind.
func TestApplyUnknownReference(t *testing.T) {
	ctx, st := newStore(t)
	f := loadString(t, `courses:
  - slug: go
    title: Go
    price_amount: 100
    currency: USD
    published: true
enrollments:
  - member: ghost@x.example
    course: go
    enrolled_at: 2026-01-01
`)
	if errs := f.Validate(); len(errs) > 0 {
		t.Fatalf("Validate: %v", errs)
	}
	_, err := f.Apply(ctx, st, cheap)
	var errs seed.Errors
	if !errors.As(err, &errs) || len(errs) != 1 {
		t.Fatalf("Apply = %v, want one located problem", err)
	}
	if e := errs[0]; e.Line != 8 || e.Field != "enrollments[0]" || !strings.HasPrefix(e.Error(), "f.yaml:8: enrollments[0]: ") {
		t.Errorf("problem = %q, want it at f.yaml:8 enrollments[0]", e.Error())
	}
	var ie *storage.ImportError
	if !errors.As(err, &ie) || ie.Kind != "enrollments" || ie.Index != 0 {
		t.Errorf("the store's ImportError is not reachable: %v", err)
	}
	if courses, _, err := st.ListCourses(ctx, false, storage.Page{First: 10}); err != nil || len(courses) != 0 {
		t.Errorf("a failed import left courses behind: %v, %v", courses, err)
	}
}

// Apply validates on its own: an invalid fixture writes nothing, whoever forgot to call
// Validate.
func TestApplyRefusesInvalidFixture(t *testing.T) {
	ctx, st := newStore(t)
	f := loadFile(t, "testdata/full.yaml")
	f.Data.Payments[0].PaidAt = nil
	_, err := f.Apply(ctx, st, cheap)
	var errs seed.Errors
	if !errors.As(err, &errs) || errs[0].Field != "payments[0].paid_at" {
		t.Fatalf("Apply = %v, want the validation problem", err)
	}
	if _, err := st.GetMemberByEmail(ctx, "owner@seed-test.example"); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("member after a refused Apply: %v, want ErrNotFound", err)
	}
}

func TestApplyFile(t *testing.T) {
	ctx, st := newStore(t)
	stats, err := seed.ApplyFile(ctx, st, "testdata/full.yaml", cheap)
	if err != nil {
		t.Fatal(err)
	}
	if stats["pages"] != 1 {
		t.Errorf("stats = %v", stats)
	}
	if _, err := seed.ApplyFile(ctx, st, "testdata/missing.yaml", cheap); err == nil {
		t.Error("ApplyFile of a missing file succeeded")
	}
}

// Without a school in the context the store refuses, and Apply says so.
func TestApplyNeedsSchool(t *testing.T) {
	_, st := newStore(t)
	f := loadFile(t, "testdata/full.yaml")
	if _, err := f.Apply(context.Background(), st, cheap); !errors.Is(err, school.ErrNoSchool) {
		t.Errorf("Apply without a school = %v, want ErrNoSchool", err)
	}
}

// Members may bring hashes from other platforms, or no password at all (they are invited
// later): the hashes are stored as given, a member without one gets an empty hash (no sign-in
// is possible with it), and re-applying the file leaves a password set since then alone.
func TestApplyImportedAndPasswordlessMembers(t *testing.T) {
	ctx, st := newStore(t)
	b, err := bcrypt.GenerateFromPassword([]byte("laravel-pass"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	php := "$2y$" + string(b[4:])
	// python3: hashlib.pbkdf2_hmac('sha256', b'correct horse battery staple', b'Gq5nKVp3WxHbT8sYc2LmRe', 260000)
	django := "pbkdf2_sha256$260000$Gq5nKVp3WxHbT8sYc2LmRe$duMneQcytWKSs3gxGJ0bbZwmOguUb4RjVowfSg39ljw="
	f := loadString(t, `members:
  - {email: php@x.example, name: From Laravel, password_hash: "`+php+`", roles: [student]}
  - {email: django@x.example, name: From Django, password_hash: "`+django+`", roles: [student]}
  - {email: invited@x.example, name: Invited Later, roles: [student]}
`)
	opts := cheap
	opts.Progress = func(done, total int) {
		if total != 3 {
			t.Errorf("progress total %d: nothing to hash, three records", total)
		}
	}
	if _, err := f.Apply(ctx, st, opts); err != nil {
		t.Fatal(err)
	}
	for email, want := range map[string]struct{ hash, pw string }{
		"php@x.example":    {php, "laravel-pass"},
		"django@x.example": {django, "correct horse battery staple"},
	} {
		if m := memberWithPassword(ctx, t, st, email, want.pw); m.PasswordHash != want.hash {
			t.Errorf("%s: stored %q, want the imported hash as given", email, m.PasswordHash)
		}
	}
	invited, err := st.GetMemberByEmail(ctx, "invited@x.example")
	if err != nil {
		t.Fatal(err)
	}
	if invited.PasswordHash != "" || password.IsHash(invited.PasswordHash) {
		t.Errorf("member without a password stored with hash %q", invited.PasswordHash)
	}
	if roles, err := st.GetRoles(ctx, invited.ID); err != nil || len(roles) != 1 {
		t.Errorf("invited member's roles = %v, %v", roles, err)
	}

	// The member accepts the invitation and sets a password; the file is applied again.
	set, err := password.Hash("chosen after the invitation", cheap.Params)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.UpdateMember(ctx, invited.ID, func(m storage.Member) (storage.Member, error) {
		m.PasswordHash = set
		return m, nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Apply(ctx, st, cheap); err != nil {
		t.Fatalf("second Apply: %v", err)
	}
	if again, err := st.GetMemberByEmail(ctx, "invited@x.example"); err != nil || again.PasswordHash != set {
		t.Errorf("re-applying cleared the password set since: %q, %v", again.PasswordHash, err)
	}
}
