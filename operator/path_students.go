package operator

import (
	"context"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/proctorhq/proctor/storage"
)

// MemberRef is the identity of a member as operators see it (never their password hash).
type MemberRef struct {
	ID    int64  `json:"id"`
	Email string `json:"email"`
	Name  string `json:"name"`
}

func memberRef(m storage.Member) MemberRef { return MemberRef{ID: m.ID, Email: m.Email, Name: m.Name} }

// Enrollment entitles a student to a course.
type Enrollment struct {
	ID             int64      `json:"id"`
	CourseID       int64      `json:"course_id"`
	Member         MemberRef  `json:"member"`
	EnrolledAt     time.Time  `json:"enrolled_at"`
	ExpireDate     *time.Time `json:"expire_date,omitempty" doc:"When access ends; absent for lifetime access or no expiry."`
	LifetimeAccess bool       `json:"lifetime_access"`
}

func enrollmentOut(e storage.CourseEnrollment) Enrollment {
	return Enrollment{
		ID: e.Enrollment.ID, CourseID: e.Enrollment.CourseID, Member: memberRef(e.Member),
		EnrolledAt: e.Enrollment.EnrolledAt, ExpireDate: e.Enrollment.ExpireDate, LifetimeAccess: e.Enrollment.LifetimeAccess,
	}
}

// NewEnrollment enrolls a member of the school in a course.
type NewEnrollment struct {
	MemberID       int64      `json:"member_id" minimum:"1" doc:"A member holding a role at this school."`
	ExpireDate     *time.Time `json:"expire_date,omitempty" doc:"When access ends; leave out for no expiry."`
	LifetimeAccess bool       `json:"lifetime_access,omitempty"`
}

// Progress is one student's progress through one course.
type Progress struct {
	CourseID          int64             `json:"course_id"`
	MemberID          int64             `json:"member_id"`
	TotalLectures     int               `json:"total_lectures"`
	CompletedLectures int               `json:"completed_lectures"`
	PercentComplete   int               `json:"percent_complete" doc:"Completed lectures as a whole percentage, rounded down."`
	LastWatched       *LastWatched      `json:"last_watched,omitempty" doc:"The lecture with the latest progress; absent before any."`
	Lectures          []LectureProgress `json:"lectures" doc:"Every lecture in curriculum order; one without progress is unread at 0."`
}

// LastWatched is where a student last was in a course.
type LastWatched struct {
	LectureID       int64     `json:"lecture_id"`
	PositionSeconds int       `json:"position_seconds"`
	At              time.Time `json:"at"`
}

// LectureProgress is a student's state on one lecture.
type LectureProgress struct {
	LectureID       int64      `json:"lecture_id"`
	SectionID       int64      `json:"section_id"`
	Title           string     `json:"title"`
	State           string     `json:"state" enum:"unread,read,completed"`
	PositionSeconds int        `json:"position_seconds"`
	UpdatedAt       *time.Time `json:"updated_at,omitempty"`
}

// progressOut walks the curriculum so that every lecture is listed, with or without a row.
func progressOut(courseID, memberID int64, lectures []storage.Lecture, rows []storage.LectureProgress) Progress {
	byLecture := storage.LectureProgressByLecture(rows)
	out := Progress{CourseID: courseID, MemberID: memberID, TotalLectures: len(lectures), Lectures: make([]LectureProgress, len(lectures))}
	var last *storage.LectureProgress
	for i, l := range lectures {
		r := byLecture[l.ID] // nil: never opened
		lp := LectureProgress{LectureID: l.ID, SectionID: l.SectionID, Title: l.Title, State: string(r.StateShown())}
		if r != nil {
			at := r.UpdatedAt
			lp.PositionSeconds, lp.UpdatedAt = r.PositionSeconds, &at
			if r.State == storage.LectureCompleted {
				out.CompletedLectures++
			}
			// As the Member API and the MCP tools choose (storage.CourseProgress), whatever the
			// curriculum's order.
			if last == nil || r.WatchedAfter(*last) {
				last = r
			}
		}
		out.Lectures[i] = lp
	}
	if last != nil {
		out.LastWatched = &LastWatched{LectureID: last.LectureID, PositionSeconds: last.PositionSeconds, At: last.UpdatedAt}
	}
	out.PercentComplete = storage.CourseProgress{CompletedLectures: out.CompletedLectures, TotalLectures: out.TotalLectures}.Percent()
	return out
}

// EnrollmentPath names one member's enrollment in a course.
type EnrollmentPath struct {
	CoursePath
	MemberID int64 `path:"member_id" minimum:"1"`
}

func (h *Handler) registerStudents(api huma.API) {
	registerListOf[struct {
		CoursePath
		PageParams
	}](h, api, "list-enrollments", "course", stores.ListCourseEnrollments, enrollmentOut)

	register(h, api, "create-enrollment", func(ctx context.Context, in *struct {
		CoursePath
		Body NewEnrollment
	}) (*struct{ Body Enrollment }, error) {
		b := in.Body
		if b.LifetimeAccess && b.ExpireDate != nil {
			return nil, invalid("body.expire_date", "lifetime access has no expiry date", b.ExpireDate)
		}
		e, err := h.store.Enroll(ctx, storage.Enrollment{
			MemberID: b.MemberID, CourseID: in.CourseID, ExpireDate: b.ExpireDate,
			LifetimeAccess: b.LifetimeAccess, EnrolledAt: h.now(),
		})
		return bodyOf(ctx, h, "enrollment (or course, or member of this school)", e, err, enrollmentOut)
	})

	register(h, api, "delete-enrollment", func(ctx context.Context, in *EnrollmentPath) (*struct{}, error) {
		if err := h.store.Unenroll(ctx, in.CourseID, in.MemberID); err != nil {
			return nil, h.problem(ctx, "enrollment", err)
		}
		return &struct{}{}, nil
	})

	register(h, api, "get-progress", func(ctx context.Context, in *EnrollmentPath) (*struct{ Body Progress }, error) {
		if _, err := h.store.GetCourseEnrollment(ctx, in.CourseID, in.MemberID); err != nil {
			return nil, h.problem(ctx, "enrollment", err)
		}
		_, lectures, err := h.store.GetCurriculum(ctx, in.CourseID)
		if err != nil {
			return nil, h.problem(ctx, "course", err)
		}
		rows, err := h.store.GetLectureProgress(ctx, in.MemberID, []int64{in.CourseID})
		if err != nil {
			return nil, h.problem(ctx, "enrollment", err)
		}
		return &struct{ Body Progress }{progressOut(in.CourseID, in.MemberID, lectures, rows)}, nil
	})
}
