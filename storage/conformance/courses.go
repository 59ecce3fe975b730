package conformance

import (
	"fmt"
	"testing"

	"github.com/proctorhq/proctor/storage"
)

func testCourses(t *testing.T, s storage.Store) {
	ctxA, _, data := withFullSchool(t, s)

	all, next, err := s.ListCourses(ctxA, false, storage.Page{})
	must(t, "ListCourses", err)
	if next != "" || len(all) != 2 {
		t.Fatalf("ListCourses: %d courses, next %q; want 2 and no next page", len(all), next)
	}
	for i, c := range all {
		seed := data.Courses[i]
		wantEqual(t, "course "+seed.Slug, c, storage.Course{
			ID: c.ID, Offer: storage.Offer{Slug: seed.Slug, Title: seed.Title, Description: seed.Description, PriceAmount: seed.PriceAmount, Currency: seed.Currency}, Published: seed.Published,
			CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt,
		})
		if c.ID == 0 || c.CreatedAt.IsZero() || c.UpdatedAt.IsZero() {
			t.Errorf("course %s: id or times unset: %+v", seed.Slug, c)
		}
	}
	if all[0].ID >= all[1].ID {
		t.Errorf("courses not in id order")
	}

	published, _, err := s.ListCourses(ctxA, true, storage.Page{})
	must(t, "ListCourses published", err)
	if len(published) != 1 || published[0].Slug != "go-basics" {
		t.Errorf("published courses: %+v", published)
	}

	c := courseBySlug(t, s, ctxA, "draft")
	wantEqual(t, "GetCourseBySlug", c, all[1])
	_, err = s.GetCourseBySlug(ctxA, "nope")
	wantErr(t, "GetCourseBySlug unknown", err, storage.ErrNotFound)
}

func testCoursePaging(t *testing.T, s storage.Store) {
	ctxA, _ := syncSchools(t, s)
	var data storage.SchoolData
	for i := range 25 {
		data.Courses = append(data.Courses, storage.CourseSeed{OfferSeed: storage.OfferSeed{Slug: fmt.Sprintf("c%02d", i), Title: "C", Currency: "USD"}, Published: i%2 == 0})
	}
	mustImport(t, s, ctxA, &data)

	for _, tc := range []struct {
		published bool
		first     int
		want      int
	}{{false, 7, 25}, {true, 5, 13}, {false, 25, 25}, {true, 0, 13}} {
		seen := map[int64]bool{}
		after, pages := "", 0
		for {
			page, next, err := s.ListCourses(ctxA, tc.published, storage.Page{First: tc.first, After: after})
			must(t, "ListCourses", err)
			pages++
			for _, c := range page {
				if seen[c.ID] {
					t.Fatalf("course %d listed twice", c.ID)
				}
				seen[c.ID] = true
				if tc.published && !c.Published {
					t.Errorf("unpublished course %s listed", c.Slug)
				}
			}
			if next == "" {
				break
			}
			if len(page) == 0 {
				t.Fatal("empty page with a next cursor")
			}
			after = next
		}
		if len(seen) != tc.want {
			t.Errorf("published=%v first=%d: walked %d courses, want %d", tc.published, tc.first, len(seen), tc.want)
		}
	}
	_, _, err := s.ListCourses(ctxA, false, storage.Page{After: "%%%"})
	wantErr(t, "ListCourses with a malformed cursor", err, storage.ErrInvalidArgument)
}

func testCurriculum(t *testing.T, s storage.Store) {
	ctxA, _, data := withFullSchool(t, s)
	c := courseBySlug(t, s, ctxA, "go-basics")

	sections, lectures, err := s.GetCurriculum(ctxA, c.ID)
	must(t, "GetCurriculum", err)
	seed := data.Courses[0]
	if len(sections) != len(seed.Sections) {
		t.Fatalf("%d sections, want %d", len(sections), len(seed.Sections))
	}
	var want []storage.Lecture
	for i, sec := range sections {
		wantEqual(t, fmt.Sprintf("section %d", i+1), sec, storage.Section{ID: sec.ID, CourseID: c.ID, Position: i + 1, Title: seed.Sections[i].Title})
		for j, l := range seed.Sections[i].Lectures {
			want = append(want, storage.Lecture{
				CourseID: c.ID, SectionID: sec.ID, Position: j + 1, Title: l.Title,
				DurationSeconds: l.DurationSeconds, IsLocked: l.IsLocked, UnlockAt: l.UnlockAt,
			})
		}
	}
	if len(lectures) != len(want) {
		t.Fatalf("%d lectures, want %d", len(lectures), len(want))
	}
	for i := range lectures {
		if lectures[i].ID == 0 {
			t.Errorf("lecture %d has no id", i)
		}
		want[i].ID = lectures[i].ID
	}
	wantEqual(t, "lectures", lectures, want)

	// A course without sections has an empty curriculum.
	draft := courseBySlug(t, s, ctxA, "draft")
	sections, lectures, err = s.GetCurriculum(ctxA, draft.ID)
	must(t, "GetCurriculum of an empty course", err)
	if len(sections) != 0 || len(lectures) != 0 {
		t.Errorf("empty course: %d sections, %d lectures", len(sections), len(lectures))
	}

	_, _, err = s.GetCurriculum(ctxA, c.ID+draft.ID+1000)
	wantErr(t, "GetCurriculum of an unknown course", err, storage.ErrNotFound)
}

func testEnrollments(t *testing.T, s storage.Store) {
	ctxA, _, data := withFullSchool(t, s)
	c := courseBySlug(t, s, ctxA, "go-basics")

	for _, seed := range data.Enrollments {
		member := memberID(t, s, t.Context(), seed.Member)
		got, err := s.ListEnrollments(ctxA, member)
		must(t, "ListEnrollments", err)
		if len(got) != 1 {
			t.Fatalf("%s: %d enrollments, want 1", seed.Member, len(got))
		}
		wantEqual(t, "enrollment of "+seed.Member, got[0], storage.Enrollment{
			ID: got[0].ID, MemberID: member, CourseID: c.ID, ExpireDate: seed.ExpireDate,
			LifetimeAccess: seed.LifetimeAccess, EnrolledAt: seed.EnrolledAt,
		})
	}
	grace := memberID(t, s, t.Context(), "grace@example.test")
	got, err := s.ListEnrollments(ctxA, grace)
	must(t, "ListEnrollments", err)
	if len(got) != 0 {
		t.Errorf("enrollments of a member without any: %+v", got)
	}
}
