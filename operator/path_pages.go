package operator

import (
	"context"

	"github.com/danielgtaylor/huma/v2"

	"github.com/proctorhq/proctor/storage"
)

// Page is a content page of the school.
type Page struct {
	ID        int64  `json:"id"`
	Slug      string `json:"slug"`
	Title     string `json:"title"`
	Body      string `json:"body"`
	Published bool   `json:"published"`
}

func pageOut(p storage.ContentPage) Page {
	return Page{ID: p.ID, Slug: p.Slug, Title: p.Title, Body: p.Body, Published: p.Published}
}

// NewPage creates a content page.
type NewPage struct {
	Slug      Slug   `json:"slug"`
	Title     string `json:"title" minLength:"1" maxLength:"200"`
	Body      string `json:"body" maxLength:"50000"`
	Published bool   `json:"published,omitempty"`
}

func (b NewPage) row() (storage.ContentPage, error) {
	return storage.ContentPage{Slug: string(b.Slug), Title: b.Title, Body: b.Body, Published: b.Published}, nil
}

// PagePatch changes the page fields it carries.
type PagePatch struct {
	Slug      *Slug   `json:"slug,omitempty"`
	Title     *string `json:"title,omitempty" minLength:"1" maxLength:"200"`
	Body      *string `json:"body,omitempty" maxLength:"50000"`
	Published *bool   `json:"published,omitempty"`
}

func (b PagePatch) apply(p *storage.ContentPage) {
	set(&p.Slug, (*string)(b.Slug))
	set(&p.Title, b.Title)
	set(&p.Body, b.Body)
	set(&p.Published, b.Published)
}

func (h *Handler) registerPages(api huma.API) {
	registerList(h, api, "list-pages", "page", stores.ListContentPages, pageOut)
	registerCreate(h, api, "create-page", "page", NewPage.row, stores.CreateContentPage, pageOut)

	register(h, api, "update-page", func(ctx context.Context, in *struct {
		PageID int64 `path:"page_id" minimum:"1"`
		Body   PagePatch
	}) (*struct{ Body Page }, error) {
		p, err := h.store.UpdateContentPage(ctx, in.PageID, patched(in.Body.apply))
		return bodyOf(ctx, h, "page", p, err, pageOut)
	})
}
