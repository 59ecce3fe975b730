package operator

import "github.com/proctorhq/proctor/storage"

// Offer is what every kind the school sells shows (storage.Offer): courses, membership plans,
// digital products and events embed it, so that its fields read as their own and are
// described once in the document.
type Offer struct {
	Slug        string `json:"slug"`
	Title       string `json:"title"`
	Description string `json:"description"`
	PriceAmount int64  `json:"price_amount" doc:"Price in the currency's minor unit."`
	Currency    string `json:"currency" doc:"ISO 4217 code."`
}

func offerOut(o storage.Offer) Offer {
	return Offer{Slug: o.Slug, Title: o.Title, Description: o.Description, PriceAmount: o.PriceAmount, Currency: o.Currency}
}

// NewOffer is the part of an Offer a creation sets, with the same rules for every kind. Slugs
// are lower-case words joined by hyphens: they appear in the school's URLs.
type NewOffer struct {
	Slug        string `json:"slug" minLength:"1" maxLength:"100" pattern:"^[a-z0-9]+(-[a-z0-9]+)*$"`
	Title       string `json:"title" minLength:"1" maxLength:"200"`
	Description string `json:"description,omitempty" maxLength:"20000"`
	PriceAmount int64  `json:"price_amount" minimum:"0" maximum:"100000000000" doc:"Price in the currency's minor unit."`
	Currency    string `json:"currency" pattern:"^[A-Z]{3}$" doc:"ISO 4217 code."`
}

func (b NewOffer) offer() storage.Offer {
	return storage.Offer{Slug: b.Slug, Title: b.Title, Description: b.Description, PriceAmount: b.PriceAmount, Currency: b.Currency}
}
