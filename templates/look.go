package templates

import (
	"context"

	"github.com/proctorhq/proctor/i18n"
)

// Look is how a request's pages look beyond their words: the school's theme, stylesheet and
// logo, and the languages the member may switch to. Package server builds it per request.
type Look struct {
	// Theme is "light", "dark" or "auto" (following the browser's prefers-color-scheme).
	Theme string
	// StylesheetPath is the school's own stylesheet (its colours), loaded after the base one;
	// "" when the school has none.
	StylesheetPath string
	// LogoPath is the school's logo on its own origin; "" shows the school's name instead.
	LogoPath string
	// Languages are the switcher's links, one per language.
	Languages []LanguageLink
	// Color is the school's primary colour on a light background ("#rrggbb", "" for none) and
	// LogoURL its logo's absolute URL ("" for none): what an e-mail, which links no
	// stylesheet and is read away from the school's origin, shows of the look.
	Color   string
	LogoURL string
}

// LanguageLink is one entry of the language switcher.
type LanguageLink struct {
	Tag  string // BCP 47, for the link's lang and hreflang
	Name string // the language's name in itself
	URL  string // sets the member's choice and comes back to the page
	// Current marks the language the page is in.
	Current bool
}

// page is what the layout executes with: the request's look and language around the data of
// the page, which the page's own templates receive unchanged.
type page struct {
	Look Look
	Lang string
	Data any
}

// sampleLook is the look New checks every page with: every optional part present.
var sampleLook = Look{Theme: "dark", StylesheetPath: "/assets/look-x.css", LogoPath: "/assets/logo-x",
	Color: "#1d4ed8", LogoURL: "https://s.example/assets/logo-x",
	Languages: []LanguageLink{{Tag: "en", Name: "English", URL: "/language?lang=en", Current: true}, {Tag: "ja", Name: "日本語", URL: "/language?lang=ja"}}}

type lookKey struct{}

// NewLookContext returns a copy of ctx carrying look, which is called when a page is rendered:
// building a look reads the school's appearance, which only pages need.
func NewLookContext(ctx context.Context, look func() Look) context.Context {
	return context.WithValue(ctx, lookKey{}, look)
}

// LookFromContext returns the look ctx carries; a context without one gives the plain look
// (automatic theme, no logo, no switcher).
func LookFromContext(ctx context.Context) Look {
	if f, ok := ctx.Value(lookKey{}).(func() Look); ok && f != nil {
		return f()
	}
	return Look{Theme: "auto"}
}

// Catalog is the message catalogue the pages are written from.
func (s *Set) Catalog() *i18n.Catalog { return s.catalog }
