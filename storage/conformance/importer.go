package conformance

import (
	"errors"
	"slices"
	"testing"

	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
)

var fullEmails = []string{"ada@example.test", "grace@example.test", "linus@example.test"}

// memberView is a member and their roles at the context's school.
type memberView struct {
	Member storage.Member
	Roles  []storage.Role
}

func readMembers(t *testing.T, s storage.Store, tn *school.School, emails []string) []memberView {
	t.Helper()
	ctx := inSchool(t, tn)
	var out []memberView
	for _, e := range emails {
		m, err := s.GetMemberByEmail(ctx, e)
		must(t, "GetMemberByEmail", err)
		roles, err := s.GetRoles(ctx, m.ID)
		must(t, "GetRoles", err)
		out = append(out, memberView{m, roles})
	}
	return out
}

func testImportRoundTrip(t *testing.T, s storage.Store) {
	ctxA, _ := syncSchools(t, s)
	data := FullSchoolData()
	stats := mustImport(t, s, ctxA, data)
	wantEqual(t, "import stats", stats, fullDataCounts(data))

	view := readSchool(t, s, ctxA, fullEmails)
	if view.School.Settings != *data.School.Settings || view.School.Appearance != *data.School.Appearance {
		t.Errorf("school: %+v", view.School)
	}
	for i, mv := range readMembers(t, s, schoolA, fullEmails) {
		seed := data.Members[i]
		wantEqual(t, "member "+seed.Email, mv.Member, storage.Member{
			ID: mv.Member.ID, Email: fullEmails[i], Name: seed.Name, AvatarURL: seed.AvatarURL, PasswordHash: seed.PasswordHash,
			CreatedAt: mv.Member.CreatedAt, UpdatedAt: mv.Member.UpdatedAt,
		})
		want := slices.Clone(seed.Roles)
		slices.SortFunc(want, func(a, b storage.Role) int { return slices.Index(storage.Roles, a) - slices.Index(storage.Roles, b) })
		if !slices.Equal(mv.Roles, want) {
			t.Errorf("roles of %s: %v, want %v", seed.Email, mv.Roles, want)
		}
	}
	// Courses, curricula, enrollments and progress are checked field by field by the Courses,
	// Curriculum, Enrollments and LectureProgress tests on the same data; here, their counts.
	if len(view.Courses) != 2 || len(view.Lectures["go-basics"]) != 3 || len(view.Sections["go-basics"]) != 2 ||
		len(view.Enrollments["ada@example.test"]) != 1 || len(view.Progress["ada@example.test"]) != 2 {
		t.Errorf("imported view: %+v", view)
	}
}

func testImportIdempotent(t *testing.T, s storage.Store) {
	ctxA, _ := syncSchools(t, s)
	data := FullSchoolData()
	first := mustImport(t, s, ctxA, data)
	viewBefore := readSchool(t, s, ctxA, fullEmails)
	membersBefore := readMembers(t, s, schoolA, fullEmails)

	second := mustImport(t, s, ctxA, FullSchoolData())
	wantEqual(t, "stats of the second import", second, first)
	// Identical reads: same ids, same store-set timestamps, same rows.
	wantEqual(t, "school view after a second import", readSchool(t, s, ctxA, fullEmails), viewBefore)
	wantEqual(t, "members after a second import", readMembers(t, s, schoolA, fullEmails), membersBefore)
}

func testImportUpdates(t *testing.T, s storage.Store) {
	ctxA, _, _ := withFullSchool(t, s)
	before := readSchool(t, s, ctxA, fullEmails)
	membersBefore := readMembers(t, s, schoolA, fullEmails)

	changed := FullSchoolData()
	changed.School = nil                                         // settings left alone
	changed.Members[0].Roles = []storage.Role{storage.RoleAdmin} // roles replaced
	changed.Members[1].PasswordHash = ""                         // hash left alone
	changed.Members[2].Name = "Linus T."
	changed.Courses[0].Title = "Go, the basics"
	changed.Courses[0].Sections[0].Lectures[1].UnlockAt = nil
	changed.Courses = changed.Courses[:1] // "draft" is not mentioned: left alone
	changed.Progress[1].PositionSeconds = 99
	mustImport(t, s, ctxA, changed)

	after := readSchool(t, s, ctxA, fullEmails)
	if after.School.Settings != before.School.Settings {
		t.Errorf("settings changed by an import without school: %+v", after.School.Settings)
	}
	if len(after.Courses) != 2 || after.Courses[0].ID != before.Courses[0].ID || after.Courses[0].Title != "Go, the basics" {
		t.Errorf("courses after update: %+v", after.Courses)
	}
	if after.Courses[0].CreatedAt != before.Courses[0].CreatedAt && !after.Courses[0].CreatedAt.Equal(before.Courses[0].CreatedAt) {
		t.Errorf("course CreatedAt changed")
	}
	if after.Courses[0].UpdatedAt.Before(before.Courses[0].UpdatedAt) {
		t.Errorf("course UpdatedAt went back")
	}
	wantEqual(t, "untouched course", after.Courses[1], before.Courses[1])
	l := after.Lectures["go-basics"][1]
	if l.ID != before.Lectures["go-basics"][1].ID || l.UnlockAt != nil {
		t.Errorf("lecture after update: %+v", l)
	}
	progress := after.Progress["ada@example.test"]
	if len(progress) != 2 || progress[1].PositionSeconds != 99 {
		t.Errorf("progress after update: %+v", progress)
	}

	members := readMembers(t, s, schoolA, fullEmails)
	if !slices.Equal(members[0].Roles, []storage.Role{storage.RoleAdmin}) {
		t.Errorf("Ada's roles after re-import: %v", members[0].Roles)
	}
	if members[1].Member.PasswordHash != hashGrace {
		t.Errorf("Grace's hash after an import without one: %q", members[1].Member.PasswordHash)
	}
	if members[2].Member.Name != "Linus T." || members[2].Member.ID != membersBefore[2].Member.ID {
		t.Errorf("Linus after update: %+v", members[2].Member)
	}
}

// testImportReferencesExistingRows imports records that refer to rows of an earlier import, and
// to members another school imported.
func testImportReferencesExistingRows(t *testing.T, s storage.Store) {
	ctxA, ctxB := syncSchools(t, s)
	data := FullSchoolData()
	mustImport(t, s, ctxA, &storage.SchoolData{Members: data.Members, Courses: data.Courses})
	mustImport(t, s, ctxA, &storage.SchoolData{Enrollments: data.Enrollments, Progress: data.Progress, Comments: data.Comments[1:]})
	view := readSchool(t, s, ctxA, fullEmails)
	if len(view.Enrollments["ada@example.test"]) != 1 || len(view.Progress["ada@example.test"]) != 2 {
		t.Errorf("enrollments and progress from a second import: %+v", view)
	}

	// School B refers to members school A imported, and imports its own course.
	mustImport(t, s, ctxB, &storage.SchoolData{
		Courses:     []storage.CourseSeed{{OfferSeed: storage.OfferSeed{Slug: "b-course", Title: "B", Currency: "USD"}}},
		Enrollments: []storage.EnrollmentSeed{{Member: "Ada@example.test", Course: "b-course", EnrolledAt: at(9, 9)}},
	})
	ada := memberID(t, s, t.Context(), "ada@example.test")
	got, err := s.ListEnrollments(ctxB, ada)
	must(t, "ListEnrollments", err)
	if len(got) != 1 {
		t.Errorf("Ada's enrollments at B: %+v", got)
	}

	// But not to school A's courses.
	_, err = s.ImportSchoolData(ctxB, &storage.SchoolData{
		Enrollments: []storage.EnrollmentSeed{{Member: "ada@example.test", Course: "go-basics", EnrolledAt: at(9, 9)}},
	}, storage.ImportOptions{})
	wantImportError(t, "enrollment in another school's course", err, "enrollments", 0, storage.ErrNotFound)
}

// wantImportError checks that err is an *ImportError naming the record, wrapping target (if any).
func wantImportError(t *testing.T, what string, err error, kind string, index int, target error) {
	t.Helper()
	var ie *storage.ImportError
	if !errors.As(err, &ie) {
		t.Errorf("%s: error %v, want an *ImportError", what, err)
		return
	}
	if ie.Kind != kind || ie.Index != index {
		t.Errorf("%s: ImportError names %s[%d], want %s[%d] (%v)", what, ie.Kind, ie.Index, kind, index, err)
	}
	if target != nil && !errors.Is(err, target) {
		t.Errorf("%s: error %v does not wrap %v", what, err, target)
	}
}

// testImportAllOrNothing fails the last record of an import and checks that nothing was written.
func testImportAllOrNothing(t *testing.T, s storage.Store) {
	ctxA, _ := syncSchools(t, s)
	schoolBefore, err := s.GetSchool(ctxA)
	must(t, "GetSchool", err)

	data := FullSchoolData()
	last := len(data.FormSubmissions) - 1
	data.FormSubmissions[last].Form = "no-such-form"
	_, err = s.ImportSchoolData(ctxA, data, storage.ImportOptions{})
	wantImportError(t, "import with a bad last record", err, "form_submissions", last, storage.ErrNotFound)

	school, err := s.GetSchool(ctxA)
	must(t, "GetSchool", err)
	wantEqual(t, "school after a failed import", school, schoolBefore)
	for _, e := range fullEmails {
		_, err := s.GetMemberByEmail(t.Context(), e)
		wantErr(t, "member "+e+" after a failed import", err, storage.ErrNotFound)
	}
	courses, _, err := s.ListCourses(ctxA, false, storage.Page{})
	must(t, "ListCourses", err)
	if len(courses) != 0 {
		t.Errorf("%d courses after a failed import", len(courses))
	}

	// The same data, fixed, imports.
	mustImport(t, s, ctxA, FullSchoolData())
}

// testImportRejects lists records an import must refuse, naming them.
func testImportRejects(t *testing.T, s storage.Store) {
	ctxA, _ := syncSchools(t, s)
	tests := []struct {
		name   string
		change func(d *storage.SchoolData)
		kind   string
		index  int
		target error
	}{
		{"plain password", func(d *storage.SchoolData) { d.Members[1].PasswordHash = ""; d.Members[1].Password = "secret" }, "members", 1, storage.ErrInvalidArgument},
		{"empty e-mail", func(d *storage.SchoolData) { d.Members[2].Email = "" }, "members", 2, storage.ErrInvalidArgument},
		{"unknown role", func(d *storage.SchoolData) { d.Members[0].Roles = []storage.Role{"root"} }, "members", 0, storage.ErrInvalidArgument},
		{"duplicate e-mail", func(d *storage.SchoolData) { d.Members[2].Email = "ADA@example.test" }, "members", 2, storage.ErrAlreadyExists},
		{"empty course slug", func(d *storage.SchoolData) { d.Courses[1].Slug = "" }, "courses", 1, storage.ErrInvalidArgument},
		{"duplicate course slug", func(d *storage.SchoolData) { d.Courses[1].Slug = "go-basics" }, "courses", 1, storage.ErrAlreadyExists},
		{"enrollment of an unknown member", func(d *storage.SchoolData) { d.Enrollments[1].Member = "who@example.test" }, "enrollments", 1, storage.ErrNotFound},
		{"enrollment in an unknown course", func(d *storage.SchoolData) { d.Enrollments[0].Course = "nope" }, "enrollments", 0, storage.ErrNotFound},
		{"progress on an unknown section", func(d *storage.SchoolData) { d.Progress[1].Lecture.Section = 3 }, "progress", 1, storage.ErrNotFound},
		{"progress on an unknown lecture", func(d *storage.SchoolData) { d.Progress[0].Lecture.Lecture = 9 }, "progress", 0, storage.ErrNotFound},
		{"holding of an unknown product", func(d *storage.SchoolData) { d.ProductHoldings[0].Product = "nope" }, "product_holdings", 0, storage.ErrNotFound},
		{"service on an unknown course", func(d *storage.SchoolData) { d.ConsultingServices[0].Courses = []string{"nope"} }, "consulting_services", 0, storage.ErrNotFound},
		{"meeting of an unknown member", func(d *storage.SchoolData) { d.ConsultingServices[0].Meetings[0].Member = "who@example.test" }, "consulting_services", 0, storage.ErrNotFound},
		{"registration for an unknown event", func(d *storage.SchoolData) { d.EventRegistrations[0].Event = "nope" }, "event_registrations", 0, storage.ErrNotFound},
		{"payment without trade number", func(d *storage.SchoolData) { d.Payments[1].TradeNo = "" }, "payments", 1, storage.ErrInvalidArgument},
		{"duplicate trade number", func(d *storage.SchoolData) { d.Payments[1].TradeNo = "T-0001" }, "payments", 1, storage.ErrAlreadyExists},
		{"payment of an unknown member", func(d *storage.SchoolData) { d.Payments[1].Member = "who@example.test" }, "payments", 1, storage.ErrNotFound},
		{"notification without key", func(d *storage.SchoolData) { d.Notifications[0].Key = "" }, "notifications", 0, storage.ErrInvalidArgument},
		{"subscription to an unknown plan", func(d *storage.SchoolData) { d.Subscriptions[0].Plan = "nope" }, "subscriptions", 0, storage.ErrNotFound},
		{"post in an unknown course", func(d *storage.SchoolData) { d.Posts[1].Course = "nope" }, "posts", 1, storage.ErrNotFound},
		{"comment on an unknown post", func(d *storage.SchoolData) { d.Comments[0].Post = "nope" }, "comments", 0, storage.ErrNotFound},
		{"comment on both a post and a lecture", func(d *storage.SchoolData) { d.Comments[1].Post = "hello" }, "comments", 1, storage.ErrInvalidArgument},
		{"comment on neither", func(d *storage.SchoolData) { d.Comments[0].Post = "" }, "comments", 0, storage.ErrInvalidArgument},
		{"lecturer of an unknown course", func(d *storage.SchoolData) { d.Lecturers[0].Courses = []string{"draft", "nope"} }, "lecturers", 0, storage.ErrNotFound},
		{"lecturer linked to an unknown member", func(d *storage.SchoolData) { d.Lecturers[1].Member = "who@example.test" }, "lecturers", 1, storage.ErrNotFound},
		{"duplicate page slug", func(d *storage.SchoolData) { d.Pages = append(d.Pages, d.Pages[0]) }, "pages", 1, storage.ErrAlreadyExists},
	}
	for _, tc := range tests {
		data := FullSchoolData()
		tc.change(data)
		_, err := s.ImportSchoolData(ctxA, data, storage.ImportOptions{})
		wantImportError(t, tc.name, err, tc.kind, tc.index, tc.target)
	}
	// Nothing of those attempts remains.
	courses, _, err := s.ListCourses(ctxA, false, storage.Page{})
	must(t, "ListCourses", err)
	if len(courses) != 0 {
		t.Errorf("%d courses after failed imports", len(courses))
	}

	// A school without a row (SyncSchool never ran) cannot import.
	_, err = s.ImportSchoolData(inSchool(t, &school.School{SchoolID: 42, Subdomain: "x"}), FullSchoolData(), storage.ImportOptions{})
	wantErr(t, "import into a school without a row", err, storage.ErrNotFound)
}

func testImportProgress(t *testing.T, s storage.Store) {
	ctxA, _ := syncSchools(t, s)
	data := FullSchoolData()
	total := data.Records()
	for round := range 2 { // the second import applies nothing new but still counts every record
		var calls []int
		_, err := s.ImportSchoolData(ctxA, data, storage.ImportOptions{Progress: func(done, tot int) {
			if tot != total {
				t.Errorf("progress total %d, want %d", tot, total)
			}
			calls = append(calls, done)
		}})
		must(t, "ImportSchoolData", err)
		if len(calls) != total {
			t.Fatalf("round %d: %d progress calls, want %d", round, len(calls), total)
		}
		for i, done := range calls {
			if done != i+1 {
				t.Fatalf("round %d: progress call %d reported %d done", round, i, done)
			}
		}
	}
	// Nil data and empty data import nothing.
	for _, d := range []*storage.SchoolData{nil, {}} {
		stats, err := s.ImportSchoolData(ctxA, d, storage.ImportOptions{Progress: func(int, int) { t.Error("progress for no records") }})
		must(t, "ImportSchoolData of nothing", err)
		if len(stats) != 0 {
			t.Errorf("stats of an empty import: %v", stats)
		}
	}
}

// testImportLarge imports a school of the size seeds reach (20 courses of 200 lectures, with a
// member's progress on each), twice.
func testImportLarge(t *testing.T, s storage.Store) {
	ctxA, _ := syncSchools(t, s)
	data := LargeSchoolData(20, 4, 50)
	for round := range 2 {
		stats := mustImport(t, s, ctxA, data)
		if stats["progress"] != 4000 || stats["courses"] != 20 {
			t.Errorf("round %d: stats %v", round, stats)
		}
	}
	m := memberID(t, s, t.Context(), "busy@example.test")
	var ids []int64
	for after := ""; ; {
		page, next, err := s.ListCourses(ctxA, false, storage.Page{First: 100, After: after})
		must(t, "ListCourses", err)
		for _, c := range page {
			ids = append(ids, c.ID)
		}
		if next == "" {
			break
		}
		after = next
	}
	if len(ids) != 20 {
		t.Fatalf("%d courses, want 20", len(ids))
	}
	_, lectures, err := s.GetCurriculum(ctxA, ids[19])
	must(t, "GetCurriculum", err)
	if len(lectures) != 200 {
		t.Errorf("%d lectures in the last course, want 200", len(lectures))
	}
	progress, err := s.GetLectureProgress(ctxA, m, ids)
	must(t, "GetLectureProgress", err)
	if len(progress) != 4000 {
		t.Errorf("%d progress rows, want 4000", len(progress))
	}
	enrollments, err := s.ListEnrollments(ctxA, m)
	must(t, "ListEnrollments", err)
	if len(enrollments) != 20 {
		t.Errorf("%d enrollments, want 20", len(enrollments))
	}
}
