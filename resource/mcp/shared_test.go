package mcp_test

import (
	"sync"
	"testing"
)

// TestSharedServersKeepCallersApart: members holding the same scopes are answered by one shared
// MCP server (server.go), so each call must still run as its own caller. Two members call
// my_courses at the same time, many times over: each sees only their own enrollments.
func TestSharedServersKeepCallersApart(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		student := e.connect(e.a, e.token(e.a, studentEmail, readScope), "")
		owner := e.connect(e.a, e.token(e.a, ownerEmail, readScope), "")
		var courses struct{ Courses []struct{ Slug string } }
		call(t, owner, "my_courses", nil, &courses)
		if len(courses.Courses) != 0 {
			t.Fatalf("the owner is enrolled nowhere, but my_courses shows %+v", courses)
		}

		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for range 10 {
					var mine struct{ Courses []struct{ Slug string } }
					call(t, student, "my_courses", nil, &mine)
					if len(mine.Courses) != 1 || mine.Courses[0].Slug != "go-basics" {
						t.Errorf("student's my_courses: %+v", mine)
						return
					}
				}
			})
			wg.Go(func() {
				for range 10 {
					var theirs struct{ Courses []struct{ Slug string } }
					call(t, owner, "my_courses", nil, &theirs)
					if len(theirs.Courses) != 0 {
						t.Errorf("owner's my_courses shows another member's enrollments: %+v", theirs)
						return
					}
				}
			})
		}
		wg.Wait()
	})
}
