package conformance

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
)

// memberID returns the id of the member with the e-mail.
func memberID(t *testing.T, s storage.Store, ctx context.Context, email string) int64 {
	t.Helper()
	m, err := s.GetMemberByEmail(ctx, email)
	must(t, "GetMemberByEmail "+email, err)
	return m.ID
}

// walk pages through a list with page size first and returns every item, failing on an item
// listed twice or on an empty page that claims a successor.
func walk[T any](t *testing.T, what string, first int, key func(T) int64, list func(storage.Page) ([]T, string, error)) []T {
	t.Helper()
	var all []T
	seen := map[int64]bool{}
	after := ""
	for range 1000 {
		page, next, err := list(storage.Page{First: first, After: after})
		must(t, what, err)
		if len(page) > first {
			t.Fatalf("%s: page of %d items, asked for %d", what, len(page), first)
		}
		for _, it := range page {
			if seen[key(it)] {
				t.Fatalf("%s: item %d listed twice", what, key(it))
			}
			seen[key(it)] = true
		}
		all = append(all, page...)
		if next == "" {
			return all
		}
		if len(page) == 0 {
			t.Fatalf("%s: empty page with a next cursor", what)
		}
		after = next
	}
	t.Fatalf("%s: paging did not end", what)
	return nil
}

func testMemberEnrolledCourses(t *testing.T, s storage.Store) {
	ctxA, ctxB := syncSchools(t, s)
	data := FullSchoolData()
	// A third course Ada enrolled in before go-basics, so that enrolled_at, not the row id,
	// must decide the order.
	data.Courses = append(data.Courses, storage.CourseSeed{OfferSeed: storage.OfferSeed{Slug: "early", Title: "Early", Currency: "USD"}, Published: true,
		Sections: []storage.SectionSeed{{Title: "Only", Lectures: []storage.LectureSeed{{Title: "One", DurationSeconds: 10}}}}})
	data.Enrollments = append(data.Enrollments, storage.EnrollmentSeed{Member: "ada@example.test", Course: "early", EnrolledAt: at(1, 1), ExpireDate: ptr(at(30, 0))})
	mustImport(t, s, ctxA, data)
	ada := memberID(t, s, ctxA, "ada@example.test")

	got := walk(t, "ListEnrolledCourses", 1, func(c storage.EnrolledCourse) int64 { return c.Enrollment.ID },
		func(p storage.Page) ([]storage.EnrolledCourse, string, error) {
			return s.ListEnrolledCourses(ctxA, ada, p)
		})
	if len(got) != 2 || got[0].Course.Slug != "early" || got[1].Course.Slug != "go-basics" {
		t.Fatalf("enrolled courses: %+v; want early then go-basics", got)
	}
	goBasics := courseBySlug(t, s, ctxA, "go-basics")
	wantEqual(t, "enrolled go-basics", got[1], storage.EnrolledCourse{
		Enrollment: storage.Enrollment{ID: got[1].Enrollment.ID, MemberID: ada, CourseID: goBasics.ID, LifetimeAccess: true, EnrolledAt: at(1, 8)},
		Course:     goBasics,
	})
	if e := got[0].Enrollment; e.ExpireDate == nil || !e.ExpireDate.Equal(at(30, 0)) || e.LifetimeAccess {
		t.Errorf("early enrollment: %+v", e)
	}

	// Another school sees nothing of Ada's enrollments.
	other, _, err := s.ListEnrolledCourses(ctxB, ada, storage.Page{})
	must(t, "ListEnrolledCourses at B", err)
	if len(other) != 0 {
		t.Errorf("school B lists Ada's enrollments at A: %+v", other)
	}
	_, _, err = s.ListEnrolledCourses(ctxA, ada, storage.Page{After: "garbage"})
	wantErr(t, "ListEnrolledCourses with a bad cursor", err, storage.ErrInvalidArgument)
}

func testMemberCurricula(t *testing.T, s storage.Store) {
	ctxA, ctxB := syncSchools(t, s)
	mustImport(t, s, ctxA, FullSchoolData())
	mustImport(t, s, ctxB, LargeSchoolData(2, 3, 4))
	goBasics := courseBySlug(t, s, ctxA, "go-basics")
	draft := courseBySlug(t, s, ctxA, "draft")
	bCourses, _, err := s.ListCourses(ctxB, false, storage.Page{})
	must(t, "ListCourses B", err)

	// The batch read agrees with the one-course read, course by course.
	ids := []int64{draft.ID, goBasics.ID, bCourses[0].ID, 1 << 40}
	sections, lectures, err := s.GetCurricula(ctxA, ids)
	must(t, "GetCurricula", err)
	wantSections, wantLectures, err := s.GetCurriculum(ctxA, goBasics.ID)
	must(t, "GetCurriculum", err)
	wantEqual(t, "GetCurricula sections", sections, wantSections)
	wantEqual(t, "GetCurricula lectures", lectures, wantLectures)

	sections, lectures, err = s.GetCurricula(ctxB, []int64{bCourses[1].ID, bCourses[0].ID})
	must(t, "GetCurricula B", err)
	if len(sections) != 6 || len(lectures) != 24 {
		t.Fatalf("school B curricula: %d sections, %d lectures; want 6 and 24", len(sections), len(lectures))
	}
	for i := 1; i < len(lectures); i++ {
		a, b := lectures[i-1], lectures[i]
		if a.CourseID > b.CourseID || a.CourseID == b.CourseID && a.SectionID == b.SectionID && a.Position >= b.Position {
			t.Fatalf("lectures out of order at %d: %+v then %+v", i, a, b)
		}
	}

	sections, lectures, err = s.GetCurricula(ctxA, nil)
	must(t, "GetCurricula of nothing", err)
	if len(sections) != 0 || len(lectures) != 0 {
		t.Errorf("GetCurricula(nil): %d sections, %d lectures", len(sections), len(lectures))
	}
}

func testMemberEntitlements(t *testing.T, s storage.Store) {
	ctxA, ctxB := syncSchools(t, s)
	data := FullSchoolData()
	data.DigitalProducts = append(data.DigitalProducts, storage.DigitalProductSeed{OfferSeed: storage.OfferSeed{Slug: "poster", Title: "Poster", PriceAmount: 100, Currency: "USD"}})
	data.ProductHoldings = append(data.ProductHoldings, storage.ProductHoldingSeed{Member: "ada@example.test", Product: "poster", GrantedAt: at(2, 12)})
	mustImport(t, s, ctxA, data)
	ada := memberID(t, s, ctxA, "ada@example.test")
	linus := memberID(t, s, ctxA, "linus@example.test")

	held := walk(t, "ListHeldProducts", 1, func(h storage.HeldProduct) int64 { return h.HoldingID },
		func(p storage.Page) ([]storage.HeldProduct, string, error) { return s.ListHeldProducts(ctxA, ada, p) })
	if len(held) != 2 || held[0].Product.Slug != "poster" || held[1].Product.Slug != "cheatsheet" {
		t.Fatalf("held products: %+v; want poster then cheatsheet", held)
	}
	wantEqual(t, "held cheatsheet", held[1], storage.HeldProduct{
		HoldingID: held[1].HoldingID, GrantedAt: at(5, 12),
		Product: storage.DigitalProduct{ID: held[1].Product.ID, Offer: storage.Offer{Slug: "cheatsheet", Title: "Cheat sheet", Description: "PDF", PriceAmount: 500, Currency: "USD"}, Published: true},
	})

	regs, _, err := s.ListEventRegistrations(ctxA, linus, storage.Page{})
	must(t, "ListEventRegistrations", err)
	if len(regs) != 1 {
		t.Fatalf("Linus's registrations: %+v", regs)
	}
	wantEqual(t, "registration", regs[0], storage.EventRegistration{
		ID: regs[0].ID, Status: "registered", RegisteredAt: at(6, 9),
		Event: storage.Event{ID: regs[0].Event.ID, Offer: storage.Offer{Slug: "meetup", Title: "Meetup", Description: "Pizza", PriceAmount: 1000, Currency: "JPY"}, StartsAt: at(15, 18), EndsAt: at(15, 21),
			Location: "Tokyo", Capacity: 30, Published: true},
	})
	none, _, err := s.ListEventRegistrations(ctxA, ada, storage.Page{})
	must(t, "ListEventRegistrations Ada", err)
	if len(none) != 0 {
		t.Errorf("Ada's registrations: %+v", none)
	}
	for name, call := range map[string]func() (int, error){
		"ListHeldProducts": func() (int, error) { l, _, err := s.ListHeldProducts(ctxB, ada, storage.Page{}); return len(l), err },
		"ListEventRegistrations": func() (int, error) {
			l, _, err := s.ListEventRegistrations(ctxB, linus, storage.Page{})
			return len(l), err
		},
	} {
		n, err := call()
		must(t, name+" at B", err)
		if n != 0 {
			t.Errorf("%s at B lists %d rows of school A", name, n)
		}
	}
	// A cursor of another kind of list is refused rather than misread.
	_, courseCursor, err := s.ListCourses(ctxA, false, storage.Page{First: 1})
	must(t, "ListCourses", err)
	_, _, err = s.ListHeldProducts(ctxA, ada, storage.Page{After: courseCursor})
	wantErr(t, "ListHeldProducts with a course cursor", err, storage.ErrInvalidArgument)
}

func testMemberConsulting(t *testing.T, s storage.Store) {
	ctxA, ctxB := syncSchools(t, s)
	data := FullSchoolData()
	// A second service, offered against both courses, with two meetings: one over before the
	// clock below and one still to come.
	data.ConsultingServices = append(data.ConsultingServices, storage.ConsultingServiceSeed{
		OfferSeed: storage.OfferSeed{Slug: "review", Title: "Review", PriceAmount: 100, Currency: "USD"}, DurationMinutes: 60,
		Courses: []string{"go-basics", "draft"},
		Slots: []storage.SlotSeed{
			{Weekday: 4, StartTime: "09:00", DurationMinutes: 60, TimeZone: "UTC"},
			{Weekday: 1, StartTime: "18:00", DurationMinutes: 60, TimeZone: "UTC"},
		},
		Meetings: []storage.MeetingSeed{
			{Member: "ada@example.test", StartsAt: at(3, 9), EndsAt: at(3, 10)},
			{Member: "grace@example.test", StartsAt: at(20, 9), EndsAt: at(20, 10)},
		},
	})
	data.Enrollments = append(data.Enrollments, storage.EnrollmentSeed{Member: "ada@example.test", Course: "draft", EnrolledAt: at(1, 9)})
	mustImport(t, s, ctxA, data)
	ada := memberID(t, s, ctxA, "ada@example.test")
	linus := memberID(t, s, ctxA, "linus@example.test")
	grace := memberID(t, s, ctxA, "grace@example.test")
	clock := at(10, 0)

	// Ada reaches "review" through two courses; it is listed once.
	services := walk(t, "ListOfferedConsultingServices", 1, func(c storage.ConsultingService) int64 { return c.ID },
		func(p storage.Page) ([]storage.ConsultingService, string, error) {
			return s.ListOfferedConsultingServices(ctxA, ada, clock, p)
		})
	if len(services) != 2 || services[0].Slug != "office-hours" || services[1].Slug != "review" {
		t.Fatalf("services offered to Ada: %+v", services)
	}
	wantEqual(t, "office hours", services[0], storage.ConsultingService{ID: services[0].ID, Offer: storage.Offer{Slug: "office-hours", Title: "Office hours", Description: "Ask anything", PriceAmount: 3000, Currency: "USD"}, DurationMinutes: 30})

	// Linus's access to go-basics ends on the 28th: offered before, not after.
	for _, tc := range []struct {
		clock time.Time
		want  int
	}{{clock, 2}, {at(28, 0), 0}, {at(29, 0), 0}} {
		got, _, err := s.ListOfferedConsultingServices(ctxA, linus, tc.clock, storage.Page{})
		must(t, "ListOfferedConsultingServices Linus", err)
		if len(got) != tc.want {
			t.Errorf("services offered to Linus at %s: %d, want %d", tc.clock, len(got), tc.want)
		}
	}
	// Grace is enrolled in nothing; a meeting of hers offers her nothing.
	got, _, err := s.ListOfferedConsultingServices(ctxA, grace, clock, storage.Page{})
	must(t, "ListOfferedConsultingServices Grace", err)
	if len(got) != 0 {
		t.Errorf("services offered to Grace: %+v", got)
	}
	got, _, err = s.ListOfferedConsultingServices(ctxB, ada, clock, storage.Page{})
	must(t, "ListOfferedConsultingServices at B", err)
	if len(got) != 0 {
		t.Errorf("school B offers school A's services: %+v", got)
	}

	ids := []int64{services[1].ID, services[0].ID}
	slots, meetings, err := s.GetConsultingSchedules(ctxA, ids, clock)
	must(t, "GetConsultingSchedules", err)
	wantEqual(t, "slots", slots, []storage.ConsultingSlot{
		{ID: slots[0].ID, ServiceID: services[0].ID, Weekday: 2, StartTime: "10:00", DurationMinutes: 30, TimeZone: "Asia/Tokyo"},
		{ID: slots[1].ID, ServiceID: services[1].ID, Weekday: 1, StartTime: "18:00", DurationMinutes: 60, TimeZone: "UTC"},
		{ID: slots[2].ID, ServiceID: services[1].ID, Weekday: 4, StartTime: "09:00", DurationMinutes: 60, TimeZone: "UTC"},
	})
	// Linus's meeting on the 12th and Grace's on the 20th, whoever reserved them; Ada's on the
	// 3rd is over.
	wantEqual(t, "meetings", meetings, []storage.ConsultingMeeting{
		{ID: meetings[0].ID, ServiceID: services[0].ID, StartsAt: at(12, 1), EndsAt: at(12, 2)},
		{ID: meetings[1].ID, ServiceID: services[1].ID, StartsAt: at(20, 9), EndsAt: at(20, 10)},
	})
	slots, meetings, err = s.GetConsultingSchedules(ctxB, ids, clock)
	must(t, "GetConsultingSchedules at B", err)
	if len(slots) != 0 || len(meetings) != 0 {
		t.Errorf("school B reads school A's schedules: %v %v", slots, meetings)
	}
}

// testMemberDataNoSchool calls every MemberData method without a school.
func testMemberDataNoSchool(t *testing.T, s storage.Store) {
	ctx := t.Context()
	now := at(1, 0)
	calls := map[string]func() error{
		"ListEnrolledCourses": func() error { _, _, err := s.ListEnrolledCourses(ctx, 1, storage.Page{}); return err },
		"GetCurricula":        func() error { _, _, err := s.GetCurricula(ctx, []int64{1}); return err },
		"ListHeldProducts":    func() error { _, _, err := s.ListHeldProducts(ctx, 1, storage.Page{}); return err },
		"ListOfferedConsultingServices": func() error {
			_, _, err := s.ListOfferedConsultingServices(ctx, 1, now, storage.Page{})
			return err
		},
		"GetConsultingSchedules":   func() error { _, _, err := s.GetConsultingSchedules(ctx, []int64{1}, now); return err },
		"ListEventRegistrations":   func() error { _, _, err := s.ListEventRegistrations(ctx, 1, storage.Page{}); return err },
		"ListPayments":             func() error { _, _, err := s.ListPayments(ctx, 1, now, storage.Page{}); return err },
		"ListNotifications":        func() error { _, _, err := s.ListNotifications(ctx, 1, false, storage.Page{}); return err },
		"CountUnreadNotifications": func() error { _, err := s.CountUnreadNotifications(ctx, 1); return err },
		"MarkNotificationRead":     func() error { _, err := s.MarkNotificationRead(ctx, 1, 1, now); return err },
		"MarkAllNotificationsRead": func() error { _, err := s.MarkAllNotificationsRead(ctx, 1, now); return err },
		"ListNotificationSubscriptions": func() error {
			_, err := s.ListNotificationSubscriptions(ctx, 1)
			return err
		},
		"SetNotificationSubscription": func() error {
			_, err := s.SetNotificationSubscription(ctx, 1, storage.NotificationSubscription{Topic: storage.TopicPosts, Channel: storage.ChannelEmail})
			return err
		},
	}
	for name, call := range calls {
		wantErr(t, fmt.Sprintf("%s without a school", name), call(), school.ErrNoSchool)
	}
}
