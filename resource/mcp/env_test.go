package mcp_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/resource/resourcetest"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/server/servertest"
	"github.com/proctorhq/proctor/storage"
)

// env is resourcetest's whole Proctor, as an MCP client meets it, with schools A and B seeded
// (schoolData, otherSchoolData).
type env struct {
	*resourcetest.Env
	now time.Time
}

const (
	studentEmail  = "sam@example.test"
	ownerEmail    = "olga@example.test"
	lecturerEmail = "lena@example.test"
)

func newEnv(t testing.TB, backend string) *env {
	t.Helper()
	e := &env{Env: resourcetest.New(t, backend), now: time.Now().UTC()}
	e.Seed(e.A, schoolData(e.now))
	e.Seed(e.B, otherSchoolData(e.now))
	return e
}

// eachBackend runs f on SQLite, and on PostgreSQL when it is configured.
func eachBackend(t *testing.T, f func(t *testing.T, e *env)) { resourcetest.EachBackend(t, newEnv, f) }

func ptr[T any](v T) *T { return &v }

// schoolData is school A: a published course with a curriculum, a draft, plans, products,
// events, and a student with an enrollment, progress, payments and notifications.
func schoolData(now time.Time) *storage.SchoolData {
	day := func(n int) time.Time { return now.Add(time.Duration(n) * 24 * time.Hour).Truncate(time.Second) }
	item := []storage.PaymentLineItem{{Kind: storage.ItemCourse, Ref: "go-basics", Title: "Go basics", Quantity: 1, UnitAmount: 1999}}
	return &storage.SchoolData{
		Members: []storage.MemberSeed{
			{Email: studentEmail, Name: "Sam Student", Roles: []storage.Role{storage.RoleStudent}},
			{Email: ownerEmail, Name: "Olga Owner", Roles: []storage.Role{storage.RoleOwner}},
			{Email: lecturerEmail, Name: "Lena Lecturer", Roles: []storage.Role{storage.RoleLecturer}},
		},
		Courses: []storage.CourseSeed{
			{OfferSeed: storage.OfferSeed{Slug: "go-basics", Title: "Go basics", Description: "From zero to goroutines", PriceAmount: 1999, Currency: "USD"}, Published: true,
				Sections: []storage.SectionSeed{
					{Title: "Start", Lectures: []storage.LectureSeed{
						{Title: "Hello", DurationSeconds: 300},
						{Title: "Types", DurationSeconds: 600, IsLocked: true, UnlockAt: ptr(day(30))},
					}},
					{Title: "Concurrency", Lectures: []storage.LectureSeed{{Title: "Goroutines", DurationSeconds: 900}}},
				}},
			{OfferSeed: storage.OfferSeed{Slug: "rust-intro", Title: "Rust intro", Description: "Ownership", PriceAmount: 2500, Currency: "USD"}, Published: true},
			{OfferSeed: storage.OfferSeed{Slug: "secret-draft", Title: "Secret draft", Currency: "USD"}, Published: false},
		},
		Enrollments: []storage.EnrollmentSeed{
			{Member: studentEmail, Course: "go-basics", ExpireDate: ptr(day(90)), EnrolledAt: day(-30)},
		},
		Progress: []storage.ProgressSeed{
			{Member: studentEmail, Lecture: storage.LectureRef{Course: "go-basics", Section: 1, Lecture: 1}, State: storage.LectureCompleted, PositionSeconds: 300, UpdatedAt: day(-20)},
			{Member: studentEmail, Lecture: storage.LectureRef{Course: "go-basics", Section: 2, Lecture: 1}, State: storage.LectureRead, PositionSeconds: 42, UpdatedAt: day(-10)},
		},
		MembershipPlans: []storage.MembershipPlanSeed{
			{OfferSeed: storage.OfferSeed{Slug: "monthly", Title: "Monthly", Description: "Every course", PriceAmount: 990, Currency: "USD"}, Interval: "month", Published: true},
			{OfferSeed: storage.OfferSeed{Slug: "hidden", Title: "Hidden", PriceAmount: 1, Currency: "USD"}, Interval: "year", Published: false},
		},
		DigitalProducts: []storage.DigitalProductSeed{
			{OfferSeed: storage.OfferSeed{Slug: "cheatsheet", Title: "Cheat sheet", Description: "PDF", PriceAmount: 500, Currency: "USD"}, Published: true},
		},
		Events: []storage.EventSeed{
			{OfferSeed: storage.OfferSeed{Slug: "meetup", Title: "Meetup", PriceAmount: 0, Currency: "USD"}, StartsAt: day(7), EndsAt: day(7).Add(2 * time.Hour), Location: "Online", Published: true},
			{OfferSeed: storage.OfferSeed{Slug: "old-meetup", Title: "Old meetup", Currency: "USD"}, StartsAt: day(-7), EndsAt: day(-7).Add(time.Hour), Published: true},
		},
		Payments: []storage.PaymentSeed{
			{TradeNo: "T-PAID", Member: studentEmail, Amount: 1999, Currency: "USD", PaymentType: "credit_card", CreatedAt: day(-30),
				PaymentStatus: storage.PaymentStatus{PaymentState: storage.PaymentPaid, PaidAt: ptr(day(-30))}, LineItems: item,
				Invoice: &storage.PaymentInvoice{Number: "INV-1", Status: "issued", IssuedAt: ptr(day(-30))}},
			{TradeNo: "T-ATM", Member: studentEmail, Amount: 1999, Currency: "USD", PaymentType: "atm", CreatedAt: day(-31),
				PaymentStatus: storage.PaymentStatus{PaymentState: storage.PaymentUnpaid, ExpiredAt: ptr(day(-29)), BankCode: "812", BankName: "Taishin", CodeNo: "99887766"},
				LineItems:     item},
			{TradeNo: "T-OWNER", Member: ownerEmail, Amount: 500, Currency: "USD", PaymentType: "credit_card", CreatedAt: day(-5),
				PaymentStatus: storage.PaymentStatus{PaymentState: storage.PaymentPaid, PaidAt: ptr(day(-5))}, LineItems: []storage.PaymentLineItem{}},
		},
		Notifications: []storage.NotificationSeed{
			{Key: "welcome", Member: studentEmail, Kind: "welcome", Title: "Welcome", Body: "Hi Sam", CreatedAt: day(-30)},
			{Key: "news", Member: studentEmail, Kind: "post", Title: "News", Body: "A new lecture", CreatedAt: day(-1)},
			{Key: "owner-note", Member: ownerEmail, Kind: "post", Title: "For Olga", CreatedAt: day(-1)},
		},
	}
}

// otherSchoolData is school B, which nothing at A may show.
func otherSchoolData(now time.Time) *storage.SchoolData {
	return &storage.SchoolData{
		Members: []storage.MemberSeed{{Email: studentEmail, Name: "Sam Student", Roles: []storage.Role{storage.RoleStudent}}},
		Courses: []storage.CourseSeed{{OfferSeed: storage.OfferSeed{Slug: "lumen-only", Title: "Lumen only", Currency: "EUR"}, Published: true}},
		Enrollments: []storage.EnrollmentSeed{
			{Member: studentEmail, Course: "lumen-only", LifetimeAccess: true, EnrolledAt: now.Add(-time.Hour).Truncate(time.Second)},
		},
	}
}

// The usual tokens.
var (
	readScope     = servertest.TokenOptions{Scopes: []string{"openid", "account:read"}}
	writeScope    = servertest.TokenOptions{Scopes: []string{"account:write"}}
	bothScopes    = servertest.TokenOptions{Scopes: []string{"openid", "profile", "account:read", "account:write"}}
	operatorScope = servertest.TokenOptions{Scopes: []string{"openid", "courses:read", "students:read", "orders:read", "analytics:read"}}
)

// connect opens an MCP client session at school tn's /mcp with the token ("" for none), in the
// protocol revision given ("" for the SDK's latest). The client does not retry: a failed
// request is the test's answer.
func (e *env) connect(tn *school.School, token, version string) *sdk.ClientSession {
	e.T.Helper()
	return resourcetest.Connect(e.T, &sdk.StreamableClientTransport{Endpoint: tn.URL(endpoint.MCP), HTTPClient: resourcetest.BearerClient(token), MaxRetries: -1}, version)
}

// call calls a tool (see resourcetest.CallTool).
var call = resourcetest.CallTool

// rpc is a raw HTTP answer of /mcp.
type rpc struct {
	status int
	header http.Header
	body   []byte
}

// post sends a JSON-RPC body to school tn's /mcp as a client of revision 2025-06-18 would
// (no session, the version header), with the token ("" for none) and extra headers.
func (e *env) post(tn *school.School, token, body string, headers ...string) rpc {
	e.T.Helper()
	return e.do(http.MethodPost, tn.URL(endpoint.MCP), token, body, headers...)
}

func (e *env) do(method, url, token, body string, headers ...string) rpc {
	e.T.Helper()
	headers = append([]string{"Content-Type", "application/json", "Accept", "application/json, text/event-stream",
		"MCP-Protocol-Version", "2025-06-18"}, headers...)
	status, header, raw := e.Send(method, url, token, strings.NewReader(body), headers...)
	return rpc{status: status, header: header, body: raw}
}

// toolCall is the JSON-RPC body of a tools/call.
func toolCall(name string, args string) string {
	if args == "" {
		args = "{}"
	}
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `}}`
}

const listTools = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`
