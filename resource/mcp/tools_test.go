package mcp_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/proctorhq/proctor/resource/resourcetest"
	"github.com/proctorhq/proctor/server/servertest"
)

var (
	publicNames   = []string{"list_courses", "search_courses", "get_course", "get_pricing"}
	readNames     = []string{"my_courses", "my_course_curriculum", "my_payments", "my_notifications", "my_notification_subscriptions"}
	writeNames    = []string{"mark_notification_read", "mark_all_notifications_read", "set_notification_subscription"}
	operatorNames = []string{"admin_list_courses", "admin_list_students", "admin_list_payments", "admin_analytics_summary"}
)

// sorted returns the names in the order tools/list gives them (the SDK sorts by name).
func sorted(names []string) []string {
	out := slices.Clone(names)
	slices.Sort(out)
	return out
}

// wantTools checks that session cs lists exactly the tools of the name lists, in name order.
func wantTools(t testing.TB, cs *sdk.ClientSession, what string, lists ...[]string) {
	t.Helper()
	if got, want := resourcetest.ToolNames(t, cs), sorted(slices.Concat(lists...)); !slices.Equal(got, want) {
		t.Errorf("%s tools: %v, want %v", what, got, want)
	}
}

// TestProtocolRevisions: the three revisions are served, each by its own way of starting (the
// initialize handshake up to 2025-11-25, server/discover from 2026-07-28), and list the same
// tools.
func TestProtocolRevisions(t *testing.T) {
	e := newEnv(t, "sqlite")
	for _, v := range []string{"2025-06-18", "2025-11-25", "2026-07-28"} {
		t.Run(v, func(t *testing.T) {
			cs := e.connect(e.A, "", v)
			if got := cs.InitializeResult().ProtocolVersion; got != v {
				t.Fatalf("negotiated %q, asked for %q", got, v)
			}
			wantTools(t, cs, "published", publicNames)
			var out struct{ Courses []struct{ Slug string } }
			if msg := call(t, cs, "list_courses", nil, &out); msg != "" || len(out.Courses) != 2 {
				t.Errorf("list_courses: %q %+v", msg, out)
			}
		})
	}
	// An older revision is answered with the newest one the handshake negotiates.
	r := e.post(e.A, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"old","version":"1"}}}`,
		"MCP-Protocol-Version", "")
	if r.status != 200 || !strings.Contains(string(r.body), `"protocolVersion":"2025-11-25"`) {
		t.Errorf("initialize with 2025-03-26: %d %s", r.status, r.body)
	}
	// A request in an older revision, once past the handshake, is refused.
	if r := e.post(e.A, "", listTools, "MCP-Protocol-Version", "2025-03-26"); r.status != 400 {
		t.Errorf("tools/list in 2025-03-26: %d %s", r.status, r.body)
	}
}

// TestAnonymous: without a token, the public tools only, over the published catalogue of the
// school called.
func TestAnonymous(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		cs := e.connect(e.A, "", "")
		wantTools(t, cs, "anonymous", publicNames)

		type course struct {
			Slug  string
			Price struct {
				Amount   int64
				Currency string
			}
		}
		var list struct {
			Courses    []course
			NextCursor string `json:"next_cursor"`
		}
		call(t, cs, "list_courses", map[string]any{"first": 1}, &list)
		if len(list.Courses) != 1 || list.Courses[0].Slug != "go-basics" || list.Courses[0].Price.Amount != 1999 || list.NextCursor == "" {
			t.Fatalf("first page: %+v", list)
		}
		after := list.NextCursor
		list.NextCursor = ""
		call(t, cs, "list_courses", map[string]any{"first": 1, "after": after}, &list)
		if len(list.Courses) != 1 || list.Courses[0].Slug != "rust-intro" || list.NextCursor != "" {
			t.Fatalf("second page: %+v", list)
		}

		call(t, cs, "search_courses", map[string]any{"query": "GOROUTINES"}, &list)
		if len(list.Courses) != 1 || list.Courses[0].Slug != "go-basics" {
			t.Errorf("search: %+v", list)
		}
		call(t, cs, "search_courses", map[string]any{"query": "secret"}, &list)
		if len(list.Courses) != 0 {
			t.Errorf("search found a draft: %+v", list)
		}

		var outline struct {
			Slug                 string
			TotalLectures        int `json:"total_lectures"`
			TotalDurationSeconds int `json:"total_duration_seconds"`
			Sections             []struct {
				Title    string
				Lectures []struct{ Title string }
			}
		}
		call(t, cs, "get_course", map[string]any{"slug": "go-basics"}, &outline)
		if outline.TotalLectures != 3 || outline.TotalDurationSeconds != 1800 || len(outline.Sections) != 2 ||
			outline.Sections[1].Lectures[0].Title != "Goroutines" {
			t.Errorf("outline: %+v", outline)
		}
		for _, slug := range []string{"secret-draft", "lumen-only", "nope"} {
			if msg := call(t, cs, "get_course", map[string]any{"slug": slug}, nil); !strings.Contains(msg, "no published course") {
				t.Errorf("get_course(%s): %q", slug, msg)
			}
		}

		var pricing struct {
			MembershipPlans []struct{ Slug, Interval string } `json:"membership_plans"`
			DigitalProducts []struct{ Slug string }           `json:"digital_products"`
			UpcomingEvents  []struct {
				Slug     string
				StartsAt time.Time `json:"starts_at"`
			} `json:"upcoming_events"`
			Truncated bool
		}
		call(t, cs, "get_pricing", nil, &pricing)
		if len(pricing.MembershipPlans) != 1 || pricing.MembershipPlans[0].Interval != "month" || len(pricing.DigitalProducts) != 1 ||
			len(pricing.UpcomingEvents) != 1 || pricing.UpcomingEvents[0].Slug != "meetup" || pricing.Truncated {
			t.Errorf("pricing: %+v", pricing)
		}

		// Input errors are tool errors, not protocol or HTTP errors, and say in a sentence
		// which argument is wrong, what is expected and what to do (not the validator's
		// "validating root: validating /properties/first: minimum: 0/1 is less than 1.000000").
		for _, tc := range []struct {
			tool string
			args map[string]any
			want string
		}{
			// minimum, maximum
			{"list_courses", map[string]any{"first": 0}, `The argument "first" must be an integer from 1 to 50, not 0; call the tool again with such a value.`},
			{"list_courses", map[string]any{"first": 51}, `The argument "first" must be an integer from 1 to 50, not 51; call the tool again with such a value.`},
			// type
			{"list_courses", map[string]any{"first": "ten"}, `The argument "first" must be an integer from 1 to 50, not "ten"; call the tool again with such a value.`},
			{"list_courses", map[string]any{"first": 2.5}, `The argument "first" must be an integer from 1 to 50, not 2.5; call the tool again with such a value.`},
			{"get_course", map[string]any{"slug": 7}, `The argument "slug" must be a string of 1 to 200 characters, not 7; call the tool again with such a value.`},
			// maxLength
			{"search_courses", map[string]any{"query": strings.Repeat("go ", 70)}, `The argument "query" must be a string of 1 to 200 characters, not a string of 210 characters; call the tool again with such a value.`},
			// additionalProperties
			{"list_courses", map[string]any{"surprise": true}, `Unknown argument "surprise": this tool takes "after", "first". Call the tool again without it.`},
			{"get_pricing", map[string]any{"currency": "EUR"}, `Unknown argument "currency": this tool takes no arguments. Call the tool again without it.`},
			// required
			{"search_courses", map[string]any{}, `The argument "query" (a string of 1 to 200 characters) is required; call the tool again with it.`},
			{"get_course", map[string]any{"first": 1}, `Unknown argument "first": this tool takes "slug". Call the tool again without it.`},
			// The tools' own checks.
			{"list_courses", map[string]any{"after": "garbage"}, "cursor"},
			{"search_courses", map[string]any{"query": "   "}, "query is empty"},
		} {
			if msg := call(t, cs, tc.tool, tc.args, nil); !strings.Contains(msg, tc.want) {
				t.Errorf("%s %v: %q, want a tool error with %q", tc.tool, tc.args, msg, tc.want)
			}
		}

		// School B's catalogue is B's own.
		other := e.connect(e.B, "", "")
		call(t, other, "list_courses", nil, &list)
		if len(list.Courses) != 1 || list.Courses[0].Slug != "lumen-only" {
			t.Errorf("school B: %+v", list)
		}
	})
}

// TestMemberTools: a member token sees and calls the tools of its scopes, over its own data.
func TestMemberTools(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		read := e.connect(e.A, e.Token(e.A, studentEmail, readScope), "")
		wantTools(t, read, "account:read", publicNames, readNames)
		write := e.connect(e.A, e.Token(e.A, studentEmail, writeScope), "")
		wantTools(t, write, "account:write", publicNames, writeNames)
		both := e.connect(e.A, e.Token(e.A, studentEmail, bothScopes), "")
		wantTools(t, both, "account:read and account:write", publicNames, readNames, writeNames)

		type progress struct {
			Total     int `json:"total_lectures"`
			Completed int `json:"completed_lectures"`
			Read      int `json:"read_lectures"`
			Percent   int
		}
		var courses struct {
			Courses []struct {
				Slug         string
				AccessActive bool       `json:"access_active"`
				ExpireDate   *time.Time `json:"expire_date"`
				Progress     progress
				LastWatched  *struct {
					LectureTitle    string `json:"lecture_title"`
					PositionSeconds int    `json:"position_seconds"`
				} `json:"last_watched_lecture"`
			}
		}
		call(t, read, "my_courses", nil, &courses)
		if len(courses.Courses) != 1 {
			t.Fatalf("my_courses: %+v (school B's enrollment must not show)", courses)
		}
		c := courses.Courses[0]
		if c.Slug != "go-basics" || !c.AccessActive || c.ExpireDate == nil || c.Progress != (progress{3, 1, 1, 33}) ||
			c.LastWatched == nil || c.LastWatched.LectureTitle != "Goroutines" || c.LastWatched.PositionSeconds != 42 {
			t.Errorf("my_courses: %+v", c)
		}

		var cur struct {
			Slug     string
			Sections []struct {
				Lectures []struct {
					Title    string
					State    string
					IsLocked bool       `json:"is_locked"`
					UnlockAt *time.Time `json:"unlock_at"`
				}
			}
		}
		call(t, read, "my_course_curriculum", map[string]any{"slug": "go-basics"}, &cur)
		if len(cur.Sections) != 2 || len(cur.Sections[0].Lectures) != 2 {
			t.Fatalf("curriculum: %+v", cur)
		}
		l := cur.Sections[0].Lectures
		if l[0].State != "completed" || l[1].State != "unread" || !l[1].IsLocked || l[1].UnlockAt == nil || cur.Sections[1].Lectures[0].State != "read" {
			t.Errorf("lectures: %+v", cur.Sections)
		}
		for _, slug := range []string{"rust-intro", "lumen-only", "nope"} {
			if msg := call(t, read, "my_course_curriculum", map[string]any{"slug": slug}, nil); !strings.Contains(msg, "not enrolled") {
				t.Errorf("curriculum of %s: %q", slug, msg)
			}
		}

		var payments struct {
			Payments []struct {
				TradeNo      string `json:"trade_no"`
				PaymentState string `json:"payment_state"`
				CodeNo       string `json:"code_no"`
				Invoice      *struct{ Number string }
				LineItems    []struct{ Ref string } `json:"line_items"`
			}
			NextCursor string `json:"next_cursor"`
		}
		call(t, read, "my_payments", nil, &payments)
		if len(payments.Payments) != 2 || payments.Payments[0].TradeNo != "T-PAID" || payments.Payments[0].Invoice == nil ||
			payments.Payments[1].TradeNo != "T-ATM" || payments.Payments[1].PaymentState != "expired" || payments.Payments[1].CodeNo != "99887766" ||
			payments.Payments[1].LineItems[0].Ref != "go-basics" {
			t.Errorf("my_payments (newest first, the lapsed slip expired with its instructions, not the owner's): %+v", payments)
		}
		payments.NextCursor = ""
		call(t, read, "my_payments", map[string]any{"first": 1}, &payments)
		if len(payments.Payments) != 1 || payments.NextCursor == "" {
			t.Errorf("first payment page: %+v", payments)
		}
		if msg := call(t, read, "my_payments", map[string]any{"first": 51}, nil); msg == "" {
			t.Error("my_payments accepted a page of 51 (the Member API's limit is 50)")
		}

		type notification struct {
			ID     int64
			Title  string
			ReadAt *time.Time `json:"read_at"`
		}
		var inbox struct {
			UnreadCount   int `json:"unread_count"`
			Notifications []notification
		}
		call(t, read, "my_notifications", nil, &inbox)
		if inbox.UnreadCount != 2 || len(inbox.Notifications) != 2 || inbox.Notifications[0].Title != "News" {
			t.Fatalf("my_notifications: %+v", inbox)
		}

		var marked notification
		call(t, write, "mark_notification_read", map[string]any{"notification_id": inbox.Notifications[0].ID}, &marked)
		if marked.ReadAt == nil || marked.Title != "News" {
			t.Errorf("mark_notification_read: %+v", marked)
		}
		if msg := call(t, write, "mark_notification_read", map[string]any{"notification_id": 999999}, nil); !strings.Contains(msg, "no notification") {
			t.Errorf("mark_notification_read of another's: %q", msg)
		}
		call(t, read, "my_notifications", map[string]any{"unread_only": true}, &inbox)
		if inbox.UnreadCount != 1 || len(inbox.Notifications) != 1 || inbox.Notifications[0].Title != "Welcome" {
			t.Errorf("unread after marking one: %+v", inbox)
		}
		var all struct{ Marked int }
		call(t, both, "mark_all_notifications_read", nil, &all)
		if all.Marked != 1 {
			t.Errorf("mark_all_notifications_read: %+v", all)
		}

		var sub struct {
			Topic, Channel string
			Enabled        bool
		}
		call(t, write, "set_notification_subscription", map[string]any{"topic": "posts", "channel": "email", "enabled": true}, &sub)
		if sub.Topic != "posts" || !sub.Enabled {
			t.Errorf("set_notification_subscription: %+v", sub)
		}
		if msg := call(t, write, "set_notification_subscription", map[string]any{"topic": "gossip", "channel": "email", "enabled": true}, nil); msg == "" {
			t.Error("an unknown topic was accepted")
		} else if want := `The argument "topic" must be one of "course_updates", "posts", "payments", "events", not "gossip"; call the tool again with such a value.`; msg != want {
			t.Errorf("an unknown topic: %q, want %q", msg, want)
		}
		if msg, want := call(t, write, "set_notification_subscription", map[string]any{"topic": "posts", "channel": "email", "enabled": "yes"}, nil),
			`The argument "enabled" must be true or false, not "yes"; call the tool again with such a value.`; msg != want {
			t.Errorf("enabled as a string: %q, want %q", msg, want)
		}
		if msg, want := call(t, write, "set_notification_subscription", map[string]any{"topic": "posts", "enabled": true}, nil),
			`The argument "channel" (one of "email", "in_app") is required; call the tool again with it.`; msg != want {
			t.Errorf("without channel: %q, want %q", msg, want)
		}
		var subs struct {
			Subscriptions []struct {
				Topic, Channel string
				Enabled        bool
			}
		}
		call(t, read, "my_notification_subscriptions", nil, &subs)
		if len(subs.Subscriptions) != 8 {
			t.Fatalf("subscriptions grid: %+v", subs)
		}
		for _, s := range subs.Subscriptions {
			if s.Enabled != (s.Topic == "posts" && s.Channel == "email") {
				t.Errorf("subscription %+v", s)
			}
		}
	})
}

// TestOperatorTools: operator scopes give operator tools to an owner or admin, and only while
// the role lasts.
func TestOperatorTools(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		cs := e.connect(e.A, e.Token(e.A, ownerEmail, operatorScope), "")
		wantTools(t, cs, "operator", publicNames, operatorNames)
		// One scope, one tool.
		only := e.connect(e.A, e.Token(e.A, ownerEmail, servertest.TokenOptions{Scopes: []string{"orders:read"}}), "")
		wantTools(t, only, "orders:read", publicNames, []string{"admin_list_payments"})

		var courses struct {
			Courses []struct {
				Slug      string
				Published bool
			}
		}
		call(t, cs, "admin_list_courses", nil, &courses)
		if len(courses.Courses) != 3 || courses.Courses[2].Slug != "secret-draft" || courses.Courses[2].Published {
			t.Errorf("admin_list_courses: %+v", courses)
		}

		var students struct {
			Students []struct {
				Email       string
				Roles       []string
				Enrollments []struct {
					CourseSlug string `json:"course_slug"`
					Progress   struct {
						Completed int `json:"completed_lectures"`
						Total     int `json:"total_lectures"`
					}
					LastActivityAt *time.Time `json:"last_activity_at"`
				}
			}
		}
		call(t, cs, "admin_list_students", nil, &students)
		if len(students.Students) != 1 || students.Students[0].Email != studentEmail || len(students.Students[0].Enrollments) != 1 {
			t.Fatalf("admin_list_students: %+v", students)
		}
		if en := students.Students[0].Enrollments[0]; en.CourseSlug != "go-basics" || en.Progress.Completed != 1 || en.Progress.Total != 3 || en.LastActivityAt == nil {
			t.Errorf("enrollment: %+v", en)
		}

		var ledger struct {
			Payments []struct {
				TradeNo string `json:"trade_no"`
				Buyer   struct{ Email string }
			}
		}
		call(t, cs, "admin_list_payments", nil, &ledger)
		if len(ledger.Payments) != 3 || ledger.Payments[0].TradeNo != "T-OWNER" || ledger.Payments[0].Buyer.Email != ownerEmail ||
			ledger.Payments[1].Buyer.Email != studentEmail {
			t.Errorf("admin_list_payments: %+v", ledger)
		}

		var stats struct {
			MembersByRole   map[string]int `json:"members_by_role"`
			Courses         int
			Published       int            `json:"published_courses"`
			Active          int            `json:"active_enrollments"`
			PaymentsByState map[string]int `json:"payments_by_state"`
			Revenue         []struct {
				Currency       string
				Paid, Refunded int64
				Net            int64
			}
		}
		call(t, cs, "admin_analytics_summary", nil, &stats)
		if stats.MembersByRole["student"] != 1 || stats.MembersByRole["owner"] != 1 || stats.Courses != 3 || stats.Published != 2 ||
			stats.Active != 1 || stats.PaymentsByState["paid"] != 2 || stats.PaymentsByState["expired"] != 1 ||
			len(stats.Revenue) != 1 || stats.Revenue[0].Paid != 2499 || stats.Revenue[0].Net != 2499 {
			t.Errorf("admin_analytics_summary: %+v", stats)
		}

		// A student or a lecturer holding operator scopes (the authorization server would not
		// grant them) sees no operator tool, and calling one is 403 without a scope to ask for.
		for _, email := range []string{studentEmail, lecturerEmail} {
			tok := e.Token(e.A, email, operatorScope)
			wantTools(t, e.connect(e.A, tok, ""), email+" with operator scopes", publicNames)
			r := e.post(e.A, tok, toolCall("admin_list_students", ""))
			if h := r.header.Get("WWW-Authenticate"); r.status != 403 || !strings.Contains(h, `error="insufficient_scope"`) || strings.Contains(h, "scope=") {
				t.Errorf("%s calling admin_list_students: %d %q", email, r.status, h)
			}
		}

		// The role is checked on every request, not when the token was issued.
		tok := e.Token(e.A, ownerEmail, operatorScope)
		owner, err := e.Store.GetMemberByEmail(e.Ctx(e.A), ownerEmail)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Store.SetRoles(e.Ctx(e.A), owner.ID, nil); err != nil {
			t.Fatal(err)
		}
		wantTools(t, e.connect(e.A, tok, ""), "former owner", publicNames)
	})
}

// TestCacheScope: a tools/list that depends on the token may be cached by that user's client
// only (2026-07-28 caching hints); the anonymous one is the same for everyone.
func TestCacheScope(t *testing.T) {
	e := newEnv(t, "sqlite")
	for _, tc := range []struct {
		token, want string
	}{
		{"", "public"},
		{e.Token(e.A, studentEmail, readScope), "private"},
	} {
		res, err := e.connect(e.A, tc.token, "2026-07-28").ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.CacheScope != tc.want {
			t.Errorf("token %t: cacheScope %q, want %q", tc.token != "", res.CacheScope, tc.want)
		}
	}
}
