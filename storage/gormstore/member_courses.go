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
	return listMemberJoin(s, ctx, memberID, page, fmt.Sprintf("list enrolled courses of member %d", memberID), memberJoin[enrolledCourseRow, storage.EnrolledCourse]{
		table: "enrollments", alias: "e",
		columns: "e.id AS enrollment_id, e.course_id, e.expire_date, e.lifetime_access, e.enrolled_at, " +
			"c.slug, c.title, c.description, c.price_amount, c.currency, c.published, c.created_at, c.updated_at",
		join: "JOIN courses AS c ON c.school_id = e.school_id AND c.id = e.course_id",
		at:   "enrolled_at",
		key:  func(r enrolledCourseRow) (time.Time, int64) { return r.EnrolledAt, r.EnrollmentID },
		convert: func(r enrolledCourseRow) storage.EnrolledCourse {
			return storage.EnrolledCourse{
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
		},
	})
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
