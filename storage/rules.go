package storage

import (
	"context"
	"errors"
	"slices"
	"time"
)

// The rules below are the domain's own, stated once: the Member API, the MCP tools and the
// operator REST API all show what they compute, and the member pages and the operator REST API
// both change roles, so a surface that worked one out by itself could drift from the others.

// LockedAt reports whether the lecture is locked at now: a locked lecture with an unlock time is
// open from that time on, without anything rewriting the row.
func (l Lecture) LockedAt(now time.Time) bool {
	return l.IsLocked && (l.UnlockAt == nil || l.UnlockAt.After(now))
}

// ActiveAt reports whether the enrollment gives access at `at`: lifetime access, no expiry, or an
// expiry still ahead.
func (e Enrollment) ActiveAt(at time.Time) bool {
	return e.LifetimeAccess || e.ExpireDate == nil || e.ExpireDate.After(at)
}

// Expires returns when access ends: nil with lifetime access, whatever date the row keeps
// (lifetime access does not expire), or without an expiry.
func (e Enrollment) Expires() *time.Time {
	if e.LifetimeAccess {
		return nil
	}
	return e.ExpireDate
}

// StateShown is the state a lecture shows a member: their progress row's, or unread without one
// (p nil, or a row that records no state).
func (p *LectureProgress) StateShown() LectureState {
	if p == nil || p.State == "" {
		return LectureUnread
	}
	return p.State
}

// WatchedAfter reports whether p comes after q in the order that picks a member's last watched
// lecture (CourseProgress.LastWatched): updated later, or at the same time on a higher lecture
// id, so that the pick does not depend on the order rows are read in.
func (p LectureProgress) WatchedAfter(q LectureProgress) bool {
	return p.UpdatedAt.After(q.UpdatedAt) || p.UpdatedAt.Equal(q.UpdatedAt) && p.LectureID > q.LectureID
}

// Percent is the completed lectures as a whole percentage of all the course's lectures,
// rounded down; 0 for a course without lectures.
func (p CourseProgress) Percent() int { return percent(p.CompletedLectures, p.TotalLectures) }

// CompletionRate is the students who completed the course per enrollment, as a whole
// percentage rounded down; 0 without enrollments.
func (s CourseStats) CompletionRate() int { return percent(s.CompletedStudents, s.Enrollments) }

// percent is part of whole as a whole percentage, rounded down; 0 of nothing.
func percent(part, whole int) int {
	if whole <= 0 {
		return 0
	}
	return part * 100 / whole
}

// The refusals of RoleChangeRefusal. Neither is an ErrInvalidArgument: the change is well formed,
// the caller's roles do not allow it (the operator API answers 403, the member pages their
// refusal sentence).
var (
	// ErrOwnerGrant: only an owner may give the owner role.
	ErrOwnerGrant = errors.New("storage: only an owner may grant the owner role")
	// ErrOwnersRoles: only an owner may change an owner's roles, the owner role or any other,
	// or remove an owner from the school.
	ErrOwnersRoles = errors.New("storage: only an owner may change an owner's roles")
)

// RoleChangeRefusal says why a caller holding callerRoles at a school may not replace a
// member's roles there, current as read in the change's transaction, by wanted (nil or empty
// removes the member), or returns nil if they may. It is the one rule of who may change whose
// roles, for the member pages and the operator REST API alike (docs/decisions.md, "Admins manage
// everyone but owners"):
//
//   - an owner may make any change, to anyone, themself included;
//   - anyone else may not change an owner's roles at all, keeping the owner role or not, nor
//     remove an owner (ErrOwnersRoles), and may not give anyone else the owner role
//     (ErrOwnerGrant).
//
// Who is an operator at all (an owner or admin) is each surface's gate, checked on every request
// before this. The last owner's keeping the role is not decided here: it depends on the other
// members' roles, which only the store sees with their rows locked (SetSchoolRoles,
// ErrLastOwner). A change of roles asks it through ChangeRoles, inside the write's transaction
// and on the roles read there.
func RoleChangeRefusal(callerRoles, current, wanted []Role) error {
	if slices.Contains(callerRoles, RoleOwner) {
		return nil
	}
	if slices.Contains(current, RoleOwner) {
		return ErrOwnersRoles
	}
	if slices.Contains(wanted, RoleOwner) {
		return ErrOwnerGrant
	}
	return nil
}

// RoleChanger is what ChangeRoles needs of a store.
type RoleChanger interface {
	GetRoles(ctx context.Context, memberID int64) ([]Role, error)
	SetSchoolRoles(ctx context.Context, memberID int64, roles []Role) ([]Role, error)
}

// ChangeRoles replaces the roles of a member at the context's school by wanted (nil or empty
// removes them from it) for a caller holding callerRoles, if RoleChangeRefusal lets them, and
// returns the member's roles before and after. ctx must be inside the write's transaction
// (InTx): the rule is asked on the roles read there, which the store holds until the
// transaction ends, so a member made an owner after the request began is not changed by an
// admin. Besides RoleChangeRefusal's errors, SetSchoolRoles's (ErrLastOwner, ErrNotFound ...).
func ChangeRoles(ctx context.Context, s RoleChanger, callerRoles []Role, memberID int64, wanted []Role) (before, after []Role, err error) {
	if before, err = s.GetRoles(ctx, memberID); err != nil {
		return nil, nil, err
	}
	if err := RoleChangeRefusal(callerRoles, before, wanted); err != nil {
		return nil, nil, err
	}
	if after, err = s.SetSchoolRoles(ctx, memberID, wanted); err != nil {
		return nil, nil, err
	}
	return before, after, nil
}
