package graphql_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/conformance"
)

// curriculumQuery is a member's whole curriculum with progress, one page of 20 courses.
const curriculumQuery = `{ viewer { enrolledCourses(first: 20) { nodes {
  slug expireDate hasLifetimeAccess
  lastWatchedLecture { lectureId positionSeconds }
  detailProgress { completedLectures totalLectures percent }
  sections { title lectures { title state isLocked unlockAt duration } }
} pageInfo { hasNextPage endCursor } } } }`

const busy = "busy@example.test"

// largeMember is conformance.LargeSchoolData's member with 20 courses of 10 sections of 20
// lectures (200 lectures each, 4000 in all, every one with progress), a consulting service and
// 50 payments.
func largeMember(courses, sections, lectures, payments int) *storage.SchoolData {
	d := conformance.LargeSchoolData(courses, sections, lectures)
	d.ConsultingServices = []storage.ConsultingServiceSeed{{
		OfferSeed: storage.OfferSeed{Slug: "office-hours", Title: "Office hours", Currency: "USD"}, DurationMinutes: 30, Courses: []string{"course-00"},
		Slots:    []storage.SlotSeed{{Weekday: 1, StartTime: "09:00", DurationMinutes: 60, TimeZone: "UTC"}},
		Meetings: []storage.MeetingSeed{{Member: busy, StartsAt: future, EndsAt: future.Add(30 * time.Minute)}},
	}}
	for i := range payments {
		d.Payments = append(d.Payments, storage.PaymentSeed{
			TradeNo: fmt.Sprintf("L-%04d", i), Member: busy, Amount: 100, Currency: "USD", PaymentType: "credit_card",
			CreatedAt: day(past, i), PaymentStatus: storage.PaymentStatus{PaymentState: storage.PaymentPaid},
			LineItems: []storage.PaymentLineItem{{Kind: storage.ItemCourse, Ref: "course-00", Title: "C", Quantity: 1, UnitAmount: 100}},
		})
	}
	return d
}

// TestStatementCount: the statements a request sends do not grow with the courses, sections,
// lectures or payments it returns. The same queries run for a member with 20 courses of 200
// lectures and 50 payments (school A) and for one with a single one-lecture course and one
// payment (school B), each twice, and must cost the same, small number of statements. The first
// request for a page of courses also reads their curricula into the store's cache (sections and
// lectures, two statements); every request, the first included, checks the curricula's versions
// (one statement per read that needs them: the curricula, and the progress summary for their
// lecture counts).
func TestStatementCount(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		e.Seed(e.A, largeMember(20, 10, 20, 50))
		e.Seed(e.B, largeMember(1, 1, 1, 1))
		stmts := e.Store.CountStatements()

		count := func(tn *school.School, query string) (int64, *response) {
			t.Helper()
			token := e.Token(tn, busy, readScope)
			stmts.Reset()
			r := e.post(tn, token, query, nil)
			if len(r.Errors) != 0 {
				t.Fatalf("%s", r.raw)
			}
			return stmts.Count(), r
		}
		// In this order: the first query is the first to read the curricula.
		for _, tc := range []struct {
			name         string
			query        string
			first, again int64
		}{
			// The token pair; the page of enrollments with their courses; the curricula's
			// versions (then, the first time, sections and lectures); the progress rows; the
			// versions again and the progress summary.
			{"curriculum", curriculumQuery, 8, 6},
			// The token pair; the page of payments.
			{"payments", `{ viewer { payments(first: 50) { nodes { tradeNo amount lineitems { kind } invoice { number } adjustments { amount } } } } }`, 2, 2},
			// Every list the viewer has, each page in one statement, plus the member, the
			// curricula (cached by now), progress rows, progress summary and consulting
			// schedules.
			{"everything", everything, 17, 17},
		} {
			for round, want := range []int64{tc.first, tc.again} {
				large, r := count(e.A, tc.query)
				small, _ := count(e.B, tc.query)
				if large != small || large != want {
					t.Errorf("%s, request %d: %d statements for the large member, %d for the small one; want %d for both",
						tc.name, round+1, large, small, want)
				}
				if tc.name == "curriculum" && len(r.raw) < 4000*40 {
					t.Errorf("curriculum answer is %d bytes: not the whole 4000 lectures?", len(r.raw))
				}
			}
		}
	})
}
