package mcp

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/proctorhq/proctor/storage"
)

// The public tools read the school's published catalogue (storage.Catalog) and nothing else:
// anyone may call them without a token, so no member data is within their reach.

// coursePageIn asks for one page of courses: list_courses and my_courses take the same input.
type coursePageIn struct {
	First int `json:"first,omitempty" jsonschema:"How many courses to return, 1 to 50 (default 20)."`
	pageAfter
}

type searchCoursesIn struct {
	Query string `json:"query" jsonschema:"Words to look for in course titles and descriptions; a course must contain every word (case is ignored)."`
	First int    `json:"first,omitempty" jsonschema:"How many courses to return, 1 to 50 (default 20)."`
	After string `json:"after,omitempty" jsonschema:"The next_cursor of the previous page of the same search; omit for the first page."`
}

type catalogCourse struct {
	Slug        string `json:"slug" jsonschema:"The course's identifier at this school; get_course takes it."`
	Title       string `json:"title"`
	Description string `json:"description"`
	Price       money  `json:"price"`
}

type coursesOut struct {
	Courses []catalogCourse `json:"courses"`
	nextPage
}

type getCourseIn struct {
	Slug string `json:"slug" jsonschema:"The course's slug, as list_courses and search_courses return it."`
}

type outlineLecture struct {
	Position        int    `json:"position" jsonschema:"From 1, within the section."`
	Title           string `json:"title"`
	DurationSeconds int    `json:"duration_seconds"`
}

type outlineSection struct {
	Position int              `json:"position" jsonschema:"From 1."`
	Title    string           `json:"title"`
	Lectures []outlineLecture `json:"lectures"`
}

type courseOutline struct {
	Slug                 string           `json:"slug"`
	Title                string           `json:"title"`
	Description          string           `json:"description"`
	Price                money            `json:"price"`
	TotalLectures        int              `json:"total_lectures"`
	TotalDurationSeconds int              `json:"total_duration_seconds"`
	Sections             []outlineSection `json:"sections"`
}

type plan struct {
	Slug        string `json:"slug"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Price       money  `json:"price"`
	Interval    string `json:"interval" jsonschema:"How often the price is charged: month or year."`
}

type product struct {
	Slug        string `json:"slug"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Price       money  `json:"price"`
}

type event struct {
	Slug        string    `json:"slug"`
	Title       string    `json:"title"`
	Description string    `json:"description"`
	StartsAt    time.Time `json:"starts_at" jsonschema:"RFC 3339, UTC."`
	EndsAt      time.Time `json:"ends_at" jsonschema:"RFC 3339, UTC."`
	Location    string    `json:"location"`
	Price       money     `json:"price"`
	Capacity    int       `json:"capacity" jsonschema:"Places in all; 0 means unlimited."`
}

type pricingOut struct {
	MembershipPlans []plan    `json:"membership_plans"`
	DigitalProducts []product `json:"digital_products"`
	UpcomingEvents  []event   `json:"upcoming_events" jsonschema:"Events that have not ended yet, soonest first."`
	Truncated       bool      `json:"truncated" jsonschema:"True when a list was cut at 50 items."`
}

type noInput struct{}

// pricingListSize is how many items of each kind get_pricing returns.
const pricingListSize = 50

func publicTools() []toolDef {
	return []toolDef{
		define(spec{
			name:  "list_courses",
			title: "List courses",
			description: "Lists the school's published courses with their prices, a page at a time (oldest course first). " +
				"Use get_course for one course's outline.",
			need:  public,
			input: paging,
		}, func(ctx context.Context, c *caller, in coursePageIn) (coursesOut, error) {
			return searchCourses(ctx, c, "", in.First, in.After)
		}),
		define(spec{
			name:        "search_courses",
			title:       "Search courses",
			description: "Finds the school's published courses whose title or description contains every word of the query, a page at a time.",
			need:        public,
			input:       all(paging, minLength(1, "query"), maxLength(200, "query")),
		}, func(ctx context.Context, c *caller, in searchCoursesIn) (coursesOut, error) {
			if strings.TrimSpace(in.Query) == "" {
				return coursesOut{}, failf("The query is empty; use list_courses to list every course.")
			}
			return searchCourses(ctx, c, in.Query, in.First, in.After)
		}),
		define(spec{
			name:  "get_course",
			title: "Course outline",
			description: "Returns one published course: its description, price and public outline (sections and lecture titles " +
				"with their lengths). It says nothing about any member's progress.",
			need:  public,
			input: all(minLength(1, "slug"), maxLength(200, "slug")),
		}, getCourse),
		define(spec{
			name:  "get_pricing",
			title: "Pricing",
			description: "Returns what the school sells besides courses: its membership plans, digital products and upcoming " +
				"events, with prices (course prices are in list_courses).",
			need: public,
		}, getPricing),
	}
}

func searchCourses(ctx context.Context, c *caller, query string, first int, after string) (coursesOut, error) {
	list, next, err := c.store.SearchCourses(ctx, query, page(first, after))
	if err != nil {
		return coursesOut{}, err
	}
	out := coursesOut{Courses: []catalogCourse{}, nextPage: nextPage{next}}
	for _, co := range list {
		out.Courses = append(out.Courses, catalogCourse{
			Slug: co.Slug, Title: co.Title, Description: co.Description,
			Price: money{co.PriceAmount, co.Currency},
		})
	}
	return out, nil
}

func getCourse(ctx context.Context, c *caller, in getCourseIn) (courseOutline, error) {
	co, err := c.store.GetCourseBySlug(ctx, in.Slug)
	// An unpublished course is as unknown to the public as a missing one.
	if errors.Is(err, storage.ErrNotFound) || err == nil && !co.Published {
		return courseOutline{}, failf("The school has no published course with the slug %q; list_courses lists them.", in.Slug)
	}
	if err != nil {
		return courseOutline{}, err
	}
	sections, lectures, err := c.store.GetCurriculum(ctx, co.ID)
	if err != nil {
		return courseOutline{}, err
	}
	out := courseOutline{
		Slug: co.Slug, Title: co.Title, Description: co.Description, Price: money{co.PriceAmount, co.Currency},
		Sections: make([]outlineSection, len(sections)),
	}
	for i, lectures := range lecturesBySection(sections, lectures) {
		s := outlineSection{Position: sections[i].Position, Title: sections[i].Title, Lectures: make([]outlineLecture, len(lectures))}
		for j, l := range lectures {
			s.Lectures[j] = outlineLecture{Position: l.Position, Title: l.Title, DurationSeconds: l.DurationSeconds}
			out.TotalLectures++
			out.TotalDurationSeconds += l.DurationSeconds
		}
		out.Sections[i] = s
	}
	return out, nil
}

// lecturesBySection groups a curriculum's lectures under its sections: the i-th list holds the
// lectures of sections[i], in the order the store returned them. A lecture of no listed
// section is left out.
func lecturesBySection(sections []storage.Section, lectures []storage.Lecture) [][]storage.Lecture {
	index := make(map[int64]int, len(sections))
	for i, s := range sections {
		index[s.ID] = i
	}
	out := make([][]storage.Lecture, len(sections))
	for _, l := range lectures {
		if i, ok := index[l.SectionID]; ok {
			out[i] = append(out[i], l)
		}
	}
	return out
}

func getPricing(ctx context.Context, c *caller, _ noInput) (pricingOut, error) {
	first := storage.Page{First: pricingListSize}
	plans, nextPlan, err := c.store.ListPublishedPlans(ctx, first)
	if err != nil {
		return pricingOut{}, err
	}
	products, nextProduct, err := c.store.ListPublishedProducts(ctx, first)
	if err != nil {
		return pricingOut{}, err
	}
	events, nextEvent, err := c.store.ListUpcomingEvents(ctx, c.now, first)
	if err != nil {
		return pricingOut{}, err
	}
	out := pricingOut{
		MembershipPlans: []plan{}, DigitalProducts: []product{}, UpcomingEvents: []event{},
		Truncated: nextPlan != "" || nextProduct != "" || nextEvent != "",
	}
	for _, p := range plans {
		out.MembershipPlans = append(out.MembershipPlans, plan{
			Slug: p.Slug, Title: p.Title, Description: p.Description, Price: money{p.PriceAmount, p.Currency}, Interval: p.Interval,
		})
	}
	for _, p := range products {
		out.DigitalProducts = append(out.DigitalProducts, product{
			Slug: p.Slug, Title: p.Title, Description: p.Description, Price: money{p.PriceAmount, p.Currency},
		})
	}
	for _, e := range events {
		out.UpcomingEvents = append(out.UpcomingEvents, event{
			Slug: e.Slug, Title: e.Title, Description: e.Description, StartsAt: e.StartsAt, EndsAt: e.EndsAt,
			Location: e.Location, Price: money{e.PriceAmount, e.Currency}, Capacity: e.Capacity,
		})
	}
	return out, nil
}
