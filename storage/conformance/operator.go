package conformance

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
)

// testOperatorData runs the OperatorData suite: school A holds FullSchoolData and school B a
// course of its own, so that every family also shows that B's ids do not resolve at A.
func testOperatorData(t *testing.T, s storage.Store) {
	ctxA, ctxB := syncSchools(t, s)
	mustImport(t, s, ctxA, FullSchoolData())
	mustImport(t, s, ctxB, &storage.SchoolData{
		Members: []storage.MemberSeed{{Email: "bea@example.test", Name: "Bea", Roles: []storage.Role{storage.RoleOwner}}},
		Courses: []storage.CourseSeed{{OfferSeed: storage.OfferSeed{Slug: "b-only", Title: "B", Currency: "EUR"}, Sections: []storage.SectionSeed{{Title: "S"}}}},
		Events:  []storage.EventSeed{{OfferSeed: storage.OfferSeed{Slug: "b-event", Title: "B", Currency: "EUR"}, StartsAt: at(1, 1), EndsAt: at(1, 2)}},
		Forms:   []storage.FormSeed{{Slug: "b-form", Title: "B", Fields: []storage.FormField{}}},
	})
	f := operatorFixture{t: t, s: s, a: ctxA, b: ctxB}
	for _, sub := range []struct {
		name string
		run  func(f operatorFixture)
	}{
		{"Courses", testOperatorCourses},
		{"Curriculum", testOperatorCurriculum},
		{"Enrollments", testOperatorEnrollments},
		{"Roles", testOperatorRoles},
		{"Analytics", testOperatorAnalytics},
		{"Payments", testOperatorPayments},
		{"School", testOperatorSchool},
		{"Events", testOperatorEvents},
		{"Commerce", testOperatorCommerce},
		{"Posts", testOperatorPosts},
		{"Comments", testOperatorComments},
		{"Lecturers", testOperatorLecturers},
		{"Content", testOperatorContent},
	} {
		// Sequential: the families share the store and some read what others wrote.
		t.Run(sub.name, func(t *testing.T) { f.t = t; sub.run(f) })
	}
	t.Run("NoSchool", func(t *testing.T) { testOperatorNoSchool(t, s) })
}

type operatorFixture struct {
	t    *testing.T
	s    storage.Store
	a, b context.Context
}

func (f operatorFixture) member(email string) int64 { return memberID(f.t, f.s, f.a, email) }

func (f operatorFixture) course(ctx context.Context, slug string) storage.Course {
	f.t.Helper()
	return courseBySlug(f.t, f.s, ctx, slug)
}

func testOperatorCourses(f operatorFixture) {
	t, s := f.t, f.s
	c, err := s.CreateCourse(f.a, storage.Course{Offer: storage.Offer{Slug: "rust", Title: "Rust", Description: "Ownership", PriceAmount: 4900, Currency: "EUR"}, Published: true})
	must(t, "CreateCourse", err)
	if c.ID == 0 || c.CreatedAt.IsZero() || !c.UpdatedAt.Equal(c.CreatedAt) {
		t.Errorf("CreateCourse: %+v", c)
	}
	got, err := s.GetCourse(f.a, c.ID)
	must(t, "GetCourse", err)
	wantEqual(t, "GetCourse", got, c)
	_, err = s.GetCourse(f.b, c.ID)
	wantErr(t, "GetCourse at another school", err, storage.ErrNotFound)
	_, err = s.CreateCourse(f.a, storage.Course{Offer: storage.Offer{Slug: "rust", Title: "Again", Currency: "EUR"}})
	wantErr(t, "CreateCourse with a taken slug", err, storage.ErrAlreadyExists)
	// Slugs are unique per school, not across schools.
	_, err = s.CreateCourse(f.b, storage.Course{Offer: storage.Offer{Slug: "rust", Title: "B's Rust", Currency: "EUR"}})
	must(t, "CreateCourse with A's slug at B", err)
	_, err = s.CreateCourse(f.a, storage.Course{Offer: storage.Offer{Title: "No slug"}})
	wantErr(t, "CreateCourse without a slug", err, storage.ErrInvalidArgument)

	up, err := s.UpdateCourse(f.a, c.ID, func(c storage.Course) (storage.Course, error) {
		c.Title, c.PriceAmount, c.Published, c.ID = "Rust 2", 5900, false, 999
		return c, nil
	})
	must(t, "UpdateCourse", err)
	if up.ID != c.ID || up.Title != "Rust 2" || up.PriceAmount != 5900 || up.Published || !up.CreatedAt.Equal(c.CreatedAt) {
		t.Errorf("UpdateCourse: %+v", up)
	}
	got, _ = s.GetCourse(f.a, c.ID)
	wantEqual(t, "course after UpdateCourse", got, up)
	wantUpdateRefusals(f, "UpdateCourse", c.ID, s.UpdateCourse, func(c *storage.Course) { c.Slug = "go-basics" })
}

// wantUpdateRefusals checks what an Update method of a row with a slug refuses: the error of a
// failing fn is returned as is, a slug another row holds is ErrAlreadyExists, and the id at
// another school is ErrNotFound. takeSlug gives the row the slug of another row of school A.
func wantUpdateRefusals[T any](f operatorFixture, name string, id int64, update func(context.Context, int64, func(T) (T, error)) (T, error), takeSlug func(*T)) {
	t := f.t
	t.Helper()
	boom := errors.New("boom")
	_, err := update(f.a, id, func(v T) (T, error) { return v, boom })
	wantErr(t, name+" with a failing fn", err, boom)
	_, err = update(f.a, id, func(v T) (T, error) { takeSlug(&v); return v, nil })
	wantErr(t, name+" to a taken slug", err, storage.ErrAlreadyExists)
	_, err = update(f.b, id, func(v T) (T, error) { return v, nil })
	wantErr(t, name+" at another school", err, storage.ErrNotFound)
}

func testOperatorCurriculum(f operatorFixture) {
	t, s := f.t, f.s
	c, err := s.CreateCourse(f.a, storage.Course{Offer: storage.Offer{Slug: "fresh", Title: "Fresh", Currency: "USD"}})
	must(t, "CreateCourse", err)
	s1, err := s.AppendSection(f.a, c.ID, "One")
	must(t, "AppendSection", err)
	s2, err := s.AppendSection(f.a, c.ID, "Two")
	must(t, "AppendSection", err)
	if s1.Position != 1 || s2.Position != 2 || s1.CourseID != c.ID {
		t.Errorf("sections: %+v %+v", s1, s2)
	}
	unlock := at(20, 0)
	l1, err := s.AppendLecture(f.a, storage.Lecture{CourseID: c.ID, SectionID: s2.ID, Title: "B1", DurationSeconds: 60})
	must(t, "AppendLecture", err)
	l2, err := s.AppendLecture(f.a, storage.Lecture{CourseID: c.ID, SectionID: s2.ID, Title: "B2", IsLocked: true, UnlockAt: &unlock})
	must(t, "AppendLecture", err)
	l0, err := s.AppendLecture(f.a, storage.Lecture{CourseID: c.ID, SectionID: s1.ID, Title: "A1"})
	must(t, "AppendLecture", err)
	if l1.Position != 1 || l2.Position != 2 || l0.Position != 1 || l2.UnlockAt == nil || !l2.UnlockAt.Equal(unlock) {
		t.Errorf("lectures: %+v %+v %+v", l1, l2, l0)
	}
	sections, lectures, err := s.GetCurriculum(f.a, c.ID)
	must(t, "GetCurriculum", err)
	wantEqual(t, "sections", sections, []storage.Section{s1, s2})
	wantEqual(t, "lectures", lectures, []storage.Lecture{l0, l1, l2})

	other := f.course(f.a, "go-basics")
	_, err = s.AppendLecture(f.a, storage.Lecture{CourseID: other.ID, SectionID: s1.ID, Title: "Wrong course"})
	wantErr(t, "AppendLecture to a section of another course", err, storage.ErrNotFound)
	_, err = s.AppendSection(f.b, c.ID, "At B")
	wantErr(t, "AppendSection at another school", err, storage.ErrNotFound)
	bCourse := f.course(f.b, "b-only")
	bSections, _, err := s.GetCurriculum(f.b, bCourse.ID)
	must(t, "GetCurriculum at B", err)
	_, err = s.AppendLecture(f.a, storage.Lecture{CourseID: bCourse.ID, SectionID: bSections[0].ID, Title: "Into B"})
	wantErr(t, "AppendLecture into another school's section", err, storage.ErrNotFound)
}

func testOperatorEnrollments(f operatorFixture) {
	t, s := f.t, f.s
	goBasics := f.course(f.a, "go-basics")
	ada, linus, grace := f.member("ada@example.test"), f.member("linus@example.test"), f.member("grace@example.test")

	all := walk(t, "ListCourseEnrollments", 1, func(e storage.CourseEnrollment) int64 { return e.Enrollment.ID },
		func(p storage.Page) ([]storage.CourseEnrollment, string, error) {
			return s.ListCourseEnrollments(f.a, goBasics.ID, p)
		})
	if len(all) != 2 || all[0].Member.ID != ada || all[1].Member.ID != linus || all[0].Member.Email != "ada@example.test" ||
		!all[0].Enrollment.LifetimeAccess || all[1].Enrollment.ExpireDate == nil || all[0].Member.PasswordHash != "" {
		t.Errorf("ListCourseEnrollments: %+v", all)
	}
	_, _, err := s.ListCourseEnrollments(f.b, goBasics.ID, storage.Page{})
	wantErr(t, "ListCourseEnrollments at another school", err, storage.ErrNotFound)

	e, err := s.Enroll(f.a, storage.Enrollment{MemberID: grace, CourseID: goBasics.ID, ExpireDate: ptr(at(30, 0)), EnrolledAt: at(9, 9)})
	must(t, "Enroll", err)
	if e.Member.ID != grace || e.Member.Name != "Grace" || !e.Enrollment.EnrolledAt.Equal(at(9, 9)) || e.Enrollment.ID == 0 {
		t.Errorf("Enroll: %+v", e)
	}
	got, err := s.GetCourseEnrollment(f.a, goBasics.ID, grace)
	must(t, "GetCourseEnrollment", err)
	wantEqual(t, "GetCourseEnrollment", got, e)
	_, err = s.Enroll(f.a, storage.Enrollment{MemberID: grace, CourseID: goBasics.ID})
	wantErr(t, "Enroll twice", err, storage.ErrAlreadyExists)
	bea := memberID(t, s, f.b, "bea@example.test")
	_, err = s.Enroll(f.a, storage.Enrollment{MemberID: bea, CourseID: goBasics.ID})
	wantErr(t, "Enroll a member of another school", err, storage.ErrNotFound)
	_, err = s.Enroll(f.a, storage.Enrollment{MemberID: grace, CourseID: f.course(f.b, "b-only").ID})
	wantErr(t, "Enroll in another school's course", err, storage.ErrNotFound)

	// Unenrolling keeps the progress, so a later enrollment resumes it.
	must(t, "Unenroll", s.Unenroll(f.a, goBasics.ID, ada))
	wantErr(t, "Unenroll twice", s.Unenroll(f.a, goBasics.ID, ada), storage.ErrNotFound)
	_, err = s.GetCourseEnrollment(f.a, goBasics.ID, ada)
	wantErr(t, "GetCourseEnrollment after Unenroll", err, storage.ErrNotFound)
	progress, err := s.GetLectureProgress(f.a, ada, []int64{goBasics.ID})
	must(t, "GetLectureProgress", err)
	if len(progress) != 2 {
		t.Errorf("progress after Unenroll: %d rows, want 2", len(progress))
	}
	_, err = s.Enroll(f.a, storage.Enrollment{MemberID: ada, CourseID: goBasics.ID, LifetimeAccess: true, EnrolledAt: at(1, 8)})
	must(t, "Enroll again", err)
	wantErr(t, "Unenroll at another school", s.Unenroll(f.b, goBasics.ID, grace), storage.ErrNotFound)
	must(t, "Unenroll grace", s.Unenroll(f.a, goBasics.ID, grace))
}

func testOperatorRoles(f operatorFixture) {
	t, s := f.t, f.s
	ada, grace := f.member("ada@example.test"), f.member("grace@example.test")
	roles, err := s.SetSchoolRoles(f.a, grace, []storage.Role{storage.RoleStudent, storage.RoleAdmin})
	must(t, "SetSchoolRoles", err)
	wantEqual(t, "SetSchoolRoles", roles, []storage.Role{storage.RoleAdmin, storage.RoleStudent})

	// Ada is the only owner: demoting her is refused and changes nothing.
	_, err = s.SetSchoolRoles(f.a, ada, []storage.Role{storage.RoleStudent})
	wantErr(t, "SetSchoolRoles demoting the last owner", err, storage.ErrLastOwner)
	wantErr(t, "ErrLastOwner", err, storage.ErrInvalidArgument)
	got, err := s.GetRoles(f.a, ada)
	must(t, "GetRoles", err)
	wantEqual(t, "roles after a refused change", got, []storage.Role{storage.RoleOwner, storage.RoleStudent})
	_, err = s.SetSchoolRoles(f.a, ada, nil)
	wantErr(t, "SetSchoolRoles removing the last owner", err, storage.ErrLastOwner)

	_, err = s.SetSchoolRoles(f.a, grace, []storage.Role{storage.RoleOwner})
	must(t, "SetSchoolRoles making a second owner", err)
	_, err = s.SetSchoolRoles(f.a, ada, []storage.Role{storage.RoleStudent, storage.RoleOwner})
	must(t, "SetSchoolRoles keeping an owner", err)
	_, err = s.SetSchoolRoles(f.a, grace, []storage.Role{storage.RoleLecturer})
	must(t, "SetSchoolRoles demoting one of two owners", err)

	_, err = s.SetSchoolRoles(f.a, grace, []storage.Role{"wizard"})
	wantErr(t, "SetSchoolRoles with an unknown role", err, storage.ErrInvalidArgument)
	bea := memberID(t, s, f.b, "bea@example.test")
	_, err = s.SetSchoolRoles(f.a, bea, []storage.Role{storage.RoleStudent})
	wantErr(t, "SetSchoolRoles for a member of another school", err, storage.ErrNotFound)
	if roles, _ := s.GetRoles(f.a, bea); len(roles) != 0 {
		t.Errorf("a member of another school got roles at A: %v", roles)
	}
}

func testOperatorAnalytics(f operatorFixture) {
	t, s := f.t, f.s
	goBasics := f.course(f.a, "go-basics")
	stats := walk(t, "ListCourseStats", 2, func(c storage.CourseStats) int64 { return c.Course.ID },
		func(p storage.Page) ([]storage.CourseStats, string, error) {
			return s.ListCourseStats(f.a, at(10, 0), p)
		})
	byID := map[int64]storage.CourseStats{}
	for _, c := range stats {
		byID[c.Course.ID] = c
	}
	want := storage.CourseStats{Course: goBasics, Enrollments: 2, ActiveEnrollments: 2, Lectures: 3}
	wantEqual(t, "go-basics stats on the 10th", byID[goBasics.ID], want)
	if d := byID[f.course(f.a, "draft").ID]; d.Enrollments != 0 || d.Lectures != 0 || d.CompletedStudents != 0 {
		t.Errorf("draft stats: %+v", d)
	}
	if len(stats) != len(byID) || len(stats) < 2 {
		t.Errorf("ListCourseStats listed %d courses", len(stats))
	}

	// Linus's enrollment expires on the 28th; Ada completing every lecture completes the course.
	ada := f.member("ada@example.test")
	_, lectures, err := s.GetCurriculum(f.a, goBasics.ID)
	must(t, "GetCurriculum", err)
	for _, l := range lectures {
		_, err := s.UpdateLectureProgress(f.a, ada, l.ID, func(p storage.LectureProgress) (storage.LectureProgress, error) {
			p.State, p.UpdatedAt = storage.LectureCompleted, at(11, 0)
			return p, nil
		})
		must(t, "UpdateLectureProgress", err)
	}
	later, _, err := s.ListCourseStats(f.a, at(29, 0), storage.Page{First: 100})
	must(t, "ListCourseStats", err)
	for _, c := range later {
		if c.Course.ID == goBasics.ID && (c.ActiveEnrollments != 1 || c.CompletedStudents != 1 || c.Enrollments != 2) {
			t.Errorf("go-basics stats on the 29th: %+v", c)
		}
	}
	bStats, _, err := s.ListCourseStats(f.b, at(10, 0), storage.Page{})
	must(t, "ListCourseStats at B", err)
	for _, c := range bStats {
		if c.Course.ID == goBasics.ID {
			t.Error("B's stats list A's course")
		}
	}

	// T-0001 (1999 USD, 500 refunded) was paid at 08:30:15 on the 1st; T-0002 is unpaid.
	paid := at(1, 8)
	want1 := []storage.Revenue{{Currency: "USD", Payments: 1, Gross: 1999, Refunded: 500, Net: 1499}}
	for _, tc := range []struct {
		what     string
		from, to time.Time
		want     []storage.Revenue
	}{
		{"open period", time.Time{}, time.Time{}, want1},
		{"from the payment on", paid, time.Time{}, want1},
		{"until the payment, exclusive", time.Time{}, paid, []storage.Revenue{}},
		{"after the payment", paid.Add(time.Second), time.Time{}, []storage.Revenue{}},
		{"around the payment", paid.Add(-time.Hour), paid.Add(time.Hour), want1},
	} {
		rev, err := s.RevenueByCurrency(f.a, tc.from, tc.to)
		must(t, "RevenueByCurrency", err)
		wantEqual(t, "revenue, "+tc.what, rev, tc.want)
	}
	bRev, err := s.RevenueByCurrency(f.b, time.Time{}, time.Time{})
	must(t, "RevenueByCurrency at B", err)
	if len(bRev) != 0 {
		t.Errorf("B's revenue: %+v", bRev)
	}
}

func testOperatorPayments(f operatorFixture) {
	t, s := f.t, f.s
	list := func(ctx context.Context, filter storage.PaymentFilter, day int) []string {
		t.Helper()
		ps := walk(t, "ListSchoolPayments", 1, func(p storage.Payment) int64 { return p.ID },
			func(p storage.Page) ([]storage.Payment, string, error) {
				return s.ListSchoolPayments(ctx, filter, at(day, 0), p)
			})
		out := []string{}
		for _, p := range ps {
			out = append(out, p.TradeNo+":"+p.PaymentState)
		}
		return out
	}
	wantEqual(t, "every payment, newest first", list(f.a, storage.PaymentFilter{}, 5), []string{"T-0002:unpaid", "T-0001:paid"})
	wantEqual(t, "unpaid on the 5th", list(f.a, storage.PaymentFilter{State: storage.PaymentUnpaid}, 5), []string{"T-0002:unpaid"})
	wantEqual(t, "unpaid on the 10th", list(f.a, storage.PaymentFilter{State: storage.PaymentUnpaid}, 10), []string{})
	wantEqual(t, "expired on the 10th", list(f.a, storage.PaymentFilter{State: storage.PaymentExpired}, 10), []string{"T-0002:expired"})
	wantEqual(t, "paid", list(f.a, storage.PaymentFilter{State: storage.PaymentPaid}, 10), []string{"T-0001:paid"})
	wantEqual(t, "Ada's", list(f.a, storage.PaymentFilter{MemberID: f.member("ada@example.test")}, 10), []string{"T-0001:paid"})
	wantEqual(t, "at another school", list(f.b, storage.PaymentFilter{}, 10), []string{})
	_, _, err := s.ListSchoolPayments(f.a, storage.PaymentFilter{State: "stolen"}, at(1, 0), storage.Page{})
	wantErr(t, "ListSchoolPayments with an unknown state", err, storage.ErrInvalidArgument)
	_, _, err = s.ListSchoolPayments(f.a, storage.PaymentFilter{}, at(1, 0), storage.Page{After: "garbage"})
	wantErr(t, "ListSchoolPayments with a bad cursor", err, storage.ErrInvalidArgument)

	first, _, err := s.ListSchoolPayments(f.a, storage.PaymentFilter{}, at(10, 0), storage.Page{})
	must(t, "ListSchoolPayments", err)
	p, err := s.GetSchoolPayment(f.a, first[1].ID, at(10, 0))
	must(t, "GetSchoolPayment", err)
	wantEqual(t, "GetSchoolPayment", p, first[1])
	if p.Invoice == nil || len(p.LineItems) != 1 || len(p.Adjustments) != 1 {
		t.Errorf("payment documents: %+v", p)
	}
	_, err = s.GetSchoolPayment(f.b, p.ID, at(10, 0))
	wantErr(t, "GetSchoolPayment at another school", err, storage.ErrNotFound)
}

func testOperatorSchool(f operatorFixture) {
	t, s := f.t, f.s
	before, err := s.GetSchool(f.a)
	must(t, "GetSchool", err)
	got, err := s.UpdateSchool(f.a, func(sc storage.School) (storage.School, error) {
		sc.Settings.Timezone, sc.Appearance.Theme = "Europe/Paris", "light"
		sc.Name, sc.Subdomain = "Renamed", "renamed" // not written: they belong to the school file
		return sc, nil
	})
	must(t, "UpdateSchool", err)
	after, err := s.GetSchool(f.a)
	must(t, "GetSchool", err)
	wantEqual(t, "UpdateSchool's answer", got, after)
	if after.Settings.Timezone != "Europe/Paris" || after.Appearance.Theme != "light" || after.Name != before.Name ||
		after.Subdomain != before.Subdomain || after.Settings.Currency != before.Settings.Currency ||
		after.Appearance.LogoURL != before.Appearance.LogoURL {
		t.Errorf("school after UpdateSchool: %+v (before %+v)", after, before)
	}
	// The appearance is kept whole, an uploaded logo's file id with it.
	got, err = s.UpdateSchool(f.a, func(sc storage.School) (storage.School, error) {
		sc.Appearance = storage.Appearance{PrimaryColor: "#224466", LogoFileID: 42, Theme: "auto"}
		return sc, nil
	})
	must(t, "UpdateSchool with a logo file", err)
	after, err = s.GetSchool(f.a)
	must(t, "GetSchool", err)
	wantEqual(t, "the appearance with a logo file", after.Appearance, storage.Appearance{PrimaryColor: "#224466", LogoFileID: 42, Theme: "auto"})
	wantEqual(t, "UpdateSchool's answer with a logo file", got, after)
	boom := errors.New("boom")
	_, err = s.UpdateSchool(f.a, func(sc storage.School) (storage.School, error) { return sc, boom })
	wantErr(t, "UpdateSchool with a failing fn", err, boom)
	b, err := s.GetSchool(f.b)
	must(t, "GetSchool B", err)
	if b.Settings.Timezone == "Europe/Paris" {
		t.Error("UpdateSchool at A changed B")
	}
}

func testOperatorEvents(f operatorFixture) {
	t, s := f.t, f.s
	e, err := s.CreateEvent(f.a, storage.Event{Offer: storage.Offer{Slug: "workshop", Title: "Workshop", Currency: "JPY"}, StartsAt: at(20, 9), EndsAt: at(20, 12), Capacity: 10})
	must(t, "CreateEvent", err)
	_, err = s.CreateEvent(f.a, storage.Event{Offer: storage.Offer{Slug: "workshop", Title: "Again"}, StartsAt: at(20, 9), EndsAt: at(20, 12)})
	wantErr(t, "CreateEvent with a taken slug", err, storage.ErrAlreadyExists)
	events := walk(t, "ListEvents", 1, func(e storage.Event) int64 { return e.ID },
		func(p storage.Page) ([]storage.Event, string, error) { return s.ListEvents(f.a, p) })
	if len(events) != 2 || events[0].Slug != "meetup" || events[1].ID != e.ID {
		t.Fatalf("ListEvents: %+v", events)
	}
	wantEqual(t, "created event", events[1], e)
	regs, next, err := s.ListEventRegistrants(f.a, events[0].ID, storage.Page{})
	must(t, "ListEventRegistrants", err)
	if next != "" || len(regs) != 1 || regs[0].Member.Email != "linus@example.test" || regs[0].Status != "registered" || regs[0].EventID != events[0].ID {
		t.Errorf("ListEventRegistrants: %+v", regs)
	}
	_, _, err = s.ListEventRegistrants(f.b, events[0].ID, storage.Page{})
	wantErr(t, "ListEventRegistrants at another school", err, storage.ErrNotFound)
	bEvents, _, err := s.ListEvents(f.b, storage.Page{})
	must(t, "ListEvents at B", err)
	if len(bEvents) != 1 || bEvents[0].Slug != "b-event" {
		t.Errorf("ListEvents at B: %+v", bEvents)
	}
}

func testOperatorNoSchool(t *testing.T, s storage.Store) {
	ctx := t.Context()
	page := storage.Page{}
	calls := map[string]func() error{
		"GetCourse": func() error { _, err := s.GetCourse(ctx, 1); return err },
		"CreateCourse": func() error {
			_, err := s.CreateCourse(ctx, storage.Course{Offer: storage.Offer{Slug: "x"}})
			return err
		},
		"UpdateCourse": func() error {
			_, err := s.UpdateCourse(ctx, 1, func(c storage.Course) (storage.Course, error) { return c, nil })
			return err
		},
		"AppendSection":         func() error { _, err := s.AppendSection(ctx, 1, "x"); return err },
		"AppendLecture":         func() error { _, err := s.AppendLecture(ctx, storage.Lecture{CourseID: 1, SectionID: 1}); return err },
		"ListCourseEnrollments": func() error { _, _, err := s.ListCourseEnrollments(ctx, 1, page); return err },
		"GetCourseEnrollment":   func() error { _, err := s.GetCourseEnrollment(ctx, 1, 1); return err },
		"Enroll":                func() error { _, err := s.Enroll(ctx, storage.Enrollment{MemberID: 1, CourseID: 1}); return err },
		"Unenroll":              func() error { return s.Unenroll(ctx, 1, 1) },
		"SetSchoolRoles":        func() error { _, err := s.SetSchoolRoles(ctx, 1, nil); return err },
		"ListCourseStats":       func() error { _, _, err := s.ListCourseStats(ctx, at(1, 0), page); return err },
		"RevenueByCurrency":     func() error { _, err := s.RevenueByCurrency(ctx, at(1, 0), at(2, 0)); return err },
		"ListSchoolPayments": func() error {
			_, _, err := s.ListSchoolPayments(ctx, storage.PaymentFilter{}, at(1, 0), page)
			return err
		},
		"GetSchoolPayment": func() error { _, err := s.GetSchoolPayment(ctx, 1, at(1, 0)); return err },
		"UpdateSchool": func() error {
			_, err := s.UpdateSchool(ctx, func(sc storage.School) (storage.School, error) { return sc, nil })
			return err
		},
		"ListEvents":           func() error { _, _, err := s.ListEvents(ctx, page); return err },
		"CreateEvent":          func() error { _, err := s.CreateEvent(ctx, storage.Event{Offer: storage.Offer{Slug: "x"}}); return err },
		"ListEventRegistrants": func() error { _, _, err := s.ListEventRegistrants(ctx, 1, page); return err },
		"ListMembershipPlans":  func() error { _, _, err := s.ListMembershipPlans(ctx, page); return err },
		"CreateMembershipPlan": func() error {
			_, err := s.CreateMembershipPlan(ctx, storage.MembershipPlan{Offer: storage.Offer{Slug: "x"}, Interval: "month"})
			return err
		},
		"ListSubscriptions": func() error { _, _, err := s.ListSubscriptions(ctx, "", page); return err },
		"UpdateSubscription": func() error {
			_, err := s.UpdateSubscription(ctx, 1, func(v storage.Subscription) (storage.Subscription, error) { return v, nil })
			return err
		},
		"ListCoupons":         func() error { _, _, err := s.ListCoupons(ctx, page); return err },
		"CreateCoupon":        func() error { _, err := s.CreateCoupon(ctx, storage.Coupon{Code: "x", PercentOff: 1}); return err },
		"ListDigitalProducts": func() error { _, _, err := s.ListDigitalProducts(ctx, page); return err },
		"CreateDigitalProduct": func() error {
			_, err := s.CreateDigitalProduct(ctx, storage.DigitalProduct{Offer: storage.Offer{Slug: "x"}})
			return err
		},
		"ListPosts":      func() error { _, _, err := s.ListPosts(ctx, page); return err },
		"CreatePost":     func() error { _, _, err := s.CreatePost(ctx, storage.Post{Key: "x"}, true); return err },
		"ListComments":   func() error { _, _, err := s.ListComments(ctx, storage.CommentFilter{}, page); return err },
		"ListLecturers":  func() error { _, _, err := s.ListLecturers(ctx, page); return err },
		"CreateLecturer": func() error { _, err := s.CreateLecturer(ctx, storage.Lecturer{Slug: "x"}); return err },
		"CreateStoredFile": func() error {
			_, err := s.CreateStoredFile(ctx, storage.StoredFile{Name: "x", StoragePath: "x"})
			return err
		},
		"ListForms":           func() error { _, _, err := s.ListForms(ctx, page); return err },
		"ListFormSubmissions": func() error { _, _, err := s.ListFormSubmissions(ctx, 1, page); return err },
		"ListContentPages":    func() error { _, _, err := s.ListContentPages(ctx, page); return err },
		"CreateContentPage":   func() error { _, err := s.CreateContentPage(ctx, storage.ContentPage{Slug: "x"}); return err },
		"UpdateContentPage": func() error {
			_, err := s.UpdateContentPage(ctx, 1, func(p storage.ContentPage) (storage.ContentPage, error) { return p, nil })
			return err
		},
	}
	for name, call := range calls {
		wantErr(t, fmt.Sprintf("%s without a school", name), call(), school.ErrNoSchool)
	}
}
