package graphql_test

import (
	"strings"
	"testing"

	"github.com/proctorhq/proctor/storage"
)

// A consulting service with neither slots nor meetings answers both lists empty, not null: the
// schema declares them [ConsultingSlot!]! and [ConsultingMeeting!]!, and the page's schedules
// hold no entry for such a service.
func TestConsultingServiceWithoutSchedule(t *testing.T) {
	e := seeded(newEnv(t, "sqlite"))
	a := schoolAData()
	a.ConsultingServices = append(a.ConsultingServices, storage.ConsultingServiceSeed{
		OfferSeed: storage.OfferSeed{Slug: "office-hours", Title: "Office Hours", PriceAmount: 0, Currency: "USD"}, DurationMinutes: 30, Courses: []string{"go"},
	})
	e.Seed(e.A, a)
	r := e.post(e.A, e.Token(e.A, sam, readScope), `{ viewer { consultingServices { nodes { slug slots { weekday } meetings { startsAt } } } } }`, nil)
	if r.status != 200 || len(r.Errors) != 0 {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	if want := `{"slug":"office-hours","slots":[],"meetings":[]}`; !strings.Contains(string(r.Data), want) {
		t.Errorf("answer %s, want a node %s", r.Data, want)
	}
}
