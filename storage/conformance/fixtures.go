package conformance

import (
	"fmt"

	"github.com/proctorhq/proctor/storage"
)

// A PHC string of the shape the seed command produces; storage keeps it as given.
const (
	hashAda   = "$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHRzYWx0$YWRhaGFzaGFkYWhhc2hhZGFoYXNo"
	hashGrace = "$argon2id$v=19$m=65536,t=3,p=4$cGVwcGVycGVwcGVy$Z3JhY2VoYXNoZ3JhY2VoYXNo"
)

// FullSchoolData is a school's worth of data using every SchoolData list and every optional
// field, its records referring to each other by natural key. The suite imports it; backends use it
// too, to check what the Store interface cannot read back (payments, events ...). Each call
// returns a new copy.
func FullSchoolData() *storage.SchoolData {
	return &storage.SchoolData{
		School: &storage.SchoolSeed{
			Settings:   &storage.SchoolSettings{Description: "Learn things", ContactEmail: "hello@a.example.test", Timezone: "Asia/Tokyo", Currency: "JPY", Locale: "ja"},
			Appearance: &storage.Appearance{PrimaryColor: "#114477", LogoURL: "https://a.example.test/logo.png", Theme: "dark"},
		},
		Members: []storage.MemberSeed{
			{Email: "Ada@Example.test", Name: "Ada", AvatarURL: "https://a.example.test/ada.png", PasswordHash: hashAda, Roles: []storage.Role{storage.RoleStudent, storage.RoleOwner}},
			{Email: "grace@example.test", Name: "Grace", PasswordHash: hashGrace, Roles: []storage.Role{storage.RoleLecturer}},
			{Email: "linus@example.test", Name: "Linus", Roles: []storage.Role{storage.RoleStudent}},
		},
		Courses: []storage.CourseSeed{
			{
				OfferSeed: storage.OfferSeed{Slug: "go-basics", Title: "Go basics", Description: "From zero", PriceAmount: 1999, Currency: "USD"}, Published: true,
				Sections: []storage.SectionSeed{
					{Title: "Start", Lectures: []storage.LectureSeed{
						{Title: "Hello", DurationSeconds: 300},
						{Title: "Types", DurationSeconds: 600, IsLocked: true, UnlockAt: ptr(at(20, 9))},
					}},
					{Title: "More", Lectures: []storage.LectureSeed{
						{Title: "Goroutines", DurationSeconds: 900},
					}},
				},
			},
			{OfferSeed: storage.OfferSeed{Slug: "draft", Title: "Draft course", PriceAmount: 0, Currency: "USD"}, Published: false},
		},
		Enrollments: []storage.EnrollmentSeed{
			{Member: "ada@example.test", Course: "go-basics", LifetimeAccess: true, EnrolledAt: at(1, 8)},
			{Member: "linus@example.test", Course: "go-basics", ExpireDate: ptr(at(28, 0)), EnrolledAt: at(2, 8)},
		},
		Progress: []storage.ProgressSeed{
			{Member: "ada@example.test", Lecture: storage.LectureRef{Course: "go-basics", Section: 1, Lecture: 1}, State: storage.LectureCompleted, PositionSeconds: 300, UpdatedAt: at(3, 10)},
			{Member: "ada@example.test", Lecture: storage.LectureRef{Course: "go-basics", Section: 2, Lecture: 1}, State: storage.LectureRead, PositionSeconds: 42, UpdatedAt: at(4, 10)},
		},
		DigitalProducts: []storage.DigitalProductSeed{
			{OfferSeed: storage.OfferSeed{Slug: "cheatsheet", Title: "Cheat sheet", Description: "PDF", PriceAmount: 500, Currency: "USD"}, Published: true},
		},
		ProductHoldings: []storage.ProductHoldingSeed{
			{Member: "ada@example.test", Product: "cheatsheet", GrantedAt: at(5, 12)},
		},
		ConsultingServices: []storage.ConsultingServiceSeed{{
			OfferSeed: storage.OfferSeed{Slug: "office-hours", Title: "Office hours", Description: "Ask anything", PriceAmount: 3000, Currency: "USD"}, DurationMinutes: 30,
			Courses:  []string{"go-basics"},
			Slots:    []storage.SlotSeed{{Weekday: 2, StartTime: "10:00", DurationMinutes: 30, TimeZone: "Asia/Tokyo"}},
			Meetings: []storage.MeetingSeed{{Member: "linus@example.test", StartsAt: at(12, 1), EndsAt: at(12, 2)}},
		}},
		Events: []storage.EventSeed{
			{OfferSeed: storage.OfferSeed{Slug: "meetup", Title: "Meetup", Description: "Pizza", PriceAmount: 1000, Currency: "JPY"}, StartsAt: at(15, 18), EndsAt: at(15, 21), Location: "Tokyo", Capacity: 30, Published: true},
		},
		EventRegistrations: []storage.EventRegistrationSeed{
			{Member: "linus@example.test", Event: "meetup", Status: "registered", RegisteredAt: at(6, 9)},
		},
		Payments: []storage.PaymentSeed{
			{
				TradeNo: "T-0001", Member: "ada@example.test", Amount: 1999, Currency: "USD", PaymentType: "credit_card", CreatedAt: at(1, 7),
				PaymentStatus: storage.PaymentStatus{PaymentState: storage.PaymentPaid, PaidAt: ptr(at(1, 8)),
					RefundingState: storage.RefundPartial, RefundedAmount: 500, RefundedAt: ptr(at(9, 8)), RefundRequestedAt: ptr(at(8, 8))},
				LineItems:   []storage.PaymentLineItem{{Kind: storage.ItemCourse, Ref: "go-basics", Title: "Go basics", Quantity: 1, UnitAmount: 1999}},
				Adjustments: []storage.PaymentAdjustment{{Kind: "coupon", Code: "SPRING", Title: "Spring", Amount: -200}},
				Invoice:     &storage.PaymentInvoice{Number: "INV-1", Status: "issued", IssuedAt: ptr(at(1, 9)), BuyerName: "Ada", TaxID: "12345678"},
				Installment: &storage.PaymentInstallment{Periods: 3, PeriodAmount: 667, Bank: "Bank"},
			},
			{
				TradeNo: "T-0002", Member: "linus@example.test", Amount: 500, Currency: "USD", CreatedAt: at(2, 7),
				PaymentStatus: storage.PaymentStatus{PaymentState: storage.PaymentUnpaid, ExpiredAt: ptr(at(9, 7)),
					BankCode: "812", BankName: "Taishin", CodeNo: "99887766"},
				LineItems: []storage.PaymentLineItem{{Kind: storage.ItemDigitalProduct, Ref: "cheatsheet", Title: "Cheat sheet", Quantity: 1, UnitAmount: 500}},
			},
		},
		Notifications: []storage.NotificationSeed{
			{Key: "welcome-ada", Member: "ada@example.test", Kind: "welcome", Title: "Welcome", Body: "Hi", URL: "https://a.example.test/", CreatedAt: at(1, 8), ReadAt: ptr(at(1, 9))},
		},
		NotificationSubscriptions: []storage.NotificationSubscriptionSeed{
			{Member: "ada@example.test", Topic: "posts", Channel: "email", Enabled: true},
			{Member: "ada@example.test", Topic: "posts", Channel: "in_app", Enabled: false},
		},
		MembershipPlans: []storage.MembershipPlanSeed{
			{OfferSeed: storage.OfferSeed{Slug: "monthly", Title: "Monthly", Description: "All courses", PriceAmount: 990, Currency: "USD"}, Interval: "month", Published: true},
		},
		Subscriptions: []storage.SubscriptionSeed{
			{Member: "grace@example.test", Plan: "monthly", State: "active", StartedAt: at(1, 0), CurrentPeriodEnd: at(31, 0)},
		},
		Coupons: []storage.CouponSeed{
			{Code: "SPRING", Title: "Spring", PercentOff: 10, ExpiresAt: ptr(at(31, 23)), MaxRedemptions: 100},
			{Code: "FLAT", Title: "Flat", AmountOff: 300, Currency: "USD"},
		},
		Posts: []storage.PostSeed{
			{Key: "hello", Title: "Hello", Body: "School-wide", Author: "grace@example.test", PublishedAt: at(2, 10)},
			{Key: "go-news", Title: "News", Body: "For the course", Course: "go-basics", PublishedAt: at(3, 10)},
		},
		Comments: []storage.CommentSeed{
			{Key: "c1", Member: "ada@example.test", Post: "hello", Body: "Thanks", CreatedAt: at(2, 11)},
			{Key: "c2", Member: "linus@example.test", Lecture: &storage.LectureRef{Course: "go-basics", Section: 1, Lecture: 2}, Body: "Question", CreatedAt: at(3, 11)},
		},
		Lecturers: []storage.LecturerSeed{
			{Slug: "grace", Name: "Grace H.", Bio: "Compilers", AvatarURL: "https://a.example.test/grace.png", Member: "grace@example.test", Courses: []string{"go-basics", "draft"}},
			{Slug: "guest", Name: "Guest"},
		},
		Forms: []storage.FormSeed{
			{Slug: "contact", Title: "Contact", Fields: []storage.FormField{
				{Name: "email", Label: "E-mail", Type: "email", Required: true},
				{Name: "message", Label: "Message", Type: "textarea"},
			}},
		},
		FormSubmissions: []storage.FormSubmissionSeed{
			{Key: "s1", Form: "contact", Member: "ada@example.test", Data: map[string]string{"email": "ada@example.test", "message": "Hi"}, SubmittedAt: at(7, 7)},
			{Key: "s2", Form: "contact", Data: map[string]string{"email": "anon@example.test"}, SubmittedAt: at(7, 8)},
		},
		Pages: []storage.PageSeed{
			{Slug: "about", Title: "About", Body: "# About", Published: true},
		},
	}
}

// fullDataCounts is the ImportStats an import of d reports.
func fullDataCounts(d *storage.SchoolData) storage.ImportStats {
	all := map[string]int{
		"school": 1, "members": len(d.Members), "courses": len(d.Courses), "enrollments": len(d.Enrollments),
		"progress": len(d.Progress), "digital_products": len(d.DigitalProducts), "product_holdings": len(d.ProductHoldings),
		"consulting_services": len(d.ConsultingServices), "events": len(d.Events), "event_registrations": len(d.EventRegistrations),
		"payments": len(d.Payments), "notifications": len(d.Notifications), "notification_subscriptions": len(d.NotificationSubscriptions),
		"membership_plans": len(d.MembershipPlans), "subscriptions": len(d.Subscriptions), "coupons": len(d.Coupons),
		"posts": len(d.Posts), "comments": len(d.Comments), "lecturers": len(d.Lecturers), "forms": len(d.Forms),
		"form_submissions": len(d.FormSubmissions), "pages": len(d.Pages),
	}
	if d.School == nil {
		delete(all, "school")
	}
	stats := storage.ImportStats{}
	for k, v := range all {
		if v > 0 {
			stats[k] = v
		}
	}
	return stats
}

// LargeSchoolData is a school with courses x sections x lectures and one member's enrollment in
// every course and progress on every lecture: the size an import must handle in one go (and a
// benchmark's input).
func LargeSchoolData(courses, sections, lectures int) *storage.SchoolData {
	d := &storage.SchoolData{
		Members: []storage.MemberSeed{{Email: "busy@example.test", Name: "Busy", Roles: []storage.Role{storage.RoleStudent}}},
	}
	for c := range courses {
		slug := fmt.Sprintf("course-%02d", c)
		cs := storage.CourseSeed{OfferSeed: storage.OfferSeed{Slug: slug, Title: "Course " + slug, PriceAmount: int64(100 * c), Currency: "USD"}, Published: true}
		for s := range sections {
			sec := storage.SectionSeed{Title: fmt.Sprintf("Section %d", s+1)}
			for l := range lectures {
				sec.Lectures = append(sec.Lectures, storage.LectureSeed{Title: fmt.Sprintf("Lecture %d.%d", s+1, l+1), DurationSeconds: 60 + l})
				d.Progress = append(d.Progress, storage.ProgressSeed{
					Member:          "busy@example.test",
					Lecture:         storage.LectureRef{Course: slug, Section: s + 1, Lecture: l + 1},
					State:           storage.LectureCompleted,
					PositionSeconds: 60 + l,
					UpdatedAt:       at(1+c%28, l%24),
				})
			}
			cs.Sections = append(cs.Sections, sec)
		}
		d.Courses = append(d.Courses, cs)
		d.Enrollments = append(d.Enrollments, storage.EnrollmentSeed{Member: "busy@example.test", Course: slug, EnrolledAt: at(1, 0)})
	}
	return d
}
