package operator

import (
	"context"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/proctorhq/proctor/storage"
)

// CourseStats are one course's enrollment and completion figures.
type CourseStats struct {
	CourseID          int64  `json:"course_id"`
	Slug              string `json:"slug"`
	Title             string `json:"title"`
	Enrollments       int    `json:"enrollments" doc:"Every enrollment, expired ones included."`
	ActiveEnrollments int    `json:"active_enrollments" doc:"Enrollments with access now."`
	Lectures          int    `json:"lectures"`
	CompletedStudents int    `json:"completed_students" doc:"Enrolled students who completed every lecture."`
	CompletionRate    int    `json:"completion_rate" doc:"completed_students per enrollment, as a whole percentage rounded down."`
}

// Revenue is what the school took in one currency over the period asked about.
type Revenue struct {
	Currency string `json:"currency"`
	Payments int    `json:"payments" doc:"Paid payments, refunded ones included."`
	Gross    int64  `json:"gross" doc:"Their amounts, in the currency's minor unit."`
	Refunded int64  `json:"refunded" doc:"What was refunded of them."`
	Net      int64  `json:"net" doc:"gross - refunded."`
}

// RevenueReport is the revenue of a period, by currency (amounts in different currencies are
// never added up).
type RevenueReport struct {
	From       *time.Time `json:"from,omitempty"`
	To         *time.Time `json:"to,omitempty"`
	Currencies []Revenue  `json:"currencies"`
}

func (h *Handler) registerAnalytics(api huma.API) {
	register(h, api, "list-course-stats", func(ctx context.Context, in *struct{ PageParams }) (*ListOutput[CourseStats], error) {
		stats, next, err := h.store.ListCourseStats(ctx, h.now(), in.page())
		return pageOf(ctx, h, "course", stats, next, err, func(s storage.CourseStats) CourseStats {
			out := CourseStats{
				CourseID: s.Course.ID, Slug: s.Course.Slug, Title: s.Course.Title, Enrollments: s.Enrollments,
				ActiveEnrollments: s.ActiveEnrollments, Lectures: s.Lectures, CompletedStudents: s.CompletedStudents,
				CompletionRate: s.CompletionRate(),
			}
			return out
		})
	})

	register(h, api, "get-revenue", func(ctx context.Context, in *struct {
		From time.Time `query:"from" doc:"Start of the period (RFC 3339), inclusive."`
		To   time.Time `query:"to" doc:"End of the period (RFC 3339), exclusive."`
	}) (*struct{ Body RevenueReport }, error) {
		if !in.From.IsZero() && !in.To.IsZero() && !in.From.Before(in.To) {
			return nil, invalid("query.to", "the period ends after it starts", in.To)
		}
		rows, err := h.store.RevenueByCurrency(ctx, in.From, in.To)
		if err != nil {
			return nil, h.problem(ctx, "payment", err)
		}
		out := RevenueReport{Currencies: make([]Revenue, len(rows))}
		if !in.From.IsZero() {
			out.From = &in.From
		}
		if !in.To.IsZero() {
			out.To = &in.To
		}
		for i, r := range rows {
			out.Currencies[i] = Revenue{Currency: r.Currency, Payments: r.Payments, Gross: r.Gross, Refunded: r.Refunded, Net: r.Net}
		}
		return &struct{ Body RevenueReport }{out}, nil
	})
}
