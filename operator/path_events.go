package operator

import (
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/proctorhq/proctor/storage"
)

// Event is an event of the school.
type Event struct {
	ID int64 `json:"id"`
	Offer
	StartsAt  time.Time `json:"starts_at"`
	EndsAt    time.Time `json:"ends_at"`
	Location  string    `json:"location"`
	Capacity  int       `json:"capacity" doc:"0: unlimited."`
	Published bool      `json:"published"`
}

func eventOut(e storage.Event) Event {
	return Event{
		ID: e.ID, Offer: Offer(e.Offer), StartsAt: e.StartsAt, EndsAt: e.EndsAt,
		Location: e.Location, Capacity: e.Capacity, Published: e.Published,
	}
}

// NewEvent creates an event.
type NewEvent struct {
	NewOffer
	StartsAt  time.Time `json:"starts_at"`
	EndsAt    time.Time `json:"ends_at"`
	Location  string    `json:"location,omitempty" maxLength:"500"`
	Capacity  int       `json:"capacity,omitempty" minimum:"0" maximum:"1000000" doc:"0: unlimited."`
	Published bool      `json:"published,omitempty"`
}

// row refuses an event that ends before it starts, which the schema cannot compare.
func (b NewEvent) row() (storage.Event, error) {
	if !b.EndsAt.After(b.StartsAt) {
		return storage.Event{}, invalid("body.ends_at", "an event ends after it starts", b.EndsAt)
	}
	return storage.Event{
		Offer: b.offer(), StartsAt: b.StartsAt, EndsAt: b.EndsAt,
		Location: b.Location, Capacity: b.Capacity, Published: b.Published,
	}, nil
}

// Registration is a member's registration for an event.
type Registration struct {
	ID           int64     `json:"id"`
	EventID      int64     `json:"event_id"`
	Member       MemberRef `json:"member"`
	Status       string    `json:"status"`
	RegisteredAt time.Time `json:"registered_at"`
}

func registrationOut(r storage.EventRegistrant) Registration {
	return Registration{ID: r.ID, EventID: r.EventID, Member: memberRef(r.Member), Status: r.Status, RegisteredAt: r.RegisteredAt}
}

// EventPath names an event in an operation's path.
type EventPath struct {
	EventID int64 `path:"event_id" minimum:"1"`
}

func (p EventPath) parentID() int64 { return p.EventID }

func (h *Handler) registerEvents(api huma.API) {
	registerList(h, api, "list-events", "event", stores.ListEvents, eventOut)
	registerCreate(h, api, "create-event", "event", NewEvent.row, stores.CreateEvent, eventOut)

	registerListOf[struct {
		EventPath
		PageParams
	}](h, api, "list-event-registrations", "event", stores.ListEventRegistrants, registrationOut)
}
