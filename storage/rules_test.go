package storage

import (
	"testing"
	"time"
)

// The rules are checked at now, and at the seconds either side of it.
var (
	now           = time.Date(2026, 4, 1, 12, 0, 0, 0, time.UTC)
	before, after = now.Add(-time.Second), now.Add(time.Second)
)

func TestLectureLockedAt(t *testing.T) {
	for _, tc := range []struct {
		name string
		l    Lecture
		want bool
	}{
		{"open", Lecture{}, false},
		{"open with a stray unlock time", Lecture{UnlockAt: &after}, false},
		{"locked for good", Lecture{IsLocked: true}, true},
		{"locked until later", Lecture{IsLocked: true, UnlockAt: &after}, true},
		{"unlocks now", Lecture{IsLocked: true, UnlockAt: &now}, false},
		{"unlocked earlier", Lecture{IsLocked: true, UnlockAt: &before}, false},
	} {
		if got := tc.l.LockedAt(now); got != tc.want {
			t.Errorf("%s: LockedAt = %v", tc.name, got)
		}
	}
}

func TestEnrollmentAccess(t *testing.T) {
	for _, tc := range []struct {
		name    string
		e       Enrollment
		active  bool
		expires *time.Time
	}{
		{"no expiry", Enrollment{}, true, nil},
		{"expires later", Enrollment{ExpireDate: &after}, true, &after},
		{"expires now", Enrollment{ExpireDate: &now}, false, &now},
		{"expired", Enrollment{ExpireDate: &before}, false, &before},
		{"lifetime", Enrollment{LifetimeAccess: true}, true, nil},
		{"lifetime with a stale date", Enrollment{LifetimeAccess: true, ExpireDate: &before}, true, nil},
	} {
		if got := tc.e.ActiveAt(now); got != tc.active {
			t.Errorf("%s: ActiveAt = %v", tc.name, got)
		}
		if got := tc.e.Expires(); got != tc.expires {
			t.Errorf("%s: Expires = %v, want %v", tc.name, got, tc.expires)
		}
	}
}

func TestPercentages(t *testing.T) {
	for _, tc := range []struct{ part, whole, want int }{
		{0, 0, 0}, {0, 3, 0}, {1, 3, 33}, {2, 3, 66}, {3, 3, 100}, {199, 200, 99},
	} {
		if got := (CourseProgress{CompletedLectures: tc.part, ReadLectures: 1, TotalLectures: tc.whole}).Percent(); got != tc.want {
			t.Errorf("CourseProgress %d of %d: Percent = %d, want %d", tc.part, tc.whole, got, tc.want)
		}
		if got := (CourseStats{CompletedStudents: tc.part, ActiveEnrollments: 1, Enrollments: tc.whole}).CompletionRate(); got != tc.want {
			t.Errorf("CourseStats %d of %d: CompletionRate = %d, want %d", tc.part, tc.whole, got, tc.want)
		}
	}
}

func TestLectureProgressWatchedAfter(t *testing.T) {
	at := func(lecture int64, d time.Duration) LectureProgress {
		return LectureProgress{LectureID: lecture, UpdatedAt: now.Add(d)}
	}
	for _, tc := range []struct {
		name string
		p, q LectureProgress
		want bool
	}{
		{"later", at(1, time.Second), at(2, 0), true},
		{"earlier", at(2, 0), at(1, time.Second), false},
		{"a tie, higher lecture", at(2, 0), at(1, 0), true},
		{"a tie, lower lecture", at(1, 0), at(2, 0), false},
		{"itself", at(1, 0), at(1, 0), false},
	} {
		if got := tc.p.WatchedAfter(tc.q); got != tc.want {
			t.Errorf("%s: WatchedAfter = %v", tc.name, got)
		}
	}
}

func TestStateShown(t *testing.T) {
	var none *LectureProgress
	for _, c := range []struct {
		p    *LectureProgress
		want LectureState
	}{
		{none, LectureUnread},
		{&LectureProgress{}, LectureUnread},
		{&LectureProgress{State: LectureRead}, LectureRead},
		{&LectureProgress{State: LectureCompleted}, LectureCompleted},
	} {
		if got := c.p.StateShown(); got != c.want {
			t.Errorf("%+v: StateShown = %q, want %q", c.p, got, c.want)
		}
	}
}
