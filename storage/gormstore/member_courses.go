package gormstore

import (
	"context"
	"fmt"
	"time"

	"github.com/proctorhq/proctor/storage"
)

// enrolledCourseRow is one row of the enrollments-courses join.
type enrolledCourseRow struct {
	EnrollmentID   int64
	CourseID       int64
	ExpireDate     *time.Time
	LifetimeAccess bool
	EnrolledAt     time.Time
	storage.Offer
	Published bool
	CreatedAt time.Time
	UpdatedAt time.Time
}

// ListEnrolledCourses pages through a member's enrollments with their courses in one statement.
func (s *Store) ListEnrolledCourses(ctx context.Context, memberID int64, page storage.Page) ([]storage.EnrolledCourse, string, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return nil, "", err
	}
	op := fmt.Sprintf("list enrolled courses of member %d", memberID)
	// Both tables are filtered by the school: the join's own condition already ties the course
	// to the enrollment's school, and the explicit filters let each use its index.
	q := s.conn(ctx).Table("enrollments AS e").
		Select("e.id AS enrollment_id, e.course_id, e.expire_date, e.lifetime_access, e.enrolled_at, "+
			"c.slug, c.title, c.description, c.price_amount, c.currency, c.published, c.created_at, c.updated_at").
		Joins("JOIN courses AS c ON c.school_id = e.school_id AND c.id = e.course_id").
		Where("e.school_id = ? AND e.member_id = ?", sc.schoolID, memberID)
	rows, next, err := readTimeIDPage(q, "e.enrolled_at", "e.id", false, page, op, func(r enrolledCourseRow) (time.Time, int64) { return r.EnrolledAt, r.EnrollmentID })
	if err != nil {
		return nil, "", err
	}
	out := make([]storage.EnrolledCourse, len(rows))
	for i, r := range rows {
		out[i] = storage.EnrolledCourse{
			Enrollment: storage.Enrollment{
				ID:             r.EnrollmentID,
				MemberID:       memberID,
				CourseID:       r.CourseID,
				ExpireDate:     utcPtr(r.ExpireDate),
				LifetimeAccess: r.LifetimeAccess,
				EnrolledAt:     utc(r.EnrolledAt),
			},
			Course: courseRow{
				ID: r.CourseID, Offer: r.Offer, Published: r.Published,
				CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
			}.course(),
		}
	}
	return out, next, nil
}

// GetCurricula returns the sections and lectures of several courses: one statement for their
// curriculum versions, and two more when some of them are not cached at their version
// (curricula.go).
func (s *Store) GetCurricula(ctx context.Context, courseIDs []int64) ([]storage.Section, []storage.Lecture, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return nil, nil, err
	}
	if len(courseIDs) == 0 {
		return []storage.Section{}, []storage.Lecture{}, nil
	}
	cs, err := s.curricula(ctx, sc, courseIDs)
	if err != nil {
		return nil, nil, err
	}
	sections, lectures := copyCurricula(cs)
	return sections, lectures, nil
}
