package operator

import (
	"fmt"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/storage"
)

// TestRoundTrips writes through each family's operations and reads the result back through
// the API, so that every conversion between the wire types and the store's is exercised.
func TestRoundTrips(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		call := func(method, path string, body any, want int) []byte {
			t.Helper()
			status, _, raw := e.request(method, path, allScopes, body)
			if status != want {
				t.Fatalf("%s %s: %d, want %d\n%s", method, path, status, want, raw)
			}
			return raw
		}

		c := schools.DecodeJSON[Course](t, call(http.MethodPost, "/api/v1/courses", map[string]any{"slug": "go", "title": "Go", "price_amount": 100, "currency": "USD"}, 201))
		patched := schools.DecodeJSON[Course](t, call(http.MethodPatch, fmt.Sprintf("/api/v1/courses/%d", c.ID), map[string]any{"title": "Go 2", "published": true}, 200))
		if patched.Title != "Go 2" || !patched.Published || patched.Slug != "go" || patched.PriceAmount != 100 {
			t.Errorf("patched course: %+v", patched)
		}
		if got := schools.DecodeJSON[Course](t, call(http.MethodGet, fmt.Sprintf("/api/v1/courses/%d", c.ID), nil, 200)); got != patched {
			t.Errorf("course read back: %+v, want %+v", got, patched)
		}
		if drafts := schools.DecodeJSON[List[Course]](t, call(http.MethodGet, "/api/v1/courses?published=true", nil, 200)); len(drafts.Items) != 1 {
			t.Errorf("published courses: %+v", drafts)
		}
		section := schools.DecodeJSON[Section](t, call(http.MethodPost, fmt.Sprintf("/api/v1/courses/%d/sections", c.ID), map[string]any{"title": "S"}, 201))
		lecture := schools.DecodeJSON[Lecture](t, call(http.MethodPost, fmt.Sprintf("/api/v1/courses/%d/sections/%d/lectures", c.ID, section.ID),
			map[string]any{"title": "L", "duration_seconds": 60, "is_locked": true, "unlock_at": "2030-01-01T00:00:00Z"}, 201))
		if lecture.UnlockAt == nil || lecture.Position != 1 || lecture.SectionID != section.ID {
			t.Errorf("lecture: %+v", lecture)
		}

		// The owner is enrolled (every member with a role may be), then the figures show it.
		call(http.MethodPost, fmt.Sprintf("/api/v1/courses/%d/enrollments", c.ID), map[string]any{"member_id": e.owner}, 201)
		if _, err := e.store.UpdateLectureProgress(e.ctx, e.owner, lecture.ID, func(p storage.LectureProgress) (storage.LectureProgress, error) {
			p.State = storage.LectureCompleted
			return p, nil
		}); err != nil {
			t.Fatal(err)
		}
		stats := schools.DecodeJSON[List[CourseStats]](t, call(http.MethodGet, "/api/v1/analytics/courses", nil, 200))
		if len(stats.Items) != 1 || stats.Items[0].Enrollments != 1 || stats.Items[0].CompletedStudents != 1 || stats.Items[0].CompletionRate != 100 {
			t.Errorf("course stats: %+v", stats)
		}
		call(http.MethodGet, "/api/v1/analytics/revenue?from=2030-01-02T00:00:00Z&to=2030-01-01T00:00:00Z", nil, 422)

		members := schools.DecodeJSON[List[Member]](t, call(http.MethodGet, "/api/v1/members", nil, 200))
		if len(members.Items) != 1 || members.Items[0].Roles[0] != "owner" {
			t.Errorf("members: %+v", members)
		}

		school := schools.DecodeJSON[School](t, call(http.MethodPatch, "/api/v1/school", map[string]any{"timezone": "Asia/Tokyo", "contact_email": "hi@north.example"}, 200))
		if school.Settings.Timezone != "Asia/Tokyo" || school.Settings.ContactEmail != "hi@north.example" || school.Subdomain != e.tn.Subdomain {
			t.Errorf("school: %+v", school)
		}
		look := schools.DecodeJSON[Appearance](t, call(http.MethodPatch, "/api/v1/school/appearance", map[string]any{"theme": "light", "logo_url": "https://north.example/logo.png"}, 200))
		if look.Theme != "light" || look.LogoURL == "" {
			t.Errorf("appearance: %+v", look)
		}
		if again := schools.DecodeJSON[School](t, call(http.MethodGet, "/api/v1/school", nil, 200)); again.Settings != school.Settings {
			t.Errorf("settings after the appearance change: %+v", again.Settings)
		}

		ev := schools.DecodeJSON[Event](t, call(http.MethodPost, "/api/v1/events", map[string]any{"slug": "meetup", "title": "Meetup", "starts_at": "2030-01-01T10:00:00Z",
			"ends_at": "2030-01-01T12:00:00Z", "price_amount": 0, "currency": "USD", "capacity": 20}, 201))
		if regs := schools.DecodeJSON[List[Registration]](t, call(http.MethodGet, fmt.Sprintf("/api/v1/events/%d/registrations", ev.ID), nil, 200)); len(regs.Items) != 0 {
			t.Errorf("registrations of a new event: %+v", regs)
		}
		call(http.MethodGet, "/api/v1/events/999999/registrations", nil, 404)
		if evs := schools.DecodeJSON[List[Event]](t, call(http.MethodGet, "/api/v1/events", nil, 200)); len(evs.Items) != 1 || evs.Items[0] != ev {
			t.Errorf("events: %+v", evs)
		}

		plan := schools.DecodeJSON[MembershipPlan](t, call(http.MethodPost, "/api/v1/membership-plans", map[string]any{"slug": "monthly", "title": "M", "price_amount": 990, "currency": "USD", "interval": "month"}, 201))
		call(http.MethodPost, "/api/v1/membership-plans", map[string]any{"slug": "weekly", "title": "W", "price_amount": 1, "currency": "USD", "interval": "week"}, 422)
		if _, err := e.store.ImportSchoolData(e.ctx, &storage.SchoolData{Subscriptions: []storage.SubscriptionSeed{
			{Member: "owner@example.test", Plan: plan.Slug, State: "active", StartedAt: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), CurrentPeriodEnd: time.Date(2030, 2, 1, 0, 0, 0, 0, time.UTC)},
		}}, storage.ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		subs := schools.DecodeJSON[List[Subscription]](t, call(http.MethodGet, "/api/v1/subscriptions", nil, 200))
		if len(subs.Items) != 1 {
			t.Fatalf("subscriptions: %+v", subs)
		}
		sub := schools.DecodeJSON[Subscription](t, call(http.MethodPatch, fmt.Sprintf("/api/v1/subscriptions/%d", subs.Items[0].ID), map[string]any{"state": "canceled"}, 200))
		if sub.State != "canceled" || sub.PlanID != plan.ID {
			t.Errorf("subscription: %+v", sub)
		}
		call(http.MethodPatch, fmt.Sprintf("/api/v1/subscriptions/%d", sub.ID), map[string]any{"current_period_end": "2020-01-01T00:00:00Z"}, 422)
		if active := schools.DecodeJSON[List[Subscription]](t, call(http.MethodGet, "/api/v1/subscriptions?state=active", nil, 200)); len(active.Items) != 0 {
			t.Errorf("active subscriptions: %+v", active)
		}

		coupon := schools.DecodeJSON[Coupon](t, call(http.MethodPost, "/api/v1/coupons", map[string]any{"code": "FLAT5", "title": "Flat", "amount_off": 500, "currency": "USD"}, 201))
		call(http.MethodPost, "/api/v1/coupons", map[string]any{"code": "FLAT6", "title": "Flat", "amount_off": 500}, 422)
		call(http.MethodPost, "/api/v1/coupons", map[string]any{"code": "FLAT5", "title": "Again", "percent_off": 5}, 409)
		if cs := schools.DecodeJSON[List[Coupon]](t, call(http.MethodGet, "/api/v1/coupons", nil, 200)); len(cs.Items) != 1 || cs.Items[0] != coupon {
			t.Errorf("coupons: %+v", cs)
		}

		product := schools.DecodeJSON[DigitalProduct](t, call(http.MethodPost, "/api/v1/digital-products", map[string]any{"slug": "pdf", "title": "PDF", "price_amount": 500, "currency": "USD"}, 201))
		if ps := schools.DecodeJSON[List[DigitalProduct]](t, call(http.MethodGet, "/api/v1/digital-products", nil, 200)); len(ps.Items) != 1 || ps.Items[0] != product {
			t.Errorf("digital products: %+v", ps)
		}

		post := schools.DecodeJSON[CreatedPost](t, call(http.MethodPost, "/api/v1/posts", map[string]any{"title": "Hi", "body": "All", "notify": true}, 201))
		if post.Notified != 1 || post.AuthorMemberID == nil || *post.AuthorMemberID != e.owner || post.Key == "" {
			t.Errorf("post: %+v", post)
		}
		call(http.MethodPost, "/api/v1/posts", map[string]any{"key": post.Key, "title": "Again", "body": "x"}, 409)
		call(http.MethodPost, "/api/v1/posts", map[string]any{"title": "Lost", "body": "x", "course_id": 999999}, 404)
		if ps := schools.DecodeJSON[List[Post]](t, call(http.MethodGet, "/api/v1/posts", nil, 200)); len(ps.Items) != 1 || !reflect.DeepEqual(ps.Items[0], post.Post) {
			t.Errorf("posts: %+v", ps)
		}
		if cs := schools.DecodeJSON[List[Comment]](t, call(http.MethodGet, fmt.Sprintf("/api/v1/comments?lecture_id=%d", lecture.ID), nil, 200)); len(cs.Items) != 0 {
			t.Errorf("comments: %+v", cs)
		}

		lecturer := schools.DecodeJSON[Lecturer](t, call(http.MethodPost, "/api/v1/lecturers", map[string]any{"slug": "ada", "name": "Ada", "member_id": e.owner, "course_ids": []int64{c.ID}}, 201))
		call(http.MethodPost, "/api/v1/lecturers", map[string]any{"slug": "bob", "name": "Bob", "course_ids": []int64{999999}}, 404)
		if ls := schools.DecodeJSON[List[Lecturer]](t, call(http.MethodGet, "/api/v1/lecturers", nil, 200)); len(ls.Items) != 1 || len(ls.Items[0].CourseIDs) != 1 || ls.Items[0].CourseIDs[0] != c.ID || *ls.Items[0].MemberID != *lecturer.MemberID {
			t.Errorf("lecturers: %+v", ls)
		}

		page := schools.DecodeJSON[Page](t, call(http.MethodPost, "/api/v1/pages", map[string]any{"slug": "about", "title": "About", "body": "Us"}, 201))
		page = schools.DecodeJSON[Page](t, call(http.MethodPatch, fmt.Sprintf("/api/v1/pages/%d", page.ID), map[string]any{"published": true}, 200))
		if ps := schools.DecodeJSON[List[Page]](t, call(http.MethodGet, "/api/v1/pages", nil, 200)); len(ps.Items) != 1 || ps.Items[0] != page || !page.Published {
			t.Errorf("pages: %+v", ps)
		}

		if _, err := e.store.ImportSchoolData(e.ctx, &storage.SchoolData{
			Forms:           []storage.FormSeed{{Slug: "contact", Title: "Contact", Fields: []storage.FormField{{Name: "email", Label: "E-mail", Type: "email", Required: true}}}},
			FormSubmissions: []storage.FormSubmissionSeed{{Key: "s1", Form: "contact", Member: "owner@example.test", Data: map[string]string{"email": "x@example.test"}, SubmittedAt: time.Now()}},
			Payments: []storage.PaymentSeed{{TradeNo: "T-1", Member: "owner@example.test", Amount: 4900, Currency: "USD", PaymentType: "card",
				CreatedAt: time.Now().Add(-time.Hour), PaymentStatus: storage.PaymentStatus{PaymentState: storage.PaymentPaid, PaidAt: ptrTo(time.Now().Add(-time.Hour))},
				LineItems: []storage.PaymentLineItem{{Kind: storage.ItemCourse, Ref: "go", Title: "Go", Quantity: 1, UnitAmount: 4900}}}},
		}, storage.ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		forms := schools.DecodeJSON[List[Form]](t, call(http.MethodGet, "/api/v1/forms", nil, 200))
		if len(forms.Items) != 1 || !forms.Items[0].Fields[0].Required {
			t.Fatalf("forms: %+v", forms)
		}
		subsOfForm := schools.DecodeJSON[List[FormSubmission]](t, call(http.MethodGet, fmt.Sprintf("/api/v1/forms/%d/submissions", forms.Items[0].ID), nil, 200))
		if len(subsOfForm.Items) != 1 || subsOfForm.Items[0].Data["email"] != "x@example.test" || *subsOfForm.Items[0].MemberID != e.owner {
			t.Errorf("form submissions: %+v", subsOfForm)
		}
		payments := schools.DecodeJSON[List[Payment]](t, call(http.MethodGet, "/api/v1/payments?state=paid", nil, 200))
		if len(payments.Items) != 1 || payments.Items[0].TradeNo != "T-1" || len(payments.Items[0].LineItems) != 1 {
			t.Fatalf("payments: %+v", payments)
		}
		if p := schools.DecodeJSON[Payment](t, call(http.MethodGet, fmt.Sprintf("/api/v1/payments/%d", payments.Items[0].ID), nil, 200)); p.Amount != 4900 || p.Adjustments == nil {
			t.Errorf("payment: %+v", p)
		}
		revenue := schools.DecodeJSON[RevenueReport](t, call(http.MethodGet, "/api/v1/analytics/revenue", nil, 200))
		if len(revenue.Currencies) != 1 || revenue.Currencies[0].Net != 4900 {
			t.Errorf("revenue: %+v", revenue)
		}

		call(http.MethodDelete, fmt.Sprintf("/api/v1/courses/%d/enrollments/%d", c.ID, e.owner), nil, 204)
		call(http.MethodDelete, fmt.Sprintf("/api/v1/courses/%d/enrollments/%d", c.ID, e.owner), nil, 404)
	})
}

func ptrTo[T any](v T) *T { return &v }
