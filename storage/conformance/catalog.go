package conformance

import (
	"fmt"
	"slices"
	"testing"

	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
)

// catalogData is FullSchoolData with more of everything a catalogue shows, unpublished and past
// rows beside the published ones. The clock for reading it is at(10, 0).
func catalogData() *storage.SchoolData {
	d := FullSchoolData()
	d.Courses = append(d.Courses,
		storage.CourseSeed{OfferSeed: storage.OfferSeed{Slug: "rust-intro", Title: "Rust intro", Description: "Ownership and borrowing", PriceAmount: 2500, Currency: "USD"}, Published: true},
		storage.CourseSeed{OfferSeed: storage.OfferSeed{Slug: "go-advanced", Title: "Advanced GO", Description: "Generics, 100% of them", PriceAmount: 3000, Currency: "USD"}, Published: true},
		storage.CourseSeed{OfferSeed: storage.OfferSeed{Slug: "go-secret", Title: "Go secret draft", Currency: "USD"}, Published: false},
	)
	d.MembershipPlans = append(d.MembershipPlans,
		storage.MembershipPlanSeed{OfferSeed: storage.OfferSeed{Slug: "yearly", Title: "Yearly", PriceAmount: 9900, Currency: "USD"}, Interval: "year", Published: true},
		storage.MembershipPlanSeed{OfferSeed: storage.OfferSeed{Slug: "hidden-plan", Title: "Hidden", PriceAmount: 1, Currency: "USD"}, Interval: "month", Published: false},
	)
	d.DigitalProducts = append(d.DigitalProducts,
		storage.DigitalProductSeed{OfferSeed: storage.OfferSeed{Slug: "templates", Title: "Templates", PriceAmount: 700, Currency: "USD"}, Published: true},
		storage.DigitalProductSeed{OfferSeed: storage.OfferSeed{Slug: "unreleased", Title: "Unreleased", PriceAmount: 1, Currency: "USD"}, Published: false},
	)
	d.Events = append(d.Events,
		storage.EventSeed{OfferSeed: storage.OfferSeed{Slug: "past", Title: "Past", Currency: "USD"}, StartsAt: at(2, 18), EndsAt: at(2, 20), Published: true},
		storage.EventSeed{OfferSeed: storage.OfferSeed{Slug: "ongoing", Title: "Ongoing", Currency: "USD"}, StartsAt: at(9, 0), EndsAt: at(11, 0), Published: true},
		storage.EventSeed{OfferSeed: storage.OfferSeed{Slug: "later", Title: "Later", Currency: "USD"}, StartsAt: at(20, 18), EndsAt: at(20, 21), Published: true},
		storage.EventSeed{OfferSeed: storage.OfferSeed{Slug: "same-start", Title: "Same start", Currency: "USD"}, StartsAt: at(20, 18), EndsAt: at(20, 19), Published: true},
		storage.EventSeed{OfferSeed: storage.OfferSeed{Slug: "draft-event", Title: "Draft", Currency: "USD"}, StartsAt: at(21, 18), EndsAt: at(21, 21), Published: false},
	)
	return d
}

// otherSchoolCatalog is school B's offer, which school A's reads must never show.
func otherSchoolCatalog() *storage.SchoolData {
	return &storage.SchoolData{
		Courses:         []storage.CourseSeed{{OfferSeed: storage.OfferSeed{Slug: "go-elsewhere", Title: "Go elsewhere", Currency: "USD"}, Published: true}},
		MembershipPlans: []storage.MembershipPlanSeed{{OfferSeed: storage.OfferSeed{Slug: "b-plan", Title: "B plan", Currency: "USD"}, Interval: "month", Published: true}},
		DigitalProducts: []storage.DigitalProductSeed{{OfferSeed: storage.OfferSeed{Slug: "b-product", Title: "B product", Currency: "USD"}, Published: true}},
		Events:          []storage.EventSeed{{OfferSeed: storage.OfferSeed{Slug: "b-event", Title: "B event", Currency: "USD"}, StartsAt: at(20, 0), EndsAt: at(20, 1), Published: true}},
	}
}

func slugs[T any](items []T, slug func(T) string) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = slug(it)
	}
	return out
}

func testCatalog(t *testing.T, s storage.Store) {
	ctxA, ctxB := syncSchools(t, s)
	mustImport(t, s, ctxA, catalogData())
	mustImport(t, s, ctxB, otherSchoolCatalog())
	now := at(10, 0)
	courseSlug := func(c storage.Course) string { return c.Slug }
	search := func(query string) []string {
		t.Helper()
		got := walk(t, "SearchCourses "+query, 1, func(c storage.Course) int64 { return c.ID },
			func(p storage.Page) ([]storage.Course, string, error) { return s.SearchCourses(ctxA, query, p) })
		return slugs(got, courseSlug)
	}

	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"", []string{"go-basics", "rust-intro", "go-advanced"}},
		{"go", []string{"go-basics", "go-advanced"}},
		{"  GO  ", []string{"go-basics", "go-advanced"}},
		{"ownership", []string{"rust-intro"}},    // the description counts
		{"go generics", []string{"go-advanced"}}, // every term must match
		{"100%", []string{"go-advanced"}},        // the wildcard is a literal
		{"%", []string{"go-advanced"}},
		{"_", nil},
		{"secret", nil}, // unpublished
		{"elsewhere", nil},
	} {
		if got := search(tc.query); !slices.Equal(got, tc.want) {
			t.Errorf("SearchCourses(%q) = %v, want %v", tc.query, got, tc.want)
		}
	}
	goBasics := courseBySlug(t, s, ctxA, "go-basics")
	page, _, err := s.SearchCourses(ctxA, "basics", storage.Page{})
	must(t, "SearchCourses", err)
	if len(page) != 1 {
		t.Fatalf("SearchCourses(basics): %v", page)
	}
	wantEqual(t, "found course", page[0], goBasics)
	_, _, err = s.SearchCourses(ctxA, "", storage.Page{After: "not-a-cursor"})
	wantErr(t, "SearchCourses with a bad cursor", err, storage.ErrInvalidArgument)

	plans := walk(t, "ListPublishedPlans", 1, func(p storage.MembershipPlan) int64 { return p.ID },
		func(p storage.Page) ([]storage.MembershipPlan, string, error) { return s.ListPublishedPlans(ctxA, p) })
	if got := slugs(plans, func(p storage.MembershipPlan) string { return p.Slug }); !slices.Equal(got, []string{"monthly", "yearly"}) {
		t.Errorf("plans: %v", got)
	}
	wantEqual(t, "monthly plan", plans[0], storage.MembershipPlan{ID: plans[0].ID, Offer: storage.Offer{Slug: "monthly", Title: "Monthly", Description: "All courses", PriceAmount: 990, Currency: "USD"}, Interval: "month", Published: true})

	products := walk(t, "ListPublishedProducts", 1, func(p storage.DigitalProduct) int64 { return p.ID },
		func(p storage.Page) ([]storage.DigitalProduct, string, error) {
			return s.ListPublishedProducts(ctxA, p)
		})
	if got := slugs(products, func(p storage.DigitalProduct) string { return p.Slug }); !slices.Equal(got, []string{"cheatsheet", "templates"}) {
		t.Errorf("products: %v", got)
	}
	wantEqual(t, "cheatsheet", products[0], storage.DigitalProduct{ID: products[0].ID, Offer: storage.Offer{Slug: "cheatsheet", Title: "Cheat sheet", Description: "PDF", PriceAmount: 500, Currency: "USD"}, Published: true})

	events := walk(t, "ListUpcomingEvents", 1, func(e storage.Event) int64 { return e.ID },
		func(p storage.Page) ([]storage.Event, string, error) { return s.ListUpcomingEvents(ctxA, now, p) })
	// Soonest first; two events starting together are ordered by id (later was imported first).
	if got := slugs(events, func(e storage.Event) string { return e.Slug }); !slices.Equal(got, []string{"ongoing", "meetup", "later", "same-start"}) {
		t.Errorf("upcoming events: %v", got)
	}
	wantEqual(t, "meetup", events[1], storage.Event{ID: events[1].ID, Offer: storage.Offer{Slug: "meetup", Title: "Meetup", Description: "Pizza", PriceAmount: 1000, Currency: "JPY"},
		StartsAt: at(15, 18), EndsAt: at(15, 21), Location: "Tokyo", Capacity: 30, Published: true})
	if later, _, err := s.ListUpcomingEvents(ctxA, at(20, 20), storage.Page{}); err != nil || len(later) != 1 || later[0].Slug != "later" {
		t.Errorf("events after at(20, 20): %v %v", later, err)
	}
	_, _, err = s.ListUpcomingEvents(ctxA, now, storage.Page{After: "bm90LWEtY3Vyc29y"})
	wantErr(t, "ListUpcomingEvents with a bad cursor", err, storage.ErrInvalidArgument)

	// School B sees its own offer only.
	if got, _, err := s.SearchCourses(ctxB, "", storage.Page{}); err != nil || len(got) != 1 || got[0].Slug != "go-elsewhere" {
		t.Errorf("school B courses: %v %v", got, err)
	}
	if got, _, err := s.ListPublishedPlans(ctxB, storage.Page{}); err != nil || len(got) != 1 || got[0].Slug != "b-plan" {
		t.Errorf("school B plans: %v %v", got, err)
	}
	if got, _, err := s.ListPublishedProducts(ctxB, storage.Page{}); err != nil || len(got) != 1 || got[0].Slug != "b-product" {
		t.Errorf("school B products: %v %v", got, err)
	}
	if got, _, err := s.ListUpcomingEvents(ctxB, now, storage.Page{}); err != nil || len(got) != 1 || got[0].Slug != "b-event" {
		t.Errorf("school B events: %v %v", got, err)
	}
}

func testReports(t *testing.T, s storage.Store) {
	ctxA, ctxB := syncSchools(t, s)
	mustImport(t, s, ctxA, FullSchoolData())
	// Ada is a student at B too, with an enrollment and a payment there that A never counts.
	mustImport(t, s, ctxB, &storage.SchoolData{
		Members: []storage.MemberSeed{{Email: "ada@example.test", Name: "Ada", AvatarURL: "https://a.example.test/ada.png",
			Roles: []storage.Role{storage.RoleStudent}}},
		Courses:     []storage.CourseSeed{{OfferSeed: storage.OfferSeed{Slug: "b-course", Title: "B", Currency: "EUR"}, Published: true}},
		Enrollments: []storage.EnrollmentSeed{{Member: "ada@example.test", Course: "b-course", EnrolledAt: at(1, 0)}},
		Payments: []storage.PaymentSeed{{TradeNo: "B-1", Member: "ada@example.test", Amount: 5, Currency: "EUR", PaymentType: "atm",
			CreatedAt: at(1, 0), PaymentStatus: storage.PaymentStatus{PaymentState: storage.PaymentPaid}, LineItems: []storage.PaymentLineItem{}}},
	})
	now := at(10, 0)
	ada := memberID(t, s, ctxA, "ada@example.test")
	linus := memberID(t, s, ctxA, "linus@example.test")
	goBasics := courseBySlug(t, s, ctxA, "go-basics")

	students := walk(t, "ListStudents", 1, func(p storage.StudentProgress) int64 { return p.Member.ID },
		func(p storage.Page) ([]storage.StudentProgress, string, error) { return s.ListStudents(ctxA, p) })
	if len(students) != 2 || students[0].Member.ID != ada || students[1].Member.ID != linus {
		t.Fatalf("students: %+v; want Ada then Linus (Grace lectures)", students)
	}
	wantEqual(t, "Ada", students[0], storage.StudentProgress{
		Member: storage.Member{ID: ada, Email: "ada@example.test", Name: "Ada", AvatarURL: "https://a.example.test/ada.png"},
		Roles:  []storage.Role{storage.RoleOwner, storage.RoleStudent},
		Enrollments: []storage.EnrollmentProgress{{
			Enrollment:    storage.Enrollment{ID: students[0].Enrollments[0].Enrollment.ID, MemberID: ada, CourseID: goBasics.ID, LifetimeAccess: true, EnrolledAt: at(1, 8)},
			CourseSlug:    "go-basics",
			CourseTitle:   "Go basics",
			TotalLectures: 3, CompletedLectures: 1, ReadLectures: 1, LastActivityAt: ptr(at(4, 10)),
		}},
	})
	if e := students[1].Enrollments; len(e) != 1 || e[0].CompletedLectures != 0 || e[0].ReadLectures != 0 || e[0].LastActivityAt != nil ||
		e[0].TotalLectures != 3 || e[0].Enrollment.ExpireDate == nil {
		t.Errorf("Linus's enrollments: %+v", e)
	}
	if got, _, err := s.ListStudents(ctxB, storage.Page{}); err != nil || len(got) != 1 || len(got[0].Enrollments) != 1 ||
		got[0].Enrollments[0].CourseSlug != "b-course" || !slices.Equal(got[0].Roles, []storage.Role{storage.RoleStudent}) {
		t.Errorf("school B students: %+v %v", got, err)
	}

	payments := walk(t, "ListPaymentLedger", 1, func(p storage.LedgerEntry) int64 { return p.Payment.ID },
		func(p storage.Page) ([]storage.LedgerEntry, string, error) { return s.ListPaymentLedger(ctxA, now, p) })
	if got := slugs(payments, func(p storage.LedgerEntry) string { return p.Payment.TradeNo }); !slices.Equal(got, []string{"T-0002", "T-0001"}) {
		t.Fatalf("school payments: %v", got)
	}
	if p := payments[0]; p.BuyerEmail != "linus@example.test" || p.BuyerName != "Linus" || p.Payment.PaymentState != storage.PaymentExpired ||
		p.Payment.CodeNo != "99887766" {
		t.Errorf("T-0002 seen at %s: %+v", now, p)
	}
	if p := payments[1]; p.BuyerEmail != "ada@example.test" || p.Payment.Invoice == nil || len(p.Payment.LineItems) != 1 {
		t.Errorf("T-0001: %+v", p)
	}
	mine, _, err := s.ListPayments(ctxA, ada, now, storage.Page{})
	must(t, "ListPayments", err)
	wantEqual(t, "T-0001 as the member sees it", payments[1].Payment, mine[0])

	stats, err := s.GetSchoolStats(ctxA, now)
	must(t, "GetSchoolStats", err)
	wantEqual(t, "stats", stats, storage.SchoolStats{
		MembersByRole:     map[storage.Role]int{storage.RoleOwner: 1, storage.RoleStudent: 2, storage.RoleLecturer: 1},
		Courses:           2,
		PublishedCourses:  1,
		Enrollments:       2,
		ActiveEnrollments: 2,
		CompletedLectures: 1,
		PaymentsByState:   map[string]int{storage.PaymentPaid: 1, storage.PaymentExpired: 1},
		Revenue:           []storage.CurrencyRevenue{{Currency: "USD", Paid: 1999, Refunded: 500}},
	})
	later, err := s.GetSchoolStats(ctxA, at(29, 0))
	must(t, "GetSchoolStats later", err)
	if later.ActiveEnrollments != 1 {
		t.Errorf("active enrollments after Linus's expiry: %d", later.ActiveEnrollments)
	}
	early, err := s.GetSchoolStats(ctxA, at(1, 0))
	must(t, "GetSchoolStats early", err)
	if early.PaymentsByState[storage.PaymentUnpaid] != 1 || early.PaymentsByState[storage.PaymentExpired] != 0 {
		t.Errorf("payments by state before the deadline: %v", early.PaymentsByState)
	}

	// An empty school has zero counts, not errors.
	empty, err := s.GetSchoolStats(inSchool(t, &school.School{SchoolID: 99}), now)
	must(t, "GetSchoolStats of an empty school", err)
	if empty.Courses != 0 || len(empty.Revenue) != 0 || len(empty.MembersByRole) != 0 {
		t.Errorf("empty school: %+v", empty)
	}
}

func testCatalogNoSchool(t *testing.T, s storage.Store) {
	ctx := t.Context()
	now := at(1, 0)
	calls := map[string]func() error{
		"SearchCourses":         func() error { _, _, err := s.SearchCourses(ctx, "", storage.Page{}); return err },
		"ListPublishedPlans":    func() error { _, _, err := s.ListPublishedPlans(ctx, storage.Page{}); return err },
		"ListPublishedProducts": func() error { _, _, err := s.ListPublishedProducts(ctx, storage.Page{}); return err },
		"ListUpcomingEvents":    func() error { _, _, err := s.ListUpcomingEvents(ctx, now, storage.Page{}); return err },
		"ListStudents":          func() error { _, _, err := s.ListStudents(ctx, storage.Page{}); return err },
		"ListPaymentLedger":     func() error { _, _, err := s.ListPaymentLedger(ctx, now, storage.Page{}); return err },
		"GetSchoolStats":        func() error { _, err := s.GetSchoolStats(ctx, now); return err },
	}
	for name, call := range calls {
		wantErr(t, fmt.Sprintf("%s without a school", name), call(), school.ErrNoSchool)
	}
}
