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

// Every pairing of caller and target that the rule tells apart, with the changes that matter:
// keeping the roles, another role, granting owner, taking owner, removal.
func TestRoleChangeRefusal(t *testing.T) {
	var (
		owner    = []Role{RoleOwner}
		admin    = []Role{RoleAdmin}
		ownerAdm = []Role{RoleOwner, RoleAdmin}
		lecturer = []Role{RoleLecturer}
		student  = []Role{RoleStudent}
	)
	for _, tc := range []struct {
		name                    string
		caller, current, wanted []Role
		want                    error
	}{
		// An owner may make any change.
		{"owner grants owner", owner, student, []Role{RoleOwner, RoleStudent}, nil},
		{"owner takes owner", owner, ownerAdm, admin, nil},
		{"owner changes an owner's other roles", owner, ownerAdm, []Role{RoleOwner, RoleLecturer}, nil},
		{"owner removes an owner", owner, owner, nil, nil},
		{"owner changes an admin", owner, admin, student, nil},
		{"owner who is also admin grants owner", ownerAdm, admin, owner, nil},
		{"owner demotes themself", owner, owner, admin, nil}, // the last-owner check is the store's

		// An admin manages everyone but owners, and makes no one an owner.
		{"admin makes a student a lecturer", admin, student, lecturer, nil},
		{"admin makes a student an admin", admin, student, []Role{RoleAdmin, RoleStudent}, nil},
		{"admin demotes an admin", admin, admin, student, nil},
		{"admin removes a student", admin, student, nil, nil},
		{"admin removes an admin", admin, admin, []Role{}, nil},
		{"admin changes their own roles", admin, admin, []Role{RoleAdmin, RoleLecturer}, nil},
		{"admin keeps a student's roles", admin, student, student, nil},
		{"admin grants owner to a student", admin, student, owner, ErrOwnerGrant},
		{"admin grants owner to themself", admin, admin, ownerAdm, ErrOwnerGrant},
		{"admin keeps an owner's roles", admin, owner, owner, ErrOwnersRoles},
		{"admin takes owner", admin, ownerAdm, admin, ErrOwnersRoles},
		{"admin changes an owner's other roles", admin, owner, []Role{RoleOwner, RoleStudent}, ErrOwnersRoles},
		{"admin changes an owner's other roles, owner role dropped", admin, ownerAdm, lecturer, ErrOwnersRoles},
		{"admin removes an owner", admin, owner, nil, ErrOwnersRoles},
		{"admin removes an owner (empty list)", admin, ownerAdm, []Role{}, ErrOwnersRoles},

		// Anyone who is not an owner is held to the admin's limits (the surfaces let only
		// owners and admins this far).
		{"lecturer grants owner", lecturer, student, owner, ErrOwnerGrant},
		{"no roles changes an owner", nil, owner, admin, ErrOwnersRoles},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := RoleChangeRefusal(tc.caller, tc.current, tc.wanted); got != tc.want {
				t.Errorf("RoleChangeRefusal(%v, %v, %v) = %v, want %v", tc.caller, tc.current, tc.wanted, got, tc.want)
			}
		})
	}
}
