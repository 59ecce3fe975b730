package mcp

import (
	"context"
	"sort"
	"time"

	"github.com/proctorhq/proctor/storage"
)

// The operator tools read the school as a whole (storage.Reports and the course list) for a
// token holding an operator scope whose member is an owner or admin at the school right now.

type adminPageIn struct {
	First int `json:"first,omitempty" jsonschema:"How many items to return, 1 to 50 (default 20)."`
	pageAfter
}

type adminCourse struct {
	ID          int64     `json:"id"`
	Slug        string    `json:"slug"`
	Title       string    `json:"title"`
	Description string    `json:"description"`
	Price       money     `json:"price"`
	Published   bool      `json:"published"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}

type adminCoursesOut struct {
	Courses []adminCourse `json:"courses" jsonschema:"Every course of the school, drafts included, oldest first."`
	nextPage
}

type studentEnrollment struct {
	CourseSlug        string     `json:"course_slug"`
	CourseTitle       string     `json:"course_title"`
	EnrolledAt        time.Time  `json:"enrolled_at"`
	ExpireDate        *time.Time `json:"expire_date,omitempty"`
	HasLifetimeAccess bool       `json:"has_lifetime_access"`
	AccessActive      bool       `json:"access_active"`
	Progress          progress   `json:"progress"`
	LastActivityAt    *time.Time `json:"last_activity_at,omitempty" jsonschema:"The student's latest progress in the course."`
}

type student struct {
	MemberID    int64               `json:"member_id"`
	Name        string              `json:"name"`
	Email       string              `json:"email"`
	Roles       []string            `json:"roles" jsonschema:"The member's roles at the school, most powerful first."`
	Enrollments []studentEnrollment `json:"enrollments"`
}

type studentsOut struct {
	Students []student `json:"students" jsonschema:"Members holding the student role, by member id."`
	nextPage
}

type buyer struct {
	MemberID int64  `json:"member_id"`
	Email    string `json:"email"`
	Name     string `json:"name"`
}

type ledgerPayment struct {
	payment
	Buyer buyer `json:"buyer"`
}

type ledgerOut struct {
	Payments []ledgerPayment `json:"payments" jsonschema:"Every payment attempt of the school, newest first, attempts abandoned before a method was chosen included."`
	nextPage
}

type revenue struct {
	Currency string `json:"currency"`
	Paid     int64  `json:"paid" jsonschema:"Sum of the payments that were paid (refunded ones included), minor unit."`
	Refunded int64  `json:"refunded" jsonschema:"Sum refunded, minor unit."`
	Net      int64  `json:"net" jsonschema:"paid minus refunded."`
}

type analyticsOut struct {
	AsOf              time.Time      `json:"as_of" jsonschema:"The moment the figures describe (RFC 3339, UTC)."`
	MembersByRole     map[string]int `json:"members_by_role" jsonschema:"Members holding each role; a member with two roles counts under both."`
	Courses           int            `json:"courses"`
	PublishedCourses  int            `json:"published_courses"`
	Enrollments       int            `json:"enrollments" jsonschema:"Every enrollment, expired ones included."`
	ActiveEnrollments int            `json:"active_enrollments" jsonschema:"Enrollments that give access now."`
	CompletedLectures int            `json:"completed_lectures" jsonschema:"Lectures completed, summed over all members."`
	PaymentsByState   map[string]int `json:"payments_by_state" jsonschema:"Payment attempts by state as seen now."`
	Revenue           []revenue      `json:"revenue" jsonschema:"One entry per currency, by currency code."`
}

func operatorTools() []toolDef {
	return []toolDef{
		define(spec{
			name:        "admin_list_courses",
			title:       "All courses (operator)",
			description: "Lists every course of the school, drafts included, with price and publication state. Needs courses:read and an owner or admin role.",
			need:        operatorNeed("courses:read"),
			input:       paging,
		}, adminCourses),
		define(spec{
			name:  "admin_list_students",
			title: "Students and progress (operator)",
			description: "Lists the school's students with each enrollment's access and progress. Needs students:read and an " +
				"owner or admin role.",
			need:  operatorNeed("students:read"),
			input: paging,
		}, adminStudents),
		define(spec{
			name:  "admin_list_payments",
			title: "Payments (operator)",
			description: "Lists every payment attempt of the school, newest first, with its buyer. One entry is one attempt; " +
				"a retried checkout is another entry. Needs orders:read and an owner or admin role.",
			need:  operatorNeed("orders:read"),
			input: paging,
		}, adminPayments),
		define(spec{
			name:  "admin_analytics_summary",
			title: "Analytics summary (operator)",
			description: "Counts the school's members by role, courses, enrollments, completed lectures and payments by " +
				"state, and sums revenue per currency. Needs analytics:read and an owner or admin role.",
			need: operatorNeed("analytics:read"),
		}, adminAnalytics),
	}
}

func adminCourses(ctx context.Context, c *caller, in adminPageIn) (adminCoursesOut, error) {
	list, next, err := c.store.ListCourses(ctx, false, page(in.First, in.After))
	if err != nil {
		return adminCoursesOut{}, err
	}
	out := adminCoursesOut{Courses: make([]adminCourse, len(list)), nextPage: nextPage{next}}
	for i, co := range list {
		out.Courses[i] = adminCourse{
			ID: co.ID, Slug: co.Slug, Title: co.Title, Description: co.Description, Price: money{co.PriceAmount, co.Currency},
			Published: co.Published, CreatedAt: co.CreatedAt, UpdatedAt: co.UpdatedAt,
		}
	}
	return out, nil
}

func adminStudents(ctx context.Context, c *caller, in adminPageIn) (studentsOut, error) {
	list, next, err := c.store.ListStudents(ctx, page(in.First, in.After))
	if err != nil {
		return studentsOut{}, err
	}
	out := studentsOut{Students: make([]student, len(list)), nextPage: nextPage{next}}
	for i, s := range list {
		st := student{MemberID: s.Member.ID, Name: s.Member.Name, Email: s.Member.Email, Roles: []string{}, Enrollments: []studentEnrollment{}}
		for _, r := range s.Roles {
			st.Roles = append(st.Roles, string(r))
		}
		for _, e := range s.Enrollments {
			se := studentEnrollment{
				CourseSlug: e.CourseSlug, CourseTitle: e.CourseTitle, EnrolledAt: e.Enrollment.EnrolledAt,
				HasLifetimeAccess: e.Enrollment.LifetimeAccess, AccessActive: e.Enrollment.ActiveAt(c.now),
				ExpireDate: e.Enrollment.Expires(),
				Progress: newProgress(storage.CourseProgress{
					TotalLectures: e.TotalLectures, CompletedLectures: e.CompletedLectures, ReadLectures: e.ReadLectures,
				}),
				LastActivityAt: e.LastActivityAt,
			}
			st.Enrollments = append(st.Enrollments, se)
		}
		out.Students[i] = st
	}
	return out, nil
}

func adminPayments(ctx context.Context, c *caller, in adminPageIn) (ledgerOut, error) {
	list, next, err := c.store.ListPaymentLedger(ctx, c.now, page(in.First, in.After))
	if err != nil {
		return ledgerOut{}, err
	}
	out := ledgerOut{Payments: make([]ledgerPayment, len(list)), nextPage: nextPage{next}}
	for i, e := range list {
		out.Payments[i] = ledgerPayment{
			payment: newPayment(e.Payment),
			Buyer:   buyer{MemberID: e.Payment.MemberID, Email: e.BuyerEmail, Name: e.BuyerName},
		}
	}
	return out, nil
}

func adminAnalytics(ctx context.Context, c *caller, _ noInput) (analyticsOut, error) {
	s, err := c.store.GetSchoolStats(ctx, c.now)
	if err != nil {
		return analyticsOut{}, err
	}
	out := analyticsOut{
		AsOf: c.now.UTC(), MembersByRole: map[string]int{}, Courses: s.Courses, PublishedCourses: s.PublishedCourses,
		Enrollments: s.Enrollments, ActiveEnrollments: s.ActiveEnrollments, CompletedLectures: s.CompletedLectures,
		PaymentsByState: map[string]int{}, Revenue: []revenue{},
	}
	for role, n := range s.MembersByRole {
		out.MembersByRole[string(role)] = n
	}
	for state, n := range s.PaymentsByState {
		out.PaymentsByState[state] = n
	}
	for _, r := range s.Revenue {
		out.Revenue = append(out.Revenue, revenue{Currency: r.Currency, Paid: r.Paid, Refunded: r.Refunded, Net: r.Paid - r.Refunded})
	}
	sort.Slice(out.Revenue, func(i, j int) bool { return out.Revenue[i].Currency < out.Revenue[j].Currency })
	return out, nil
}
