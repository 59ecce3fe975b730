package graphql_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/server/servertest/schools"
)

// everything asks for every field of the viewer.
const everything = `
query Everything {
  viewer {
    id name email avatar { url }
    schools { id subdomain name roles current }
    enrolledCourses {
      nodes {
        id slug title expireDate hasLifetimeAccess enrolledAt
        lastWatchedLecture { lectureId positionSeconds watchedAt }
        detailProgress { completedLectures readLectures totalLectures percent }
        sections { id position title lectures { id position title state positionSeconds isLocked unlockAt duration } }
      }
      pageInfo { hasNextPage endCursor }
    }
    digitalProducts { nodes { id slug title description grantedAt } pageInfo { hasNextPage endCursor } }
    consultingServices {
      nodes { slug title description durationMinutes slots { weekday startTime durationMinutes timeZone } meetings { startsAt endsAt } }
      pageInfo { hasNextPage endCursor }
    }
    eventRegistrations { nodes { status registeredAt event { slug title description startsAt endsAt location } } pageInfo { hasNextPage } }
    payments {
      nodes {
        tradeNo amount currency paymentType createdAt paidAt paymentState
        adjustments { kind code title amount }
        invoice { number status issuedAt buyerName taxId }
        lineitems { kind ref title quantity unitAmount }
        installment { periods periodAmount bank }
        refundingState refundedAmount refundedAt refundRequestedAt
        bankCode bankName codeNo expiredAt
      }
      pageInfo { hasNextPage endCursor }
    }
    notifications { nodes { kind title body url createdAt readAt } pageInfo { hasNextPage } }
    unreadNotificationCount
    notificationSubscriptions { topic channel enabled }
  }
}`

// TestViewerEverything reads every field once and compares the answer with a reviewed copy.
// What the copy shows, among the rest: Sam's three courses with the whole curriculum and his
// progress in one request; lectures locked, unlocked by their time, and locked for good; the
// consulting service offered through his lifetime course but not the one of his ended course,
// with the meetings still to come whoever reserved them; payments newest first, with the lapsed
// convenience-store slip read as expired, the expired abandoned checkout listed and the open one
// not, nothing of Emma's or of school B; the subscription grid.
func TestViewerEverything(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		seeded(e)
		r := e.post(e.A, e.Token(e.A, sam, readScope), everything, nil)
		if r.status != 200 || len(r.Errors) != 0 {
			t.Fatalf("%d %s", r.status, r.raw)
		}
		if r.header.Get("Cache-Control") != "no-store" {
			t.Errorf("Cache-Control %q", r.header.Get("Cache-Control"))
		}
		// Ids come from fresh sequences on every backend, so they are part of the copy.
		schools.GoldenJSON(t, filepath.Join("testdata", "viewer-everything.json"), r.raw)

		// The id is the member's id, as UserInfo's sub.
		m, err := e.Store.GetMemberByEmail(e.Ctx(e.A), sam)
		if err != nil {
			t.Fatal(err)
		}
		r = e.post(e.A, e.Token(e.A, sam, readScope), viewerID, nil)
		if want := fmt.Sprintf(`{"viewer":{"id":"%d"}}`, m.ID); string(r.Data) != want {
			t.Errorf("viewer id: %s, want %s", r.Data, want)
		}
	})
}

// TestEntitlementsCarryNoBilling: the entitlement types have no field for an order number,
// coupon, refund status or invoice (spec, payments rule 4).
func TestEntitlementsCarryNoBilling(t *testing.T) {
	e := seeded(newEnv(t, "sqlite"))
	token := e.Token(e.A, sam, readScope)
	for _, typ := range []string{"Course", "DigitalProduct", "ConsultingService", "EventRegistration", "Event", "Lecture", "Section"} {
		r := e.post(e.A, token, `query($t: String!) { __type(name: $t) { fields { name } } }`, map[string]any{"t": typ})
		var out struct {
			Type struct {
				Fields []struct{ Name string } `json:"fields"`
			} `json:"__type"`
		}
		if err := json.Unmarshal(r.Data, &out); err != nil || len(out.Type.Fields) == 0 {
			t.Fatalf("%s: %s", typ, r.raw)
		}
		for _, f := range out.Type.Fields {
			n := strings.ToLower(f.Name)
			for _, banned := range []string{"trade", "order", "coupon", "refund", "invoice", "payment", "adjustment"} {
				if strings.Contains(n, banned) {
					t.Errorf("%s.%s looks like billing data", typ, f.Name)
				}
			}
		}
	}
}
