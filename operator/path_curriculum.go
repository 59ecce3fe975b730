package operator

import (
	"context"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/proctorhq/proctor/storage"
)

// Curriculum is a course's whole outline. It is one document rather than a paged list: a
// course's outline is read and shown as a whole (the Member API also returns it in one
// request).
type Curriculum struct {
	CourseID int64     `json:"course_id"`
	Sections []Section `json:"sections" doc:"In position order."`
}

// Section is one part of a curriculum.
type Section struct {
	ID       int64     `json:"id"`
	Position int       `json:"position" doc:"From 1."`
	Title    string    `json:"title"`
	Lectures []Lecture `json:"lectures" doc:"In position order."`
}

// Lecture is one lecture of a section.
type Lecture struct {
	ID              int64      `json:"id"`
	SectionID       int64      `json:"section_id"`
	Position        int        `json:"position" doc:"From 1, within its section."`
	Title           string     `json:"title"`
	DurationSeconds int        `json:"duration_seconds"`
	IsLocked        bool       `json:"is_locked"`
	UnlockAt        *time.Time `json:"unlock_at,omitempty"`
}

func lectureOut(l storage.Lecture) Lecture {
	return Lecture{
		ID: l.ID, SectionID: l.SectionID, Position: l.Position, Title: l.Title,
		DurationSeconds: l.DurationSeconds, IsLocked: l.IsLocked, UnlockAt: l.UnlockAt,
	}
}

// sectionOut is a section without its lectures, which curriculumOut adds.
func sectionOut(s storage.Section) Section {
	return Section{ID: s.ID, Position: s.Position, Title: s.Title, Lectures: []Lecture{}}
}

// curriculumOut nests the store's flat lists: sections come in position order and lectures in
// section then position order.
func curriculumOut(courseID int64, sections []storage.Section, lectures []storage.Lecture) Curriculum {
	out := Curriculum{CourseID: courseID, Sections: make([]Section, len(sections))}
	index := make(map[int64]int, len(sections))
	for i, s := range sections {
		out.Sections[i] = sectionOut(s)
		index[s.ID] = i
	}
	for _, l := range lectures {
		if i, ok := index[l.SectionID]; ok {
			out.Sections[i].Lectures = append(out.Sections[i].Lectures, lectureOut(l))
		}
	}
	return out
}

// NewSection appends a section to a course.
type NewSection struct {
	Title string `json:"title" minLength:"1" maxLength:"200"`
}

// NewLecture appends a lecture to a section.
type NewLecture struct {
	Title           string     `json:"title" minLength:"1" maxLength:"200"`
	DurationSeconds int        `json:"duration_seconds" minimum:"0" maximum:"86400" doc:"Length in seconds."`
	IsLocked        bool       `json:"is_locked,omitempty"`
	UnlockAt        *time.Time `json:"unlock_at,omitempty" doc:"When a locked lecture unlocks."`
}

// SectionPath names a section of a course.
type SectionPath struct {
	CoursePath
	SectionID int64 `path:"section_id" minimum:"1"`
}

func (h *Handler) registerCurriculum(api huma.API) {
	register(h, api, "get-curriculum", func(ctx context.Context, in *CoursePath) (*struct{ Body Curriculum }, error) {
		sections, lectures, err := h.store.GetCurriculum(ctx, in.CourseID)
		if err != nil {
			return nil, h.problem(ctx, "course", err)
		}
		return &struct{ Body Curriculum }{curriculumOut(in.CourseID, sections, lectures)}, nil
	})

	register(h, api, "create-section", func(ctx context.Context, in *struct {
		CoursePath
		Body NewSection
	}) (*struct{ Body Section }, error) {
		s, err := h.store.AppendSection(ctx, in.CourseID, in.Body.Title)
		return bodyOf(ctx, h, "course", s, err, sectionOut)
	})

	register(h, api, "create-lecture", func(ctx context.Context, in *struct {
		SectionPath
		Body NewLecture
	}) (*struct{ Body Lecture }, error) {
		b := in.Body
		if b.UnlockAt != nil && !b.IsLocked {
			return nil, invalid("body.unlock_at", "only a locked lecture has an unlock time", b.UnlockAt)
		}
		l, err := h.store.AppendLecture(ctx, storage.Lecture{
			CourseID: in.CourseID, SectionID: in.SectionID, Title: b.Title,
			DurationSeconds: b.DurationSeconds, IsLocked: b.IsLocked, UnlockAt: b.UnlockAt,
		})
		return bodyOf(ctx, h, "section", l, err, lectureOut)
	})
}
