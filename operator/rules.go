package operator

import (
	"github.com/danielgtaylor/huma/v2"

	"github.com/proctorhq/proctor/storage"
)

// Slug is a slug in a request body. Struct tags cannot name a constant, so its schema (and so
// the published document and the request validation) takes the pattern and length from
// storage, where seed files' validator reads them too: the two cannot drift.
type Slug string

// Schema is the slug's schema: storage.SlugPattern, at most storage.MaxSlugLen.
func (Slug) Schema(huma.Registry) *huma.Schema {
	minLen, maxLen := 1, storage.MaxSlugLen
	return &huma.Schema{Type: huma.TypeString, MinLength: &minLen, MaxLength: &maxLen, Pattern: storage.SlugPattern}
}

// Currency is an ISO 4217 code in a request body, held to storage.CurrencyPattern as Slug is to
// storage's slug rule.
type Currency string

// Schema is the currency's schema: storage.CurrencyPattern.
func (Currency) Schema(huma.Registry) *huma.Schema {
	return &huma.Schema{Type: huma.TypeString, Pattern: storage.CurrencyPattern}
}

// Locale is a BCP 47 language tag in a request body, held to storage.LocalePattern and
// storage.MaxLocaleLen as Slug is to storage's slug rule.
type Locale string

// Schema is the locale's schema: storage.LocalePattern, at most storage.MaxLocaleLen.
func (Locale) Schema(huma.Registry) *huma.Schema {
	maxLen := storage.MaxLocaleLen
	return &huma.Schema{Type: huma.TypeString, MaxLength: &maxLen, Pattern: storage.LocalePattern}
}
