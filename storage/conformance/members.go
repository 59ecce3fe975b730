package conformance

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
)

func testCreateAndGetMember(t *testing.T, s storage.Store) {
	ctx := t.Context()
	m, err := s.CreateMember(ctx, storage.Member{ID: 777, Email: "Ada@Example.TEST", Name: "Ada", AvatarURL: "https://x.test/a.png", PasswordHash: hashAda})
	must(t, "CreateMember", err)
	if m.ID == 0 || m.CreatedAt.IsZero() || m.UpdatedAt.IsZero() {
		t.Errorf("CreateMember did not set ID and times: %+v", m)
	}
	if m.Email != "ada@example.test" {
		t.Errorf("e-mail %q, want it lower-cased", m.Email)
	}
	want := storage.Member{ID: m.ID, Email: "ada@example.test", Name: "Ada", AvatarURL: "https://x.test/a.png", PasswordHash: hashAda, CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt}
	wantEqual(t, "created member", m, want)

	got, err := s.GetMember(ctx, m.ID)
	must(t, "GetMember", err)
	wantEqual(t, "GetMember", got, want)

	got, err = s.GetMemberByEmail(ctx, "ADA@example.test")
	must(t, "GetMemberByEmail", err)
	wantEqual(t, "GetMemberByEmail", got, want)

	_, err = s.CreateMember(ctx, storage.Member{Email: "ada@EXAMPLE.test", Name: "Other"})
	wantErr(t, "CreateMember with a taken e-mail", err, storage.ErrAlreadyExists)

	_, err = s.GetMember(ctx, m.ID+1000)
	wantErr(t, "GetMember unknown", err, storage.ErrNotFound)
	_, err = s.GetMemberByEmail(ctx, "nobody@example.test")
	wantErr(t, "GetMemberByEmail unknown", err, storage.ErrNotFound)
}

func testUpdateMember(t *testing.T, s storage.Store) {
	ctx := t.Context()
	m, err := s.CreateMember(ctx, storage.Member{Email: "ada@example.test", Name: "Ada"})
	must(t, "CreateMember", err)
	other, err := s.CreateMember(ctx, storage.Member{Email: "grace@example.test", Name: "Grace"})
	must(t, "CreateMember", err)

	got, err := s.UpdateMember(ctx, m.ID, func(old storage.Member) (storage.Member, error) {
		wantEqual(t, "fn's argument", old, m)
		old.ID = 999999 // ignored: the id cannot change
		old.Email = "Ada.Lovelace@Example.test"
		old.Name = "Ada Lovelace"
		old.AvatarURL = "https://x.test/ada.png"
		old.PasswordHash = hashAda
		return old, nil
	})
	must(t, "UpdateMember", err)
	want := storage.Member{ID: m.ID, Email: "ada.lovelace@example.test", Name: "Ada Lovelace", AvatarURL: "https://x.test/ada.png", PasswordHash: hashAda, CreatedAt: m.CreatedAt, UpdatedAt: got.UpdatedAt}
	wantEqual(t, "updated member", got, want)
	if got.UpdatedAt.Before(m.UpdatedAt) {
		t.Errorf("UpdatedAt went back: %s < %s", got.UpdatedAt, m.UpdatedAt)
	}
	read, err := s.GetMember(ctx, m.ID)
	must(t, "GetMember", err)
	wantEqual(t, "member read back", read, want)

	// fn's error aborts the update and comes back as is.
	errStop := errors.New("stop")
	_, err = s.UpdateMember(ctx, m.ID, func(old storage.Member) (storage.Member, error) {
		old.Name = "changed"
		return old, errStop
	})
	if err != errStop { // "returned as is": not wrapped
		t.Errorf("UpdateMember with failing fn: error %v, want the fn's error itself", err)
	}
	read, err = s.GetMember(ctx, m.ID)
	must(t, "GetMember", err)
	wantEqual(t, "member after aborted update", read, want)

	_, err = s.UpdateMember(ctx, m.ID, func(old storage.Member) (storage.Member, error) {
		old.Email = "GRACE@example.test"
		return old, nil
	})
	wantErr(t, "UpdateMember to a taken e-mail", err, storage.ErrAlreadyExists)

	called := false
	_, err = s.UpdateMember(ctx, other.ID+m.ID+1000, func(old storage.Member) (storage.Member, error) {
		called = true
		return old, nil
	})
	wantErr(t, "UpdateMember unknown", err, storage.ErrNotFound)
	if called {
		t.Error("fn called for an unknown member")
	}
}

func testRoles(t *testing.T, s storage.Store) {
	ctxA, ctxB := syncSchools(t, s)
	m, err := s.CreateMember(t.Context(), storage.Member{Email: "ada@example.test"})
	must(t, "CreateMember", err)

	roles, err := s.GetRoles(ctxA, m.ID)
	must(t, "GetRoles", err)
	if len(roles) != 0 {
		t.Errorf("roles of a new member: %v", roles)
	}

	steps := []struct {
		set, want []storage.Role
	}{
		{[]storage.Role{storage.RoleStudent, storage.RoleOwner, storage.RoleLecturer}, []storage.Role{storage.RoleOwner, storage.RoleLecturer, storage.RoleStudent}},
		{[]storage.Role{storage.RoleAdmin, storage.RoleStudent}, []storage.Role{storage.RoleAdmin, storage.RoleStudent}},
		{[]storage.Role{storage.RoleStudent, storage.RoleStudent}, []storage.Role{storage.RoleStudent}},
		{nil, []storage.Role{}},
		{[]storage.Role{storage.RoleLecturer}, []storage.Role{storage.RoleLecturer}},
	}
	for i, st := range steps {
		must(t, fmt.Sprintf("SetRoles step %d", i), s.SetRoles(ctxA, m.ID, st.set))
		got, err := s.GetRoles(ctxA, m.ID)
		must(t, "GetRoles", err)
		if !slices.Equal(got, st.want) {
			t.Errorf("step %d: roles %v, want %v", i, got, st.want)
		}
	}

	// Roles are per school.
	got, err := s.GetRoles(ctxB, m.ID)
	must(t, "GetRoles at B", err)
	if len(got) != 0 {
		t.Errorf("roles at school B: %v", got)
	}

	wantErr(t, "SetRoles of an unknown member", s.SetRoles(ctxA, m.ID+1000, []storage.Role{storage.RoleStudent}), storage.ErrNotFound)
	wantErr(t, "SetRoles(nil) of an unknown member", s.SetRoles(ctxA, m.ID+1000, nil), storage.ErrNotFound)
	wantErr(t, "SetRoles with an unknown role", s.SetRoles(ctxA, m.ID, []storage.Role{"superuser"}), storage.ErrInvalidArgument)
	got, err = s.GetRoles(ctxA, m.ID)
	must(t, "GetRoles", err)
	if !slices.Equal(got, []storage.Role{storage.RoleLecturer}) {
		t.Errorf("roles after refused SetRoles: %v", got)
	}
}

func testListSchoolMembers(t *testing.T, s storage.Store) {
	ctxA, ctxB := syncSchools(t, s)
	// 105 members at A (more than the largest page), some also at B, and members of B only.
	var dataA, dataB storage.SchoolData
	for i := range 105 {
		roles := []storage.Role{storage.RoleStudent}
		if i%10 == 0 {
			roles = append(roles, storage.RoleAdmin)
		}
		email := fmt.Sprintf("m%03d@example.test", i)
		dataA.Members = append(dataA.Members, storage.MemberSeed{Email: email, Name: email, Roles: roles})
		if i%3 == 0 {
			dataB.Members = append(dataB.Members, storage.MemberSeed{Email: email, Roles: []storage.Role{storage.RoleLecturer}})
		}
	}
	for i := range 7 {
		dataB.Members = append(dataB.Members, storage.MemberSeed{Email: fmt.Sprintf("b%d@example.test", i), Roles: []storage.Role{storage.RoleStudent}})
	}
	mustImport(t, s, ctxA, &dataA)
	mustImport(t, s, ctxB, &dataB)
	// A member who lost every role at A is not listed.
	gone, err := s.GetMemberByEmail(t.Context(), "m104@example.test")
	must(t, "GetMemberByEmail", err)
	must(t, "SetRoles(nil)", s.SetRoles(ctxA, gone.ID, nil))

	walk := func(first int) (pages []int, all []storage.MemberRoles) {
		t.Helper()
		after := ""
		for n := 0; ; n++ {
			if n > 200 {
				t.Fatal("paging does not end")
			}
			page, next, err := s.ListSchoolMembers(ctxA, storage.Page{First: first, After: after})
			must(t, "ListSchoolMembers", err)
			pages = append(pages, len(page))
			all = append(all, page...)
			if next == "" {
				return pages, all
			}
			after = next
		}
	}
	pages, all := walk(20)
	if !slices.Equal(pages, []int{20, 20, 20, 20, 20, 4}) {
		t.Errorf("page sizes %v, want five pages of 20 and one of 4", pages)
	}
	if len(all) != 104 {
		t.Fatalf("walked %d members, want 104", len(all))
	}
	for i, mr := range all {
		if i > 0 && mr.Member.ID <= all[i-1].Member.ID {
			t.Fatalf("members not in increasing id order at %d", i)
		}
		if !strings.HasPrefix(mr.Member.Email, "m") || mr.Member.Email == gone.Email {
			t.Errorf("member %q listed at A", mr.Member.Email)
		}
		want := []storage.Role{storage.RoleStudent}
		var n int
		if _, err := fmt.Sscanf(mr.Member.Email, "m%03d@", &n); err == nil && n%10 == 0 {
			want = []storage.Role{storage.RoleAdmin, storage.RoleStudent}
		}
		if !slices.Equal(mr.Roles, want) {
			t.Errorf("roles of %s: %v, want %v", mr.Member.Email, mr.Roles, want)
		}
	}

	// Page size defaults to 20 and is capped at 100.
	if pages, _ := walk(0); pages[0] != 20 {
		t.Errorf("default page size %d, want 20", pages[0])
	}
	if pages, _ := walk(1000); pages[0] != 100 || len(pages) != 2 {
		t.Errorf("page sizes with First=1000: %v, want [100 4]", pages)
	}
	if pages, _ := walk(1); len(pages) != 104 {
		t.Errorf("%d pages of one, want 104", len(pages))
	}

	for _, bad := range []string{"!!!", "bm90IGEgY3Vyc29y", "aWQ6LTU"} {
		_, _, err := s.ListSchoolMembers(ctxA, storage.Page{After: bad})
		wantErr(t, fmt.Sprintf("ListSchoolMembers with cursor %q", bad), err, storage.ErrInvalidArgument)
	}
}

func testListMemberSchools(t *testing.T, s storage.Store) {
	ctxA, ctxB := syncSchools(t, s)
	m, err := s.CreateMember(t.Context(), storage.Member{Email: "ada@example.test"})
	must(t, "CreateMember", err)
	lone, err := s.CreateMember(t.Context(), storage.Member{Email: "lone@example.test"})
	must(t, "CreateMember", err)

	must(t, "SetRoles A", s.SetRoles(ctxA, m.ID, []storage.Role{storage.RoleStudent, storage.RoleOwner}))
	must(t, "SetRoles B", s.SetRoles(ctxB, m.ID, []storage.Role{storage.RoleLecturer}))

	got, err := s.ListMemberSchools(t.Context(), m.ID)
	must(t, "ListMemberSchools", err)
	wantEqual(t, "schools of the member", got, []storage.SchoolRoles{
		{SchoolID: 1, Subdomain: "a", Name: "School A", Roles: []storage.Role{storage.RoleOwner, storage.RoleStudent}},
		{SchoolID: 2, Subdomain: "b", Name: "School B", Roles: []storage.Role{storage.RoleLecturer}},
	})

	got, err = s.ListMemberSchools(t.Context(), lone.ID)
	must(t, "ListMemberSchools", err)
	if len(got) != 0 {
		t.Errorf("schools of a member without roles: %v", got)
	}
}

// testRolesNoSchool calls the school-scoped member methods without a school.
func testRolesNoSchool(t *testing.T, s storage.Store) {
	ctxA, _, _ := withFullSchool(t, s)
	ada := memberID(t, s, ctxA, "ada@example.test")
	ctx := t.Context()

	calls := map[string]func() error{
		"SetRoles":          func() error { return s.SetRoles(ctx, ada, []storage.Role{storage.RoleStudent}) },
		"GetRoles":          func() error { _, err := s.GetRoles(ctx, ada); return err },
		"ListSchoolMembers": func() error { _, _, err := s.ListSchoolMembers(ctx, storage.Page{}); return err },
	}
	for name, call := range calls {
		wantErr(t, name, call(), school.ErrNoSchool)
	}
	// The refused SetRoles changed nothing.
	roles, err := s.GetRoles(ctxA, ada)
	must(t, "GetRoles", err)
	if !slices.Equal(roles, []storage.Role{storage.RoleOwner, storage.RoleStudent}) {
		t.Errorf("roles after SetRoles without school: %v", roles)
	}
}
