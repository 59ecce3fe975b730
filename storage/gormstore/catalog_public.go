package gormstore

import (
	"context"
	"strings"
	"time"

	"github.com/proctorhq/proctor/storage"
)

// likeEscaper escapes LIKE's wildcards so that a search term matches itself; the statements name
// the backslash as the escape character, which both SQLite and PostgreSQL accept.
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// SearchCourses pages through the school's published courses by id, in one statement. Each term
// adds a condition: a course must contain all of them, in its title or its description.
func (s *Store) SearchCourses(ctx context.Context, query string, page storage.Page) ([]storage.Course, string, error) {
	p, err := s.startIDPage(ctx, page)
	if err != nil {
		return nil, "", err
	}
	q := p.sc.in(s.conn(ctx)).Where("published = ? AND id > ?", true, p.after)
	for _, term := range strings.Fields(query) {
		like := "%" + likeEscaper.Replace(strings.ToLower(term)) + "%"
		q = q.Where(`(LOWER(title) LIKE ? ESCAPE '\' OR LOWER(description) LIKE ? ESCAPE '\')`, like, like)
	}
	rows, next, err := findIDPage(q, p, "search courses", func(r courseRow) int64 { return r.ID })
	if err != nil {
		return nil, "", err
	}
	return convertRows(rows, courseRow.course), next, nil
}

// ListPublishedPlans pages through the school's published plans by id, in one statement.
func (s *Store) ListPublishedPlans(ctx context.Context, page storage.Page) ([]storage.MembershipPlan, string, error) {
	p, err := s.startIDPage(ctx, page)
	if err != nil {
		return nil, "", err
	}
	q := p.sc.in(s.conn(ctx)).Where("published = ? AND id > ?", true, p.after)
	rows, next, err := findIDPage(q, p, "list published plans", func(r membershipPlanRow) int64 { return r.ID })
	if err != nil {
		return nil, "", err
	}
	return convertRows(rows, func(r membershipPlanRow) storage.MembershipPlan {
		return storage.MembershipPlan{
			ID: r.ID, Slug: r.Slug, Title: r.Title, Description: r.Description,
			PriceAmount: r.PriceAmount, Currency: r.Currency, Interval: r.BillingInterval, Published: r.Published,
		}
	}), next, nil
}

// ListPublishedProducts pages through the school's published digital products by id, in one
// statement.
func (s *Store) ListPublishedProducts(ctx context.Context, page storage.Page) ([]storage.DigitalProduct, string, error) {
	p, err := s.startIDPage(ctx, page)
	if err != nil {
		return nil, "", err
	}
	q := p.sc.in(s.conn(ctx)).Where("published = ? AND id > ?", true, p.after)
	rows, next, err := findIDPage(q, p, "list published products", func(r digitalProductRow) int64 { return r.ID })
	if err != nil {
		return nil, "", err
	}
	return convertRows(rows, func(r digitalProductRow) storage.DigitalProduct {
		return storage.DigitalProduct{
			ID: r.ID, Slug: r.Slug, Title: r.Title, Description: r.Description,
			PriceAmount: r.PriceAmount, Currency: r.Currency, Published: r.Published,
		}
	}), next, nil
}

// ListUpcomingEvents pages through the school's published events that end after `from`, soonest
// first, in one statement. An event under way is still upcoming: it can be joined late.
func (s *Store) ListUpcomingEvents(ctx context.Context, from time.Time, page storage.Page) ([]storage.Event, string, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return nil, "", err
	}
	q := sc.in(s.conn(ctx)).Model(&eventRow{}).Where("published = ? AND ends_at > ?", true, dbTime(from))
	rows, next, err := readTimeIDPage(q, "starts_at", "id", false, page, "list upcoming events", func(r eventRow) (time.Time, int64) { return r.StartsAt, r.ID })
	if err != nil {
		return nil, "", err
	}
	out := make([]storage.Event, len(rows))
	for i, r := range rows {
		out[i] = storage.Event{
			ID: r.ID, Slug: r.Slug, Title: r.Title, Description: r.Description,
			StartsAt: utc(r.StartsAt), EndsAt: utc(r.EndsAt), Location: r.Location,
			PriceAmount: r.PriceAmount, Currency: r.Currency, Capacity: r.Capacity, Published: r.Published,
		}
	}
	return out, next, nil
}
