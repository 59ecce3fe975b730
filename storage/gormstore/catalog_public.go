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

// containsPattern is the LIKE pattern, for a lowered column, of the values that contain term in
// any case.
func containsPattern(term string) string {
	return "%" + likeEscaper.Replace(strings.ToLower(term)) + "%"
}

// SearchCourses pages through the school's published courses by id, in one statement. Each term
// adds a condition: a course must contain all of them, in its title or its description.
func (s *Store) SearchCourses(ctx context.Context, query string, page storage.Page) ([]storage.Course, string, error) {
	p, err := s.startIDPage(ctx, page)
	if err != nil {
		return nil, "", err
	}
	q := p.sc.in(s.conn(ctx)).Where("published = ? AND id > ?", true, p.after)
	for _, term := range strings.Fields(query) {
		like := containsPattern(term)
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
	return listPublished(s, ctx, page, "list published plans", func(r membershipPlanRow) int64 { return r.ID }, membershipPlanFromRow)
}

// ListPublishedProducts pages through the school's published digital products by id, in one
// statement.
func (s *Store) ListPublishedProducts(ctx context.Context, page storage.Page) ([]storage.DigitalProduct, string, error) {
	return listPublished(s, ctx, page, "list published products", func(r digitalProductRow) int64 { return r.ID }, digitalProductFromRow)
}

// listPublished pages through the school's published rows of R by id, in one statement, converted
// by conv.
func listPublished[R, T any](s *Store, ctx context.Context, page storage.Page, op string, id func(R) int64, conv func(R) T) ([]T, string, error) {
	p, err := s.startIDPage(ctx, page)
	if err != nil {
		return nil, "", err
	}
	q := p.sc.in(s.conn(ctx)).Where("published = ? AND id > ?", true, p.after)
	rows, next, err := findIDPage(q, p, op, id)
	if err != nil {
		return nil, "", err
	}
	return convertRows(rows, conv), next, nil
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
	return convertRows(rows, eventFromRow), next, nil
}
