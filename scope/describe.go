package scope

import (
	"strings"

	"github.com/proctorhq/proctor/i18n"
)

// Key is the catalogue message that describes scope name to a member (i18n/catalog/scope.*):
// "scope." and the name with every character other than a-z, 0-9 and "_" made "_", since
// message keys hold no ':' and '.' separates their parts ("account:read" is
// "scope.account_read").
func Key(name string) string {
	return "scope." + strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' {
			return r
		}
		return '_'
	}, strings.ToLower(name))
}

// Describe is what a page shows for scope name in loc's language: the catalogue's sentence for
// a scope of the catalogue, the name itself for any other (a page must still show what was
// asked). Description stays the English text for what is not a page (API documentation).
func Describe(loc *i18n.Localizer, name string) string {
	if _, ok := Lookup(name); !ok {
		return name
	}
	d, err := loc.T(Key(name))
	if err != nil {
		return name
	}
	return d
}
