package graphql

import (
	"context"
	"sync"

	"github.com/proctorhq/proctor/storage"
)

// The entitlement lists (spec, payments rule 4) carry what the member holds and nothing of how it
// was paid: no order number, coupon, refund status or invoice.

func (v *viewer) DigitalProducts(ctx context.Context, first *int32, after *string) (*digitalProductConnection, error) {
	return listPage("digitalProducts", first, after, func(p storage.Page) ([]storage.HeldProduct, string, error) {
		return v.req.store.ListHeldProducts(ctx, v.req.grant.MemberID, p)
	}, func(h storage.HeldProduct) *digitalProduct { return &digitalProduct{h: h} })
}

type digitalProduct struct{ h storage.HeldProduct }

func (p *digitalProduct) ID() string          { return id(p.h.Product.ID) }
func (p *digitalProduct) Slug() string        { return p.h.Product.Slug }
func (p *digitalProduct) Title() string       { return p.h.Product.Title }
func (p *digitalProduct) Description() string { return p.h.Product.Description }
func (p *digitalProduct) GrantedAt() dateTime { return newDateTime(p.h.GrantedAt) }

// ConsultingServices lists the services offered against the viewer's courses. Slots and
// meetings of the whole page are read together, once, by the first node that needs them.
func (v *viewer) ConsultingServices(ctx context.Context, first *int32, after *string) (*consultingServiceConnection, error) {
	req := v.req
	list, next, err := readPage("consultingServices", first, after, func(p storage.Page) ([]storage.ConsultingService, string, error) {
		return req.store.ListOfferedConsultingServices(ctx, req.grant.MemberID, req.now, p)
	})
	if err != nil {
		return nil, err
	}
	ids := make([]int64, len(list))
	for i, s := range list {
		ids[i] = s.ID
	}
	schedules := sync.OnceValues(func() (*schedules, error) {
		slots, meetings, err := req.store.GetConsultingSchedules(ctx, ids, req.now)
		if err != nil {
			return nil, err
		}
		s := &schedules{slots: map[int64][]*consultingSlot{}, meetings: map[int64][]*consultingMeeting{}}
		for _, sl := range slots {
			s.slots[sl.ServiceID] = append(s.slots[sl.ServiceID], &consultingSlot{s: sl})
		}
		for _, m := range meetings {
			s.meetings[m.ServiceID] = append(s.meetings[m.ServiceID], &consultingMeeting{m: m})
		}
		return s, nil
	})
	return newConnection(list, next, func(s storage.ConsultingService) *consultingService {
		return &consultingService{s: s, schedules: schedules}
	}), nil
}

// schedules are the page's slots and meetings by service id, as the nodes answer them.
type schedules struct {
	slots    map[int64][]*consultingSlot
	meetings map[int64][]*consultingMeeting
}

type consultingService struct {
	s         storage.ConsultingService
	schedules func() (*schedules, error)
}

func (c *consultingService) ID() string             { return id(c.s.ID) }
func (c *consultingService) Slug() string           { return c.s.Slug }
func (c *consultingService) Title() string          { return c.s.Title }
func (c *consultingService) Description() string    { return c.s.Description }
func (c *consultingService) DurationMinutes() int32 { return int32(c.s.DurationMinutes) }

func (c *consultingService) Slots() ([]*consultingSlot, error) {
	s, err := c.schedules()
	if err != nil {
		return nil, err
	}
	return s.slots[c.s.ID], nil
}

// Meetings are everyone's: the store does not even say whose (spec, "Consulting service").
func (c *consultingService) Meetings() ([]*consultingMeeting, error) {
	s, err := c.schedules()
	if err != nil {
		return nil, err
	}
	return s.meetings[c.s.ID], nil
}

type consultingSlot struct{ s storage.ConsultingSlot }

func (s *consultingSlot) Weekday() int32         { return int32(s.s.Weekday) }
func (s *consultingSlot) StartTime() string      { return s.s.StartTime }
func (s *consultingSlot) DurationMinutes() int32 { return int32(s.s.DurationMinutes) }
func (s *consultingSlot) TimeZone() string       { return s.s.TimeZone }

type consultingMeeting struct{ m storage.ConsultingMeeting }

func (m *consultingMeeting) StartsAt() dateTime { return newDateTime(m.m.StartsAt) }
func (m *consultingMeeting) EndsAt() dateTime   { return newDateTime(m.m.EndsAt) }

func (v *viewer) EventRegistrations(ctx context.Context, first *int32, after *string) (*eventRegistrationConnection, error) {
	return listPage("eventRegistrations", first, after, func(p storage.Page) ([]storage.EventRegistration, string, error) {
		return v.req.store.ListEventRegistrations(ctx, v.req.grant.MemberID, p)
	}, func(r storage.EventRegistration) *eventRegistration { return &eventRegistration{r: r} })
}

type eventRegistration struct{ r storage.EventRegistration }

func (r *eventRegistration) ID() string             { return id(r.r.ID) }
func (r *eventRegistration) Status() string         { return r.r.Status }
func (r *eventRegistration) RegisteredAt() dateTime { return newDateTime(r.r.RegisteredAt) }
func (r *eventRegistration) Event() *event          { return &event{e: r.r.Event} }

type event struct{ e storage.Event }

func (e *event) ID() string          { return id(e.e.ID) }
func (e *event) Slug() string        { return e.e.Slug }
func (e *event) Title() string       { return e.e.Title }
func (e *event) Description() string { return e.e.Description }
func (e *event) StartsAt() dateTime  { return newDateTime(e.e.StartsAt) }
func (e *event) EndsAt() dateTime    { return newDateTime(e.e.EndsAt) }
func (e *event) Location() string    { return e.e.Location }
