package operator

import (
	"github.com/danielgtaylor/huma/v2"

	"github.com/proctorhq/proctor/storage"
)

// Lecturer is a teaching profile.
type Lecturer struct {
	ID        int64   `json:"id"`
	Slug      string  `json:"slug"`
	Name      string  `json:"name"`
	Bio       string  `json:"bio"`
	AvatarURL string  `json:"avatar_url,omitempty"`
	MemberID  *int64  `json:"member_id,omitempty" doc:"The member who is this lecturer, if any."`
	CourseIDs []int64 `json:"course_ids" doc:"The courses they teach, ascending."`
}

func lecturerOut(l storage.Lecturer) Lecturer {
	return Lecturer{ID: l.ID, Slug: l.Slug, Name: l.Name, Bio: l.Bio, AvatarURL: l.AvatarURL, MemberID: l.MemberID, CourseIDs: l.CourseIDs}
}

// NewLecturer creates a lecturer profile.
type NewLecturer struct {
	Slug      Slug    `json:"slug"`
	Name      string  `json:"name" minLength:"1" maxLength:"200"`
	Bio       string  `json:"bio,omitempty" maxLength:"20000"`
	AvatarURL string  `json:"avatar_url,omitempty" maxLength:"2000" pattern:"^https://[^\\s]+$"`
	MemberID  *int64  `json:"member_id,omitempty" minimum:"1" doc:"A member holding a role at this school."`
	CourseIDs []int64 `json:"course_ids,omitempty" maxItems:"100" uniqueItems:"true"`
}

func (b NewLecturer) row() (storage.Lecturer, error) {
	return storage.Lecturer{Slug: string(b.Slug), Name: b.Name, Bio: b.Bio, AvatarURL: b.AvatarURL, MemberID: b.MemberID, CourseIDs: b.CourseIDs}, nil
}

func (h *Handler) registerLecturers(api huma.API) {
	registerList(h, api, "list-lecturers", "lecturer", stores.ListLecturers, lecturerOut)
	registerCreate(h, api, "create-lecturer", "lecturer (or course, or member of this school)", NewLecturer.row, stores.CreateLecturer, lecturerOut)
}
