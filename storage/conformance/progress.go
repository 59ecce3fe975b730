package conformance

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/storage"
)

// firstLecture returns the member and the first lecture of course slug at the context's school.
func firstLecture(t *testing.T, s storage.Store, ctx context.Context, email, slug string) (storage.Member, storage.Course, []storage.Lecture) {
	t.Helper()
	m, err := s.GetMemberByEmail(ctx, email)
	must(t, "GetMemberByEmail", err)
	c := courseBySlug(t, s, ctx, slug)
	_, lectures, err := s.GetCurriculum(ctx, c.ID)
	must(t, "GetCurriculum", err)
	if len(lectures) == 0 {
		t.Fatalf("course %s has no lectures", slug)
	}
	return m, c, lectures
}

func testLectureProgress(t *testing.T, s storage.Store) {
	ctxA, _, _ := withFullSchool(t, s)
	ada, course, lectures := firstLecture(t, s, ctxA, "ada@example.test", "go-basics")
	draft := courseBySlug(t, s, ctxA, "draft")

	// The imported rows.
	got, err := s.GetLectureProgress(ctxA, ada.ID, []int64{course.ID, draft.ID})
	must(t, "GetLectureProgress", err)
	want := []storage.LectureProgress{
		{MemberID: ada.ID, LectureID: lectures[0].ID, CourseID: course.ID, State: storage.LectureCompleted, PositionSeconds: 300, UpdatedAt: at(3, 10)},
		{MemberID: ada.ID, LectureID: lectures[2].ID, CourseID: course.ID, State: storage.LectureRead, PositionSeconds: 42, UpdatedAt: at(4, 10)},
	}
	wantEqual(t, "imported progress", got, want)

	got, err = s.GetLectureProgress(ctxA, ada.ID, nil)
	must(t, "GetLectureProgress without courses", err)
	if len(got) != 0 {
		t.Errorf("progress for no courses: %+v", got)
	}

	// A lecture without a row starts unread at 0.
	linus := memberID(t, s, t.Context(), "linus@example.test")
	lecture := lectures[1]
	p, err := s.UpdateLectureProgress(ctxA, linus, lecture.ID, func(old storage.LectureProgress) (storage.LectureProgress, error) {
		wantEqual(t, "progress before the first update", old, storage.LectureProgress{
			MemberID: linus, LectureID: lecture.ID, CourseID: course.ID, State: storage.LectureUnread, UpdatedAt: old.UpdatedAt,
		})
		old.State = storage.LectureRead
		old.PositionSeconds = 17
		return old, nil
	})
	must(t, "UpdateLectureProgress", err)
	if p.UpdatedAt.IsZero() {
		t.Error("UpdatedAt not set")
	}
	first := storage.LectureProgress{MemberID: linus, LectureID: lecture.ID, CourseID: course.ID, State: storage.LectureRead, PositionSeconds: 17, UpdatedAt: p.UpdatedAt}
	wantEqual(t, "first update", p, first)

	p, err = s.UpdateLectureProgress(ctxA, linus, lecture.ID, func(old storage.LectureProgress) (storage.LectureProgress, error) {
		wantEqual(t, "progress before the second update", old, first)
		old.State = storage.LectureCompleted
		old.PositionSeconds = 600
		return old, nil
	})
	must(t, "UpdateLectureProgress", err)
	second := storage.LectureProgress{MemberID: linus, LectureID: lecture.ID, CourseID: course.ID, State: storage.LectureCompleted, PositionSeconds: 600, UpdatedAt: p.UpdatedAt}
	wantEqual(t, "second update", p, second)
	got, err = s.GetLectureProgress(ctxA, linus, []int64{course.ID})
	must(t, "GetLectureProgress", err)
	wantEqual(t, "progress read back", got, []storage.LectureProgress{second})

	// fn's error aborts, and a row created for the call does not remain.
	errStop := errors.New("stop")
	_, err = s.UpdateLectureProgress(ctxA, linus, lectures[0].ID, func(old storage.LectureProgress) (storage.LectureProgress, error) {
		return old, errStop
	})
	if err != errStop { // "returned as is": not wrapped
		t.Errorf("failing fn: error %v, want the fn's error itself", err)
	}
	got, err = s.GetLectureProgress(ctxA, linus, []int64{course.ID})
	must(t, "GetLectureProgress", err)
	wantEqual(t, "progress after an aborted update", got, []storage.LectureProgress{second})

	_, err = s.UpdateLectureProgress(ctxA, linus, lectures[0].ID, func(old storage.LectureProgress) (storage.LectureProgress, error) {
		old.State = "skimmed"
		return old, nil
	})
	wantErr(t, "UpdateLectureProgress to an invalid state", err, storage.ErrInvalidArgument)

	noop := func(old storage.LectureProgress) (storage.LectureProgress, error) { return old, nil }
	var maxID int64
	for _, l := range lectures {
		maxID = max(maxID, l.ID)
	}
	_, err = s.UpdateLectureProgress(ctxA, linus, maxID+1000, noop)
	wantErr(t, "UpdateLectureProgress of an unknown lecture", err, storage.ErrNotFound)
	_, err = s.UpdateLectureProgress(ctxA, linus+ada.ID+1000, lectures[0].ID, noop)
	wantErr(t, "UpdateLectureProgress of an unknown member", err, storage.ErrNotFound)
}

// testConcurrentUpdates races read-modify-write calls on one progress row and one member: the
// database must serialise them, so that no increment is lost.
func testConcurrentUpdates(t *testing.T, s storage.Store) {
	ctxA, _, _ := withFullSchool(t, s)
	ada, _, lectures := firstLecture(t, s, ctxA, "ada@example.test", "go-basics")
	lecture := lectures[1] // no progress row yet: the first updates also race to create it

	const n = 20
	atOnce(2*n, func(i int) {
		var err error
		if i%2 == 0 {
			_, err = s.UpdateLectureProgress(ctxA, ada.ID, lecture.ID, func(old storage.LectureProgress) (storage.LectureProgress, error) {
				old.PositionSeconds++
				old.State = storage.LectureRead
				return old, nil
			})
		} else {
			_, err = s.UpdateMember(t.Context(), ada.ID, func(old storage.Member) (storage.Member, error) {
				old.Name += "+"
				return old, nil
			})
		}
		if err != nil {
			t.Errorf("concurrent update: %v", err)
		}
	})

	got, err := s.GetLectureProgress(ctxA, ada.ID, []int64{lecture.CourseID})
	must(t, "GetLectureProgress", err)
	var pos = -1
	for _, p := range got {
		if p.LectureID == lecture.ID {
			pos = p.PositionSeconds
		}
	}
	if pos != n {
		t.Errorf("position after %d concurrent increments: %d", n, pos)
	}
	m, err := s.GetMember(t.Context(), ada.ID)
	must(t, "GetMember", err)
	if want := ada.Name + strings.Repeat("+", n); m.Name != want {
		t.Errorf("name after %d concurrent appends: %q, want %q", n, m.Name, want)
	}
}
