package operator

import "github.com/proctorhq/proctor/storage"

// Offer is what every kind the school sells shows: courses, membership plans, digital products
// and events embed it, so that its fields read as their own and are described once in the
// document. Its fields are storage.Offer's, in the same order, so that one converts to the other
// (Offer(c.Offer)): a field added to storage.Offer fails the build here until it is added too.
type Offer struct {
	Slug        string `json:"slug"`
	Title       string `json:"title"`
	Description string `json:"description"`
	PriceAmount int64  `json:"price_amount" doc:"Price in the currency's minor unit."`
	Currency    string `json:"currency" doc:"ISO 4217 code."`
}

// NewOffer is the part of an Offer a creation sets, with the same rules for every kind. Slugs
// are lower-case words joined by hyphens: they appear in the school's URLs (storage.ValidSlug).
// Its fields are storage.Offer's too, in the same order (NewOffer.offer).
type NewOffer struct {
	Slug        Slug     `json:"slug"`
	Title       string   `json:"title" minLength:"1" maxLength:"200"`
	Description string   `json:"description,omitempty" maxLength:"20000"`
	PriceAmount int64    `json:"price_amount" minimum:"0" maximum:"100000000000" doc:"Price in the currency's minor unit."`
	Currency    Currency `json:"currency" doc:"ISO 4217 code."`
}

// offer is the storage.Offer a creation makes. Slug and Currency are not strings, so the
// conversion goes through a struct of storage.Offer's field types, filled in order: a field added
// to storage.Offer fails the build here until NewOffer has it too.
func (o NewOffer) offer() storage.Offer {
	return storage.Offer(struct {
		Slug, Title, Description string
		PriceAmount              int64
		Currency                 string
	}{string(o.Slug), o.Title, o.Description, o.PriceAmount, string(o.Currency)})
}
