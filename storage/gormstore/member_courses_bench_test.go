package gormstore

import (
	"context"
	"testing"

	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/conformance"
)

// benchSeeded returns a store seeded with a member enrolled in 20 courses of 200 lectures with
// progress on every lecture, and the context, member and course ids the reads take.
func benchSeeded(b *testing.B, open func(testing.TB) *Store) (*Store, context.Context, int64, []int64) {
	s := open(b)
	ctx := inSchoolA(b, s, conformance.LargeSchoolData(20, 10, 20))
	m, err := s.GetMemberByEmail(ctx, "busy@example.test")
	if err != nil {
		b.Fatal(err)
	}
	courses, _, err := s.ListCourses(ctx, false, storage.Page{First: 20})
	if err != nil {
		b.Fatal(err)
	}
	ids := make([]int64, len(courses))
	for i, c := range courses {
		ids[i] = c.ID
	}
	return s, ctx, m.ID, ids
}

// benchmarkRead runs read b.N times against benchSeeded's data on SQLite, and on PostgreSQL when
// postgresDSNEnv is set (newPostgresStore skips otherwise).
func benchmarkRead(b *testing.B, read func(s *Store, ctx context.Context, member int64, courses []int64) error) {
	backends := map[string]func(testing.TB) *Store{DriverSQLite: newSQLiteStore, DriverPostgres: newPostgresStore}
	for _, name := range []string{DriverSQLite, DriverPostgres} {
		b.Run(name, func(b *testing.B) {
			s, ctx, member, courses := benchSeeded(b, backends[name])
			b.ReportAllocs()
			for b.Loop() {
				if err := read(s, ctx, member, courses); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkGetCurricula reads the curricula of 20 courses of 200 lectures.
func BenchmarkGetCurricula(b *testing.B) {
	benchmarkRead(b, func(s *Store, ctx context.Context, _ int64, courses []int64) error {
		_, _, err := s.GetCurricula(ctx, courses)
		return err
	})
}

// BenchmarkGetLectureProgress reads a member's 4000 progress rows in 20 courses.
func BenchmarkGetLectureProgress(b *testing.B) {
	benchmarkRead(b, func(s *Store, ctx context.Context, member int64, courses []int64) error {
		_, err := s.GetLectureProgress(ctx, member, courses)
		return err
	})
}

// BenchmarkGetCourseProgress sums up a member's 4000 progress rows in 20 courses.
func BenchmarkGetCourseProgress(b *testing.B) {
	benchmarkRead(b, func(s *Store, ctx context.Context, member int64, courses []int64) error {
		_, err := s.GetCourseProgress(ctx, member, courses)
		return err
	})
}
