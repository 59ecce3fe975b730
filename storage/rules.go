package storage

import "time"

// The rules below are the domain's own, stated once: the Member API, the MCP tools and the
// operator REST API all show what they compute, so a surface that worked one out by itself could
// drift from the others.

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
