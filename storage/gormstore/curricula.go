package gormstore

import (
	"cmp"
	"container/list"
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"gorm.io/gorm"

	"github.com/proctorhq/proctor/storage"
)

// Curriculum cache. Sections and lectures are catalogue data that every member of a school
// reads and operators rarely change, and reading a few thousand of them per request (the Member
// API's curriculum, the MCP course list) cost more than everything else such a request does. So
// each store keeps the curricula it reads in memory, each with the courses.curriculum_version it
// was read at, and every read first asks the database for the current versions of the courses
// it needs (one small statement): a course whose version still matches is served from memory,
// the others are read again. Every write to sections or lectures bumps the version in its own
// transaction (touchCurricula), so a change made through any store, in any process, is seen by
// every other on its next read. docs/architecture.md describes it for operators.

// defaultCurriculumCacheRows bounds the cache when Config.CurriculumCacheRows is 0, in rows
// (curriculum.rows): about 100 bytes each with typical titles, so some 10 MB.
const defaultCurriculumCacheRows = 100_000

// curriculum is one course's sections (by position) and lectures (by section position, then
// position) as read at version. The cache shares it between every caller that reads the course,
// so nothing changes it once built: GetCurricula hands out copies.
type curriculum struct {
	courseID int64
	version  int64
	sections []storage.Section
	lectures []storage.Lecture
}

// rows is what the curriculum counts against the cache's bound: its sections and lectures, and
// one for the course itself, so that courses without any are bounded too.
func (c *curriculum) rows() int { return 1 + len(c.sections) + len(c.lectures) }

// courseVersion is a course of the school and its curriculum_version.
type courseVersion struct{ course, version int64 }

// curricula returns the curricula of the school's courses among courseIDs, in course id order.
// Unknown course ids (or another school's) contribute nothing.
func (s *Store) curricula(ctx context.Context, sc scope, courseIDs []int64) ([]*curriculum, error) {
	versions, err := s.curriculumVersions(ctx, sc, courseIDs)
	if err != nil || len(versions) == 0 {
		return nil, err
	}
	// Inside a caller's transaction the versions may be its own, not yet committed: a rollback
	// would take one back, and a later commit could reach it again with another curriculum. So
	// such reads go to the database and leave the cache alone.
	if s.curriculumCache == nil || s.txFrom(ctx) != nil {
		loaded, err := s.loadCurricula(ctx, sc, versions)
		if err != nil {
			return nil, err
		}
		return inCourseOrder(versions, loaded), nil
	}

	got, lead, follow := s.curriculumCache.claim(sc.schoolID, versions)
	if len(lead) > 0 {
		loaded, err := s.leadCurricula(ctx, sc, lead)
		if err != nil {
			return nil, err
		}
		maps.Copy(got, loaded)
	}
	// A read another caller has in flight is waited for; if it failed, this caller reads the
	// course itself rather than fail on someone else's error (a cancelled request, say).
	var retry []courseVersion
	for cv, load := range follow {
		select {
		case <-load.done:
		case <-ctx.Done():
			return nil, wrap("get curricula", ctx.Err())
		}
		if load.cur == nil {
			retry = append(retry, cv)
			continue
		}
		got[cv.course] = load.cur
	}
	if len(retry) > 0 {
		loaded, err := s.loadCurricula(ctx, sc, retry)
		if err != nil {
			return nil, err
		}
		maps.Copy(got, loaded)
	}
	return inCourseOrder(versions, got), nil
}

// leadCurricula reads the curricula claim gave the caller to read, and settles them however the
// read ends, a panic included, so that no other caller waits for a read that never finishes.
func (s *Store) leadCurricula(ctx context.Context, sc scope, lead []courseVersion) (loaded map[int64]*curriculum, err error) {
	defer func() { s.curriculumCache.settle(sc.schoolID, lead, loaded) }()
	return s.loadCurricula(ctx, sc, lead)
}

func inCourseOrder(versions []courseVersion, byCourse map[int64]*curriculum) []*curriculum {
	out := make([]*curriculum, 0, len(versions))
	for _, cv := range versions {
		if c := byCourse[cv.course]; c != nil {
			out = append(out, c)
		}
	}
	return out
}

// curriculumVersions reads the curriculum_version of the school's courses among courseIDs, in
// course id order.
func (s *Store) curriculumVersions(ctx context.Context, sc scope, courseIDs []int64) ([]courseVersion, error) {
	const op = "get curriculum versions"
	rows, err := sc.in(s.conn(ctx).Model(&courseRow{})).Select("id", "curriculum_version").
		Where("id IN ?", courseIDs).Order("id").Rows()
	if err != nil {
		return nil, wrap(op, err)
	}
	defer rows.Close()
	versions := make([]courseVersion, 0, len(courseIDs))
	for rows.Next() {
		var cv courseVersion
		if err := rows.Scan(&cv.course, &cv.version); err != nil {
			return nil, wrap(op, err)
		}
		versions = append(versions, cv)
	}
	return versions, wrap(op, rows.Err())
}

// loadCurricula reads the curricula of the given courses from the database in two statements,
// whatever their size, and returns them by course id (a course without sections has an empty
// one). The versions must have been read first: a write committed in between then leaves the
// curriculum newer than its version, which only costs the next read a reload, never the
// reverse.
func (s *Store) loadCurricula(ctx context.Context, sc scope, versions []courseVersion) (map[int64]*curriculum, error) {
	const op = "get curricula"
	ids := make([]int64, len(versions))
	for i, cv := range versions {
		ids[i] = cv.course
	}
	db := s.conn(ctx)
	var sections []sectionRow
	if err := sc.in(db).Where("course_id IN ?", ids).Order("course_id, position").Find(&sections).Error; err != nil {
		return nil, wrap(op, err)
	}
	var lectures []lectureRow
	if err := sc.in(db).Where("course_id IN ?", ids).Find(&lectures).Error; err != nil {
		return nil, wrap(op, err)
	}

	// Slices of the exact size: the cache's bound counts elements, so no spare capacity may
	// hide behind them.
	nSections, nLectures := map[int64]int{}, map[int64]int{}
	for _, r := range sections {
		nSections[r.CourseID]++
	}
	for _, r := range lectures {
		nLectures[r.CourseID]++
	}
	out := make(map[int64]*curriculum, len(versions))
	for _, cv := range versions {
		out[cv.course] = &curriculum{
			courseID: cv.course, version: cv.version,
			sections: make([]storage.Section, 0, nSections[cv.course]),
			lectures: make([]storage.Lecture, 0, nLectures[cv.course]),
		}
	}
	pos := make(map[int64]int, len(sections))
	for _, r := range sections {
		pos[r.ID] = r.Position
		c := out[r.CourseID]
		c.sections = append(c.sections, r.Section)
	}
	for _, r := range lectures {
		c := out[r.CourseID]
		c.lectures = append(c.lectures, r.lecture())
	}
	// Section ids need not follow section positions, so lectures are ordered here, by the
	// position of their section rather than its id.
	for _, c := range out {
		slices.SortFunc(c.lectures, func(a, b storage.Lecture) int {
			return cmp.Or(cmp.Compare(pos[a.SectionID], pos[b.SectionID]), cmp.Compare(a.Position, b.Position))
		})
	}
	return out, nil
}

// touchCurricula bumps the curriculum_version of the school's given courses. Every write that
// adds, changes or removes a section or a lecture calls it in the transaction of the write, so
// that no cached copy of the old curriculum, in this process or another, is served after the
// commit. The UPDATE also holds the course rows until the transaction ends, which serialises
// the curriculum writes of one course. ErrNotFound if a course is not the school's.
func touchCurricula(tx *gorm.DB, sc scope, courseIDs ...int64) error {
	// By table name, not courseRow: gorm drops assignments to the read-only field.
	res := sc.in(tx.Table("courses")).Where("id IN ?", courseIDs).
		UpdateColumn("curriculum_version", gorm.Expr("curriculum_version + 1"))
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected != int64(len(courseIDs)) {
		return fmt.Errorf("%d of courses %v: %w", res.RowsAffected, courseIDs, storage.ErrNotFound)
	}
	return nil
}

// copyCurricula concatenates curricula into slices of the caller's own: nothing the caller does
// to them, or to the unlock times they point to, reaches the cache.
func copyCurricula(cs []*curriculum) ([]storage.Section, []storage.Lecture) {
	var nSections, nLectures, nUnlock int
	for _, c := range cs {
		nSections += len(c.sections)
		nLectures += len(c.lectures)
		for _, l := range c.lectures {
			if l.UnlockAt != nil {
				nUnlock++
			}
		}
	}
	sections := make([]storage.Section, 0, nSections)
	lectures := make([]storage.Lecture, 0, nLectures)
	unlock := make([]time.Time, 0, nUnlock) // one allocation for every copied unlock time
	for _, c := range cs {
		sections = append(sections, c.sections...)
		for _, l := range c.lectures {
			if l.UnlockAt != nil {
				unlock = append(unlock, *l.UnlockAt)
				l.UnlockAt = &unlock[len(unlock)-1]
			}
			lectures = append(lectures, l)
		}
	}
	return sections, lectures
}

// curriculumCache holds curricula by school and course, each at the version it was read at,
// within a bound on the rows held (the least recently used go first). It is safe for concurrent
// use. Reads of the same course at the same version that miss together share one database read
// (curriculumLoad), so a bump seen by many requests at once costs one reload, not one each.
type curriculumCache struct {
	maxRows int

	mu      sync.Mutex
	rows    int                             // held, as curriculum.rows counts them
	entries map[curriculumKey]*list.Element // values are *curriculumEntry
	lru     list.List                       // most recently used first
	loads   map[loadKey]*curriculumLoad     // database reads in flight
}

// curriculumKey names a cached curriculum. The school is part of it, so a course id can only
// ever be answered with the rows read for its own school.
type curriculumKey struct{ school, course int64 }

type curriculumEntry struct {
	key curriculumKey
	cur *curriculum
}

type loadKey struct {
	curriculumKey
	version int64
}

// curriculumLoad is a database read of one curriculum; cur is set, or left nil if the read
// failed, before done is closed.
type curriculumLoad struct {
	done chan struct{}
	cur  *curriculum
}

func newCurriculumCache(maxRows int) *curriculumCache {
	return &curriculumCache{maxRows: maxRows, entries: map[curriculumKey]*list.Element{}, loads: map[loadKey]*curriculumLoad{}}
}

// claim sorts the school's courses at their current versions into those held at that version
// (got), those the caller must read and then settle (lead), and those another caller is reading
// at that version (follow).
func (c *curriculumCache) claim(school int64, versions []courseVersion) (got map[int64]*curriculum, lead []courseVersion, follow map[courseVersion]*curriculumLoad) {
	got = make(map[int64]*curriculum, len(versions))
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, cv := range versions {
		key := curriculumKey{school, cv.course}
		if e, ok := c.entries[key]; ok && e.Value.(*curriculumEntry).cur.version == cv.version {
			c.lru.MoveToFront(e)
			got[cv.course] = e.Value.(*curriculumEntry).cur
			continue
		}
		lk := loadKey{key, cv.version}
		if load, ok := c.loads[lk]; ok {
			if follow == nil {
				follow = map[courseVersion]*curriculumLoad{}
			}
			follow[cv] = load
			continue
		}
		c.loads[lk] = &curriculumLoad{done: make(chan struct{})}
		lead = append(lead, cv)
	}
	return got, lead, follow
}

// settle ends the reads claim gave the caller to lead, with what they read (nil if the read
// failed), and keeps the curricula read.
func (c *curriculumCache) settle(school int64, lead []courseVersion, loaded map[int64]*curriculum) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, cv := range lead {
		key := curriculumKey{school, cv.course}
		lk := loadKey{key, cv.version}
		cur := loaded[cv.course]
		if load := c.loads[lk]; load != nil {
			load.cur = cur
			close(load.done)
			delete(c.loads, lk)
		}
		if cur != nil {
			c.put(key, cur)
		}
	}
}

// put keeps cur under key, replacing what the key held, and evicts the least recently used
// curricula beyond the bound. A curriculum larger than the whole bound is not kept. c.mu is held.
func (c *curriculumCache) put(key curriculumKey, cur *curriculum) {
	if e, ok := c.entries[key]; ok {
		c.rows -= e.Value.(*curriculumEntry).cur.rows()
		c.lru.Remove(e)
		delete(c.entries, key)
	}
	if cur.rows() > c.maxRows {
		return
	}
	c.entries[key] = c.lru.PushFront(&curriculumEntry{key: key, cur: cur})
	c.rows += cur.rows()
	for c.rows > c.maxRows {
		oldest := c.lru.Back()
		e := oldest.Value.(*curriculumEntry)
		c.rows -= e.cur.rows()
		c.lru.Remove(oldest)
		delete(c.entries, e.key)
	}
}
