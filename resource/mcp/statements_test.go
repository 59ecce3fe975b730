package mcp_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage/conformance"
)

// TestMyCoursesStatements: my_courses costs the same, small number of statements for a member
// with 20 courses of 200 lectures, every one with progress (school A), as for one with a single
// one-lecture course (school B): it reads the progress summed up per course, never every row.
// The first call for a page of courses also reads their curricula into the store's cache (two
// statements). Its answer follows the documented rule for the last watched lecture: the latest
// update, on a tie (the large member's ten sections tie) the higher lecture id.
func TestMyCoursesStatements(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		const busy = "busy@example.test"
		e.Seed(e.A, conformance.LargeSchoolData(20, 10, 20))
		e.Seed(e.B, conformance.LargeSchoolData(1, 1, 1))
		stmts := e.Store.CountStatements()
		count := func(tn *school.School, token string) (int64, []byte) {
			t.Helper()
			stmts.Reset()
			r := e.post(tn, token, toolCall("my_courses", `{"first":20}`))
			if r.status != http.StatusOK {
				t.Fatalf("my_courses: %d %s", r.status, r.body)
			}
			return stmts.Count(), r.body
		}
		tokenA, tokenB := e.Token(e.A, busy, readScope), e.Token(e.B, busy, readScope)
		// The token pair; the page of enrollments with their courses; the curricula's versions
		// (then, the first time, sections and lectures); the progress summary.
		for round, want := range []int64{6, 4} {
			large, body := count(e.A, tokenA)
			small, _ := count(e.B, tokenB)
			if large != want || small != want {
				t.Errorf("call %d: %d statements for the large member, %d for the small one; want %d for both", round+1, large, small, want)
			}
			var rpc struct {
				Result struct {
					StructuredContent struct {
						Courses []struct {
							Progress struct {
								Total     int `json:"total_lectures"`
								Completed int `json:"completed_lectures"`
							}
							LastWatched struct {
								LectureTitle string `json:"lecture_title"`
							} `json:"last_watched_lecture"`
						}
					} `json:"structuredContent"`
				}
			}
			if err := json.Unmarshal(body, &rpc); err != nil {
				t.Fatalf("%v: %s", err, body)
			}
			courses := rpc.Result.StructuredContent.Courses
			if len(courses) != 20 || courses[0].Progress.Total != 200 || courses[0].Progress.Completed != 200 ||
				courses[0].LastWatched.LectureTitle != "Lecture 10.20" {
				t.Errorf("call %d: %.400s", round+1, body)
			}
		}
	})
}
