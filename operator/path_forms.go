package operator

import (
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

func formOut(f storage.Form) Form {
	out := Form{ID: f.ID, Slug: f.Slug, Title: f.Title, Fields: make([]FormField, len(f.Fields))}
	for i, fd := range f.Fields {
		out.Fields[i] = FormField{Name: fd.Name, Label: fd.Label, Type: fd.Type, Required: fd.Required}
	}
	return out
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

func submissionOut(s storage.FormSubmission) FormSubmission {
	return FormSubmission{ID: s.ID, Key: s.Key, FormID: s.FormID, MemberID: s.MemberID, Data: s.Data, SubmittedAt: s.SubmittedAt}
}

// FormPath names a form in an operation's path.
type FormPath struct {
	FormID int64 `path:"form_id" minimum:"1"`
}

func (p FormPath) parentID() int64 { return p.FormID }

func (h *Handler) registerForms(api huma.API) {
	registerList(h, api, "list-forms", "form", stores.ListForms, formOut)
	registerListOf[struct {
		FormPath
		PageParams
	}](h, api, "list-form-submissions", "form", stores.ListFormSubmissions, submissionOut)
}
