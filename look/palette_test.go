package look

import (
	"regexp"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/storage"
)

// reads fails t unless every colour of p reads where it is drawn.
func reads(t *testing.T, what string, p Palette) {
	t.Helper()
	c := func(s string) Color {
		t.Helper()
		c, err := ParseColor(s)
		if err != nil {
			t.Fatalf("%s: palette colour %q: %v", what, s, err)
		}
		return c
	}
	brand, onBrand, dark, onDark := c(p.Brand), c(p.OnBrand), c(p.BrandDark), c(p.OnBrandDark)
	for _, s := range lightSurfaces {
		if r := Contrast(brand, s.color); r < MinContrast {
			t.Errorf("%s: brand %s on %s: %.2f", what, brand, s.name, r)
		}
	}
	for _, s := range darkSurfaces {
		if r := Contrast(dark, s.color); r < MinContrast {
			t.Errorf("%s: dark brand %s on %s: %.2f", what, dark, s.name, r)
		}
	}
	if r := Contrast(onBrand, brand); r < MinContrast {
		t.Errorf("%s: %s on the %s button: %.2f", what, onBrand, brand, r)
	}
	if r := Contrast(onDark, dark); r < MinContrast {
		t.Errorf("%s: %s on the dark %s button: %.2f", what, onDark, dark, r)
	}
	for _, pair := range [][2]Color{{onBrand, brand}, {onDark, dark}} {
		if pair[0] != White && pair[0] != NearBlack {
			t.Errorf("%s: button text %s is neither white nor near-black", what, pair[0])
		} else if other := map[Color]Color{White: NearBlack, NearBlack: White}[pair[0]]; Contrast(other, pair[1]) > Contrast(pair[0], pair[1]) {
			t.Errorf("%s: button text %s on %s, but %s contrasts more", what, pair[0], pair[1], other)
		}
	}
}

func TestPalette(t *testing.T) {
	for _, tc := range []struct {
		a    storage.Appearance
		want Palette
	}{
		// Passes on light: kept there; lightened for the dark side.
		{storage.Appearance{PrimaryColor: "#1d4ed8", Theme: "light"}, Palette{"#1d4ed8", "#ffffff", "#6385e4", "#16181b"}},
		{storage.Appearance{PrimaryColor: "#1D4ED8", Theme: "auto"}, Palette{"#1d4ed8", "#ffffff", "#6385e4", "#16181b"}},
		// Passes on dark: kept there; darkened for the light side.
		{storage.Appearance{PrimaryColor: "#fb923c", Theme: "dark"}, Palette{"#a66028", "#ffffff", "#fb923c", "#16181b"}},
		// Stored before the rule, failing its own theme: adjusted on both sides.
		{storage.Appearance{PrimaryColor: "#ffcc00", Theme: "light"}, Palette{"#8a6e00", "#ffffff", "#ffcc00", "#16181b"}},
		{storage.Appearance{PrimaryColor: "#767676", Theme: "light"}, Palette{"#717171", "#ffffff", "#898989", "#16181b"}},
		// The extremes.
		{storage.Appearance{PrimaryColor: "#000000"}, Palette{"#000000", "#ffffff", "#8a8a8a", "#16181b"}},
		{storage.Appearance{PrimaryColor: "#ffffff"}, Palette{"#707070", "#ffffff", "#ffffff", "#16181b"}},
		// No brand.
		{storage.Appearance{}, Palette{}},
		{storage.Appearance{PrimaryColor: "#fff"}, Palette{}},
		{storage.Appearance{PrimaryColor: "blue", Theme: "dark"}, Palette{}},
	} {
		got := PaletteOf(tc.a)
		if got != tc.want {
			t.Errorf("PaletteOf(%+v) = %+v, want %+v", tc.a, got, tc.want)
		}
		if !got.IsZero() {
			reads(t, tc.a.PrimaryColor, got)
		}
	}
}

// TestPaletteEveryColour: over a grid of the whole sRGB cube, every palette reads, and a
// colour that Check accepts is kept as it is on its theme's side.
func TestPaletteEveryColour(t *testing.T) {
	const step = 15 // 18 values a channel, 0 and 255 included
	n := 0
	for r := 0; r <= 255; r += step {
		for g := 0; g <= 255; g += step {
			for b := 0; b <= 255; b += step {
				c := Color{uint8(r), uint8(g), uint8(b)}
				p := PaletteOf(storage.Appearance{PrimaryColor: c.String()})
				reads(t, c.String(), p)
				if Check(storage.Appearance{PrimaryColor: c.String(), Theme: "light"}) == nil && p.Brand != c.String() {
					t.Errorf("%s passes on light but became %s", c, p.Brand)
				}
				if Check(storage.Appearance{PrimaryColor: c.String(), Theme: "dark"}) == nil && p.BrandDark != c.String() {
					t.Errorf("%s passes on dark but became %s", c, p.BrandDark)
				}
				n++
			}
		}
	}
	if n != 18*18*18 {
		t.Fatalf("%d colours", n)
	}
}

func TestCSS(t *testing.T) {
	p := PaletteOf(storage.Appearance{PrimaryColor: "#1d4ed8"})
	want := ":root{--brand:#1d4ed8;--on-brand:#ffffff;--brand-dark:#6385e4;--on-brand-dark:#16181b}\n"
	if got := string(CSS(p)); got != want {
		t.Errorf("CSS = %q, want %q", got, want)
	}
	path := StylesheetPath(p)
	if !regexp.MustCompile(`^/assets/look-[0-9a-f]{16}\.css$`).MatchString(path) {
		t.Errorf("path %q", path)
	}
	if again := StylesheetPath(PaletteOf(storage.Appearance{PrimaryColor: "#1D4ED8", Theme: "light"})); again != path {
		t.Errorf("the same palette has two paths: %q %q", path, again)
	}
	if other := StylesheetPath(PaletteOf(storage.Appearance{PrimaryColor: "#1d4ed9"})); other == path {
		t.Error("two palettes share a path")
	}
	if CSS(Palette{}) != nil || StylesheetPath(Palette{}) != "" {
		t.Error("no brand made a stylesheet")
	}
	// The stylesheet holds nothing a stored value could inject: only the palette's colours.
	if strings.ContainsAny(strings.TrimPrefix(string(CSS(p)), ":root{"), "<>\"'\\@") {
		t.Errorf("CSS %q", CSS(p))
	}
}
