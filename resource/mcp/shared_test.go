package mcp_test

import (
	"encoding/json"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSharedServersKeepCallersApart: members holding the same scopes are answered by one shared
// MCP server (server.go), so each call must still run as its own caller. Two members call
// my_courses at the same time, many times over: each sees only their own enrollments.
func TestSharedServersKeepCallersApart(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		student := e.connect(e.A, e.Token(e.A, studentEmail, readScope), "")
		owner := e.connect(e.A, e.Token(e.A, ownerEmail, readScope), "")

		// myCourses returns the slugs my_courses answers; it runs in goroutines, so it reports
		// failures as errors rather than ending the test.
		myCourses := func(cs *sdk.ClientSession) ([]string, bool) {
			res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "my_courses", Arguments: map[string]any{}})
			if err != nil || res.IsError {
				t.Errorf("my_courses: %v %+v", err, res)
				return nil, false
			}
			raw, _ := json.Marshal(res.StructuredContent)
			var out struct{ Courses []struct{ Slug string } }
			if err := json.Unmarshal(raw, &out); err != nil {
				t.Errorf("my_courses: %s: %v", raw, err)
				return nil, false
			}
			slugs := []string{}
			for _, c := range out.Courses {
				slugs = append(slugs, c.Slug)
			}
			return slugs, true
		}
		if got, _ := myCourses(owner); len(got) != 0 {
			t.Fatalf("the owner is enrolled nowhere, but my_courses shows %v", got)
		}

		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for range 10 {
					got, ok := myCourses(student)
					if ok && (len(got) != 1 || got[0] != "go-basics") {
						t.Errorf("student's my_courses: %v", got)
					}
					if !ok || t.Failed() {
						return
					}
				}
			})
			wg.Go(func() {
				for range 10 {
					got, ok := myCourses(owner)
					if ok && len(got) != 0 {
						t.Errorf("owner's my_courses shows another member's enrollments: %v", got)
					}
					if !ok || t.Failed() {
						return
					}
				}
			})
		}
		wg.Wait()
	})
}
