package operator

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/proctorhq/proctor/storage"
)

// Event is an event of the school.
type Event struct {
	ID          int64     `json:"id"`
	Slug        string    `json:"slug"`
	Title       string    `json:"title"`
	Description string    `json:"description"`
	StartsAt    time.Time `json:"starts_at"`
	EndsAt      time.Time `json:"ends_at"`
	Location    string    `json:"location"`
	PriceAmount int64     `json:"price_amount"`
	Currency    string    `json:"currency"`
	Capacity    int       `json:"capacity" doc:"0: unlimited."`
	Published   bool      `json:"published"`
}

func eventOut(e storage.Event) Event {
	return Event{
		ID: e.ID, Slug: e.Slug, Title: e.Title, Description: e.Description, StartsAt: e.StartsAt, EndsAt: e.EndsAt,
		Location: e.Location, PriceAmount: e.PriceAmount, Currency: e.Currency, Capacity: e.Capacity, Published: e.Published,
	}
}

// NewEvent creates an event.
type NewEvent struct {
	Slug        string    `json:"slug" minLength:"1" maxLength:"100" pattern:"^[a-z0-9]+(-[a-z0-9]+)*$"`
	Title       string    `json:"title" minLength:"1" maxLength:"200"`
	Description string    `json:"description,omitempty" maxLength:"20000"`
	StartsAt    time.Time `json:"starts_at"`
	EndsAt      time.Time `json:"ends_at"`
	Location    string    `json:"location,omitempty" maxLength:"500"`
	PriceAmount int64     `json:"price_amount" minimum:"0" maximum:"100000000000"`
	Currency    string    `json:"currency" pattern:"^[A-Z]{3}$"`
	Capacity    int       `json:"capacity,omitempty" minimum:"0" maximum:"1000000" doc:"0: unlimited."`
	Published   bool      `json:"published,omitempty"`
}

// Registration is a member's registration for an event.
type Registration struct {
	ID           int64     `json:"id"`
	EventID      int64     `json:"event_id"`
	Member       MemberRef `json:"member"`
	Status       string    `json:"status"`
	RegisteredAt time.Time `json:"registered_at"`
}

func (h *Handler) registerEvents(api huma.API) {
	const tag = "Events"
	registerList(h, api, operation{
		ID: "list-events", Method: http.MethodGet, Path: "/events", Scope: "events:read", Tag: tag,
		Summary: "List events", Description: "Every event of the school, by id.",
	}, "event", func(ctx context.Context, p storage.Page) ([]storage.Event, string, error) {
		return h.store.ListEvents(ctx, p)
	}, eventOut)

	registerCreate(h, api, operation{
		ID: "create-event", Method: http.MethodPost, Path: "/events", Scope: "events:write", Tag: tag,
		Summary: "Create an event", Status: http.StatusCreated,
	}, "event", func(ctx context.Context, b NewEvent) (storage.Event, error) {
		if !b.EndsAt.After(b.StartsAt) {
			return storage.Event{}, invalid("body.ends_at", "an event ends after it starts", b.EndsAt)
		}
		return h.store.CreateEvent(ctx, storage.Event{
			Offer:    storage.Offer{Slug: b.Slug, Title: b.Title, Description: b.Description, PriceAmount: b.PriceAmount, Currency: b.Currency},
			StartsAt: b.StartsAt, EndsAt: b.EndsAt,
			Location: b.Location, Capacity: b.Capacity, Published: b.Published,
		})
	}, eventOut)

	register(h, api, operation{
		ID: "list-event-registrations", Method: http.MethodGet, Path: "/events/{event_id}/registrations", Scope: "events:read", Tag: tag,
		Summary: "List an event's registrations", Description: "Oldest registration first.",
	}, func(ctx context.Context, in *struct {
		EventID int64 `path:"event_id" minimum:"1"`
		PageParams
	}) (*ListOutput[Registration], error) {
		rs, next, err := h.store.ListEventRegistrants(ctx, in.EventID, in.page())
		return pageOf(ctx, h, "event", rs, next, err, func(r storage.EventRegistrant) Registration {
			return Registration{ID: r.ID, EventID: r.EventID, Member: memberRef(r.Member), Status: r.Status, RegisteredAt: r.RegisteredAt}
		})
	})
}
