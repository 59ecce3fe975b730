package operator

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/resource"
	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/storage"
)

// eachBackend runs f on SQLite, and on PostgreSQL when it is configured.
func eachBackend(t *testing.T, f func(t *testing.T, e *env)) {
	t.Helper()
	schools.EachBackend(t, func(t *testing.T, backend string) *env { return newEnv(t, backend) }, f)
}

// problem is an RFC 9457 problem document as huma writes it.
type problem struct {
	Status int    `json:"status"`
	Title  string `json:"title"`
	Detail string `json:"detail"`
	Errors []struct {
		Location string `json:"location"`
		Message  string `json:"message"`
	} `json:"errors"`
}

func wantProblem(t *testing.T, what string, status int, h http.Header, body []byte, wantStatus int, location string) {
	t.Helper()
	if status != wantStatus || !strings.HasPrefix(h.Get("Content-Type"), "application/problem+json") {
		t.Errorf("%s: %d %q, want a %d problem document\n%s", what, status, h.Get("Content-Type"), wantStatus, body)
		return
	}
	p := schools.DecodeJSON[problem](t, body)
	if p.Status != wantStatus {
		t.Errorf("%s: problem status %d", what, p.Status)
	}
	if location == "" {
		return
	}
	for _, e := range p.Errors {
		if e.Location == location {
			return
		}
	}
	t.Errorf("%s: no error at %s: %s", what, location, body)
}

func TestProblemDocuments(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		course := map[string]any{"slug": "go", "title": "Go", "price_amount": 100, "currency": "USD"}
		status, _, body := e.request(http.MethodPost, "/api/v1/courses", allScopes, course)
		if status != http.StatusCreated {
			t.Fatalf("create: %d %s", status, body)
		}
		created := schools.DecodeJSON[Course](t, body)

		for _, tc := range []struct {
			what     string
			method   string
			path     string
			body     any
			status   int
			location string
		}{
			{"a slug with capitals", http.MethodPost, "/api/v1/courses", map[string]any{"slug": "Go", "title": "Go", "price_amount": 1, "currency": "USD"}, 422, "body.slug"},
			{"a slug with an underscore", http.MethodPost, "/api/v1/courses", map[string]any{"slug": "go_basics", "title": "Go", "price_amount": 1, "currency": "USD"}, 422, "body.slug"},
			{"a slug with a trailing hyphen", http.MethodPost, "/api/v1/courses", map[string]any{"slug": "go-", "title": "Go", "price_amount": 1, "currency": "USD"}, 422, "body.slug"},
			{"a lower-case currency", http.MethodPost, "/api/v1/courses", map[string]any{"slug": "go2", "title": "Go", "price_amount": 1, "currency": "usd"}, 422, "body.currency"},
			{"a negative price", http.MethodPost, "/api/v1/courses", map[string]any{"slug": "go2", "title": "Go", "price_amount": -1, "currency": "USD"}, 422, "body.price_amount"},
			{"a missing title", http.MethodPost, "/api/v1/courses", map[string]any{"slug": "go2", "price_amount": 1, "currency": "USD"}, 422, "body"},
			{"an unknown field", http.MethodPost, "/api/v1/courses", map[string]any{"slug": "go2", "title": "Go", "price_amount": 1, "currency": "USD", "owner": 1}, 422, "body.owner"},
			{"malformed JSON", http.MethodPost, "/api/v1/courses", "{", 400, ""},
			{"a taken slug", http.MethodPost, "/api/v1/courses", course, 409, ""},
			{"an unknown course", http.MethodGet, "/api/v1/courses/999999", nil, 404, ""},
			{"a course id that is no number", http.MethodGet, "/api/v1/courses/abc", nil, 422, "path.course_id"},
			{"a page too large", http.MethodGet, "/api/v1/courses?limit=101", nil, 422, "query.limit"},
			{"a page too small", http.MethodGet, "/api/v1/courses?limit=0", nil, 422, "query.limit"},
			{"a forged cursor", http.MethodGet, "/api/v1/courses?cursor=bm9wZQ", nil, 422, ""},
			{"a lecture unlock time without a lock", http.MethodPost, fmt.Sprintf("/api/v1/courses/%d/sections/1/lectures", created.ID),
				map[string]any{"title": "L", "duration_seconds": 1, "unlock_at": "2030-01-01T00:00:00Z"}, 422, "body.unlock_at"},
			{"an enrollment both lifetime and expiring", http.MethodPost, fmt.Sprintf("/api/v1/courses/%d/enrollments", created.ID),
				map[string]any{"member_id": e.owner, "lifetime_access": true, "expire_date": "2030-01-01T00:00:00Z"}, 422, "body.expire_date"},
			{"a coupon with both discounts", http.MethodPost, "/api/v1/coupons", map[string]any{"code": "BOTH", "title": "B", "percent_off": 5, "amount_off": 100, "currency": "USD"}, 422, "body.percent_off"},
			{"an event ending before it starts", http.MethodPost, "/api/v1/events",
				map[string]any{"slug": "e", "title": "E", "starts_at": "2030-01-02T00:00:00Z", "ends_at": "2030-01-01T00:00:00Z", "price_amount": 0, "currency": "USD"}, 422, "body.ends_at"},
			{"an unknown time zone", http.MethodPatch, "/api/v1/school", map[string]any{"timezone": "Mars/Olympus"}, 422, "body.timezone"},
			{"a locale with an underscore", http.MethodPatch, "/api/v1/school", map[string]any{"locale": "en_US"}, 422, "body.locale"},
			{"an http logo", http.MethodPatch, "/api/v1/school/appearance", map[string]any{"logo_url": "http://x.example/logo.png"}, 422, "body.logo_url"},
			{"an unknown role", http.MethodPut, fmt.Sprintf("/api/v1/members/%d/roles", e.owner), map[string]any{"roles": []string{"wizard"}}, 422, ""},
			{"demoting the last owner", http.MethodPut, fmt.Sprintf("/api/v1/members/%d/roles", e.owner), map[string]any{"roles": []string{"admin"}}, 409, ""},
			{"removing the last owner", http.MethodPut, fmt.Sprintf("/api/v1/members/%d/roles", e.owner), map[string]any{"roles": []string{}}, 409, ""},
			{"a body over the limit", http.MethodPost, "/api/v1/pages", map[string]any{"slug": "big", "title": "Big", "body": strings.Repeat("x", testBodyLimit)}, 413, ""},
		} {
			status, h, body := e.request(tc.method, tc.path, allScopes, tc.body)
			wantProblem(t, tc.what, status, h, body, tc.status, tc.location)
		}
	})
}

func TestPaging(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		for i := range 5 {
			if _, err := e.store.CreateCourse(e.ctx, storage.Course{Offer: storage.Offer{Slug: fmt.Sprintf("c%d", i), Title: "C", Currency: "USD"}}); err != nil {
				t.Fatal(err)
			}
		}
		var slugs []string
		cursor := ""
		for pages := 0; ; pages++ {
			if pages > 5 {
				t.Fatal("paging does not end")
			}
			status, _, body := e.request(http.MethodGet, "/api/v1/courses?limit=2&cursor="+cursor, allScopes, nil)
			if status != http.StatusOK {
				t.Fatalf("list: %d %s", status, body)
			}
			page := schools.DecodeJSON[List[Course]](t, body)
			if len(page.Items) > 2 {
				t.Fatalf("page of %d items", len(page.Items))
			}
			for _, c := range page.Items {
				slugs = append(slugs, c.Slug)
			}
			if page.NextCursor == "" {
				break
			}
			cursor = page.NextCursor
		}
		if strings.Join(slugs, ",") != "c0,c1,c2,c3,c4" {
			t.Errorf("pages held %v", slugs)
		}
		// The default page is 20 items; an empty list is an empty array, never null.
		status, _, body := e.request(http.MethodGet, "/api/v1/pages", allScopes, nil)
		if status != http.StatusOK || !strings.Contains(string(body), `"items":[]`) {
			t.Errorf("empty list: %d %s", status, body)
		}
	})
}

// TestAuthorize covers the refusals that need no authorization server: the flows with real
// tokens (scopes, revoked roles) are in package authz.
func TestAuthorize(t *testing.T) {
	e := newEnv(t, "sqlite")
	student := schools.Member(t, e.store, "student@example.test", "Student", schools.At(e.tn, storage.RoleStudent))
	e.tokens["student"] = resource.Grant{MemberID: student.ID, Scopes: []string{"courses:read"}}
	e.tokens["no-user"] = resource.Grant{Scopes: []string{"courses:read"}}
	e.tokens["read-only"] = resource.Grant{MemberID: e.owner, Scopes: []string{"courses:read"}}

	for _, tc := range []struct {
		token, method string
		status        int
		error, scope  string
		noChallenge   bool
	}{
		{token: "", method: http.MethodGet, status: 401, error: "invalid_token"},
		{token: "forged", method: http.MethodGet, status: 401, error: "invalid_token"},
		{token: "no-user", method: http.MethodGet, status: 401, error: "invalid_token"},
		{token: "no-verdict", method: http.MethodGet, status: 503, noChallenge: true},
		{token: "read-only", method: http.MethodPost, status: 403, error: "insufficient_scope", scope: "courses:write"},
		{token: "student", method: http.MethodGet, status: 403, error: "insufficient_scope"},
		{token: "read-only", method: http.MethodGet, status: 200},
	} {
		// An invalid body too: a refused request must not reach validation.
		var input any
		if tc.method == http.MethodPost {
			input = map[string]any{"bad": "input"}
		}
		status, h, body := e.request(tc.method, "/api/v1/courses", tc.token, input)
		what := fmt.Sprintf("%s with token %q", tc.method, tc.token)
		if status != tc.status {
			t.Errorf("%s: %d, want %d\n%s", what, status, tc.status, body)
			continue
		}
		if h.Get("Cache-Control") != "no-store" {
			t.Errorf("%s: Cache-Control %q", what, h.Get("Cache-Control"))
		}
		challenge := h.Get("WWW-Authenticate")
		switch {
		case tc.status == 200:
		case tc.noChallenge:
			if challenge != "" || !strings.Contains(string(body), "temporarily_unavailable") {
				t.Errorf("%s: challenge %q, body %s", what, challenge, body)
			}
		default:
			if !strings.HasPrefix(challenge, "Bearer ") || !strings.Contains(challenge, `error="`+tc.error+`"`) ||
				!strings.Contains(challenge, `resource_metadata="https://north.example/.well-known/oauth-protected-resource"`) {
				t.Errorf("%s: challenge %q", what, challenge)
			}
			if tc.scope != "" && !strings.Contains(challenge, `scope="`+tc.scope+`"`) {
				t.Errorf("%s: challenge %q does not name %s", what, challenge, tc.scope)
			}
			if tc.scope == "" && strings.Contains(challenge, "scope=") {
				t.Errorf("%s: challenge %q names a scope no token could add", what, challenge)
			}
		}
	}

	// A role that cannot be read is no verdict: 503, never a guess either way.
	if err := e.store.Close(); err != nil {
		t.Fatal(err)
	}
	status, h, body := e.request(http.MethodGet, "/api/v1/courses", allScopes, nil)
	if status != http.StatusServiceUnavailable || h.Get("WWW-Authenticate") != "" || !strings.Contains(string(body), "temporarily_unavailable") {
		t.Errorf("store down: %d %q %s", status, h.Get("WWW-Authenticate"), body)
	}
}

// png is the smallest content http.DetectContentType takes for a PNG image.
var png = append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 32)...)

func TestUpload(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		status, _, body := e.request(http.MethodPost, "/api/v1/files?name=logo.png", allScopes, png, "Content-Type", "image/png")
		if status != http.StatusCreated {
			t.Fatalf("upload: %d %s", status, body)
		}
		f := schools.DecodeJSON[StoredFile](t, body)
		sum := sha256.Sum256(png)
		if f.Name != "logo.png" || f.ContentType != "image/png" || f.SizeBytes != int64(len(png)) || f.SHA256 != hex.EncodeToString(sum[:]) {
			t.Errorf("stored file: %+v", f)
		}
		if strings.Contains(string(body), e.dir) || strings.Contains(string(body), "storage_path") {
			t.Errorf("the answer reveals where the file is: %s", body)
		}
		stored, _ := filepath.Glob(filepath.Join(e.dir, "1", "*.png"))
		if len(stored) != 1 {
			t.Fatalf("files in the school's directory: %v", stored)
		}
		if got, _ := os.ReadFile(stored[0]); string(got) != string(png) {
			t.Error("the stored file differs from the upload")
		}

		for _, tc := range []struct {
			what, name, contentType string
			body                    []byte
			status                  int
		}{
			{"an HTML page", "x.html", "text/html", []byte("<html><script>alert(1)</script></html>"), 415},
			{"an HTML page declared as text", "x.txt", "text/plain", []byte("<html><script>alert(1)</script></html>"), 422},
			{"an HTML page declared as an image", "x.png", "image/png", []byte("<html><script>alert(1)</script></html>"), 422},
			{"a name with a slash", "../x.png", "image/png", png, 422},
			{"an empty file", "x.png", "image/png", []byte{}, 400},
			{"a file over the limit", "big.txt", "text/plain", []byte(strings.Repeat("a", testBodyLimit+1)), 413},
			{"a garbled content type", "x.png", "image/", png, 415},
		} {
			path := "/api/v1/files?name=" + tc.name
			status, h, body := e.request(http.MethodPost, path, allScopes, tc.body, "Content-Type", tc.contentType)
			wantProblem(t, tc.what, status, h, body, tc.status, "")
		}
		if all, _ := filepath.Glob(filepath.Join(e.dir, "1", "*")); len(all) != 1 {
			t.Errorf("refused uploads left files: %v", all)
		}
		// A text file within the limit is accepted.
		status, _, body = e.request(http.MethodPost, "/api/v1/files?name=notes.txt", allScopes, []byte("plain notes\n"), "Content-Type", "text/plain; charset=utf-8")
		if status != http.StatusCreated {
			t.Errorf("text upload: %d %s", status, body)
		}
	})
}

// FuzzCreateCourse posts arbitrary bodies to the course-creation operation: whatever the
// input, the answer is never a server error.
func FuzzCreateCourse(f *testing.F) {
	for _, seed := range []string{
		`{"slug":"go","title":"Go","price_amount":100,"currency":"USD"}`,
		`{"slug":"go","title":"Go","price_amount":1e30,"currency":"USD"}`,
		`{"slug":"","title":"","price_amount":-1,"currency":""}`,
		`{"slug":"go","title":"Go","price_amount":100,"currency":"USD","published":"yes"}`,
		`{"slug":null}`, `[]`, `"x"`, `{`, ``, `{"slug":"a\u0000b","title":"\ud800","price_amount":1,"currency":"USD"}`,
	} {
		f.Add([]byte(seed))
	}
	e := newEnv(f, "sqlite")
	f.Fuzz(func(t *testing.T, body []byte) {
		e := *e
		e.t = t
		status, _, resp := e.request(http.MethodPost, "/api/v1/courses", allScopes, body)
		if status >= 500 {
			t.Fatalf("status %d for %q: %s", status, body, resp)
		}
	})
}
