package gormstore

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/conformance"
)

// replicas opens two stores on one migrated database, as two server processes would, for each
// backend (PostgreSQL when postgresDSNEnv is set).
func replicas(t *testing.T, f func(t *testing.T, a, b *Store)) {
	backends := map[string]func(t *testing.T) (*Store, string){
		DriverSQLite: func(t *testing.T) (*Store, string) {
			dsn := filepath.Join(t.TempDir(), "proctor.db")
			s, err := Open(t.Context(), Config{Driver: DriverSQLite, DSN: dsn})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close() })
			return s, dsn
		},
		DriverPostgres: func(t *testing.T) (*Store, string) { return openPostgresSchema(t) },
	}
	for _, name := range []string{DriverSQLite, DriverPostgres} {
		t.Run(name, func(t *testing.T) {
			a, dsn := backends[name](t)
			if _, err := a.Migrate(t.Context()); err != nil {
				t.Fatal(err)
			}
			b, err := Open(t.Context(), Config{Driver: name, DSN: dsn, MaxOpenConns: 4})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = b.Close() })
			f(t, a, b)
		})
	}
}

// lectureTitles reads a course's lecture titles through GetCurricula.
func lectureTitles(t *testing.T, s *Store, ctx context.Context, courseID int64) []string {
	t.Helper()
	_, lectures, err := s.GetCurricula(ctx, []int64{courseID})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range lectures {
		out = append(out, l.Title)
	}
	return out
}

// TestCurriculumCacheReplicas: a curriculum write through one store is seen by another store on
// the same database at its next read, although that one had the curriculum cached; a read of a
// cached curriculum costs the one statement that checks its version.
func TestCurriculumCacheReplicas(t *testing.T) {
	replicas(t, func(t *testing.T, a, b *Store) {
		ctx := inSchoolA(t, a, conformance.FullSchoolData())
		course, err := a.GetCourseBySlug(ctx, "go-basics")
		if err != nil {
			t.Fatal(err)
		}
		want := func(what string, s *Store, titles ...string) {
			t.Helper()
			if got := lectureTitles(t, s, ctx, course.ID); !slices.Equal(got, titles) {
				t.Errorf("%s: lectures %q, want %q", what, got, titles)
			}
		}
		want("A, first read", a, "Hello", "Types", "Goroutines")
		want("B, first read", b, "Hello", "Types", "Goroutines")
		stmts := a.CountStatements()
		want("A, cached", a, "Hello", "Types", "Goroutines")
		if n := stmts.Count(); n != 1 {
			t.Errorf("a cached curriculum cost %d statements, want 1", n)
		}

		sections, _, err := b.GetCurriculum(ctx, course.ID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.AppendLecture(ctx, storage.Lecture{CourseID: course.ID, SectionID: sections[0].ID, Title: "Interfaces"}); err != nil {
			t.Fatal(err)
		}
		want("A after B's AppendLecture", a, "Hello", "Types", "Interfaces", "Goroutines")
		sum, err := a.GetCourseProgress(ctx, 1, []int64{course.ID})
		if err != nil || len(sum) != 1 || sum[0].TotalLectures != 4 {
			t.Errorf("A's progress summary after B's AppendLecture: %+v, %v; want 4 lectures", sum, err)
		}

		data := conformance.FullSchoolData()
		data.Courses[0].Sections[1].Lectures[0].Title = "Goroutines, again"
		if _, err := a.ImportSchoolData(ctx, data, storage.ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		want("B after A's import", b, "Hello", "Types", "Interfaces", "Goroutines, again")
		want("A after its import", a, "Hello", "Types", "Interfaces", "Goroutines, again")

		// An edit in plain SQL is seen once it bumps the version, as the migration asks, and not
		// before: the cache cannot know of it otherwise.
		if err := b.db.Exec("UPDATE lectures SET title = 'Hi' WHERE school_id = 1 AND course_id = ? AND position = 1 AND section_id = ?",
			course.ID, sections[0].ID).Error; err != nil {
			t.Fatal(err)
		}
		want("A after an edit in SQL without a bump", a, "Hello", "Types", "Interfaces", "Goroutines, again")
		if err := b.db.Exec("UPDATE courses SET curriculum_version = curriculum_version + 1 WHERE id = ?", course.ID).Error; err != nil {
			t.Fatal(err)
		}
		want("A after the bump", a, "Hi", "Types", "Interfaces", "Goroutines, again")
	})
}

// TestCurriculumVersion: the writes that change a curriculum bump its version once, in their
// transaction; the others leave it alone, and none sets it back.
func TestCurriculumVersion(t *testing.T) {
	s := newSQLiteStore(t)
	ctx := inSchoolA(t, s, nil)
	version := func(slug string) int64 {
		t.Helper()
		var v int64
		if err := s.db.Raw("SELECT curriculum_version FROM courses WHERE school_id = 1 AND slug = ?", slug).Scan(&v).Error; err != nil {
			t.Fatal(err)
		}
		return v
	}
	step := func(what string, want map[string]int64, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		for slug, v := range want {
			if got := version(slug); got != v {
				t.Errorf("after %s: %s at version %d, want %d", what, slug, got, v)
			}
		}
	}
	importData := func(d *storage.SchoolData) error {
		_, err := s.ImportSchoolData(ctx, d, storage.ImportOptions{})
		return err
	}

	data := conformance.FullSchoolData()
	step("the first import", map[string]int64{"go-basics": 1, "draft": 0}, importData(data))
	step("the same import again", map[string]int64{"go-basics": 1, "draft": 0}, importData(data))
	data.Courses[0].Title = "Go, basically"
	step("an import changing a course's title only", map[string]int64{"go-basics": 1}, importData(data))
	data.Courses[0].Sections[0].Title = "Begin"
	data.Courses[1].Sections = []storage.SectionSeed{{Title: "One", Lectures: []storage.LectureSeed{{Title: "L"}}}}
	step("an import changing a section and adding one", map[string]int64{"go-basics": 2, "draft": 1}, importData(data))
	data.Courses[0].Sections[1].Lectures[0].DurationSeconds++
	step("an import changing a lecture", map[string]int64{"go-basics": 3, "draft": 1}, importData(data))

	c, err := s.CreateCourse(ctx, storage.Course{Offer: storage.Offer{Slug: "new", Currency: "USD"}})
	step("CreateCourse", map[string]int64{"new": 0}, err)
	sec, err := s.AppendSection(ctx, c.ID, "S")
	step("AppendSection", map[string]int64{"new": 1}, err)
	_, err = s.AppendLecture(ctx, storage.Lecture{CourseID: c.ID, SectionID: sec.ID, Title: "L"})
	step("AppendLecture", map[string]int64{"new": 2}, err)
	_, err = s.UpdateCourse(ctx, c.ID, func(c storage.Course) (storage.Course, error) { c.Title = "New"; return c, nil })
	step("UpdateCourse", map[string]int64{"new": 2}, err)
	_, err = s.AppendLecture(ctx, storage.Lecture{CourseID: c.ID, SectionID: sec.ID + 1000, Title: "L"})
	if err == nil {
		t.Fatal("AppendLecture to an unknown section succeeded")
	}
	step("a failed AppendLecture", map[string]int64{"new": 2}, nil)
}

// TestCurriculumCache checks the cache's bookkeeping: versions, schools, the bound and the
// sharing of reads in flight.
func TestCurriculumCache(t *testing.T) {
	cur := func(course, version int64, lectures int) *curriculum {
		return &curriculum{courseID: course, version: version, sections: make([]storage.Section, 1), lectures: make([]storage.Lecture, lectures)}
	}
	load := func(c *curriculumCache, school int64, cs ...*curriculum) {
		t.Helper()
		var versions []courseVersion
		loaded := map[int64]*curriculum{}
		for _, x := range cs {
			versions = append(versions, courseVersion{x.courseID, x.version})
			loaded[x.courseID] = x
		}
		if _, lead, follow := c.claim(school, versions); len(lead) != len(cs) || len(follow) != 0 {
			t.Fatalf("claim of uncached courses: lead %v, follow %v", lead, follow)
		}
		c.settle(school, versions, loaded)
	}
	held := func(c *curriculumCache, school int64, versions ...courseVersion) []int64 {
		got, _, _ := c.claim(school, versions)
		for _, cv := range versions { // end the reads claim started for what it did not hold
			if got[cv.course] == nil {
				c.settle(school, []courseVersion{cv}, nil)
			}
		}
		return slices.Sorted(func(yield func(int64) bool) {
			for id := range got {
				if !yield(id) {
					return
				}
			}
		})
	}

	c := newCurriculumCache(10)
	load(c, 1, cur(1, 1, 3), cur(2, 1, 3)) // 5 rows each: the course, a section, 3 lectures
	if got := held(c, 1, courseVersion{1, 1}, courseVersion{2, 1}); !slices.Equal(got, []int64{1, 2}) {
		t.Errorf("held after loading: %v", got)
	}
	if got := held(c, 2, courseVersion{1, 1}); len(got) != 0 {
		t.Errorf("school 2 got school 1's course: %v", got)
	}
	if got := held(c, 1, courseVersion{1, 2}); len(got) != 0 {
		t.Errorf("a newer version was answered from the cache: %v", got)
	}
	// Course 1 was used last, so course 2 goes to make room for course 3.
	_ = held(c, 1, courseVersion{1, 1})
	load(c, 1, cur(3, 1, 3))
	if got := held(c, 1, courseVersion{1, 1}, courseVersion{2, 1}, courseVersion{3, 1}); !slices.Equal(got, []int64{1, 3}) {
		t.Errorf("held after going over the bound: %v, want 1 and 3", got)
	}
	if c.rows != 10 || c.lru.Len() != 2 || len(c.entries) != 2 || len(c.loads) != 0 {
		t.Errorf("bookkeeping: %d rows, %d in the list, %d entries, %d loads", c.rows, c.lru.Len(), len(c.entries), len(c.loads))
	}
	// A curriculum larger than the bound is not kept, and replaces the version it updates.
	load(c, 1, cur(1, 2, 20))
	if got := held(c, 1, courseVersion{1, 1}, courseVersion{1, 2}, courseVersion{3, 1}); !slices.Equal(got, []int64{3}) {
		t.Errorf("held after an oversized curriculum: %v, want 3", got)
	}
	if c.rows != 5 {
		t.Errorf("%d rows held, want 5", c.rows)
	}

	// Two callers missing the same course at the same version read it once.
	c = newCurriculumCache(10)
	_, lead, _ := c.claim(1, []courseVersion{{1, 1}})
	_, lead2, follow := c.claim(1, []courseVersion{{1, 1}, {2, 1}})
	if len(lead) != 1 || !slices.Equal(lead2, []courseVersion{{2, 1}}) || len(follow) != 1 {
		t.Fatalf("second claim: lead %v, follow %v", lead2, follow)
	}
	c.settle(1, lead, map[int64]*curriculum{1: cur(1, 1, 1)})
	<-follow[courseVersion{1, 1}].done
	if follow[courseVersion{1, 1}].cur == nil {
		t.Error("the follower got nothing")
	}
	c.settle(1, lead2, nil) // a failed read: nothing kept, nobody left waiting
	if _, ok := c.entries[curriculumKey{1, 2}]; ok || len(c.loads) != 0 {
		t.Errorf("after a failed read: entry %v, %d loads in flight", ok, len(c.loads))
	}
}

// TestCurriculumCacheConcurrent reads curricula from many goroutines while lectures are added
// (run with -race): each reader sees the curriculum grow, never shrink, and every read after
// the last write sees it whole.
func TestCurriculumCacheConcurrent(t *testing.T) {
	s := newSQLiteStore(t)
	ctx := inSchoolA(t, s, conformance.LargeSchoolData(3, 2, 5))
	courses, _, err := s.ListCourses(ctx, false, storage.Page{})
	if err != nil {
		t.Fatal(err)
	}
	ids := []int64{courses[0].ID, courses[1].ID, courses[2].ID}
	sections, _, err := s.GetCurriculum(ctx, ids[1])
	if err != nil {
		t.Fatal(err)
	}
	const writes = 20
	var wg sync.WaitGroup
	done := make(chan struct{})
	for r := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			last := 0
			for {
				select {
				case <-done:
					return
				default:
				}
				_, lectures, err := s.GetCurricula(ctx, ids)
				if err != nil {
					t.Error(err)
					return
				}
				if len(lectures) < last {
					t.Errorf("reader %d: %d lectures after %d", r, len(lectures), last)
				}
				last = len(lectures)
				lectures[0].Title = "scribbled" // the reader's own copy
			}
		}()
	}
	for i := range writes {
		if _, err := s.AppendLecture(ctx, storage.Lecture{CourseID: ids[1], SectionID: sections[0].ID, Title: fmt.Sprint("new ", i)}); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	wg.Wait()
	_, lectures, err := s.GetCurricula(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	if len(lectures) != 3*2*5+writes || lectures[0].Title != "Lecture 1.1" {
		t.Errorf("after the writes: %d lectures, the first %q", len(lectures), lectures[0].Title)
	}
}
