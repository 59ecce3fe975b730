package operator

import (
	"context"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/proctorhq/proctor/storage"
)

// Form is a form of the school with its fields.
type Form struct {
	ID     int64       `json:"id"`
	Slug   string      `json:"slug"`
	Title  string      `json:"title"`
	Fields []FormField `json:"fields"`
}

// FormField is one input of a form.
type FormField struct {
	Name     string `json:"name"`
	Label    string `json:"label"`
	Type     string `json:"type"`
	Required bool   `json:"required"`
}

// FormSubmission is one submission of a form.
type FormSubmission struct {
	ID          int64             `json:"id"`
	Key         string            `json:"key"`
	FormID      int64             `json:"form_id"`
	MemberID    *int64            `json:"member_id,omitempty" doc:"Absent for an anonymous submission."`
	Data        map[string]string `json:"data" doc:"The submitted values by field name."`
	SubmittedAt time.Time         `json:"submitted_at"`
}

func (h *Handler) registerForms(api huma.API) {
	register(h, api, "list-forms", func(ctx context.Context, in *struct{ PageParams }) (*ListOutput[Form], error) {
		fs, next, err := h.store.ListForms(ctx, in.page())
		return pageOf(ctx, h, "form", fs, next, err, func(f storage.Form) Form {
			out := Form{ID: f.ID, Slug: f.Slug, Title: f.Title, Fields: make([]FormField, len(f.Fields))}
			for i, fd := range f.Fields {
				out.Fields[i] = FormField{Name: fd.Name, Label: fd.Label, Type: fd.Type, Required: fd.Required}
			}
			return out
		})
	})

	register(h, api, "list-form-submissions", func(ctx context.Context, in *struct {
		FormID int64 `path:"form_id" minimum:"1"`
		PageParams
	}) (*ListOutput[FormSubmission], error) {
		ss, next, err := h.store.ListFormSubmissions(ctx, in.FormID, in.page())
		return pageOf(ctx, h, "form", ss, next, err, func(s storage.FormSubmission) FormSubmission {
			return FormSubmission{ID: s.ID, Key: s.Key, FormID: s.FormID, MemberID: s.MemberID, Data: s.Data, SubmittedAt: s.SubmittedAt}
		})
	})
}
