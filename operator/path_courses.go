package operator

import (
	"context"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/proctorhq/proctor/storage"
)

// Course is a course of the school.
type Course struct {
	ID int64 `json:"id"`
	Offer
	Published bool      `json:"published"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

func courseOut(c storage.Course) Course {
	return Course{ID: c.ID, Offer: Offer(c.Offer), Published: c.Published, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt}
}

// NewCourse creates a course.
type NewCourse struct {
	NewOffer
	Published bool `json:"published,omitempty"`
}

func (b NewCourse) row() (storage.Course, error) {
	return storage.Course{Offer: b.offer(), Published: b.Published}, nil
}

// CoursePatch changes the fields it carries and leaves the others.
type CoursePatch struct {
	Slug        *Slug     `json:"slug,omitempty"`
	Title       *string   `json:"title,omitempty" minLength:"1" maxLength:"200"`
	Description *string   `json:"description,omitempty" maxLength:"20000"`
	PriceAmount *int64    `json:"price_amount,omitempty" minimum:"0" maximum:"100000000000"`
	Currency    *Currency `json:"currency,omitempty"`
	Published   *bool     `json:"published,omitempty"`
}

func (p CoursePatch) apply(c *storage.Course) {
	set(&c.Slug, (*string)(p.Slug))
	set(&c.Title, p.Title)
	set(&c.Description, p.Description)
	set(&c.PriceAmount, p.PriceAmount)
	set(&c.Currency, (*string)(p.Currency))
	set(&c.Published, p.Published)
}

// CoursePath names a course in an operation's path.
type CoursePath struct {
	CourseID int64 `path:"course_id" minimum:"1"`
}

func (p CoursePath) parentID() int64 { return p.CourseID }

func (h *Handler) registerCourses(api huma.API) {
	register(h, api, "list-courses", func(ctx context.Context, in *struct {
		PageParams
		Published bool `query:"published" doc:"Only published courses."`
	}) (*ListOutput[Course], error) {
		courses, next, err := h.store.ListCourses(ctx, in.Published, in.page())
		return pageOf(ctx, h, "course", courses, next, err, courseOut)
	})

	register(h, api, "get-course", func(ctx context.Context, in *CoursePath) (*struct{ Body Course }, error) {
		c, err := h.store.GetCourse(ctx, in.CourseID)
		return bodyOf(ctx, h, "course", c, err, courseOut)
	})

	registerCreate(h, api, "create-course", "course", NewCourse.row, stores.CreateCourse, courseOut)

	register(h, api, "update-course", func(ctx context.Context, in *struct {
		CoursePath
		Body CoursePatch
	}) (*struct{ Body Course }, error) {
		c, err := h.store.UpdateCourse(ctx, in.CourseID, patched(in.Body.apply))
		return bodyOf(ctx, h, "course", c, err, courseOut)
	})
}

// set applies one field of a patch: a field the client left out keeps its value.
func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}
