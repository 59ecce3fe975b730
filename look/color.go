package look

import (
	"errors"
	"fmt"
	"math"
)

// Color is an sRGB colour of 8 bits a channel.
type Color struct{ R, G, B uint8 }

// The surfaces of the base stylesheet (templates/static/proctor.css) that a brand colour is
// drawn on: the page background and the card on it, in each theme. The stylesheet fixes them,
// so a school's colour is judged against these four.
var (
	LightPage = Color{0xf6, 0xf7, 0xf9}
	LightCard = Color{0xff, 0xff, 0xff}
	DarkPage  = Color{0x16, 0x18, 0x1b}
	DarkCard  = Color{0x20, 0x23, 0x27}
)

// Text colours on a brand-coloured button: white, or the dark page's near-black.
var (
	White     = Color{0xff, 0xff, 0xff}
	NearBlack = DarkPage
	black     = Color{}
)

// MinContrast is WCAG 2.x success criterion 1.4.3 (level AA) for text of normal size; the
// brand colour is link text, so the stricter of AA's two text thresholds applies.
const MinContrast = 4.5

// errNotColor is ParseColor's refusal.
var errNotColor = errors.New("not a colour: want #rrggbb")

// ParseColor reads "#rrggbb" (either case). Nothing else is accepted: not the three-digit
// form, names or functions, so that what is stored is what the stylesheet gets.
func ParseColor(s string) (Color, error) {
	if len(s) != 7 || s[0] != '#' {
		return Color{}, errNotColor
	}
	var b [3]uint8
	for i := range b {
		hi, ok1 := hexDigit(s[1+2*i])
		lo, ok2 := hexDigit(s[2+2*i])
		if !ok1 || !ok2 {
			return Color{}, errNotColor
		}
		b[i] = hi<<4 | lo
	}
	return Color{b[0], b[1], b[2]}, nil
}

func hexDigit(c byte) (uint8, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// String is the colour as "#rrggbb", lower case.
func (c Color) String() string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

// Luminance is the WCAG 2.x relative luminance: 0 for black, 1 for white.
func (c Color) Luminance() float64 {
	return 0.2126*linear(c.R) + 0.7152*linear(c.G) + 0.0722*linear(c.B)
}

// linear undoes the sRGB transfer function of one channel. 0.04045 is the threshold of the
// sRGB standard; WCAG 2.x's text says 0.03928, from an older draft, which gives the same
// result for every 8-bit value.
func linear(v uint8) float64 {
	c := float64(v) / 255
	if c <= 0.04045 {
		return c / 12.92
	}
	return math.Pow((c+0.055)/1.055, 2.4)
}

// Contrast is the WCAG 2.x contrast ratio of two colours, from 1 (none) to 21 (black on white),
// whichever of the two is lighter.
func Contrast(a, b Color) float64 {
	la, lb := a.Luminance(), b.Luminance()
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// mix is c moved the fraction t (0..1) of the way towards to, channel by channel.
func mix(c, to Color, t float64) Color {
	ch := func(a, b uint8) uint8 {
		return uint8(math.Round(float64(a) + (float64(b)-float64(a))*t))
	}
	return Color{ch(c.R, to.R), ch(c.G, to.G), ch(c.B, to.B)}
}

// surface is one background the brand colour is drawn on, named for messages.
type surface struct {
	name  string
	color Color
}

var (
	lightSurfaces = []surface{{"the light page", LightPage}, {"the light card", LightCard}}
	darkSurfaces  = []surface{{"the dark page", DarkPage}, {"the dark card", DarkCard}}
)

// worst is the surface on which c has the least contrast, and that contrast.
func worst(c Color, on []surface) (surface, float64) {
	var ws surface
	wc := math.Inf(1)
	for _, s := range on {
		if r := Contrast(c, s.color); r < wc {
			ws, wc = s, r
		}
	}
	return ws, wc
}

// adjustSteps is how finely a failing colour is moved towards black or white: in steps of
// 1/adjustSteps of the way, so the result is the first step that reads, not far past it.
const adjustSteps = 100

// adjust moves c towards to (black to darken, white to lighten) in small steps until it reaches
// MinContrast on every one of the surfaces. Black reaches it on the light surfaces and white on
// the dark ones, so it always ends.
func adjust(c, to Color, on []surface) Color {
	for i := 0; i <= adjustSteps; i++ {
		m := mix(c, to, float64(i)/adjustSteps)
		if _, r := worst(m, on); r >= MinContrast {
			return m
		}
	}
	return to
}

// textOn is the text colour of a button of colour bg: white or near-black, whichever contrasts
// more. For every colour one of the two reaches MinContrast when the colour itself reads on the
// surfaces of its theme (a colour that reads on the light surfaces is dark enough for white, one
// that reads on the dark surfaces light enough for near-black); black is the fallback that
// holds for any colour at all.
func textOn(bg Color) Color {
	w, n := Contrast(White, bg), Contrast(NearBlack, bg)
	switch {
	case w >= n && w >= MinContrast:
		return White
	case n > w && n >= MinContrast:
		return NearBlack
	}
	if Contrast(black, bg) > w {
		return black
	}
	return White
}
