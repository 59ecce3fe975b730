package operator

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/storage"
)

// FuzzWriteOperations sends arbitrary bodies to the write operations other than course creation
// (FuzzCreateCourse has that one): school settings and appearance, events, coupons, membership
// plans, sections, and a member's roles. Whatever the body, the answer is never a server error.
func FuzzWriteOperations(f *testing.F) {
	e := newEnv(f, "sqlite")
	course, err := e.store.CreateCourse(e.ctx, storage.Course{Offer: storage.Offer{Slug: "fuzz", Title: "Fuzz", Currency: "USD"}})
	if err != nil {
		f.Fatal(err)
	}
	student := schools.Member(f, e.store, "student@example.test", "Student", schools.At(e.tn, storage.RoleStudent))
	ops := []struct{ method, path string }{
		{http.MethodPatch, "/api/v1/school"},
		{http.MethodPatch, "/api/v1/school/appearance"},
		{http.MethodPost, "/api/v1/events"},
		{http.MethodPost, "/api/v1/coupons"},
		{http.MethodPost, "/api/v1/membership-plans"},
		{http.MethodPost, fmt.Sprintf("/api/v1/courses/%d/sections", course.ID)},
		// The student's roles: the owner's own could lock the token out of every later call.
		{http.MethodPut, fmt.Sprintf("/api/v1/members/%d/roles", student.ID)},
	}
	for _, seed := range []struct {
		op   uint8
		body string
	}{
		{0, `{"timezone":"Asia/Tokyo","contact_email":"hi@north.example","currency":"JPY","locale":"ja-JP"}`},
		{0, `{"timezone":"Mars/Olympus"}`},
		{0, `{"description":null,"locale":"x"}`},
		{1, `{"theme":"dark","primary_color":"#112233","logo_url":"https://north.example/logo.png"}`},
		{1, `{"logo_url":"http://x.example/logo.png","primary_color":"red"}`},
		{2, `{"slug":"meetup","title":"Meetup","starts_at":"2030-01-01T10:00:00Z","ends_at":"2030-01-01T12:00:00Z","price_amount":0,"currency":"USD"}`},
		{2, `{"slug":"late","title":"Late","starts_at":"2030-01-01T10:00:00Z","ends_at":"2029-01-01T12:00:00Z","price_amount":0,"currency":"USD"}`},
		{2, `{"slug":"t","title":"T","starts_at":"0001-01-01T00:00:00Z","ends_at":"9999-12-31T23:59:59Z","price_amount":1e30,"currency":"USD","capacity":-1}`},
		{3, `{"code":"TENOFF","title":"Ten off","percent_off":10}`},
		{3, `{"code":"BOTH","title":"B","percent_off":5,"amount_off":100,"currency":"USD"}`},
		{3, `{"code":"AMT","title":"A","amount_off":100,"expires_at":"2030-01-01T00:00:00Z","max_redemptions":-5}`},
		{4, `{"slug":"monthly","title":"M","price_amount":990,"currency":"USD","interval":"month"}`},
		{4, `{"slug":"weekly","title":"W","price_amount":990,"currency":"USD","interval":"week"}`},
		{5, `{"title":"Start"}`},
		{5, `{"title":""}`},
		{6, `{"roles":["lecturer","student"]}`},
		{6, `{"roles":["owner"]}`},
		{6, `{"roles":["wizard","wizard"]}`},
		{6, `{"roles":[]}`},
		{0, `[]`}, {2, `"x"`}, {3, `{`}, {4, ``}, {5, `null`}, {6, `{"roles":null}`},
	} {
		f.Add(seed.op, []byte(seed.body))
	}
	f.Fuzz(func(t *testing.T, op uint8, body []byte) {
		e := *e
		e.t = t
		i := int(op) % len(ops)
		o := ops[i]
		if i == len(ops)-1 {
			// An empty list removes the student from the school, and every later call on it
			// would be a plain 404: give the role back first.
			if err := e.store.SetRoles(e.ctx, student.ID, []storage.Role{storage.RoleStudent}); err != nil {
				t.Fatal(err)
			}
		}
		status, _, resp := e.request(o.method, o.path, allScopes, body)
		if status >= 500 {
			t.Fatalf("%s %s with %q: status %d: %s", o.method, o.path, body, status, resp)
		}
	})
}
