package operator

import (
	"net/http"
	"testing"
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
		if a := decode[Appearance](t, body); a.PrimaryColor != "#1d4ed8" || a.Theme != "light" {
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
			p := decode[problem](t, body)
			if len(p.Errors) != 1 || p.Errors[0].Message != tc.message {
				t.Errorf("%s: errors %+v, want the message %q", tc.what, p.Errors, tc.message)
			}
		}
		status, _, body = e.request(http.MethodGet, "/api/v1/school/appearance", allScopes, nil)
		if a := decode[Appearance](t, body); status != http.StatusOK || a.PrimaryColor != "#1d4ed8" || a.Theme != "light" {
			t.Errorf("after the refusals: %d %+v", status, a)
		}

		// Colour and theme changed together are judged together.
		status, _, body = patch(map[string]any{"primary_color": "#FFCC00", "theme": "dark"})
		if a := decode[Appearance](t, body); status != http.StatusOK || a.PrimaryColor != "#FFCC00" || a.Theme != "dark" {
			t.Errorf("a colour for dark pages: %d %+v", status, a)
		}
	})
}
