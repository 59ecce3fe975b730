package operator

import (
	"net/http"
	"testing"

	"github.com/proctorhq/proctor/look"
	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/gormstore/storetest"
)

// TestAppearanceContrast: the appearance a patch makes must read on its theme's surfaces
// (look.Check); a refusal is a 422 problem that says why, and leaves the stored appearance.
func TestAppearanceContrast(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		patch := func(body map[string]any) (int, http.Header, []byte) {
			return e.request(http.MethodPatch, "/api/v1/school/appearance", allScopes, body)
		}
		status, _, body := patch(map[string]any{"primary_color": "#1d4ed8", "theme": "light"})
		if status != http.StatusOK {
			t.Fatalf("a passing colour: %d %s", status, body)
		}
		if a := schools.DecodeJSON[Appearance](t, body); a.PrimaryColor != "#1d4ed8" || a.Theme != "light" {
			t.Errorf("stored %+v", a)
		}

		for _, tc := range []struct {
			what     string
			body     map[string]any
			location string
			message  string
		}{
			{"a light colour on light pages", map[string]any{"primary_color": "#ffcc00"}, "body.primary_color",
				"primary_color #ffcc00 has a contrast of 1.4:1 against the light page (#f6f7f9); WCAG AA needs 4.5:1 for text: choose a darker colour"},
			// The rule is on the result: the stored #1d4ed8 does not read on dark pages.
			{"the theme alone", map[string]any{"theme": "dark"}, "body.primary_color",
				"primary_color #1d4ed8 has a contrast of 2.3:1 against the dark card (#202327); WCAG AA needs 4.5:1 for text: choose a lighter colour"},
		} {
			status, h, body := patch(tc.body)
			wantProblem(t, tc.what, status, h, body, http.StatusUnprocessableEntity, tc.location)
			p := schools.DecodeJSON[problem](t, body)
			if len(p.Errors) != 1 || p.Errors[0].Message != tc.message {
				t.Errorf("%s: errors %+v, want the message %q", tc.what, p.Errors, tc.message)
			}
		}
		status, _, body = e.request(http.MethodGet, "/api/v1/school/appearance", allScopes, nil)
		if a := schools.DecodeJSON[Appearance](t, body); status != http.StatusOK || a.PrimaryColor != "#1d4ed8" || a.Theme != "light" {
			t.Errorf("after the refusals: %d %+v", status, a)
		}

		// Colour and theme changed together are judged together.
		status, _, body = patch(map[string]any{"primary_color": "#FFCC00", "theme": "dark"})
		if a := schools.DecodeJSON[Appearance](t, body); status != http.StatusOK || a.PrimaryColor != "#FFCC00" || a.Theme != "dark" {
			t.Errorf("a colour for dark pages: %d %+v", status, a)
		}
	})
}

// TestAppearanceLogoFile: the logo may be an uploaded image of the school (logo_file_id). A
// file that is not an image, too large, missing or another school's is refused alike (422, the
// same words for a missing id and another school's); the two kinds of logo replace each other.
func TestAppearanceLogoFile(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		patch := func(body map[string]any) (int, http.Header, []byte) {
			return e.request(http.MethodPatch, "/api/v1/school/appearance", allScopes, body)
		}
		upload := func(name, contentType string, content []byte) int64 {
			status, _, body := e.request(http.MethodPost, "/api/v1/files?name="+name, allScopes, content, "Content-Type", contentType)
			if status != http.StatusCreated {
				t.Fatalf("upload %s: %d %s", name, status, body)
			}
			return schools.DecodeJSON[StoredFile](t, body).ID
		}
		image := upload("logo.png", "image/png", png)
		text := upload("notes.txt", "text/plain", []byte("plain notes\n"))

		status, _, body := patch(map[string]any{"logo_url": "https://cdn.example/logo.png"})
		if a := schools.DecodeJSON[Appearance](t, body); status != http.StatusOK || a.LogoURL != "https://cdn.example/logo.png" || a.LogoFileID != 0 {
			t.Fatalf("a logo URL: %d %s", status, body)
		}
		status, _, body = patch(map[string]any{"logo_file_id": image})
		if a := schools.DecodeJSON[Appearance](t, body); status != http.StatusOK || a.LogoFileID != image || a.LogoURL != "" {
			t.Fatalf("an uploaded logo: %d %s", status, body)
		}
		if sc, err := e.store.GetSchool(e.ctx); err != nil || sc.Appearance.LogoFileID != image || sc.Appearance.LogoURL != "" {
			t.Errorf("stored appearance %+v %v", sc.Appearance, err)
		}

		// Another school's image, by its id.
		synced, _ := schools.Sync(t, e.store, schools.File(2, "lumen", "Lumen", "https://lumen.example:8443"))
		theirs, err := e.store.CreateStoredFile(schools.Ctx(t, synced[0]), storage.StoredFile{
			Name: "theirs.png", ContentType: "image/png", SizeBytes: int64(len(png)), SHA256: "00", StoragePath: "2/theirs.png",
		})
		if err != nil {
			t.Fatal(err)
		}
		big, err := e.store.CreateStoredFile(e.ctx, storage.StoredFile{
			Name: "big.png", ContentType: "image/png", SizeBytes: look.DefaultMaxLogoSize + 1, SHA256: "00", StoragePath: "1/big.png",
		})
		if err != nil {
			t.Fatal(err)
		}
		const missing = "no uploaded file of this school has this id"
		for _, tc := range []struct {
			what    string
			body    map[string]any
			message string
		}{
			{"a text file", map[string]any{"logo_file_id": text}, "the file is text/plain, not a PNG, JPEG, GIF or WebP image"},
			{"an image too large", map[string]any{"logo_file_id": big.ID}, "the image has 524289 bytes; a logo has at most 524288"},
			{"another school's image", map[string]any{"logo_file_id": theirs.ID}, missing},
			{"an unknown id", map[string]any{"logo_file_id": theirs.ID + 1000}, missing},
			{"both kinds", map[string]any{"logo_file_id": image, "logo_url": "https://cdn.example/logo.png"}, "give logo_url or logo_file_id, not both: the logo is one or the other"},
		} {
			status, h, body := patch(tc.body)
			wantProblem(t, tc.what, status, h, body, http.StatusUnprocessableEntity, "body.logo_file_id")
			p := schools.DecodeJSON[problem](t, body)
			if len(p.Errors) != 1 || p.Errors[0].Message != tc.message {
				t.Errorf("%s: errors %+v, want the message %q", tc.what, p.Errors, tc.message)
			}
		}
		status, h, body := patch(map[string]any{"logo_file_id": -1})
		wantProblem(t, "a negative id", status, h, body, http.StatusUnprocessableEntity, "body.logo_file_id")
		if sc, _ := e.store.GetSchool(e.ctx); sc.Appearance.LogoFileID != image {
			t.Errorf("a refusal changed the logo: %+v", sc.Appearance)
		}

		// 0 removes the logo, whichever kind; so does an empty URL.
		status, _, body = patch(map[string]any{"logo_file_id": 0})
		if a := schools.DecodeJSON[Appearance](t, body); status != http.StatusOK || a.LogoFileID != 0 || a.LogoURL != "" {
			t.Errorf("logo_file_id 0: %d %s", status, body)
		}
		patch(map[string]any{"logo_file_id": image})
		status, _, body = patch(map[string]any{"logo_url": ""})
		if a := schools.DecodeJSON[Appearance](t, body); status != http.StatusOK || a.LogoFileID != 0 || a.LogoURL != "" {
			t.Errorf("an empty logo_url: %d %s", status, body)
		}
	})
}

// TestAppearanceLogoFileWithoutRows: an API built without the file records refuses an
// uploaded logo rather than storing an id it cannot check.
func TestAppearanceLogoFileWithoutRows(t *testing.T) {
	e := newEnv(t, storetest.Backends()[0], func(_ *env, d *Deps) { d.Files = nil })
	status, h, body := e.request(http.MethodPatch, "/api/v1/school/appearance", allScopes, map[string]any{"logo_file_id": 1})
	wantProblem(t, "no file records", status, h, body, http.StatusUnprocessableEntity, "body.logo_file_id")
}
