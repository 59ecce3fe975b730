package graphql

import (
	"context"
	"sync"
	"time"

	gql "github.com/graph-gophers/graphql-go"

	"github.com/proctorhq/proctor/storage"
)

func (v *viewer) EnrolledCourses(ctx context.Context, args pageArgs) (*courseConnection, error) {
	page, err := args.page()
	if err != nil {
		return nil, err
	}
	list, next, err := v.req.store.ListEnrolledCourses(ctx, v.req.grant.MemberID, page)
	if err != nil {
		return nil, listError("enrolledCourses", err)
	}
	ids := make([]int64, len(list))
	for i, c := range list {
		ids[i] = c.Course.ID
	}
	batch := newCourseBatch(ctx, v.req, ids)
	conn := &courseConnection{pageInfo: pageInfo{next: next}}
	for _, c := range list {
		conn.nodes = append(conn.nodes, &course{ec: c, batch: batch})
	}
	return conn, nil
}

type courseConnection struct {
	nodes    []*course
	pageInfo pageInfo
}

func (c *courseConnection) Nodes() []*course    { return c.nodes }
func (c *courseConnection) PageInfo() *pageInfo { return &c.pageInfo }

// courseBatch reads, for one page of courses, what their nodes need: the curricula (two
// statements) and the viewer's progress (one), each at most once and only if some node asks.
type courseBatch struct {
	curricula func() (*curricula, error)
	progress  func() (*progress, error)
	now       time.Time
}

// curricula are the sections and lectures of a page of courses, in order.
type curricula struct {
	sections map[int64][]storage.Section // by course
	lectures map[int64][]storage.Lecture // by section
	total    map[int64]int               // lectures by course
}

// progress is the viewer's progress rows on a page of courses.
type progress struct {
	byLecture map[int64]storage.LectureProgress
	latest    map[int64]storage.LectureProgress // by course: the last watched lecture
}

func newCourseBatch(ctx context.Context, req *request, courseIDs []int64) *courseBatch {
	return &courseBatch{
		curricula: sync.OnceValues(func() (*curricula, error) {
			sections, lectures, err := req.store.GetCurricula(ctx, courseIDs)
			if err != nil {
				return nil, err
			}
			c := &curricula{sections: map[int64][]storage.Section{}, lectures: map[int64][]storage.Lecture{}, total: map[int64]int{}}
			for _, s := range sections {
				c.sections[s.CourseID] = append(c.sections[s.CourseID], s)
			}
			for _, l := range lectures {
				c.lectures[l.SectionID] = append(c.lectures[l.SectionID], l)
				c.total[l.CourseID]++
			}
			return c, nil
		}),
		progress: sync.OnceValues(func() (*progress, error) {
			rows, err := req.store.GetLectureProgress(ctx, req.grant.MemberID, courseIDs)
			if err != nil {
				return nil, err
			}
			p := &progress{byLecture: map[int64]storage.LectureProgress{}, latest: map[int64]storage.LectureProgress{}}
			for _, r := range rows {
				p.byLecture[r.LectureID] = r
				// The last watched lecture is the progress row updated last (docs/decisions.md);
				// a tie goes to the higher lecture id, so the answer does not depend on row order.
				if l, ok := p.latest[r.CourseID]; !ok || r.UpdatedAt.After(l.UpdatedAt) ||
					r.UpdatedAt.Equal(l.UpdatedAt) && r.LectureID > l.LectureID {
					p.latest[r.CourseID] = r
				}
			}
			return p, nil
		}),
		now: req.now,
	}
}

// course is one enrolled course.
type course struct {
	ec    storage.EnrolledCourse
	batch *courseBatch
}

func (c *course) ID() gql.ID              { return id(c.ec.Course.ID) }
func (c *course) Slug() string            { return c.ec.Course.Slug }
func (c *course) Title() string           { return c.ec.Course.Title }
func (c *course) HasLifetimeAccess() bool { return c.ec.Enrollment.LifetimeAccess }
func (c *course) EnrolledAt() dateTime    { return newDateTime(c.ec.Enrollment.EnrolledAt) }

// ExpireDate is null with lifetime access, whatever date the row keeps: lifetime access does
// not expire.
func (c *course) ExpireDate() *dateTime {
	if c.ec.Enrollment.LifetimeAccess {
		return nil
	}
	return optionalDateTime(c.ec.Enrollment.ExpireDate)
}

func (c *course) LastWatchedLecture() (*lastWatched, error) {
	p, err := c.batch.progress()
	if err != nil {
		return nil, err
	}
	l, ok := p.latest[c.ec.Course.ID]
	if !ok {
		return nil, nil
	}
	return &lastWatched{p: l}, nil
}

type lastWatched struct{ p storage.LectureProgress }

func (l *lastWatched) LectureID() gql.ID      { return id(l.p.LectureID) }
func (l *lastWatched) PositionSeconds() int32 { return int32(l.p.PositionSeconds) }
func (l *lastWatched) WatchedAt() dateTime    { return newDateTime(l.p.UpdatedAt) }

func (c *course) DetailProgress() (*courseProgress, error) {
	cur, err := c.batch.curricula()
	if err != nil {
		return nil, err
	}
	p, err := c.batch.progress()
	if err != nil {
		return nil, err
	}
	out := &courseProgress{total: cur.total[c.ec.Course.ID]}
	for _, s := range cur.sections[c.ec.Course.ID] {
		for _, l := range cur.lectures[s.ID] {
			switch p.byLecture[l.ID].State {
			case storage.LectureCompleted:
				out.completed++
			case storage.LectureRead:
				out.read++
			}
		}
	}
	return out, nil
}

type courseProgress struct{ completed, read, total int }

func (p *courseProgress) CompletedLectures() int32 { return int32(p.completed) }
func (p *courseProgress) ReadLectures() int32      { return int32(p.read) }
func (p *courseProgress) TotalLectures() int32     { return int32(p.total) }

func (p *courseProgress) Percent() int32 {
	if p.total == 0 {
		return 0
	}
	return int32(p.completed * 100 / p.total)
}

func (c *course) Sections() ([]*section, error) {
	cur, err := c.batch.curricula()
	if err != nil {
		return nil, err
	}
	p, err := c.batch.progress()
	if err != nil {
		return nil, err
	}
	var out []*section
	for _, s := range cur.sections[c.ec.Course.ID] {
		sec := &section{s: s}
		for _, l := range cur.lectures[s.ID] {
			sec.lectures = append(sec.lectures, &lecture{l: l, p: p.byLecture[l.ID], now: c.batch.now})
		}
		out = append(out, sec)
	}
	return out, nil
}

type section struct {
	s        storage.Section
	lectures []*lecture
}

func (s *section) ID() gql.ID           { return id(s.s.ID) }
func (s *section) Position() int32      { return int32(s.s.Position) }
func (s *section) Title() string        { return s.s.Title }
func (s *section) Lectures() []*lecture { return s.lectures }

// lecture is one lecture with the viewer's progress on it (a zero row: unread at 0).
type lecture struct {
	l   storage.Lecture
	p   storage.LectureProgress
	now time.Time
}

func (l *lecture) ID() gql.ID             { return id(l.l.ID) }
func (l *lecture) Position() int32        { return int32(l.l.Position) }
func (l *lecture) Title() string          { return l.l.Title }
func (l *lecture) PositionSeconds() int32 { return int32(l.p.PositionSeconds) }
func (l *lecture) UnlockAt() *dateTime    { return optionalDateTime(l.l.UnlockAt) }
func (l *lecture) Duration() int32        { return int32(l.l.DurationSeconds) }

func (l *lecture) State() string {
	if l.p.State == "" {
		return string(storage.LectureUnread)
	}
	return string(l.p.State)
}

// IsLocked is the lock as it stands now: a locked lecture with an unlock time is open from that
// time on, without anything rewriting the row.
func (l *lecture) IsLocked() bool {
	return l.l.IsLocked && (l.l.UnlockAt == nil || l.l.UnlockAt.After(l.now))
}
