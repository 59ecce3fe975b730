package graphql_test

import (
	"bytes"
	"testing"

	membergraphql "github.com/proctorhq/proctor/resource/graphql"
	"github.com/proctorhq/proctor/storage"
)

// TestCurriculumWriterAsGenerated: the sections and lectures the curriculum writer writes are
// byte for byte what the generated code writes, whatever the selection: every field, aliases,
// __typename, fragments, @skip and @include, and titles with what JSON escapes.
func TestCurriculumWriterAsGenerated(t *testing.T) {
	e := seeded(newEnv(t, "sqlite"))
	e.Seed(e.B, &storage.SchoolData{
		Members: []storage.MemberSeed{{Email: emma, Name: "Emma Lopez", Roles: []storage.Role{storage.RoleStudent}}},
		Courses: []storage.CourseSeed{{OfferSeed: storage.OfferSeed{Slug: "odd", Title: "Odd <titles> & \"quotes\"", Currency: "USD"}, Published: true, Sections: []storage.SectionSeed{
			{Title: "Tab\there, <line\u2028separator>, \\ backslash", Lectures: []storage.LectureSeed{
				{Title: "<script>&amp;</script>", DurationSeconds: 1},
				{Title: "Control \x01 and \u00e9\u4e16", DurationSeconds: 2, IsLocked: true, UnlockAt: ptr(future)},
			}},
		}}},
		Enrollments: []storage.EnrollmentSeed{{Member: emma, Course: "odd", EnrolledAt: day(past, 1)}},
		Progress: []storage.ProgressSeed{
			{Member: emma, Lecture: storage.LectureRef{Course: "odd", Section: 1, Lecture: 1}, State: storage.LectureRead, PositionSeconds: 1, UpdatedAt: day(past, 2)},
		},
	})
	tokens := map[string]string{"A": e.Token(e.A, sam, readScope), "B": e.Token(e.B, emma, readScope)}

	const all = `__typename id position title lectures { __typename id position title state positionSeconds isLocked unlockAt duration }`
	for _, tc := range []struct {
		name, query string
		variables   map[string]any
	}{
		{"every field", `{ viewer { enrolledCourses { nodes { sections { ` + all + ` } } } } }`, nil},
		{"the curriculum query", curriculumQuery, nil},
		{"aliases and fragments", `{ viewer { enrolledCourses { nodes { s: sections { ...S t: title } sections { id } } } } }
			fragment S on Section { t2: title lectures { ... on Lecture { a: title b: title id } ...L } }
			fragment L on Lecture { d: duration d2: duration __typename }`, nil},
		{"skip and include", `query($on: Boolean!) { viewer { enrolledCourses { nodes { sections { title @skip(if: $on) position @include(if: $on)
			lectures { unlockAt @skip(if: $on) isLocked @include(if: $on) state } } } } } }`, map[string]any{"on": true}},
		{"skip and include, reversed", `query($on: Boolean!) { viewer { enrolledCourses { nodes { sections { title @skip(if: $on) position @include(if: $on)
			lectures { unlockAt @skip(if: $on) isLocked @include(if: $on) state } } } } } }`, map[string]any{"on": false}},
	} {
		for school, token := range tokens {
			tn := e.A
			if school == "B" {
				tn = e.B
			}
			written := e.post(tn, token, tc.query, tc.variables)
			restore := membergraphql.PlainExecution()
			plain := e.post(tn, token, tc.query, tc.variables)
			restore()
			if written.status != 200 || len(written.Errors) != 0 || !bytes.Contains(written.raw, []byte(`"sections"`)) && !bytes.Contains(written.raw, []byte(`"s"`)) {
				t.Fatalf("%s at %s: %d %s", tc.name, school, written.status, written.raw)
			}
			if school == "B" && tc.name == "every field" && !bytes.Contains(written.raw, []byte(`"title":"\u003cscript\u003e\u0026amp;\u003c/script\u003e"`)) {
				t.Errorf("%s at %s: titles not escaped as encoding/json escapes them: %s", tc.name, school, written.raw)
			}
			if !bytes.Equal(written.raw, plain.raw) {
				t.Errorf("%s at %s:\nwritten   %s\ngenerated %s", tc.name, school, written.raw, plain.raw)
			}
		}
	}
}
