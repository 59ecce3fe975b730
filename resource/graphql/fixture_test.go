package graphql_test

import (
	"time"

	"github.com/proctorhq/proctor/storage"
)

// The fixture's times are long past or far ahead, so that what the API judges by the clock
// (payment deadlines, unlock times, meetings still to come, access that ended) reads the same
// whenever the tests run.
var (
	past   = time.Date(2020, time.March, 2, 9, 30, 0, 0, time.UTC)
	future = time.Date(2099, time.March, 2, 9, 30, 0, 0, time.UTC)
)

func day(base time.Time, d int) time.Time { return base.AddDate(0, 0, d) }
func ptr[T any](v T) *T                   { return &v }

const (
	sam  = "sam@example.test"
	emma = "emma@example.test"
)

// schoolAData is school A: Sam, the viewer of most tests, with a bit of everything, and Emma,
// whose rows must never show in Sam's answers (except her meetings, anonymously).
func schoolAData() *storage.SchoolData {
	course := func(slug, title string, sections ...storage.SectionSeed) storage.CourseSeed {
		return storage.CourseSeed{OfferSeed: storage.OfferSeed{Slug: slug, Title: title, PriceAmount: 9900, Currency: "USD"}, Published: true, Sections: sections}
	}
	item := func(kind, ref string, amount int64) []storage.PaymentLineItem {
		return []storage.PaymentLineItem{{Kind: kind, Ref: ref, Title: ref, Quantity: 1, UnitAmount: amount}}
	}
	return &storage.SchoolData{
		Members: []storage.MemberSeed{
			{Email: sam, Name: "Sam Carter", AvatarURL: "https://img.example.test/sam.png", Roles: []storage.Role{storage.RoleStudent}},
			{Email: emma, Name: "Emma Lopez", Roles: []storage.Role{storage.RoleStudent, storage.RoleLecturer}},
		},
		Courses: []storage.CourseSeed{
			course("go", "Go Fundamentals",
				storage.SectionSeed{Title: "Start", Lectures: []storage.LectureSeed{
					{Title: "Hello", DurationSeconds: 300},
					{Title: "Types", DurationSeconds: 600},
				}},
				storage.SectionSeed{Title: "Drip", Lectures: []storage.LectureSeed{
					{Title: "Unlocked by now", DurationSeconds: 420, IsLocked: true, UnlockAt: ptr(past)},
					{Title: "Still locked", DurationSeconds: 480, IsLocked: true, UnlockAt: ptr(future)},
					{Title: "Locked for good", DurationSeconds: 60, IsLocked: true},
				}},
			),
			course("sql", "SQL for Developers", storage.SectionSeed{Title: "Only", Lectures: []storage.LectureSeed{{Title: "Select", DurationSeconds: 200}}}),
			course("old", "An Old Course"),
		},
		Enrollments: []storage.EnrollmentSeed{
			{Member: sam, Course: "go", LifetimeAccess: true, EnrolledAt: day(past, 1)},
			{Member: sam, Course: "sql", ExpireDate: ptr(future), EnrolledAt: day(past, 2)},
			{Member: sam, Course: "old", ExpireDate: ptr(day(past, 30)), EnrolledAt: day(past, 3)},
			{Member: emma, Course: "sql", EnrolledAt: day(past, 1)},
		},
		Progress: []storage.ProgressSeed{
			{Member: sam, Lecture: storage.LectureRef{Course: "go", Section: 1, Lecture: 1}, State: storage.LectureCompleted, PositionSeconds: 300, UpdatedAt: day(past, 4)},
			{Member: sam, Lecture: storage.LectureRef{Course: "go", Section: 1, Lecture: 2}, State: storage.LectureRead, PositionSeconds: 125, UpdatedAt: day(past, 5)},
			{Member: emma, Lecture: storage.LectureRef{Course: "sql", Section: 1, Lecture: 1}, State: storage.LectureCompleted, PositionSeconds: 200, UpdatedAt: day(past, 5)},
		},
		DigitalProducts: []storage.DigitalProductSeed{
			{OfferSeed: storage.OfferSeed{Slug: "cheat-sheet", Title: "Go Cheat Sheet", Description: "Two pages.", PriceAmount: 900, Currency: "USD"}, Published: true},
		},
		ProductHoldings: []storage.ProductHoldingSeed{{Member: sam, Product: "cheat-sheet", GrantedAt: day(past, 6)}},
		ConsultingServices: []storage.ConsultingServiceSeed{
			{
				OfferSeed: storage.OfferSeed{Slug: "code-review", Title: "Code Review", Description: "45 minutes on your code.", PriceAmount: 12000, Currency: "USD"}, DurationMinutes: 45,
				Courses: []string{"go"},
				Slots:   []storage.SlotSeed{{Weekday: 2, StartTime: "10:00", DurationMinutes: 180, TimeZone: "America/New_York"}},
				Meetings: []storage.MeetingSeed{
					{Member: sam, StartsAt: day(past, 7), EndsAt: day(past, 7).Add(45 * time.Minute)},
					{Member: emma, StartsAt: future, EndsAt: future.Add(45 * time.Minute)},
					{Member: sam, StartsAt: day(future, 1), EndsAt: day(future, 1).Add(45 * time.Minute)},
				},
			},
			// Offered against a course Sam's access to has ended: not offered to him.
			{OfferSeed: storage.OfferSeed{Slug: "history", Title: "History Hour", PriceAmount: 100, Currency: "USD"}, DurationMinutes: 60, Courses: []string{"old"}},
		},
		Events: []storage.EventSeed{
			{OfferSeed: storage.OfferSeed{Slug: "meetup", Title: "Gophers Night", Description: "Talks.", Currency: "USD"}, StartsAt: future, EndsAt: future.Add(3 * time.Hour), Location: "Loft", Published: true},
		},
		EventRegistrations: []storage.EventRegistrationSeed{
			{Member: sam, Event: "meetup", Status: "registered", RegisteredAt: day(past, 8)},
			{Member: emma, Event: "meetup", Status: "cancelled", RegisteredAt: day(past, 8)},
		},
		Payments: []storage.PaymentSeed{
			{TradeNo: "A-PAID", Member: sam, Amount: 7920, Currency: "USD", PaymentType: "credit_card", CreatedAt: day(past, 1),
				PaymentStatus: storage.PaymentStatus{PaymentState: storage.PaymentPaid, PaidAt: ptr(day(past, 1).Add(time.Minute))},
				LineItems:     item(storage.ItemCourse, "go", 9900),
				Adjustments:   []storage.PaymentAdjustment{{Kind: "coupon", Code: "WELCOME20", Title: "Welcome: 20% off", Amount: -1980}},
				Invoice:       &storage.PaymentInvoice{Number: "INV-1", Status: "issued", IssuedAt: ptr(day(past, 1).Add(2 * time.Minute)), BuyerName: "Sam Carter"},
				Installment:   &storage.PaymentInstallment{Periods: 3, PeriodAmount: 2640, Bank: "First Harbor"}},
			{TradeNo: "A-CVS-LAPSED", Member: sam, Amount: 12000, Currency: "USD", PaymentType: "cvs", CreatedAt: day(past, 9),
				PaymentStatus: storage.PaymentStatus{PaymentState: storage.PaymentUnpaid, ExpiredAt: ptr(day(past, 12)), CodeNo: "CVS-7731"},
				LineItems:     item(storage.ItemConsultingService, "code-review", 12000)},
			{TradeNo: "A-RETRY", Member: sam, Amount: 12000, Currency: "USD", PaymentType: "credit_card", CreatedAt: day(past, 13),
				PaymentStatus: storage.PaymentStatus{PaymentState: storage.PaymentPaid, PaidAt: ptr(day(past, 13)),
					RefundingState: storage.RefundPartial, RefundedAmount: 2000, RefundRequestedAt: ptr(day(past, 14)), RefundedAt: ptr(day(past, 15))},
				LineItems: item(storage.ItemConsultingService, "code-review", 12000)},
			{TradeNo: "A-ABANDONED-EXPIRED", Member: sam, Amount: 29000, Currency: "USD", CreatedAt: day(past, 16),
				PaymentStatus: storage.PaymentStatus{PaymentState: storage.PaymentExpired, ExpiredAt: ptr(day(past, 17))},
				LineItems:     item(storage.ItemMembershipPlan, "pro-annual", 29000)},
			{TradeNo: "A-ATM-OPEN", Member: sam, Amount: 4900, Currency: "USD", PaymentType: "atm", CreatedAt: day(past, 18),
				PaymentStatus: storage.PaymentStatus{PaymentState: storage.PaymentUnpaid, ExpiredAt: ptr(future),
					BankCode: "042", BankName: "Harbor Trust Bank", CodeNo: "9601-8812-0375"},
				LineItems: item(storage.ItemEvent, "meetup", 4900)},
			{TradeNo: "A-ABANDONED-OPEN", Member: sam, Amount: 900, Currency: "USD", CreatedAt: day(past, 19),
				PaymentStatus: storage.PaymentStatus{PaymentState: storage.PaymentUnpaid, ExpiredAt: ptr(future)},
				LineItems:     item(storage.ItemDigitalProduct, "cheat-sheet", 900)},
			{TradeNo: "A-EMMA", Member: emma, Amount: 9900, Currency: "USD", PaymentType: "credit_card", CreatedAt: day(past, 20),
				PaymentStatus: storage.PaymentStatus{PaymentState: storage.PaymentPaid, PaidAt: ptr(day(past, 20))},
				LineItems:     item(storage.ItemCourse, "sql", 9900)},
		},
		Notifications: []storage.NotificationSeed{
			{Key: "welcome", Member: sam, Kind: "welcome", Title: "Welcome", Body: "Start here.", URL: "/courses/go", CreatedAt: day(past, 1), ReadAt: ptr(day(past, 1))},
			{Key: "atm", Member: sam, Kind: "payment_pending", Title: "Complete your transfer", CreatedAt: day(past, 18)},
			{Key: "unlock", Member: sam, Kind: "lecture_unlocked", Title: "A lecture unlocked", CreatedAt: day(past, 21)},
			{Key: "emma", Member: emma, Kind: "welcome", Title: "Welcome", CreatedAt: day(past, 21)},
		},
		NotificationSubscriptions: []storage.NotificationSubscriptionSeed{
			{Member: sam, Topic: storage.TopicPayments, Channel: storage.ChannelEmail, Enabled: true},
			{Member: sam, Topic: "digest", Channel: storage.ChannelEmail, Enabled: true},
		},
	}
}

// schoolBData is school B: Sam is a student there too, with a payment of his own that school A
// must never list.
func schoolBData() *storage.SchoolData {
	return &storage.SchoolData{
		Members: []storage.MemberSeed{{Email: sam, Name: "Sam Carter", AvatarURL: "https://img.example.test/sam.png", Roles: []storage.Role{storage.RoleStudent}}},
		Payments: []storage.PaymentSeed{{TradeNo: "B-PAID", Member: sam, Amount: 100, Currency: "USD", PaymentType: "credit_card",
			CreatedAt: day(past, 30), PaymentStatus: storage.PaymentStatus{PaymentState: storage.PaymentPaid}, LineItems: []storage.PaymentLineItem{{Kind: storage.ItemCourse, Ref: "x", Title: "X", Quantity: 1, UnitAmount: 100}}}},
	}
}

// seeded returns an env with both schools' data.
func seeded(e *env) *env {
	e.Seed(e.A, schoolAData())
	e.Seed(e.B, schoolBData())
	return e
}
