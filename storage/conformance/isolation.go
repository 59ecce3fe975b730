package conformance

import (
	"context"
	"slices"
	"testing"

	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
)

// testNoSchool calls every school-scoped method of the school-data store without a school
// (testRolesNoSchool and testOAuthNoSchool call the identity store's).
func testNoSchool(t *testing.T, s storage.Store) {
	ctxA, _ := syncSchools(t, s)
	mustImport(t, s, ctxA, FullSchoolData())
	ada, course, lectures := firstLecture(t, s, ctxA, "ada@example.test", "go-basics")
	ctx := t.Context()
	noop := func(p storage.LectureProgress) (storage.LectureProgress, error) { return p, nil }

	calls := map[string]func() error{
		"GetSchool":       func() error { _, err := s.GetSchool(ctx); return err },
		"ListCourses":     func() error { _, _, err := s.ListCourses(ctx, false, storage.Page{}); return err },
		"GetCourseBySlug": func() error { _, err := s.GetCourseBySlug(ctx, "go-basics"); return err },
		"GetCurriculum":   func() error { _, _, err := s.GetCurriculum(ctx, course.ID); return err },
		"ListEnrollments": func() error { _, err := s.ListEnrollments(ctx, ada.ID); return err },
		"GetLectureProgress": func() error {
			_, err := s.GetLectureProgress(ctx, ada.ID, []int64{course.ID})
			return err
		},
		"GetCourseProgress": func() error {
			_, err := s.GetCourseProgress(ctx, ada.ID, []int64{course.ID})
			return err
		},
		"UpdateLectureProgress": func() error {
			_, err := s.UpdateLectureProgress(ctx, ada.ID, lectures[0].ID, noop)
			return err
		},
		"ImportSchoolData": func() error {
			_, err := s.ImportSchoolData(ctx, FullSchoolData(), storage.ImportOptions{})
			return err
		},
	}
	for name, call := range calls {
		wantErr(t, name, call(), school.ErrNoSchool)
	}
}

// schoolView is everything the Store lets a school read about one data set.
type schoolView struct {
	School      storage.School
	Courses     []storage.Course
	Sections    map[string][]storage.Section
	Lectures    map[string][]storage.Lecture
	Members     []storage.MemberRoles
	Enrollments map[string][]storage.Enrollment
	Progress    map[string][]storage.LectureProgress
}

// readSchool reads the context school's view of the members named in emails.
func readSchool(t *testing.T, s storage.Store, ctx context.Context, emails []string) schoolView {
	t.Helper()
	v := schoolView{
		Sections: map[string][]storage.Section{}, Lectures: map[string][]storage.Lecture{},
		Enrollments: map[string][]storage.Enrollment{}, Progress: map[string][]storage.LectureProgress{},
	}
	var err error
	v.School, err = s.GetSchool(ctx)
	must(t, "GetSchool", err)
	for after := ""; ; {
		page, next, err := s.ListCourses(ctx, false, storage.Page{First: 3, After: after})
		must(t, "ListCourses", err)
		v.Courses = append(v.Courses, page...)
		if next == "" {
			break
		}
		after = next
	}
	var courseIDs []int64
	for _, c := range v.Courses {
		courseIDs = append(courseIDs, c.ID)
		v.Sections[c.Slug], v.Lectures[c.Slug], err = s.GetCurriculum(ctx, c.ID)
		must(t, "GetCurriculum", err)
	}
	for after := ""; ; {
		page, next, err := s.ListSchoolMembers(ctx, storage.Page{First: 2, After: after})
		must(t, "ListSchoolMembers", err)
		v.Members = append(v.Members, page...)
		if next == "" {
			break
		}
		after = next
	}
	for _, e := range emails {
		m := memberID(t, s, ctx, e)
		v.Enrollments[e], err = s.ListEnrollments(ctx, m)
		must(t, "ListEnrollments", err)
		v.Progress[e], err = s.GetLectureProgress(ctx, m, courseIDs)
		must(t, "GetLectureProgress", err)
	}
	return v
}

// testSchoolIsolation imports overlapping data (same slugs, same e-mails) into two schools and
// checks that each school reads only its own rows and that ids of the other are not found.
func testSchoolIsolation(t *testing.T, s storage.Store) {
	ctxA, ctxB := syncSchools(t, s)
	dataA := FullSchoolData()
	dataB := FullSchoolData()
	dataB.School.Settings.Description = "School B"
	for i := range dataB.Courses {
		dataB.Courses[i].Title += " (B)"
	}
	dataB.Courses = append(dataB.Courses, storage.CourseSeed{OfferSeed: storage.OfferSeed{Slug: "b-only", Title: "B only", Currency: "USD"}})
	dataB.Members[0].Roles = []storage.Role{storage.RoleStudent} // Ada: owner at A, student at B
	dataB.Members[2].Roles = nil                                 // Linus: no role at B
	dataB.Members = append(dataB.Members, storage.MemberSeed{Email: "bea@example.test", Name: "Bea", Roles: []storage.Role{storage.RoleAdmin}})
	dataB.Progress[0].PositionSeconds = 1
	dataB.Enrollments = dataB.Enrollments[:1]

	mustImport(t, s, ctxA, dataA)
	emails := []string{"ada@example.test", "grace@example.test", "linus@example.test"}
	viewA := readSchool(t, s, ctxA, emails)
	mustImport(t, s, ctxB, dataB)
	viewB := readSchool(t, s, ctxB, append(emails, "bea@example.test"))

	// School A's view did not change when B imported the same slugs and e-mails.
	wantEqual(t, "school A's view after B's import", readSchool(t, s, ctxA, emails), viewA)

	if viewA.School.ID != 1 || viewB.School.ID != 2 || viewB.School.Settings.Description != "School B" {
		t.Errorf("schools: A %+v, B %+v", viewA.School, viewB.School)
	}
	if len(viewA.Courses) != 2 || len(viewB.Courses) != 3 {
		t.Fatalf("A has %d courses, B %d; want 2 and 3", len(viewA.Courses), len(viewB.Courses))
	}
	for i := range viewA.Courses {
		a, b := viewA.Courses[i], viewB.Courses[i]
		if a.Slug != b.Slug || a.ID == b.ID || a.Title == b.Title {
			t.Errorf("course %s: A id %d %q, B id %d %q", a.Slug, a.ID, a.Title, b.ID, b.Title)
		}
		got, err := s.GetCourseBySlug(ctxA, a.Slug)
		must(t, "GetCourseBySlug", err)
		if got.ID != a.ID {
			t.Errorf("GetCourseBySlug(%s) at A returned course %d of another school", a.Slug, got.ID)
		}
		_, _, err = s.GetCurriculum(ctxA, b.ID)
		wantErr(t, "GetCurriculum of B's course at A", err, storage.ErrNotFound)
	}
	_, err := s.GetCourseBySlug(ctxA, "b-only")
	wantErr(t, "GetCourseBySlug of a B-only slug at A", err, storage.ErrNotFound)

	// Members are shared; roles are not.
	ada := memberID(t, s, t.Context(), "ada@example.test")
	rolesA, err := s.GetRoles(ctxA, ada)
	must(t, "GetRoles", err)
	rolesB, err := s.GetRoles(ctxB, ada)
	must(t, "GetRoles", err)
	if !slices.Equal(rolesA, []storage.Role{storage.RoleOwner, storage.RoleStudent}) || !slices.Equal(rolesB, []storage.Role{storage.RoleStudent}) {
		t.Errorf("Ada's roles: A %v, B %v", rolesA, rolesB)
	}
	listed := func(v schoolView) []string {
		var out []string
		for _, m := range v.Members {
			out = append(out, m.Member.Email)
		}
		return out
	}
	if got := listed(viewA); !slices.Equal(got, emails) {
		t.Errorf("members of A: %v", got)
	}
	if got := listed(viewB); !slices.Equal(got, []string{"ada@example.test", "grace@example.test", "bea@example.test"}) {
		t.Errorf("members of B: %v", got)
	}
	schools, err := s.ListMemberSchools(t.Context(), ada)
	must(t, "ListMemberSchools", err)
	if len(schools) != 2 || schools[0].SchoolID != 1 || schools[1].SchoolID != 2 {
		t.Errorf("Ada's schools: %+v", schools)
	}

	// Enrollments and progress: only the school's own, even when asked with the other's ids.
	if n := len(viewB.Enrollments["linus@example.test"]); n != 0 {
		t.Errorf("Linus has %d enrollments at B, want 0", n)
	}
	if n := len(viewA.Enrollments["linus@example.test"]); n != 1 {
		t.Errorf("Linus has %d enrollments at A, want 1", n)
	}
	var allCourseIDs []int64
	for _, c := range append(viewA.Courses, viewB.Courses...) {
		allCourseIDs = append(allCourseIDs, c.ID)
	}
	progA, err := s.GetLectureProgress(ctxA, ada, allCourseIDs)
	must(t, "GetLectureProgress", err)
	wantEqual(t, "Ada's progress at A asked with both schools' courses", progA, viewA.Progress["ada@example.test"])
	if len(progA) != 2 || progA[0].PositionSeconds != 300 || viewB.Progress["ada@example.test"][0].PositionSeconds != 1 {
		t.Errorf("progress: A %+v, B %+v", progA, viewB.Progress["ada@example.test"])
	}
	lectureB := viewB.Lectures["go-basics"][1]
	_, err = s.UpdateLectureProgress(ctxA, ada, lectureB.ID, func(p storage.LectureProgress) (storage.LectureProgress, error) {
		t.Error("fn called for another school's lecture")
		return p, nil
	})
	wantErr(t, "UpdateLectureProgress of B's lecture at A", err, storage.ErrNotFound)
}
