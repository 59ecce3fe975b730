package gormstore

import (
	"context"
	"fmt"

	"github.com/proctorhq/proctor/storage"
)

func (r courseRow) course() storage.Course {
	return storage.Course{
		ID:        r.ID,
		Offer:     r.Offer,
		Published: r.Published,
		CreatedAt: utc(r.CreatedAt),
		UpdatedAt: utc(r.UpdatedAt),
	}
}

// ListCourses lists the context school's courses by id, one page at a time.
func (s *Store) ListCourses(ctx context.Context, publishedOnly bool, page storage.Page) ([]storage.Course, string, error) {
	p, err := s.startIDPage(ctx, page)
	if err != nil {
		return nil, "", err
	}
	q := p.sc.in(s.conn(ctx)).Where("id > ?", p.after)
	if publishedOnly {
		q = q.Where("published = ?", true)
	}
	rows, next, err := findIDPage(q, p, "list courses", func(r courseRow) int64 { return r.ID })
	if err != nil {
		return nil, "", err
	}
	return convertRows(rows, courseRow.course), next, nil
}

// GetCourseBySlug returns one course of the context's school.
func (s *Store) GetCourseBySlug(ctx context.Context, slug string) (storage.Course, error) {
	return getScoped(s, ctx, fmt.Sprintf("get course %q", slug), courseRow.course, "slug = ?", slug)
}

// GetCurriculum returns a course's sections and lectures, each in position order (lectures by
// section position, then their own), as GetCurricula reads them.
func (s *Store) GetCurriculum(ctx context.Context, courseID int64) ([]storage.Section, []storage.Lecture, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return nil, nil, err
	}
	cs, err := s.curricula(ctx, sc, []int64{courseID})
	if err != nil {
		return nil, nil, err
	}
	// The version read is what turns another school's course id into ErrNotFound (a course
	// without sections is an empty curriculum, not a missing one).
	if len(cs) == 0 {
		return nil, nil, fmt.Errorf("gormstore: get curriculum of course %d: %w", courseID, storage.ErrNotFound)
	}
	sections, lectures := copyCurricula(cs)
	return sections, lectures, nil
}

// ListEnrollments returns a member's enrollments at the context's school, by id.
func (s *Store) ListEnrollments(ctx context.Context, memberID int64) ([]storage.Enrollment, error) {
	return listScoped(s, ctx, fmt.Sprintf("list enrollments of member %d", memberID), "id",
		func(r enrollmentRow) storage.Enrollment { return utcEnrollment(r.Enrollment) }, "member_id = ?", memberID)
}
