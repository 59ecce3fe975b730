package gormstore

import (
	"context"
	"fmt"
	"time"

	"github.com/proctorhq/proctor/storage"
)

func eventFromRow(r eventRow) storage.Event {
	return storage.Event{
		ID: r.ID, Offer: r.Offer, StartsAt: utc(r.StartsAt), EndsAt: utc(r.EndsAt), Location: r.Location,
		Capacity: r.Capacity, Published: r.Published,
	}
}

// ListEvents pages through the school's events by id.
func (s *Store) ListEvents(ctx context.Context, page storage.Page) ([]storage.Event, string, error) {
	return listByID(s, ctx, "list events", page, nil, func(r eventRow) int64 { return r.ID }, eventFromRow)
}

// CreateEvent stores a new event.
func (s *Store) CreateEvent(ctx context.Context, e storage.Event) (storage.Event, error) {
	op := fmt.Sprintf("create event %q", e.Slug)
	return createRow(s, ctx, op, "slug", e.Slug, nil, func(schoolID int64) eventRow {
		return eventRow{
			SchoolID: schoolID, Offer: e.Offer, StartsAt: dbTime(e.StartsAt), EndsAt: dbTime(e.EndsAt),
			Location: e.Location, Capacity: e.Capacity, Published: e.Published,
		}
	}, eventFromRow)
}

// eventRegistrantRow is one row of the registrations-members join.
type eventRegistrantRow struct {
	ID           int64
	EventID      int64
	MemberID     int64
	Status       string
	RegisteredAt time.Time
	Member       joinedMember `gorm:"embedded"`
}

// ListEventRegistrants pages through an event's registrations, oldest first, in one statement
// after the event's own lookup.
func (s *Store) ListEventRegistrants(ctx context.Context, eventID int64, page storage.Page) ([]storage.EventRegistrant, string, error) {
	op := fmt.Sprintf("list registrations of event %d", eventID)
	sc, db, err := s.readUnder(ctx, op, &eventRow{}, eventID)
	if err != nil {
		return nil, "", err
	}
	q := db.Table("event_registrations AS r").
		Select("r.id, r.event_id, r.member_id, r.status, r.registered_at, "+joinedMemberColumns).
		Joins("JOIN members AS m ON m.id = r.member_id").
		Where("r.school_id = ? AND r.event_id = ?", sc.schoolID, eventID)
	rows, next, err := readTimeIDPage(q, "r.registered_at", "r.id", false, page, op, func(r eventRegistrantRow) (time.Time, int64) { return r.RegisteredAt, r.ID })
	if err != nil {
		return nil, "", err
	}
	return convertRows(rows, func(r eventRegistrantRow) storage.EventRegistrant {
		return storage.EventRegistrant{
			ID: r.ID, EventID: r.EventID, Status: r.Status, RegisteredAt: utc(r.RegisteredAt),
			Member: r.Member.member(r.MemberID),
		}
	}), next, nil
}
