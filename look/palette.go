package look

import (
	"fmt"

	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/storage"
)

// Palette is what a school's colour becomes on its pages, each field "#rrggbb". Brand is the
// colour on the light surfaces and OnBrand the text on a Brand button; BrandDark and OnBrandDark
// are the same on the dark surfaces. The zero Palette (an appearance without a colour, or with
// one that is not #rrggbb) is no brand: the stylesheet's defaults apply.
type Palette struct {
	Brand, OnBrand         string
	BrandDark, OnBrandDark string
}

// PaletteOf makes the palette of an appearance. Every colour of it reads: Brand reaches
// MinContrast on both light surfaces, BrandDark on both dark ones, and each On colour on its
// brand colour. A colour that meets Check is kept as it is on the side its theme judged it on;
// the other side, and any side of a colour stored before the rule, is moved in small steps
// towards black (light side) or white (dark side) until it reads. That is how theme auto gets
// its dark side from a colour chosen for light pages.
func PaletteOf(a storage.Appearance) Palette {
	c, err := ParseColor(a.PrimaryColor)
	if err != nil {
		return Palette{}
	}
	light := adjust(c, black, lightSurfaces)
	dark := adjust(c, White, darkSurfaces)
	return Palette{
		Brand: light.String(), OnBrand: textOn(light).String(),
		BrandDark: dark.String(), OnBrandDark: textOn(dark).String(),
	}
}

// IsZero reports no brand.
func (p Palette) IsZero() bool { return p == Palette{} }

// CSS is the school's stylesheet: the palette as the custom properties the base stylesheet
// reads (--brand, --on-brand, --brand-dark, --on-brand-dark). Nil for no brand. The base
// stylesheet decides which pair a theme uses; this file only names the colours, so it is the
// same bytes for the same palette on every replica.
func CSS(p Palette) []byte {
	if p.IsZero() {
		return nil
	}
	return fmt.Appendf(nil, ":root{--brand:%s;--on-brand:%s;--brand-dark:%s;--on-brand-dark:%s}\n",
		p.Brand, p.OnBrand, p.BrandDark, p.OnBrandDark)
}

// StylesheetPath is the path of CSS(p), named by a hash of its bytes: a changed appearance is
// a new URL, which every replica derives alike, so the stylesheet may be cached for good. ""
// for no brand.
func StylesheetPath(p Palette) string {
	css := CSS(p)
	if css == nil {
		return ""
	}
	return endpoint.Assets + endpoint.AssetName("look-", css, ".css")
}
