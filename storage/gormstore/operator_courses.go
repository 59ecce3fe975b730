package gormstore

import (
	"context"
	"fmt"

	"gorm.io/gorm"

	"github.com/proctorhq/proctor/storage"
)

// GetCourse returns one course of the context's school by id.
func (s *Store) GetCourse(ctx context.Context, id int64) (storage.Course, error) {
	return getScoped(s, ctx, fmt.Sprintf("get course %d", id), courseRow.course, "id = ?", id)
}

// CreateCourse stores a new course.
func (s *Store) CreateCourse(ctx context.Context, c storage.Course) (storage.Course, error) {
	sc, err := s.scopedInput(ctx, "create course", invalid{c.Slug == "", "slug is empty"})
	if err != nil {
		return storage.Course{}, err
	}
	row := courseRow{SchoolID: sc.schoolID, Offer: c.Offer, Published: c.Published}
	row.stamp(dbTime(s.now()), true)
	if err := s.conn(ctx).Create(&row).Error; err != nil {
		return storage.Course{}, wrap(fmt.Sprintf("create course %q", c.Slug), err)
	}
	return row.course(), nil
}

// UpdateCourse applies fn to the course while its row is locked. fn must not call the store
// (see UpdateMember).
func (s *Store) UpdateCourse(ctx context.Context, id int64, fn func(storage.Course) (storage.Course, error)) (storage.Course, error) {
	op := fmt.Sprintf("update course %d", id)
	return updateByID(s, ctx, op, id, infallible(courseRow.course), fn, func(tx *gorm.DB, sc scope, row courseRow, c storage.Course) (storage.Course, error) {
		if err := required("slug", c.Slug); err != nil {
			return storage.Course{}, fmt.Errorf("gormstore: %s: %w", op, err)
		}
		next := courseRow{
			ID: row.ID, SchoolID: row.SchoolID, Offer: c.Offer,
			Published: c.Published, CreatedAt: row.CreatedAt,
		}
		next.stamp(dbTime(s.now()), false)
		if err := sc.in(tx).Select("*").Omit("id", "school_id", "created_at").Where("id = ?", id).Updates(&next).Error; err != nil {
			return storage.Course{}, wrap(op, err)
		}
		return next.course(), nil
	})
}

// AppendSection adds a section after the course's last one. Bumping the course's curriculum
// version comes first: it also locks the course row, so that two appends to one course take
// turns instead of both choosing the same position.
func (s *Store) AppendSection(ctx context.Context, courseID int64, title string) (storage.Section, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return storage.Section{}, err
	}
	op := fmt.Sprintf("append a section to course %d", courseID)
	var row sectionRow
	err = s.inTx(ctx, op, func(tx *gorm.DB) error {
		if err := touchCurricula(tx, sc, courseID); err != nil {
			return wrap(op, err)
		}
		var last int
		if err := sc.in(tx.Model(&sectionRow{})).Where("course_id = ?", courseID).
			Select("COALESCE(MAX(position), 0)").Scan(&last).Error; err != nil {
			return wrap(op, err)
		}
		row = sectionRow{SchoolID: sc.schoolID, Section: storage.Section{CourseID: courseID, Position: last + 1, Title: title}}
		return wrap(op, tx.Create(&row).Error)
	})
	if err != nil {
		return storage.Section{}, err
	}
	return row.Section, nil
}

// AppendLecture adds a lecture after the section's last one. As in AppendSection, the bump of
// the course's curriculum version locks the course row first, which makes appends to any
// section of the course take turns (and takes the locks in the same order as AppendSection).
func (s *Store) AppendLecture(ctx context.Context, l storage.Lecture) (storage.Lecture, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return storage.Lecture{}, err
	}
	op := fmt.Sprintf("append a lecture to section %d of course %d", l.SectionID, l.CourseID)
	var row lectureRow
	err = s.inTx(ctx, op, func(tx *gorm.DB) error {
		if err := touchCurricula(tx, sc, l.CourseID); err != nil {
			return wrap(op, err)
		}
		var section sectionRow
		if err := sc.in(tx).Select("id").Where("id = ? AND course_id = ?", l.SectionID, l.CourseID).
			Take(&section).Error; err != nil {
			return wrap(op, err)
		}
		var last int
		if err := sc.in(tx.Model(&lectureRow{})).Where("section_id = ?", l.SectionID).
			Select("COALESCE(MAX(position), 0)").Scan(&last).Error; err != nil {
			return wrap(op, err)
		}
		row = lectureRow{SchoolID: sc.schoolID, Lecture: l}
		row.ID, row.Position, row.UnlockAt = 0, last+1, dbTimePtr(l.UnlockAt)
		return wrap(op, tx.Create(&row).Error)
	})
	if err != nil {
		return storage.Lecture{}, err
	}
	return row.lecture(), nil
}
