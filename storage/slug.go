package storage

import "regexp"

// Slugs and currency codes are checked by seed files and the operator REST API alike; the
// rules are stated here once so that what one entry point accepts the other does too (a slug
// that could be seeded but not set through the API was the drift this prevents).

// SlugPattern is the shape of a slug: lower-case letters and digits in words joined by single
// hyphens, as slugs appear in the school's URLs. No underscores, no leading, trailing or doubled
// hyphen (docs/decisions.md, "Slugs"). The operator API's schema publishes it as is.
const SlugPattern = `^[a-z0-9]+(-[a-z0-9]+)*$`

// MaxSlugLen is the longest slug, in bytes (a valid slug is ASCII).
const MaxSlugLen = 100

// CurrencyPattern is the shape of a currency: an ISO 4217 code in capitals (USD, JPY).
const CurrencyPattern = `^[A-Z]{3}$`

var (
	slugRe     = regexp.MustCompile(SlugPattern)
	currencyRe = regexp.MustCompile(CurrencyPattern)
)

// ValidSlug reports whether s is a slug: SlugPattern, at most MaxSlugLen.
func ValidSlug(s string) bool { return len(s) <= MaxSlugLen && slugRe.MatchString(s) }

// ValidCurrency reports whether s is a currency code: CurrencyPattern.
func ValidCurrency(s string) bool { return currencyRe.MatchString(s) }
