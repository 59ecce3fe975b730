package gormstore

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"gorm.io/gorm"

	"github.com/proctorhq/proctor/storage"
)

// ListLecturers pages through the school's lecturers by id, with their courses in one more
// statement for the whole page.
func (s *Store) ListLecturers(ctx context.Context, page storage.Page) ([]storage.Lecturer, string, error) {
	rows, next, err := pageByID(s, ctx, "list lecturers", page, nil, func(r lecturerRow) int64 { return r.ID })
	if err != nil {
		return nil, "", err
	}
	out := convertRows(rows, func(r lecturerRow) storage.Lecturer {
		return storage.Lecturer{
			ID: r.ID, Slug: r.Slug, Name: r.Name, Bio: r.Bio, AvatarURL: r.AvatarURL, MemberID: r.MemberID,
			CourseIDs: []int64{},
		}
	})
	if len(rows) == 0 {
		return out, next, nil
	}
	sc, err := s.scoped(ctx)
	if err != nil {
		return nil, "", err
	}
	byID := make(map[int64]*storage.Lecturer, len(out))
	ids := make([]int64, len(out))
	for i := range out {
		byID[out[i].ID] = &out[i]
		ids[i] = out[i].ID
	}
	var links []lecturerCourseRow
	if err := sc.in(s.conn(ctx)).Where("lecturer_id IN ?", ids).Order("lecturer_id, course_id").Find(&links).Error; err != nil {
		return nil, "", wrap("list lecturers' courses", err)
	}
	for _, l := range links {
		byID[l.LecturerID].CourseIDs = append(byID[l.LecturerID].CourseIDs, l.CourseID)
	}
	return out, next, nil
}

// CreateLecturer stores a lecturer with their courses in one transaction. A linked member must
// hold a role at the school, for the reason Enroll gives.
func (s *Store) CreateLecturer(ctx context.Context, l storage.Lecturer) (storage.Lecturer, error) {
	op := fmt.Sprintf("create lecturer %q", l.Slug)
	sc, err := s.scopedInput(ctx, op, invalid{l.Slug == "", "slug is empty"})
	if err != nil {
		return storage.Lecturer{}, err
	}
	row := lecturerRow{SchoolID: sc.schoolID, Slug: l.Slug, Name: l.Name, Bio: l.Bio, AvatarURL: l.AvatarURL, MemberID: l.MemberID}
	courses := dedupe(l.CourseIDs)
	err = s.inTx(ctx, op, func(tx *gorm.DB) error {
		if l.MemberID != nil {
			if err := requireRow(sc.in(tx.Model(&memberRoleRow{})).Where("member_id = ?", *l.MemberID), op); err != nil {
				return err
			}
		}
		if len(courses) > 0 {
			var n int64
			if err := sc.in(tx.Model(&courseRow{})).Where("id IN ?", courses).Count(&n).Error; err != nil {
				return wrap(op, err)
			}
			if int(n) != len(courses) {
				return fmt.Errorf("gormstore: %s: unknown course: %w", op, storage.ErrNotFound)
			}
		}
		if err := tx.Create(&row).Error; err != nil {
			return wrap(op, err)
		}
		if len(courses) == 0 {
			return nil
		}
		links := make([]lecturerCourseRow, len(courses))
		for i, c := range courses {
			links[i] = lecturerCourseRow{SchoolID: sc.schoolID, LecturerID: row.ID, CourseID: c}
		}
		return wrap(op, tx.Create(&links).Error)
	})
	if err != nil {
		return storage.Lecturer{}, err
	}
	slices.Sort(courses)
	if courses == nil {
		courses = []int64{}
	}
	return storage.Lecturer{
		ID: row.ID, Slug: row.Slug, Name: row.Name, Bio: row.Bio, AvatarURL: row.AvatarURL,
		MemberID: row.MemberID, CourseIDs: courses,
	}, nil
}

// ListForms pages through the school's forms by id.
func (s *Store) ListForms(ctx context.Context, page storage.Page) ([]storage.Form, string, error) {
	rows, next, err := pageByID(s, ctx, "list forms", page, nil, func(r formRow) int64 { return r.ID })
	if err != nil {
		return nil, "", err
	}
	out := make([]storage.Form, len(rows))
	for i, r := range rows {
		out[i] = storage.Form{ID: r.ID, Slug: r.Slug, Title: r.Title, Fields: []storage.FormField{}}
		if err := json.Unmarshal([]byte(r.Fields), &out[i].Fields); err != nil {
			return nil, "", fmt.Errorf("gormstore: list forms: form %d: fields: %w", r.ID, err)
		}
	}
	return out, next, nil
}

// ListFormSubmissions pages through a form's submissions, newest first.
func (s *Store) ListFormSubmissions(ctx context.Context, formID int64, page storage.Page) ([]storage.FormSubmission, string, error) {
	op := fmt.Sprintf("list submissions of form %d", formID)
	sc, db, err := s.readUnder(ctx, op, &formRow{}, formID)
	if err != nil {
		return nil, "", err
	}
	q := sc.in(db).Where("form_id = ?", formID)
	rows, next, err := readTimeIDPage(q, "submitted_at", "id", true, page, op, func(r formSubmissionRow) (time.Time, int64) { return r.SubmittedAt, r.ID })
	if err != nil {
		return nil, "", err
	}
	out := make([]storage.FormSubmission, len(rows))
	for i, r := range rows {
		out[i] = storage.FormSubmission{
			ID: r.ID, Key: r.Key, FormID: r.FormID, MemberID: r.MemberID, Data: map[string]string{},
			SubmittedAt: utc(r.SubmittedAt),
		}
		if err := json.Unmarshal([]byte(r.Data), &out[i].Data); err != nil {
			return nil, "", fmt.Errorf("gormstore: %s: submission %d: %w", op, r.ID, err)
		}
	}
	return out, next, nil
}

func contentPageFromRow(r pageRow) storage.ContentPage {
	return r.ContentPage
}

// ListContentPages pages through the school's content pages by id.
func (s *Store) ListContentPages(ctx context.Context, page storage.Page) ([]storage.ContentPage, string, error) {
	return listByID(s, ctx, "list pages", page, nil, func(r pageRow) int64 { return r.ID }, contentPageFromRow)
}

// CreateContentPage stores a new content page.
func (s *Store) CreateContentPage(ctx context.Context, p storage.ContentPage) (storage.ContentPage, error) {
	op := fmt.Sprintf("create page %q", p.Slug)
	return createRow(s, ctx, op, "slug", p.Slug, nil, func(schoolID int64) pageRow {
		row := pageRow{SchoolID: schoolID, ContentPage: p}
		row.ID = 0
		return row
	}, contentPageFromRow)
}

// UpdateContentPage applies fn to a page while its row is locked. fn must not call the store
// (see UpdateMember).
func (s *Store) UpdateContentPage(ctx context.Context, id int64, fn func(storage.ContentPage) (storage.ContentPage, error)) (storage.ContentPage, error) {
	op := fmt.Sprintf("update page %d", id)
	return updateByID(s, ctx, op, id, infallible(contentPageFromRow), fn, func(tx *gorm.DB, sc scope, row pageRow, p storage.ContentPage) (storage.ContentPage, error) {
		if err := required("slug", p.Slug); err != nil {
			return storage.ContentPage{}, fmt.Errorf("gormstore: %s: %w", op, err)
		}
		row.Slug, row.Title, row.Body, row.Published = p.Slug, p.Title, p.Body, p.Published
		err := sc.in(tx.Model(&pageRow{})).Where("id = ?", id).
			Updates(map[string]any{"slug": row.Slug, "title": row.Title, "body": row.Body, "published": row.Published}).Error
		if err != nil {
			return storage.ContentPage{}, wrap(op, err)
		}
		return contentPageFromRow(row), nil
	})
}
