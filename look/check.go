package look

import (
	"fmt"
	"math"
	"net/url"
	"strings"

	"github.com/proctorhq/proctor/storage"
)

// The themes of a school's pages. An empty theme is ThemeAuto.
const (
	ThemeLight = "light"
	ThemeDark  = "dark"
	// ThemeAuto follows the member's system setting (prefers-color-scheme).
	ThemeAuto = "auto"
)

// MaxLogoURL bounds logo_url, as the operator API's schema does.
const MaxLogoURL = 2000

// FieldError is a refusal of Check. Field is the appearance field as the operator API and seed
// files spell it (primary_color, logo_url, theme); Reason says why in words an operator acts on.
type FieldError struct {
	Field  string
	Value  string
	Reason string
}

// Error is the field and the reason: "primary_color #ffcc00 has a contrast of ...".
func (e *FieldError) Error() string { return e.Field + " " + e.Reason }

// Check is the rule an appearance must meet when an operator sets it (the operator API, seed
// files). The primary colour is text, link and focus-ring colour on the stylesheet's surfaces,
// so it must reach MinContrast on both surfaces of the theme the school chose: the light ones
// for light and auto (auto's dark side is made by Palette, lightening the colour), the dark
// ones for dark. An empty colour is accepted: the stylesheet's own colours apply. The first
// problem found is returned as a *FieldError.
//
// Data stored before the rule may fail it; Palette adjusts such a colour when pages are drawn
// rather than refusing to draw them.
func Check(a storage.Appearance) error {
	theme, ok := themeOf(a.Theme)
	if !ok {
		return &FieldError{Field: "theme", Value: a.Theme, Reason: fmt.Sprintf("%q is not a theme: want light, dark or auto", a.Theme)}
	}
	if a.PrimaryColor != "" {
		c, err := ParseColor(a.PrimaryColor)
		if err != nil {
			return &FieldError{Field: "primary_color", Value: a.PrimaryColor, Reason: fmt.Sprintf("%q is %v", a.PrimaryColor, err)}
		}
		on, advice := lightSurfaces, "choose a darker colour"
		if theme == ThemeDark {
			on, advice = darkSurfaces, "choose a lighter colour"
		}
		if s, r := worst(c, on); r < MinContrast {
			return &FieldError{Field: "primary_color", Value: a.PrimaryColor, Reason: fmt.Sprintf(
				"%s has a contrast of %s:1 against %s (%s); WCAG AA needs %.1f:1 for text: %s",
				c, ratio(r), s.name, s.color, MinContrast, advice)}
		}
	}
	if a.LogoURL != "" && !logoURLOK(a.LogoURL) {
		return &FieldError{Field: "logo_url", Value: a.LogoURL, Reason: fmt.Sprintf("%q is not a URL Proctor fetches a logo from: want https://host/path, at most %d characters", a.LogoURL, MaxLogoURL)}
	}
	return nil
}

// ratio prints a contrast cut (not rounded) to one decimal, so that a refused 4.47 reads 4.4
// and never as the 4.5 it failed to reach.
func ratio(r float64) string {
	return fmt.Sprintf("%.1f", math.Floor(r*10)/10)
}

// themeOf is the theme an appearance's stored value means; false for a value that is none.
func themeOf(t string) (string, bool) {
	switch t {
	case "", ThemeAuto:
		return ThemeAuto, true
	case ThemeLight, ThemeDark:
		return t, true
	}
	return ThemeAuto, false
}

// logoURLOK accepts an absolute https URL with a host and no credentials or fragment.
func logoURLOK(s string) bool {
	if len(s) > MaxLogoURL || strings.ContainsAny(s, " \t\r\n") {
		return false
	}
	u, err := url.Parse(s)
	return err == nil && u.Scheme == "https" && u.Host != "" && u.Hostname() != "" && u.User == nil && u.Fragment == ""
}
