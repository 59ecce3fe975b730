package look

import (
	"math"
	"strings"
	"testing"
)

func TestParseColor(t *testing.T) {
	for s, want := range map[string]Color{
		"#000000": {},
		"#ffffff": {255, 255, 255},
		"#1D4ed8": {0x1d, 0x4e, 0xd8},
		"#0a0B0c": {10, 11, 12},
	} {
		got, err := ParseColor(s)
		if err != nil || got != want {
			t.Errorf("ParseColor(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"", "#", "#fff", "#ffff", "ffffff", "#fffffff", "#gggggg", "#12345z", "blue", " #ffffff", "#ffffff ", "rgb(0,0,0)", "#-12345", "#+12345", "#１２３４５"} {
		if c, err := ParseColor(s); err == nil {
			t.Errorf("ParseColor(%q) = %v, want an error", s, c)
		}
	}
}

func TestColorString(t *testing.T) {
	if got := (Color{0x1d, 0x4e, 0xd8}).String(); got != "#1d4ed8" {
		t.Errorf("String = %q", got)
	}
}

// TestContrast: the WCAG 2.x formula against pairs whose ratios are published (the WebAIM
// checker's and WCAG's own examples).
func TestContrast(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want float64
	}{
		{"#000000", "#ffffff", 21},
		{"#ffffff", "#000000", 21},
		{"#ffffff", "#ffffff", 1},
		{"#767676", "#ffffff", 4.54},
		{"#777777", "#ffffff", 4.48},
		{"#0000ff", "#ffffff", 8.59},
		{"#ff0000", "#ffffff", 4.00},
		{"#008000", "#ffffff", 5.14},
		{"#595959", "#ffffff", 7.00},
	} {
		a, _ := ParseColor(tc.a)
		b, _ := ParseColor(tc.b)
		if got := Contrast(a, b); math.Abs(got-tc.want) > 0.005 {
			t.Errorf("Contrast(%s, %s) = %.3f, want %.2f", tc.a, tc.b, got, tc.want)
		}
	}
	if l := White.Luminance(); l != 1 {
		t.Errorf("white's luminance %v", l)
	}
	if l := (Color{}).Luminance(); l != 0 {
		t.Errorf("black's luminance %v", l)
	}
}

// FuzzParseColor: ParseColor accepts exactly the seven-character #rrggbb form, and what it
// accepts prints back as its lower-case self.
func FuzzParseColor(f *testing.F) {
	for _, s := range []string{"#1d4ed8", "#FFFFFF", "#fff", "blue", "", "#12345g", "#ab\x00def"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseColor(s)
		if err != nil {
			return
		}
		if len(s) != 7 || c.String() != strings.ToLower(s) {
			t.Fatalf("ParseColor(%q) = %v", s, c)
		}
		if again, err := ParseColor(c.String()); err != nil || again != c {
			t.Fatalf("%v does not parse back: %v %v", c, again, err)
		}
	})
}
