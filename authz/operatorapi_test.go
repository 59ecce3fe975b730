package authz_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/proctorhq/proctor/resource/resourcetest"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/scope"
	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/storage"
)

// opsAll is an operator client that may be granted every operator scope; each test asks for
// the scopes it needs.
const opsAll = "ops-all"

// operatorToken runs the browser flow (login, consent, code exchange) for the operator client
// at school A as email, asking for scopes, and returns the access token.
func (e *env) operatorToken(email string, scopes ...string) string {
	e.t.Helper()
	if _, err := e.store.GetClient(e.ctx(e.a), opsAll); err != nil {
		e.mustClient(e.a, storage.Client{ID: opsAll, Kind: storage.ClientOperator, Name: "Ops Console", TokenEndpointAuthMethod: storage.AuthMethodNone,
			RedirectURIs: []string{redirectURI}, Scopes: append([]string{"openid"}, scope.NamesFor(scope.Operator)...)})
	}
	code, p := e.Code(e.a, email, oauthClient(opsAll), scopes...)
	res, tr := e.Exchange(e.a, oauthClient(opsAll), code, p)
	if res.Status != http.StatusOK || tr.AccessToken == "" {
		e.t.Fatalf("exchange for %v: %d %+v", scopes, res.Status, tr)
	}
	return tr.AccessToken
}

// call sends a request to school t's operator API. A body that is not []byte is sent as JSON;
// contentType overrides the JSON content type.
func (e *env) call(t *school.School, method, path, token string, body any, contentType ...string) (int, http.Header, []byte) {
	e.t.Helper()
	r := schools.RequestBody(e.t, body)
	var header []string
	if body != nil {
		header = []string{"Content-Type", "application/json"}
		if len(contentType) > 0 {
			header[1] = contentType[0]
		}
	}
	return resourcetest.Send(e.t, method, e.url(t, path), token, r, header...)
}

// mustCall is call expecting the given status; it decodes the JSON answer into out (if not nil).
func (e *env) mustCall(method, path, token string, body any, want int, out any) {
	e.t.Helper()
	status, _, raw := e.call(e.a, method, path, token, body)
	if status != want {
		e.t.Fatalf("%s %s: %d, want %d\n%s", method, path, status, want, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			e.t.Fatalf("%s %s: %v\n%s", method, path, err, raw)
		}
	}
}

func (e *env) memberID(email string) int64 {
	e.t.Helper()
	return schools.MemberByEmail(e.t, e.store, email).ID
}

// TestOperatorAPICourseFlow is the operator API's whole story: an operator client authorized
// through the browser flow builds a course with its curriculum, enrolls a student, reads the
// student's progress, announces the course to its students (who find it in their Member API
// inbox) and removes the student again.
func TestOperatorAPICourseFlow(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		token := e.operatorToken(operatorEmail, "openid", "courses:write", "curriculum:write", "curriculum:read",
			"students:write", "students:read", "posts:write")

		var course struct {
			ID   int64  `json:"id"`
			Slug string `json:"slug"`
		}
		e.mustCall(http.MethodPost, "/api/v1/courses", token,
			map[string]any{"slug": "intro-go", "title": "Intro to Go", "price_amount": 4900, "currency": "USD", "published": true},
			http.StatusCreated, &course)
		var section struct{ ID int64 }
		e.mustCall(http.MethodPost, fmt.Sprintf("/api/v1/courses/%d/sections", course.ID), token, map[string]any{"title": "Basics"}, http.StatusCreated, &section)
		var lectures [2]struct {
			ID       int64
			Position int
		}
		for i, title := range []string{"Hello", "Types"} {
			e.mustCall(http.MethodPost, fmt.Sprintf("/api/v1/courses/%d/sections/%d/lectures", course.ID, section.ID), token,
				map[string]any{"title": title, "duration_seconds": 300}, http.StatusCreated, &lectures[i])
		}
		if lectures[0].Position != 1 || lectures[1].Position != 2 {
			t.Errorf("lecture positions %+v", lectures)
		}
		var curriculum struct {
			Sections []struct {
				Title    string
				Lectures []struct{ Title string }
			}
		}
		e.mustCall(http.MethodGet, fmt.Sprintf("/api/v1/courses/%d/curriculum", course.ID), token, nil, http.StatusOK, &curriculum)
		if len(curriculum.Sections) != 1 || len(curriculum.Sections[0].Lectures) != 2 || curriculum.Sections[0].Lectures[1].Title != "Types" {
			t.Fatalf("curriculum: %+v", curriculum)
		}

		student := e.memberID(studentEmail)
		var enrollment struct {
			Member struct{ Email string }
		}
		e.mustCall(http.MethodPost, fmt.Sprintf("/api/v1/courses/%d/enrollments", course.ID), token,
			map[string]any{"member_id": student, "lifetime_access": true}, http.StatusCreated, &enrollment)
		if enrollment.Member.Email != studentEmail {
			t.Errorf("enrollment: %+v", enrollment)
		}
		// The student works through the first lecture (their own client records it).
		if _, err := e.store.UpdateLectureProgress(e.ctx(e.a), student, lectures[0].ID, func(p storage.LectureProgress) (storage.LectureProgress, error) {
			p.State, p.PositionSeconds = storage.LectureCompleted, 300
			return p, nil
		}); err != nil {
			t.Fatal(err)
		}
		var progress struct {
			TotalLectures     int `json:"total_lectures"`
			CompletedLectures int `json:"completed_lectures"`
			PercentComplete   int `json:"percent_complete"`
			LastWatched       struct {
				LectureID int64 `json:"lecture_id"`
			} `json:"last_watched"`
			Lectures []struct{ State string }
		}
		progressPath := fmt.Sprintf("/api/v1/courses/%d/enrollments/%d/progress", course.ID, student)
		e.mustCall(http.MethodGet, progressPath, token, nil, http.StatusOK, &progress)
		if progress.TotalLectures != 2 || progress.CompletedLectures != 1 || progress.PercentComplete != 50 ||
			progress.LastWatched.LectureID != lectures[0].ID || len(progress.Lectures) != 2 ||
			progress.Lectures[0].State != "completed" || progress.Lectures[1].State != "unread" {
			t.Errorf("progress: %+v", progress)
		}
		var students struct {
			Items []struct{ Member struct{ ID int64 } }
		}
		e.mustCall(http.MethodGet, fmt.Sprintf("/api/v1/courses/%d/enrollments", course.ID), token, nil, http.StatusOK, &students)
		if len(students.Items) != 1 || students.Items[0].Member.ID != student {
			t.Errorf("enrollments: %+v", students)
		}

		// A post to the course notifies its student, whose Member API inbox shows it.
		var post struct{ Notified int }
		e.mustCall(http.MethodPost, "/api/v1/posts", token,
			map[string]any{"title": "Welcome to Intro to Go", "body": "Start with Hello.", "course_id": course.ID, "notify": true},
			http.StatusCreated, &post)
		if post.Notified != 1 {
			t.Errorf("post notified %d members, want 1", post.Notified)
		}
		member := e.tokens("account:read")
		gql, _ := json.Marshal(map[string]string{"query": "{ viewer { unreadNotificationCount notifications(first: 5) { nodes { kind title } } } }"})
		status, _, raw := e.call(e.a, http.MethodPost, "/member/graphql", member.AccessToken, gql)
		if status != http.StatusOK || !strings.Contains(string(raw), `"title":"Welcome to Intro to Go"`) || !strings.Contains(string(raw), `"kind":"post"`) {
			t.Errorf("the student's inbox: %d %s", status, raw)
		}

		e.mustCall(http.MethodDelete, fmt.Sprintf("/api/v1/courses/%d/enrollments/%d", course.ID, student), token, nil, http.StatusNoContent, nil)
		e.mustCall(http.MethodGet, progressPath, token, nil, http.StatusNotFound, nil)
	})
}

// scopeCase is one operation that a scope gates, with what it needs to succeed.
type scopeCase struct {
	scope, method, path string
	body                func(n int) any // n makes created slugs unique
	contentType         string
}

// TestOperatorAPIScopes calls, for every operator scope of the catalogue, one operation it
// gates: with a token holding every other operator scope the answer is 403 naming the scope;
// with a token holding only that scope it succeeds.
func TestOperatorAPIScopes(t *testing.T) {
	// Uploads land in the storage directory the server derives from the database settings
	// (relative by default): keep them in a temporary directory.
	t.Chdir(t.TempDir())
	eachBackend(t, func(t *testing.T, e *env) {
		ids := seedOperatorData(t, e)
		cases := []scopeCase{
			{scope: "courses:read", method: "GET", path: "/api/v1/courses"},
			{scope: "courses:write", method: "POST", path: "/api/v1/courses", body: func(n int) any {
				return map[string]any{"slug": fmt.Sprintf("new-%d", n), "title": "New", "price_amount": 0, "currency": "USD"}
			}},
			{scope: "students:read", method: "GET", path: fmt.Sprintf("/api/v1/courses/%d/enrollments", ids.course)},
			{scope: "students:write", method: "POST", path: fmt.Sprintf("/api/v1/courses/%d/enrollments", ids.course), body: func(int) any {
				return map[string]any{"member_id": ids.operator}
			}},
			{scope: "members:read", method: "GET", path: "/api/v1/members"},
			{scope: "members:write", method: "PUT", path: fmt.Sprintf("/api/v1/members/%d/roles", ids.student), body: func(int) any {
				return map[string]any{"roles": []string{"student", "lecturer"}}
			}},
			{scope: "analytics:read", method: "GET", path: "/api/v1/analytics/revenue"},
			{scope: "curriculum:read", method: "GET", path: fmt.Sprintf("/api/v1/courses/%d/curriculum", ids.course)},
			{scope: "curriculum:write", method: "POST", path: fmt.Sprintf("/api/v1/courses/%d/sections", ids.course), body: func(int) any {
				return map[string]any{"title": "More"}
			}},
			{scope: "orders:read", method: "GET", path: "/api/v1/payments"},
			{scope: "school:read", method: "GET", path: "/api/v1/school"},
			{scope: "school:write", method: "PATCH", path: "/api/v1/school", body: func(int) any {
				return map[string]any{"timezone": "Europe/Berlin", "currency": "EUR"}
			}},
			{scope: "appearance:read", method: "GET", path: "/api/v1/school/appearance"},
			{scope: "appearance:write", method: "PATCH", path: "/api/v1/school/appearance", body: func(int) any {
				return map[string]any{"primary_color": "#fb923c", "theme": "dark"}
			}},
			{scope: "events:read", method: "GET", path: fmt.Sprintf("/api/v1/events/%d/registrations", ids.event)},
			{scope: "events:write", method: "POST", path: "/api/v1/events", body: func(n int) any {
				return map[string]any{"slug": fmt.Sprintf("event-%d", n), "title": "Event", "starts_at": "2030-01-01T10:00:00Z",
					"ends_at": "2030-01-01T12:00:00Z", "price_amount": 0, "currency": "USD"}
			}},
			{scope: "membership_plans:read", method: "GET", path: "/api/v1/membership-plans"},
			{scope: "membership_plans:write", method: "POST", path: "/api/v1/membership-plans", body: func(n int) any {
				return map[string]any{"slug": fmt.Sprintf("plan-%d", n), "title": "Plan", "price_amount": 990, "currency": "USD", "interval": "month"}
			}},
			{scope: "coupons:read", method: "GET", path: "/api/v1/coupons"},
			{scope: "coupons:write", method: "POST", path: "/api/v1/coupons", body: func(n int) any {
				return map[string]any{"code": fmt.Sprintf("SAVE%d", n), "title": "Save", "percent_off": 10}
			}},
			{scope: "posts:read", method: "GET", path: "/api/v1/posts"},
			{scope: "posts:write", method: "POST", path: "/api/v1/posts", body: func(int) any {
				return map[string]any{"title": "News", "body": "Hello", "notify": true}
			}},
			{scope: "subscriptions:read", method: "GET", path: "/api/v1/subscriptions?state=active"},
			{scope: "subscriptions:write", method: "PATCH", path: fmt.Sprintf("/api/v1/subscriptions/%d", ids.subscription), body: func(int) any {
				return map[string]any{"state": "past_due"}
			}},
			{scope: "digital_products:read", method: "GET", path: "/api/v1/digital-products"},
			{scope: "digital_products:write", method: "POST", path: "/api/v1/digital-products", body: func(n int) any {
				return map[string]any{"slug": fmt.Sprintf("pdf-%d", n), "title": "PDF", "price_amount": 500, "currency": "USD"}
			}},
			{scope: "comments:read", method: "GET", path: "/api/v1/comments"},
			{scope: "lecturers:read", method: "GET", path: "/api/v1/lecturers"},
			{scope: "lecturers:write", method: "POST", path: "/api/v1/lecturers", body: func(n int) any {
				return map[string]any{"slug": fmt.Sprintf("lecturer-%d", n), "name": "Lecturer", "course_ids": []int64{ids.course}}
			}},
			{scope: "storage:write", method: "POST", path: "/api/v1/files?name=logo.png", contentType: "image/png", body: func(int) any {
				return append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 24)...)
			}},
			{scope: "forms:read", method: "GET", path: fmt.Sprintf("/api/v1/forms/%d/submissions", ids.form)},
			{scope: "pages:read", method: "GET", path: "/api/v1/pages"},
			{scope: "pages:write", method: "POST", path: "/api/v1/pages", body: func(n int) any {
				return map[string]any{"slug": fmt.Sprintf("page-%d", n), "title": "Page", "body": "Text"}
			}},
		}
		covered := map[string]bool{}
		for _, c := range cases {
			covered[c.scope] = true
		}
		for _, s := range scope.NamesFor(scope.Operator) {
			if !covered[s] {
				t.Errorf("no case for scope %s", s)
			}
		}
		all := scope.NamesFor(scope.Operator)
		for n, c := range cases {
			t.Run(c.scope, func(t *testing.T) {
				var body any
				if c.body != nil {
					body = c.body(n)
				}
				others := slices.DeleteFunc(slices.Clone(all), func(s string) bool { return s == c.scope })
				without := e.operatorToken(operatorEmail, others...)
				status, h, raw := e.call(e.a, c.method, c.path, without, body, c.contentType)
				challenge := h.Get("WWW-Authenticate")
				if status != http.StatusForbidden || !strings.Contains(challenge, `error="insufficient_scope"`) || !strings.Contains(challenge, `scope="`+c.scope+`"`) {
					t.Errorf("without %s: %d %q %s", c.scope, status, challenge, raw)
				}
				with := e.operatorToken(operatorEmail, c.scope)
				status, _, raw = e.call(e.a, c.method, c.path, with, body, c.contentType)
				if status < 200 || status > 299 {
					t.Errorf("with %s: %d %s", c.scope, status, raw)
				}
			})
		}
	})
}

// operatorIDs are the rows seedOperatorData made, by what the scope cases need.
type operatorIDs struct {
	course, event, subscription, form int64
	operator, student                 int64
}

// seedOperatorData gives school A one of each thing the scope cases read or change.
func seedOperatorData(t *testing.T, e *env) operatorIDs {
	t.Helper()
	ctx := e.ctx(e.a)
	_, err := e.store.ImportSchoolData(ctx, &storage.SchoolData{
		Courses: []storage.CourseSeed{{OfferSeed: storage.OfferSeed{Slug: "seeded", Title: "Seeded", Currency: "USD"}, Published: true,
			Sections: []storage.SectionSeed{{Title: "One", Lectures: []storage.LectureSeed{{Title: "L1", DurationSeconds: 60}}}}}},
		Events: []storage.EventSeed{{OfferSeed: storage.OfferSeed{Slug: "meetup", Title: "Meetup", Currency: "USD"}, StartsAt: seedTime(1), EndsAt: seedTime(2)}},
		EventRegistrations: []storage.EventRegistrationSeed{
			{Member: studentEmail, Event: "meetup", Status: "registered", RegisteredAt: seedTime(0)},
		},
		MembershipPlans: []storage.MembershipPlanSeed{{OfferSeed: storage.OfferSeed{Slug: "monthly", Title: "Monthly", PriceAmount: 990, Currency: "USD"}, Interval: "month"}},
		Subscriptions:   []storage.SubscriptionSeed{{Member: studentEmail, Plan: "monthly", State: "active", StartedAt: seedTime(0), CurrentPeriodEnd: seedTime(30 * 24)}},
		Forms:           []storage.FormSeed{{Slug: "contact", Title: "Contact", Fields: []storage.FormField{{Name: "email", Label: "E-mail", Type: "email"}}}},
		FormSubmissions: []storage.FormSubmissionSeed{{Key: "s1", Form: "contact", Data: map[string]string{"email": "x@example.test"}, SubmittedAt: seedTime(3)}},
	}, storage.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var ids operatorIDs
	c, err := e.store.GetCourseBySlug(ctx, "seeded")
	if err != nil {
		t.Fatal(err)
	}
	ids.course = c.ID
	events, _, _ := e.store.ListEvents(ctx, storage.Page{})
	subs, _, _ := e.store.ListSubscriptions(ctx, "", storage.Page{})
	forms, _, _ := e.store.ListForms(ctx, storage.Page{})
	if len(events) != 1 || len(subs) != 1 || len(forms) != 1 {
		t.Fatalf("seeded %d events, %d subscriptions, %d forms", len(events), len(subs), len(forms))
	}
	ids.event, ids.subscription, ids.form = events[0].ID, subs[0].ID, forms[0].ID
	ids.operator, ids.student = e.memberID(operatorEmail), e.memberID(studentEmail)
	return ids
}

// TestOperatorAPIRoles checks the per-request role check: a token keeps its scopes, but its
// user must still be an owner or admin of the school when it is used.
func TestOperatorAPIRoles(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		ctx := e.ctx(e.a)
		refused := func(what, token string) {
			t.Helper()
			status, h, raw := e.call(e.a, http.MethodGet, "/api/v1/courses", token, nil)
			challenge := h.Get("WWW-Authenticate")
			if status != http.StatusForbidden || !strings.Contains(challenge, `error="insufficient_scope"`) || strings.Contains(challenge, "scope=") {
				t.Errorf("%s: %d %q %s", what, status, challenge, raw)
			}
		}
		allowed := func(what, token string) {
			t.Helper()
			if status, _, raw := e.call(e.a, http.MethodGet, "/api/v1/courses", token, nil); status != http.StatusOK {
				t.Errorf("%s: %d %s", what, status, raw)
			}
		}

		// The owner's token works until the owner is demoted, and again once restored.
		owner := e.memberID(operatorEmail)
		ownerToken := e.operatorToken(operatorEmail, "courses:read")
		allowed("owner", ownerToken)
		if err := e.store.SetRoles(ctx, owner, []storage.Role{storage.RoleStudent}); err != nil {
			t.Fatal(err)
		}
		refused("owner demoted to student", ownerToken)
		if err := e.store.SetRoles(ctx, owner, []storage.Role{storage.RoleOwner}); err != nil {
			t.Fatal(err)
		}
		allowed("owner restored", ownerToken)

		// A student made admin for a while: their token stops working once they are a student
		// only, and once they have no role at all.
		student := e.memberID(studentEmail)
		if err := e.store.SetRoles(ctx, student, []storage.Role{storage.RoleAdmin, storage.RoleStudent}); err != nil {
			t.Fatal(err)
		}
		studentToken := e.operatorToken(studentEmail, "courses:read")
		allowed("admin", studentToken)
		if err := e.store.SetRoles(ctx, student, []storage.Role{storage.RoleStudent}); err != nil {
			t.Fatal(err)
		}
		refused("student-only user", studentToken)
		if err := e.store.SetRoles(ctx, student, nil); err != nil {
			t.Fatal(err)
		}
		refused("user without a role", studentToken)
		if err := e.store.SetRoles(ctx, student, []storage.Role{storage.RoleStudent}); err != nil {
			t.Fatal(err)
		}

		// A member client's token carries no operator scope.
		member := e.tokens("account:read")
		status, h, _ := e.call(e.a, http.MethodGet, "/api/v1/courses", member.AccessToken, nil)
		if status != http.StatusForbidden || !strings.Contains(h.Get("WWW-Authenticate"), `scope="courses:read"`) {
			t.Errorf("member token: %d %q", status, h.Get("WWW-Authenticate"))
		}
		// No token, and school A's token at school B.
		for what, tc := range map[string]struct {
			t     *school.School
			token string
		}{"no token": {e.a, ""}, "another school's token": {e.b, ownerToken}, "garbage": {e.a, "not-a-token"}} {
			status, h, _ := e.call(tc.t, http.MethodGet, "/api/v1/courses", tc.token, nil)
			if status != http.StatusUnauthorized || !strings.Contains(h.Get("WWW-Authenticate"), `error="invalid_token"`) ||
				!strings.Contains(h.Get("WWW-Authenticate"), tc.t.Origin+"/.well-known/oauth-protected-resource") {
				t.Errorf("%s: %d %q", what, status, h.Get("WWW-Authenticate"))
			}
		}

		// An admin cannot make themselves owner; the owner can make them one.
		if err := e.store.SetRoles(ctx, student, []storage.Role{storage.RoleAdmin}); err != nil {
			t.Fatal(err)
		}
		adminToken := e.operatorToken(studentEmail, "members:write")
		status, _, raw := e.call(e.a, http.MethodPut, fmt.Sprintf("/api/v1/members/%d/roles", student), adminToken, map[string]any{"roles": []string{"owner"}})
		if status != http.StatusForbidden {
			t.Errorf("admin promoting themselves to owner: %d %s", status, raw)
		}
		ownerWrite := e.operatorToken(operatorEmail, "members:write")
		e.mustCall(http.MethodPut, fmt.Sprintf("/api/v1/members/%d/roles", student), ownerWrite, map[string]any{"roles": []string{"owner"}}, http.StatusOK, nil)
	})
}

// TestOperatorOpenAPIPerHost fetches /openapi.json from each school's host through the whole
// server: a valid OpenAPI 3.0 document naming that school's endpoints.
func TestOperatorOpenAPIPerHost(t *testing.T) {
	e := newEnv(t, "sqlite")
	for _, tn := range []*school.School{e.a, e.b} {
		status, h, raw := e.call(tn, http.MethodGet, "/openapi.json", "", nil)
		if status != http.StatusOK || h.Get("Access-Control-Allow-Origin") != "*" {
			t.Fatalf("%s: %d %v", tn.Origin, status, h)
		}
		doc, err := openapi3.NewLoader().LoadFromData(raw)
		if err != nil {
			t.Fatal(err)
		}
		if err := doc.Validate(t.Context()); err != nil {
			t.Errorf("%s: %v", tn.Origin, err)
		}
		flow := doc.Components.SecuritySchemes["oauth2"].Value.Flows.AuthorizationCode
		if flow.AuthorizationURL != tn.Origin+"/oauth/authorize" || flow.TokenURL != tn.Origin+"/api/oauth/token" || doc.Servers[0].URL != tn.Origin {
			t.Errorf("%s: flow %s %s, server %s", tn.Origin, flow.AuthorizationURL, flow.TokenURL, doc.Servers[0].URL)
		}
	}
}

// seedTime is a fixed time some hours after an epoch of the seeded data.
func seedTime(hours int) time.Time {
	return time.Date(2030, time.January, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(hours) * time.Hour)
}
