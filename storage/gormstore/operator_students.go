package gormstore

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/proctorhq/proctor/storage"
)

// joinedMember is the member's part of a row that joins members AS m, selected by
// joinedMemberColumns. The password hash is never selected: it has no business outside the
// login path.
type joinedMember struct {
	Email           string
	Name            string
	AvatarURL       string
	MemberCreatedAt time.Time
	MemberUpdatedAt time.Time
}

// joinedMemberColumns selects a joinedMember.
const joinedMemberColumns = "m.email, m.name, m.avatar_url, m.created_at AS member_created_at, m.updated_at AS member_updated_at"

// member is the member with the id the joined row refers to them by.
func (m joinedMember) member(id int64) storage.Member {
	return storage.Member{
		ID: id, Email: m.Email, Name: m.Name, AvatarURL: m.AvatarURL,
		CreatedAt: utc(m.MemberCreatedAt), UpdatedAt: utc(m.MemberUpdatedAt),
	}
}

// courseEnrollmentRow is one row of the enrollments-members join.
type courseEnrollmentRow struct {
	storage.Enrollment
	Member joinedMember `gorm:"embedded"`
}

func (r courseEnrollmentRow) enrollment() storage.CourseEnrollment {
	return storage.CourseEnrollment{Enrollment: utcEnrollment(r.Enrollment), Member: r.Member.member(r.MemberID)}
}

// enrollmentsWithMembers is the join every enrollment read goes through, filtered by the school.
func enrollmentsWithMembers(db *gorm.DB, sc scope) *gorm.DB {
	return db.Table("enrollments AS e").
		Select("e.id, e.member_id, e.course_id, e.expire_date, e.lifetime_access, e.enrolled_at, "+joinedMemberColumns).
		Joins("JOIN members AS m ON m.id = e.member_id").
		Where("e.school_id = ?", sc.schoolID)
}

// ListCourseEnrollments pages through a course's enrollments, oldest first.
func (s *Store) ListCourseEnrollments(ctx context.Context, courseID int64, page storage.Page) ([]storage.CourseEnrollment, string, error) {
	op := fmt.Sprintf("list enrollments of course %d", courseID)
	sc, db, err := s.readUnder(ctx, op, &courseRow{}, courseID)
	if err != nil {
		return nil, "", err
	}
	q := enrollmentsWithMembers(db, sc).Where("e.course_id = ?", courseID)
	rows, next, err := readTimeIDPage(q, "e.enrolled_at", "e.id", false, page, op, func(r courseEnrollmentRow) (time.Time, int64) { return r.EnrolledAt, r.ID })
	if err != nil {
		return nil, "", err
	}
	return convertRows(rows, courseEnrollmentRow.enrollment), next, nil
}

// GetCourseEnrollment returns one member's enrollment in a course.
func (s *Store) GetCourseEnrollment(ctx context.Context, courseID, memberID int64) (storage.CourseEnrollment, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return storage.CourseEnrollment{}, err
	}
	return s.courseEnrollment(s.conn(ctx), sc, courseID, memberID)
}

func (s *Store) courseEnrollment(db *gorm.DB, sc scope, courseID, memberID int64) (storage.CourseEnrollment, error) {
	var row courseEnrollmentRow
	err := enrollmentsWithMembers(db, sc).Where("e.course_id = ? AND e.member_id = ?", courseID, memberID).Take(&row).Error
	if err != nil {
		return storage.CourseEnrollment{}, wrap(fmt.Sprintf("get enrollment of member %d in course %d", memberID, courseID), err)
	}
	return row.enrollment(), nil
}

// Enroll entitles a member holding a role at the school to a course.
func (s *Store) Enroll(ctx context.Context, e storage.Enrollment) (storage.CourseEnrollment, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return storage.CourseEnrollment{}, err
	}
	op := fmt.Sprintf("enroll member %d in course %d", e.MemberID, e.CourseID)
	enrolledAt := s.orNow(e.EnrolledAt)
	var out storage.CourseEnrollment
	err = s.inTx(ctx, op, func(tx *gorm.DB) error {
		// Members are deployment-wide; only those who belong to this school may be enrolled
		// here, so an operator cannot reach (or probe for) another school's people.
		if err := requireRow(sc.in(tx.Model(&memberRoleRow{})).Where("member_id = ?", e.MemberID), op); err != nil {
			return err
		}
		if err := requireRow(sc.in(tx.Model(&courseRow{})).Where("id = ?", e.CourseID), op); err != nil {
			return err
		}
		row := enrollmentRow{SchoolID: sc.schoolID, Enrollment: e}
		row.ID, row.ExpireDate, row.EnrolledAt = 0, dbTimePtr(e.ExpireDate), dbTime(enrolledAt)
		if err := tx.Create(&row).Error; err != nil {
			return wrap(op, err)
		}
		out, err = s.courseEnrollment(tx, sc, e.CourseID, e.MemberID)
		return err
	})
	return out, err
}

// Unenroll removes a member's enrollment, leaving their progress rows.
func (s *Store) Unenroll(ctx context.Context, courseID, memberID int64) error {
	op := fmt.Sprintf("unenroll member %d from course %d", memberID, courseID)
	return deleteScoped[enrollmentRow](s, ctx, op, "course_id = ? AND member_id = ?", courseID, memberID)
}

// readUnder starts a read of the rows under one parent row of the context's school (a course's
// enrollments, a form's submissions, an event's registrations): it answers ErrNotFound when the
// school has no parent with the id (parent is a pointer to its row type), so that an unknown
// parent is told apart from one with no rows, and returns the school and the handle to read with.
func (s *Store) readUnder(ctx context.Context, op string, parent any, id int64) (scope, *gorm.DB, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return scope{}, nil, err
	}
	db := s.conn(ctx)
	if err := requireRow(sc.in(db.Model(parent)).Where("id = ?", id), op); err != nil {
		return scope{}, nil, err
	}
	return sc, db, nil
}
