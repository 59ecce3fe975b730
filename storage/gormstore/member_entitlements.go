package gormstore

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/proctorhq/proctor/storage"
)

// heldProductRow is one row of the holdings-products join: the product's columns are selected
// as product_<column>.
type heldProductRow struct {
	HoldingID int64
	GrantedAt time.Time
	Product   digitalProductRow `gorm:"embedded;embeddedPrefix:product_"`
}

// ListHeldProducts pages through the digital products a member holds, in one statement.
func (s *Store) ListHeldProducts(ctx context.Context, memberID int64, page storage.Page) ([]storage.HeldProduct, string, error) {
	return listMemberJoin(s, ctx, memberID, page, fmt.Sprintf("list held products of member %d", memberID), memberJoin[heldProductRow, storage.HeldProduct]{
		table: "product_holdings", alias: "h",
		columns: "h.id AS holding_id, h.granted_at, " +
			embeddedColumns("p", "product_", "id", "slug", "title", "description", "price_amount", "currency", "published"),
		join: "JOIN digital_products AS p ON p.school_id = h.school_id AND p.id = h.product_id",
		at:   "granted_at",
		key:  func(r heldProductRow) (time.Time, int64) { return r.GrantedAt, r.HoldingID },
		convert: func(r heldProductRow) storage.HeldProduct {
			return storage.HeldProduct{HoldingID: r.HoldingID, GrantedAt: utc(r.GrantedAt), Product: digitalProductFromRow(r.Product)}
		},
	})
}

// ListOfferedConsultingServices pages through the services offered against the courses a member
// has access to, in one statement.
func (s *Store) ListOfferedConsultingServices(ctx context.Context, memberID int64, at time.Time, page storage.Page) ([]storage.ConsultingService, string, error) {
	p, err := s.startIDPage(ctx, page)
	if err != nil {
		return nil, "", err
	}
	db := s.conn(ctx)
	// A service offered against two of the member's courses is one service: the subquery makes
	// the list distinct without a DISTINCT over every column.
	offered := db.Table("consulting_service_courses AS o").
		Select("o.service_id").
		Joins("JOIN enrollments AS e ON e.school_id = o.school_id AND e.course_id = o.course_id").
		Where("o.school_id = ? AND e.member_id = ?", p.sc.schoolID, memberID).
		Where("(e.lifetime_access OR e.expire_date IS NULL OR e.expire_date > ?)", dbTime(at))
	q := p.sc.in(db).Where("id IN (?) AND id > ?", offered, p.after)
	op := fmt.Sprintf("list consulting services offered to member %d", memberID)
	rows, next, err := findIDPage(q, p, op, func(r consultingServiceRow) int64 { return r.ID })
	if err != nil {
		return nil, "", err
	}
	return convertRows(rows, func(r consultingServiceRow) storage.ConsultingService {
		return storage.ConsultingService{ID: r.ID, Offer: r.Offer, DurationMinutes: r.DurationMinutes}
	}), next, nil
}

// GetConsultingSchedules returns the slots and the meetings still to end of several services,
// in two statements. The meetings' member column is never read.
func (s *Store) GetConsultingSchedules(ctx context.Context, serviceIDs []int64, from time.Time) ([]storage.ConsultingSlot, []storage.ConsultingMeeting, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return nil, nil, err
	}
	if len(serviceIDs) == 0 {
		return []storage.ConsultingSlot{}, []storage.ConsultingMeeting{}, nil
	}
	const op = "get consulting schedules"
	db := s.conn(ctx)
	var slots []consultingSlotRow
	if err := sc.in(db).Where("service_id IN ?", serviceIDs).Order("service_id, weekday, start_time").Find(&slots).Error; err != nil {
		return nil, nil, wrap(op, err)
	}
	var meetings []consultingMeetingRow
	err = sc.in(db).Select("id", "service_id", "starts_at", "ends_at").
		Where("service_id IN ? AND ends_at > ?", serviceIDs, dbTime(from)).
		Order("service_id, starts_at").Find(&meetings).Error
	if err != nil {
		return nil, nil, wrap(op, err)
	}
	outSlots := make([]storage.ConsultingSlot, len(slots))
	for i, r := range slots {
		outSlots[i] = r.ConsultingSlot
	}
	outMeetings := make([]storage.ConsultingMeeting, len(meetings))
	for i, r := range meetings {
		outMeetings[i] = storage.ConsultingMeeting{ID: r.ID, ServiceID: r.ServiceID, StartsAt: utc(r.StartsAt), EndsAt: utc(r.EndsAt)}
	}
	return outSlots, outMeetings, nil
}

// eventRegistrationJoinRow is one row of the registrations-events join: the event's columns are
// selected as event_<column>.
type eventRegistrationJoinRow struct {
	RegistrationID int64
	Status         string
	RegisteredAt   time.Time
	Event          eventRow `gorm:"embedded;embeddedPrefix:event_"`
}

// ListEventRegistrations pages through a member's event registrations with their events, in one
// statement.
func (s *Store) ListEventRegistrations(ctx context.Context, memberID int64, page storage.Page) ([]storage.EventRegistration, string, error) {
	return listMemberJoin(s, ctx, memberID, page, fmt.Sprintf("list event registrations of member %d", memberID), memberJoin[eventRegistrationJoinRow, storage.EventRegistration]{
		table: "event_registrations", alias: "r",
		columns: "r.id AS registration_id, r.status, r.registered_at, " + embeddedColumns("ev", "event_",
			"id", "slug", "title", "description", "starts_at", "ends_at", "location", "price_amount", "currency", "capacity", "published"),
		join: "JOIN events AS ev ON ev.school_id = r.school_id AND ev.id = r.event_id",
		at:   "registered_at",
		key:  func(r eventRegistrationJoinRow) (time.Time, int64) { return r.RegisteredAt, r.RegistrationID },
		convert: func(r eventRegistrationJoinRow) storage.EventRegistration {
			return storage.EventRegistration{ID: r.RegistrationID, Status: r.Status, RegisteredAt: utc(r.RegisteredAt), Event: eventFromRow(r.Event)}
		},
	})
}

// embeddedColumns selects columns of the joined table alias as prefix<column>: the names gorm
// reads into a row embedded with that embeddedPrefix.
func embeddedColumns(alias, prefix string, columns ...string) string {
	selected := make([]string, len(columns))
	for i, c := range columns {
		selected[i] = alias + "." + c + " AS " + prefix + c
	}
	return strings.Join(selected, ", ")
}
