package graphql

import (
	"context"
	"sync"
	"time"

	"github.com/proctorhq/proctor/storage"
)

func (v *viewer) EnrolledCourses(ctx context.Context, first *int32, after *string) (*courseConnection, error) {
	list, next, err := readPage("enrolledCourses", first, after, func(p storage.Page) ([]storage.EnrolledCourse, string, error) {
		return v.req.store.ListEnrolledCourses(ctx, v.req.grant.MemberID, p)
	})
	if err != nil {
		return nil, err
	}
	ids := make([]int64, len(list))
	for i, c := range list {
		ids[i] = c.Course.ID
	}
	batch := newCourseBatch(ctx, v.req, ids)
	return newConnection(list, next, func(c storage.EnrolledCourse) *course { return &course{ec: c, batch: batch} }), nil
}

// courseBatch reads, for one page of courses, what their nodes need, each at most once and only
// if some node asks: the curricula, the viewer's progress row on every lecture (for sections),
// and the viewer's progress summed up per course (for detailProgress and lastWatchedLecture,
// which so never read every row).
type courseBatch struct {
	curricula func() (*curricula, error)
	progress  func() (map[int64]*storage.LectureProgress, error) // by lecture
	summary   func() (map[int64]storage.CourseProgress, error)   // by course
	now       time.Time
}

// curricula are the sections and lectures of a page of courses, in order.
type curricula struct {
	sections map[int64][]storage.Section // by course
	lectures map[int64][]storage.Lecture // by section
	// answer is shared by the page's sections: the size of the whole page, for the curriculum
	// writer (curriculum.go).
	answer *pageAnswer
}

func newCourseBatch(ctx context.Context, req *request, courseIDs []int64) *courseBatch {
	return &courseBatch{
		curricula: sync.OnceValues(func() (*curricula, error) {
			sections, lectures, err := req.store.GetCurricula(ctx, courseIDs)
			if err != nil {
				return nil, err
			}
			// GetCurricula orders sections by course and lectures by course and section
			// position, so a course's sections and a section's lectures are consecutive.
			return &curricula{
				sections: runs(sections, func(s *storage.Section) int64 { return s.CourseID }),
				lectures: runs(lectures, func(l *storage.Lecture) int64 { return l.SectionID }),
				answer:   &pageAnswer{sections: len(sections), lectures: len(lectures)},
			}, nil
		}),
		progress: sync.OnceValues(func() (map[int64]*storage.LectureProgress, error) {
			rows, err := req.store.GetLectureProgress(ctx, req.grant.MemberID, courseIDs)
			if err != nil {
				return nil, err
			}
			return storage.LectureProgressByLecture(rows), nil
		}),
		summary: sync.OnceValues(func() (map[int64]storage.CourseProgress, error) {
			list, err := req.store.GetCourseProgress(ctx, req.grant.MemberID, courseIDs)
			if err != nil {
				return nil, err
			}
			return storage.CourseProgressByCourse(list), nil
		}),
		now: req.now,
	}
}

// runs maps each id to the run of consecutive elements of s that have it, as parts of s rather
// than copies.
func runs[T any](s []T, idOf func(*T) int64) map[int64][]T {
	out := map[int64][]T{}
	for i := 0; i < len(s); {
		id, j := idOf(&s[i]), i+1
		for j < len(s) && idOf(&s[j]) == id {
			j++
		}
		out[id] = s[i:j:j]
		i = j
	}
	return out
}

// course is one enrolled course.
type course struct {
	ec    storage.EnrolledCourse
	batch *courseBatch
}

func (c *course) ID() string              { return id(c.ec.Course.ID) }
func (c *course) Slug() string            { return c.ec.Course.Slug }
func (c *course) Title() string           { return c.ec.Course.Title }
func (c *course) HasLifetimeAccess() bool { return c.ec.Enrollment.LifetimeAccess }
func (c *course) EnrolledAt() dateTime    { return newDateTime(c.ec.Enrollment.EnrolledAt) }

// ExpireDate is null with lifetime access, whatever date the row keeps (storage.Enrollment.Expires).
func (c *course) ExpireDate() *dateTime { return optionalDateTime(c.ec.Enrollment.Expires()) }

func (c *course) LastWatchedLecture() (*lastWatched, error) {
	summary, err := c.batch.summary()
	if err != nil {
		return nil, err
	}
	l := summary[c.ec.Course.ID].LastWatched
	if l == nil {
		return nil, nil
	}
	return &lastWatched{p: *l}, nil
}

type lastWatched struct{ p storage.LectureProgress }

func (l *lastWatched) LectureID() string      { return id(l.p.LectureID) }
func (l *lastWatched) PositionSeconds() int32 { return int32(l.p.PositionSeconds) }
func (l *lastWatched) WatchedAt() dateTime    { return newDateTime(l.p.UpdatedAt) }

func (c *course) DetailProgress() (*courseProgress, error) {
	summary, err := c.batch.summary()
	if err != nil {
		return nil, err
	}
	p := summary[c.ec.Course.ID]
	return &courseProgress{p}, nil
}

type courseProgress struct{ p storage.CourseProgress }

func (p *courseProgress) CompletedLectures() int32 { return int32(p.p.CompletedLectures) }
func (p *courseProgress) ReadLectures() int32      { return int32(p.p.ReadLectures) }
func (p *courseProgress) TotalLectures() int32     { return int32(p.p.TotalLectures) }
func (p *courseProgress) Percent() int32           { return int32(p.p.Percent()) }

// Sections builds the course's sections and their lectures in four allocations, however many
// there are: a course has hundreds of lectures, and a page of courses thousands.
func (c *course) Sections() ([]*section, error) {
	cur, err := c.batch.curricula()
	if err != nil {
		return nil, err
	}
	progress, err := c.batch.progress()
	if err != nil {
		return nil, err
	}
	sections := cur.sections[c.ec.Course.ID]
	n := 0
	for _, s := range sections {
		n += len(cur.lectures[s.ID])
	}
	out := make([]*section, len(sections))
	secs := make([]section, len(sections))
	lectures := make([]lecture, n)
	ptrs := make([]*lecture, n)
	next := 0
	for i := range sections {
		ls := cur.lectures[sections[i].ID]
		for j := range ls {
			lectures[next+j] = newLecture(&ls[j], progress[ls[j].ID], c.batch.now)
			ptrs[next+j] = &lectures[next+j]
		}
		secs[i] = section{s: &sections[i], lectures: ptrs[next : next+len(ls) : next+len(ls)], page: cur.answer}
		out[i] = &secs[i]
		next += len(ls)
	}
	return out, nil
}

type section struct {
	s        *storage.Section
	lectures []*lecture
	page     *pageAnswer
}

func (s *section) ID() string           { return id(s.s.ID) }
func (s *section) Position() int32      { return int32(s.s.Position) }
func (s *section) Title() string        { return s.s.Title }
func (s *section) Lectures() []*lecture { return s.lectures }

// lecture is one lecture with the viewer's progress on it (no row: unread at 0). A page of
// courses has thousands, so a lecture is only what its fields are read from.
type lecture struct {
	l *storage.Lecture
	p *storage.LectureProgress // nil before the viewer first opened it
	// locked is the lock as it stands now (storage.Lecture.LockedAt).
	locked bool
}

func newLecture(l *storage.Lecture, p *storage.LectureProgress, now time.Time) lecture {
	return lecture{l: l, p: p, locked: l.LockedAt(now)}
}

func (l *lecture) ID() string          { return id(l.l.ID) }
func (l *lecture) Position() int32     { return int32(l.l.Position) }
func (l *lecture) Title() string       { return l.l.Title }
func (l *lecture) State() string       { return string(l.p.StateShown()) }
func (l *lecture) IsLocked() bool      { return l.locked }
func (l *lecture) Duration() int32     { return int32(l.l.DurationSeconds) }
func (l *lecture) UnlockAt() *dateTime { return optionalDateTime(l.l.UnlockAt) }

func (l *lecture) PositionSeconds() int32 {
	if l.p == nil {
		return 0
	}
	return int32(l.p.PositionSeconds)
}
