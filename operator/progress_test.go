package operator

import (
	"testing"
	"time"

	"github.com/proctorhq/proctor/storage"
)

// TestProgressLastWatched: the last watched lecture is the progress row updated last, and on a
// tie the one of the higher lecture id, whatever the lectures' order in the curriculum (the
// rule of storage.CourseProgress, which the Member API and the MCP tools use).
func TestProgressLastWatched(t *testing.T) {
	t0 := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	// The curriculum lists lecture 3 first, then 9, then 5: neither in id order nor against it.
	lectures := []storage.Lecture{{ID: 3, Title: "three"}, {ID: 9, Title: "nine"}, {ID: 5, Title: "five"}}
	for _, tc := range []struct {
		name string
		rows []storage.LectureProgress
		want int64
	}{
		{"none", nil, 0},
		{"latest wins", []storage.LectureProgress{
			{LectureID: 9, State: storage.LectureRead, UpdatedAt: t0},
			{LectureID: 3, State: storage.LectureRead, UpdatedAt: t0.Add(time.Minute)},
		}, 3},
		{"tie: the higher id, not the first in the curriculum", []storage.LectureProgress{
			{LectureID: 3, State: storage.LectureRead, UpdatedAt: t0},
			{LectureID: 9, State: storage.LectureRead, UpdatedAt: t0},
			{LectureID: 5, State: storage.LectureRead, UpdatedAt: t0},
		}, 9},
		{"tie among the later rows only", []storage.LectureProgress{
			{LectureID: 9, State: storage.LectureRead, UpdatedAt: t0},
			{LectureID: 3, State: storage.LectureCompleted, UpdatedAt: t0.Add(time.Hour)},
			{LectureID: 5, State: storage.LectureRead, UpdatedAt: t0.Add(time.Hour)},
		}, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := progressOut(1, 2, lectures, tc.rows)
			switch {
			case tc.want == 0 && got.LastWatched != nil:
				t.Errorf("last watched %+v, want none", got.LastWatched)
			case tc.want != 0 && (got.LastWatched == nil || got.LastWatched.LectureID != tc.want):
				t.Errorf("last watched %+v, want lecture %d", got.LastWatched, tc.want)
			}
		})
	}
}
