package look

import (
	"errors"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/storage"
)

func TestCheckAccepts(t *testing.T) {
	for _, a := range []storage.Appearance{
		{},
		{Theme: "light"},
		{Theme: "dark"},
		{Theme: "auto"},
		{PrimaryColor: "#1d4ed8", Theme: "light"},
		{PrimaryColor: "#1D4ED8"},
		{PrimaryColor: "#1d4ed8", Theme: "auto"},
		{PrimaryColor: "#595959", Theme: "light"},
		{PrimaryColor: "#fb923c", Theme: "dark"},
		{PrimaryColor: "#ffcc00", Theme: "dark"},
		{PrimaryColor: "#000000", Theme: "light"},
		{PrimaryColor: "#ffffff", Theme: "dark"},
		{LogoURL: "https://cdn.example.com/school/logo.png?v=2"},
		{LogoURL: "https://127.0.0.1:8443/logo.png"},
	} {
		if err := Check(a); err != nil {
			t.Errorf("Check(%+v) = %v", a, err)
		}
	}
}

func TestCheckRefuses(t *testing.T) {
	for _, tc := range []struct {
		a     storage.Appearance
		field string
		msg   string
	}{
		{storage.Appearance{PrimaryColor: "#ffcc00", Theme: "light"}, "primary_color",
			"primary_color #ffcc00 has a contrast of 1.4:1 against the light page (#f6f7f9); WCAG AA needs 4.5:1 for text: choose a darker colour"},
		{storage.Appearance{PrimaryColor: "#ffcc00"}, "primary_color", "against the light page (#f6f7f9)"},
		{storage.Appearance{PrimaryColor: "#FFCC00", Theme: "auto"}, "primary_color", "choose a darker colour"},
		// 4.54 on white, 4.24 on the page: the page is the worse surface and is named.
		{storage.Appearance{PrimaryColor: "#767676", Theme: "light"}, "primary_color", "contrast of 4.2:1 against the light page"},
		{storage.Appearance{PrimaryColor: "#1d4ed8", Theme: "dark"}, "primary_color",
			"primary_color #1d4ed8 has a contrast of 2.3:1 against the dark card (#202327); WCAG AA needs 4.5:1 for text: choose a lighter colour"},
		{storage.Appearance{PrimaryColor: "#fff", Theme: "light"}, "primary_color", `"#fff" is not a colour: want #rrggbb`},
		{storage.Appearance{PrimaryColor: "blue"}, "primary_color", "not a colour"},
		{storage.Appearance{Theme: "sepia"}, "theme", `theme "sepia" is not a theme: want light, dark or auto`},
		{storage.Appearance{Theme: "Dark"}, "theme", "not a theme"},
		{storage.Appearance{LogoURL: "http://cdn.example.com/logo.png"}, "logo_url", "not a URL"},
		{storage.Appearance{LogoURL: "/logo.png"}, "logo_url", "not a URL"},
		{storage.Appearance{LogoURL: "https://user:pw@cdn.example.com/logo.png"}, "logo_url", "not a URL"},
		{storage.Appearance{LogoURL: "https:///logo.png"}, "logo_url", "not a URL"},
		{storage.Appearance{LogoURL: "https://cdn.example.com/" + strings.Repeat("a", MaxLogoURL)}, "logo_url", "not a URL"},
	} {
		err := Check(tc.a)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("Check(%+v) = %v; want a refusal of %s saying %q", tc.a, err, tc.field, tc.msg)
		}
	}
}

// TestCheckBoundary: the rule is the ratio itself, not its printed form.
func TestCheckBoundary(t *testing.T) {
	// Greys around 4.5:1 on the light page: the darkest one refused and the lightest accepted
	// sit next to each other.
	lastRefused, firstAccepted := -1, -1
	for v := 255; v >= 0; v-- {
		c := Color{uint8(v), uint8(v), uint8(v)}
		err := Check(storage.Appearance{PrimaryColor: c.String(), Theme: "light"})
		_, r := worst(c, lightSurfaces)
		if (err == nil) != (r >= MinContrast) {
			t.Fatalf("%s: contrast %.3f, Check %v", c, r, err)
		}
		if err != nil {
			lastRefused = v
		} else if firstAccepted < 0 {
			firstAccepted = v
		}
	}
	if lastRefused != firstAccepted+1 {
		t.Errorf("refused down to %d, accepted from %d", lastRefused, firstAccepted)
	}
}
