package gormstore

import (
	"context"
	"time"

	"gorm.io/gorm"

	"github.com/proctorhq/proctor/storage"
)

// ListCourseStats pages through the courses with their figures in four statements whatever the
// page holds: the page of courses, then one grouped count each for enrollments, lectures and
// completions over the page's course ids.
func (s *Store) ListCourseStats(ctx context.Context, at time.Time, page storage.Page) ([]storage.CourseStats, string, error) {
	courses, next, err := s.ListCourses(ctx, false, page)
	if err != nil || len(courses) == 0 {
		return []storage.CourseStats{}, next, err
	}
	sc, err := s.scoped(ctx)
	if err != nil {
		return nil, "", err
	}
	const op = "list course stats"
	db := s.conn(ctx)
	ids := make([]int64, len(courses))
	for i, c := range courses {
		ids[i] = c.ID
	}

	// Each count is one statement grouped by course: enrollments (and those active at `at`),
	// lectures, and the students who completed the course. A student has completed a course when
	// their completed lectures of it, counted only while they are enrolled, number as many as the
	// course's lectures.
	var enrollments, lectures, completed []struct {
		CourseID      int64
		Total, Active int
	}
	for _, count := range []struct {
		q    *gorm.DB
		into any
	}{
		{sc.in(db.Model(&enrollmentRow{})).
			Select("course_id, COUNT(*) AS total, "+
				"SUM(CASE WHEN lifetime_access OR expire_date IS NULL OR expire_date > ? THEN 1 ELSE 0 END) AS active", dbTime(at)).
			Where("course_id IN ?", ids).Group("course_id"), &enrollments},
		{sc.in(db.Model(&lectureRow{})).Select("course_id, COUNT(*) AS total").
			Where("course_id IN ?", ids).Group("course_id"), &lectures},
		{db.Raw(`SELECT done.course_id, COUNT(*) AS total FROM (
    SELECT p.course_id, p.member_id
    FROM lecture_progress AS p
    JOIN enrollments AS e ON e.school_id = p.school_id AND e.course_id = p.course_id AND e.member_id = p.member_id
    WHERE p.school_id = ? AND p.course_id IN ? AND p.state = ?
    GROUP BY p.course_id, p.member_id
    HAVING COUNT(*) = (SELECT COUNT(*) FROM lectures AS l WHERE l.school_id = ? AND l.course_id = p.course_id)
) AS done GROUP BY done.course_id`, sc.schoolID, ids, storage.LectureCompleted, sc.schoolID), &completed},
	} {
		if err := count.q.Scan(count.into).Error; err != nil {
			return nil, "", wrap(op, err)
		}
	}

	out := make([]storage.CourseStats, len(courses))
	byID := make(map[int64]*storage.CourseStats, len(courses))
	for i, c := range courses {
		out[i] = storage.CourseStats{Course: c}
		byID[c.ID] = &out[i]
	}
	for _, r := range enrollments {
		byID[r.CourseID].Enrollments, byID[r.CourseID].ActiveEnrollments = r.Total, r.Active
	}
	for _, r := range lectures {
		byID[r.CourseID].Lectures = r.Total
	}
	for _, r := range completed {
		byID[r.CourseID].CompletedStudents = r.Total
	}
	return out, next, nil
}

// RevenueByCurrency sums the school's paid (and later refunded) payments by currency, dated by
// paid_at.
func (s *Store) RevenueByCurrency(ctx context.Context, from, to time.Time) ([]storage.Revenue, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return nil, err
	}
	q := sc.in(s.conn(ctx).Model(&paymentRow{})).
		Select("currency, COUNT(*) AS payments, SUM(amount) AS gross, SUM(refunded_amount) AS refunded").
		Where("payment_state IN ? AND paid_at IS NOT NULL", []string{storage.PaymentPaid, storage.PaymentRefunded})
	if !from.IsZero() {
		q = q.Where("paid_at >= ?", dbTime(from))
	}
	if !to.IsZero() {
		q = q.Where("paid_at < ?", dbTime(to))
	}
	var rows []storage.Revenue
	if err := q.Group("currency").Order("currency").Scan(&rows).Error; err != nil {
		return nil, wrap("sum revenue", err)
	}
	for i := range rows {
		rows[i].Net = rows[i].Gross - rows[i].Refunded
	}
	if rows == nil {
		rows = []storage.Revenue{}
	}
	return rows, nil
}
