package storage

import (
	"context"
	"time"
)

// Catalog is what a school shows anyone: its published offer. The MCP endpoint's anonymous
// tools read it, so nothing here ever says anything about a member. Every method is
// school-scoped, leaves unpublished rows out and pages in a fixed order.
type Catalog interface {
	// SearchCourses pages through the school's published courses, by id. A non-empty query
	// keeps the courses whose title or description contains every one of its
	// whitespace-separated terms, compared case-insensitively (ASCII case on SQLite).
	SearchCourses(ctx context.Context, query string, page Page) (courses []Course, next string, err error)
	// ListPublishedPlans pages through the school's published membership plans, by id.
	ListPublishedPlans(ctx context.Context, page Page) (plans []MembershipPlan, next string, err error)
	// ListPublishedProducts pages through the school's published digital products, by id.
	ListPublishedProducts(ctx context.Context, page Page) (products []DigitalProduct, next string, err error)
	// ListUpcomingEvents pages through the school's published events that end after `from`,
	// soonest first (starts_at, then id).
	ListUpcomingEvents(ctx context.Context, from time.Time, page Page) (events []Event, next string, err error)
}

// Reports are the reads a school's operators make about the school as a whole (the MCP
// endpoint's operator tools, behind the operator scopes and an owner or admin role). Each is
// school-scoped and costs a fixed number of statements per page.
type Reports interface {
	// ListStudents pages through the members holding the student role at the school, by member
	// id, each with their roles and every enrollment with its course and progress counts.
	ListStudents(ctx context.Context, page Page) (students []StudentProgress, next string, err error)
	// ListPaymentLedger pages through every payment of the school, newest first (created_at,
	// then id, both descending), each with its buyer. Seen at `at` like ListPayments (an unpaid
	// payment past its deadline is PaymentExpired), but nothing is left out: operators see the
	// attempts abandoned before a method was chosen too.
	ListPaymentLedger(ctx context.Context, at time.Time, page Page) (entries []LedgerEntry, next string, err error)
	// GetSchoolStats counts the school's members, courses, enrollments, progress and payments,
	// seen at `at`.
	GetSchoolStats(ctx context.Context, at time.Time) (SchoolStats, error)
}

// StudentProgress is a student of the context's school with their enrollments.
type StudentProgress struct {
	// Member carries the identity only: ID, Email, Name and AvatarURL (no password hash).
	Member      Member
	Roles       []Role
	Enrollments []EnrollmentProgress // by enrollment time, then id
}

// EnrollmentProgress is one enrollment with its course and the member's progress through it.
type EnrollmentProgress struct {
	Enrollment        Enrollment
	CourseSlug        string
	CourseTitle       string
	TotalLectures     int
	CompletedLectures int
	ReadLectures      int        // opened but not completed
	LastActivityAt    *time.Time // latest progress update in the course; nil if none
}

// LedgerEntry is a payment with the member who made it.
type LedgerEntry struct {
	Payment    Payment
	BuyerEmail string
	BuyerName  string
}

// SchoolStats are a school's counts at one moment.
type SchoolStats struct {
	MembersByRole     map[Role]int
	Courses           int
	PublishedCourses  int
	Enrollments       int
	ActiveEnrollments int // lifetime access, no expiry date, or an expiry after the moment
	CompletedLectures int // progress rows in the completed state, all members
	PaymentsByState   map[string]int
	Revenue           []CurrencyRevenue // by currency code
}

// CurrencyRevenue sums a school's payments in one currency, in its minor unit. Paid counts
// every payment that was paid (paid and refunded states); Refunded is what went back.
type CurrencyRevenue struct {
	Currency string
	Paid     int64
	Refunded int64
}
