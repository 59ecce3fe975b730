package graphql

import (
	"context"
	"io"
	"strconv"
	"sync/atomic"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// A curriculum has thousands of lectures, and the generated code gives each of their fields a
// field context, a context and closures, and each lecture and section a goroutine: ten or more
// allocations a field, most of a curriculum request's CPU. The fields of sections and lectures
// are plain values that cannot fail, so curriculumWriter writes a course's list of sections (or
// a section's list of lectures) itself, field by field as the generated code would, straight
// into the answer. TestCurriculumWriterAsGenerated holds it to the generated code's output; a
// field it does not know (one added to the schema later) leaves the list to the generated code.
type curriculumWriter struct{}

var (
	_ graphql.HandlerExtension = curriculumWriter{}
	_ graphql.FieldInterceptor = curriculumWriter{}
)

func (curriculumWriter) ExtensionName() string                   { return "CurriculumWriter" }
func (curriculumWriter) Validate(graphql.ExecutableSchema) error { return nil }

// curriculumWriterOff leaves every list to the generated code; tests compare the two.
var curriculumWriterOff atomic.Bool

// InterceptField runs every field's resolver and answers a list of sections or lectures with a
// marshaler of its own, which the executor writes in place of its own marshalling. It is also
// where a resolver's error is marked as such (resolverError).
func (curriculumWriter) InterceptField(ctx context.Context, next graphql.Resolver) (any, error) {
	res, err := next(ctx)
	if err != nil {
		return res, resolverError{err}
	}
	if curriculumWriterOff.Load() {
		return res, nil
	}
	switch list := res.(type) {
	case []*section:
		if w, ok := newSectionList(ctx, list); ok {
			return w, nil
		}
	case []*lecture:
		if fields, ok := collect(ctx, graphql.GetFieldContext(ctx).Field.Selections, lectureImplementors, lectureFields); ok {
			return lectureList{lectures: list, fields: fields}, nil
		}
	}
	return res, nil
}

// The fields each writer knows.
var (
	sectionFields = map[string]bool{"__typename": true, "id": true, "position": true, "title": true, "lectures": true}
	lectureFields = map[string]bool{
		"__typename": true, "id": true, "position": true, "title": true, "state": true,
		"positionSeconds": true, "isLocked": true, "unlockAt": true, "duration": true,
	}
)

// collect returns the fields selected on an object of a type (fragments and @skip, @include
// applied, as the generated code collects them), and whether the writer knows them all.
func collect(ctx context.Context, sel ast.SelectionSet, implementors []string, known map[string]bool) ([]graphql.CollectedField, bool) {
	fields := graphql.CollectFields(graphql.GetOperationContext(ctx), sel, implementors)
	for _, f := range fields {
		if !known[f.Name] {
			return nil, false
		}
	}
	return fields, true
}

type sectionList struct {
	sections []*section
	fields   []graphql.CollectedField
	lectures [][]graphql.CollectedField // by field, for the lectures fields
}

func newSectionList(ctx context.Context, sections []*section) (sectionList, bool) {
	fields, ok := collect(ctx, graphql.GetFieldContext(ctx).Field.Selections, sectionImplementors, sectionFields)
	if !ok {
		return sectionList{}, false
	}
	l := sectionList{sections: sections, fields: fields, lectures: make([][]graphql.CollectedField, len(fields))}
	for i, f := range fields {
		if f.Name == "lectures" {
			if l.lectures[i], ok = collect(ctx, f.Selections, lectureImplementors, lectureFields); !ok {
				return sectionList{}, false
			}
		}
	}
	return l, true
}

// pageAnswer is the size of a page of courses' curricula. The first of the page's section lists
// written makes room in the answer for all of them, so that the answer grows once rather than
// doubling its way up to them. Lists are written one after another, never at once.
type pageAnswer struct {
	sections, lectures int
	reserved           bool
}

func (l sectionList) MarshalGQL(w io.Writer) {
	sections, lectures := len(l.sections), 0
	for _, s := range l.sections {
		lectures += len(s.lectures)
	}
	if len(l.sections) > 0 && l.sections[0].page != nil && !l.sections[0].page.reserved {
		p := l.sections[0].page
		p.reserved = true
		sections, lectures = p.sections, p.lectures
	}
	writeAppended(w, l.size(sections, lectures), l.append)
}

// bytesPerField is about what a member of a section or lecture takes, name and value: room asked
// for ahead, so that the answer is written where it lands rather than built and copied.
const bytesPerField = 24

// size estimates what sections with lectures in all take written.
func (l sectionList) size(sections, lectures int) int {
	n := sections * len(l.fields)
	for _, fields := range l.lectures {
		n += lectures * len(fields)
	}
	return n * bytesPerField
}

func (l sectionList) append(b []byte) []byte {
	return appendObjects(b, l.sections, l.fields, func(b []byte, s *section, j int, f graphql.CollectedField) []byte {
		switch f.Name {
		case "__typename":
			b = append(b, `"Section"`...)
		case "id":
			b = appendID(b, s.s.ID)
		case "position":
			b = strconv.AppendInt(b, int64(s.s.Position), 10)
		case "title":
			b = appendJSONString(b, s.s.Title)
		case "lectures":
			b = lectureList{lectures: s.lectures, fields: l.lectures[j]}.append(b)
		}
		return b
	})
}

type lectureList struct {
	lectures []*lecture
	fields   []graphql.CollectedField
}

func (l lectureList) MarshalGQL(w io.Writer) {
	writeAppended(w, len(l.lectures)*bytesPerField*len(l.fields), l.append)
}

func (l lectureList) append(b []byte) []byte {
	return appendObjects(b, l.lectures, l.fields, appendLectureField)
}

func appendLectureField(b []byte, lec *lecture, _ int, f graphql.CollectedField) []byte {
	switch f.Name {
	case "__typename":
		b = append(b, `"Lecture"`...)
	case "id":
		b = appendID(b, lec.l.ID)
	case "position":
		b = strconv.AppendInt(b, int64(lec.Position()), 10)
	case "title":
		b = appendJSONString(b, lec.Title())
	case "state":
		b = appendJSONString(b, lec.State()) // an enum value: a name, which nothing escapes
	case "positionSeconds":
		b = strconv.AppendInt(b, int64(lec.PositionSeconds()), 10)
	case "isLocked":
		b = strconv.AppendBool(b, lec.IsLocked())
	case "unlockAt":
		if at := lec.UnlockAt(); at != nil {
			b = at.append(b)
		} else {
			b = append(b, "null"...)
		}
	case "duration":
		b = strconv.AppendInt(b, int64(lec.Duration()), 10)
	}
	return b
}

// appendObjects writes a list of objects as the generated code does: an array of objects whose
// members are the selected fields in order, each under its alias (a GraphQL name, which needs no
// escaping) with the value appendField writes for the j-th field.
func appendObjects[T any](b []byte, items []T, fields []graphql.CollectedField, appendField func(b []byte, item T, j int, f graphql.CollectedField) []byte) []byte {
	b = append(b, '[')
	for i, item := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		for j, f := range fields {
			if j > 0 {
				b = append(b, ',')
			}
			b = append(b, '"')
			b = append(b, f.Alias...)
			b = append(b, '"', ':')
			b = appendField(b, item, j, f)
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

func appendID(b []byte, n int64) []byte {
	b = append(b, '"')
	b = strconv.AppendInt(b, n, 10)
	return append(b, '"')
}
