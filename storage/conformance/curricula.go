package conformance

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/proctorhq/proctor/storage"
)

// testCurriculumWrites: a curriculum read after a write to it answers as of that write, whatever
// a backend keeps between reads (the gorm store caches curricula), and what a read returns is the
// caller's to change.
func testCurriculumWrites(t *testing.T, s storage.Store) {
	ctxA, ctxB := syncSchools(t, s)
	mustImport(t, s, ctxA, FullSchoolData())
	mustImport(t, s, ctxB, FullSchoolData())
	goA, goB := courseBySlug(t, s, ctxA, "go-basics"), courseBySlug(t, s, ctxB, "go-basics")
	titles := func(ctx context.Context, id int64) []string {
		t.Helper()
		sections, lectures, err := s.GetCurricula(ctx, []int64{id})
		must(t, "GetCurricula", err)
		var out []string
		for _, sec := range sections {
			out = append(out, "section "+sec.Title)
			for _, l := range lectures {
				if l.SectionID == sec.ID {
					out = append(out, l.Title)
				}
			}
		}
		return out
	}
	want := func(what string, ctx context.Context, id int64, want ...string) {
		t.Helper()
		if got := titles(ctx, id); !slices.Equal(got, want) {
			t.Errorf("%s: curriculum %q, want %q", what, got, want)
		}
	}
	want("imported", ctxA, goA.ID, "section Start", "Hello", "Types", "section More", "Goroutines")

	// Changing what a read returned, through the slices or the pointers in them, changes
	// nothing a later read returns.
	sections, lectures, err := s.GetCurricula(ctxA, []int64{goA.ID})
	must(t, "GetCurricula", err)
	sections[0].Title = "changed"
	lectures[0].Title = "changed"
	*lectures[1].UnlockAt = time.Time{}
	_ = append(sections[:1], storage.Section{Title: "appended"})
	want("after changing a read's result", ctxA, goA.ID, "section Start", "Hello", "Types", "section More", "Goroutines")
	_, again, err := s.GetCurriculum(ctxA, goA.ID)
	must(t, "GetCurriculum", err)
	if again[1].UnlockAt == nil || !again[1].UnlockAt.Equal(at(20, 9)) {
		t.Errorf("unlock time after changing a read's result: %v", again[1].UnlockAt)
	}

	// The operator writes.
	sec, err := s.AppendSection(ctxA, goA.ID, "Extra")
	must(t, "AppendSection", err)
	want("after AppendSection", ctxA, goA.ID, "section Start", "Hello", "Types", "section More", "Goroutines", "section Extra")
	_, err = s.AppendLecture(ctxA, storage.Lecture{CourseID: goA.ID, SectionID: sec.ID, Title: "Channels"})
	must(t, "AppendLecture", err)
	want("after AppendLecture", ctxA, goA.ID, "section Start", "Hello", "Types", "section More", "Goroutines", "section Extra", "Channels")
	sum, err := s.GetCourseProgress(ctxA, memberID(t, s, ctxA, "ada@example.test"), []int64{goA.ID})
	must(t, "GetCourseProgress", err)
	if len(sum) != 1 || sum[0].TotalLectures != 4 {
		t.Errorf("progress summary after AppendLecture: %+v, want 4 lectures", sum)
	}

	// An import that renames a lecture and adds one.
	data := FullSchoolData()
	data.Courses[0].Sections[0].Lectures[0].Title = "Hello again"
	data.Courses[0].Sections[1].Lectures = append(data.Courses[0].Sections[1].Lectures, storage.LectureSeed{Title: "Select"})
	mustImport(t, s, ctxA, data)
	want("after an import", ctxA, goA.ID, "section Start", "Hello again", "Types", "section More", "Goroutines", "Select", "section Extra", "Channels")

	// A write rolled back is never seen, nor mistaken for the next one committed (which a
	// cache keyed by a version the rollback undid would do).
	tx, err := s.BeginTx(ctxA)
	must(t, "BeginTx", err)
	_, err = s.AppendLecture(tx, storage.Lecture{CourseID: goA.ID, SectionID: sec.ID, Title: "Rolled back"})
	must(t, "AppendLecture in a transaction", err)
	want("inside the transaction", tx, goA.ID, "section Start", "Hello again", "Types", "section More", "Goroutines", "Select", "section Extra", "Channels", "Rolled back")
	must(t, "Rollback", s.Rollback(tx))
	_, err = s.AppendLecture(ctxA, storage.Lecture{CourseID: goA.ID, SectionID: sec.ID, Title: "Committed"})
	must(t, "AppendLecture", err)
	want("after a rollback and the next write", ctxA, goA.ID, "section Start", "Hello again", "Types", "section More", "Goroutines", "Select", "section Extra", "Channels", "Committed")

	// School B's course of the same slug saw none of it, and A cannot read it.
	want("school B", ctxB, goB.ID, "section Start", "Hello", "Types", "section More", "Goroutines")
	want("school B's course read at A", ctxA, goB.ID)
}

// testCourseProgress checks the progress summary against the rows it sums up.
func testCourseProgress(t *testing.T, s storage.Store) {
	ctxA, ctxB := syncSchools(t, s)
	data := FullSchoolData()
	// Ties on the latest time go to the higher lecture id: within one state (Grace) and across
	// states (Linus, whose earlier row does not count as his last).
	ref := func(section, lecture int) storage.LectureRef {
		return storage.LectureRef{Course: "go-basics", Section: section, Lecture: lecture}
	}
	data.Progress = append(data.Progress,
		storage.ProgressSeed{Member: "grace@example.test", Lecture: ref(1, 1), State: storage.LectureCompleted, PositionSeconds: 1, UpdatedAt: at(5, 5)},
		storage.ProgressSeed{Member: "grace@example.test", Lecture: ref(1, 2), State: storage.LectureCompleted, PositionSeconds: 2, UpdatedAt: at(5, 5)},
		storage.ProgressSeed{Member: "linus@example.test", Lecture: ref(1, 1), State: storage.LectureRead, PositionSeconds: 3, UpdatedAt: at(6, 6)},
		storage.ProgressSeed{Member: "linus@example.test", Lecture: ref(1, 2), State: storage.LectureUnread, PositionSeconds: 4, UpdatedAt: at(6, 1)},
		storage.ProgressSeed{Member: "linus@example.test", Lecture: ref(2, 1), State: storage.LectureCompleted, PositionSeconds: 5, UpdatedAt: at(6, 6)},
	)
	mustImport(t, s, ctxA, data)
	mustImport(t, s, ctxB, FullSchoolData())
	ada, _, lectures := firstLecture(t, s, ctxA, "ada@example.test", "go-basics")
	goBasics, draft := lectures[0].CourseID, courseBySlug(t, s, ctxA, "draft").ID
	other := courseBySlug(t, s, ctxB, "go-basics").ID
	row := func(email string, lecture, position int, state storage.LectureState, updated time.Time) *storage.LectureProgress {
		return &storage.LectureProgress{MemberID: memberID(t, s, ctxA, email), LectureID: lectures[lecture].ID, CourseID: goBasics,
			State: state, PositionSeconds: position, UpdatedAt: updated}
	}
	empty := storage.CourseProgress{CourseID: draft}
	for _, tc := range []struct {
		email string
		want  []storage.CourseProgress
	}{
		{"ada@example.test", []storage.CourseProgress{
			{CourseID: goBasics, TotalLectures: 3, CompletedLectures: 1, ReadLectures: 1,
				LastWatched: row("ada@example.test", 2, 42, storage.LectureRead, at(4, 10)), LastWatchedTitle: "Goroutines"},
			empty,
		}},
		{"grace@example.test", []storage.CourseProgress{
			{CourseID: goBasics, TotalLectures: 3, CompletedLectures: 2,
				LastWatched: row("grace@example.test", 1, 2, storage.LectureCompleted, at(5, 5)), LastWatchedTitle: "Types"},
			empty,
		}},
		{"linus@example.test", []storage.CourseProgress{
			{CourseID: goBasics, TotalLectures: 3, CompletedLectures: 1, ReadLectures: 1,
				LastWatched: row("linus@example.test", 2, 5, storage.LectureCompleted, at(6, 6)), LastWatchedTitle: "Goroutines"},
			empty,
		}},
	} {
		// Asked in any order, with another school's course and an unknown one.
		got, err := s.GetCourseProgress(ctxA, memberID(t, s, ctxA, tc.email), []int64{draft, other, 1 << 40, goBasics})
		must(t, "GetCourseProgress", err)
		wantEqual(t, "progress summary of "+tc.email, got, tc.want)
	}

	// It follows the rows: a new update is the last watched.
	p, err := s.UpdateLectureProgress(ctxA, ada.ID, lectures[1].ID, func(p storage.LectureProgress) (storage.LectureProgress, error) {
		p.State = storage.LectureCompleted
		p.PositionSeconds = 600
		return p, nil
	})
	must(t, "UpdateLectureProgress", err)
	got, err := s.GetCourseProgress(ctxA, ada.ID, []int64{goBasics})
	must(t, "GetCourseProgress", err)
	wantEqual(t, "progress summary after an update", got, []storage.CourseProgress{{
		CourseID: goBasics, TotalLectures: 3, CompletedLectures: 2, ReadLectures: 1, LastWatched: &p, LastWatchedTitle: "Types",
	}})

	for name, ids := range map[string][]int64{"no courses": nil, "another school's course": {other}} {
		got, err := s.GetCourseProgress(ctxA, ada.ID, ids)
		must(t, "GetCourseProgress of "+name, err)
		if len(got) != 0 {
			t.Errorf("GetCourseProgress of %s: %+v", name, got)
		}
	}
}
