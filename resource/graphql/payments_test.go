package graphql_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/proctorhq/proctor/storage"
)

type paymentNode struct {
	TradeNo      string  `json:"tradeNo"`
	PaymentState string  `json:"paymentState"`
	PaymentType  *string `json:"paymentType"`
	BankCode     *string `json:"bankCode"`
	BankName     *string `json:"bankName"`
	CodeNo       *string `json:"codeNo"`
	ExpiredAt    *string `json:"expiredAt"`
	CreatedAt    string  `json:"createdAt"`
}

// payments pages through the viewer's payments with page size first.
func (e *env) payments(t *testing.T, token string, first int) []paymentNode {
	t.Helper()
	var all []paymentNode
	var after any
	for range 100 {
		r := e.post(e.A, token, `query($first: Int, $after: String) { viewer { payments(first: $first, after: $after) {
			nodes { tradeNo paymentState paymentType bankCode bankName codeNo expiredAt createdAt }
			pageInfo { hasNextPage endCursor } } } }`, map[string]any{"first": first, "after": after})
		if len(r.Errors) != 0 {
			t.Fatalf("payments: %s", r.raw)
		}
		var out struct {
			Viewer struct {
				Payments struct {
					Nodes    []paymentNode
					PageInfo struct {
						HasNextPage bool
						EndCursor   *string
					}
				}
			}
		}
		if err := json.Unmarshal(r.Data, &out); err != nil {
			t.Fatal(err)
		}
		p := out.Viewer.Payments
		if len(p.Nodes) > first {
			t.Fatalf("page of %d payments, asked for %d", len(p.Nodes), first)
		}
		all = append(all, p.Nodes...)
		if !p.PageInfo.HasNextPage {
			if p.PageInfo.EndCursor != nil {
				t.Errorf("last page has an endCursor")
			}
			return all
		}
		after = *p.PageInfo.EndCursor
	}
	t.Fatal("paging did not end")
	return nil
}

// TestPaymentRules checks the spec's payments rules 1 to 5 through the API, paging one, two and
// fifty at a time.
func TestPaymentRules(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		seeded(e)
		token := e.Token(e.A, sam, readScope)
		for _, first := range []int{1, 2, 50} {
			nodes := e.payments(t, token, first)
			var trades []string
			for _, n := range nodes {
				trades = append(trades, n.TradeNo)
			}
			// Rule 5: only Sam's, only school A's (not Emma's A-EMMA, not his B-PAID), newest
			// first. Rule 2: the open abandoned checkout is missing, the expired one is there.
			// Rule 1: the lapsed slip and its retry are two nodes.
			want := []string{"A-ATM-OPEN", "A-ABANDONED-EXPIRED", "A-RETRY", "A-CVS-LAPSED", "A-PAID"}
			if !slices.Equal(trades, want) {
				t.Fatalf("first %d: payments %v, want %v", first, trades, want)
			}
			for i := 1; i < len(nodes); i++ {
				if nodes[i-1].CreatedAt < nodes[i].CreatedAt {
					t.Errorf("payments not newest first: %s before %s", nodes[i-1].CreatedAt, nodes[i].CreatedAt)
				}
			}
			// Rule 3: unpaid and expired rows carry their payment instructions.
			byTrade := map[string]paymentNode{}
			for _, n := range nodes {
				byTrade[n.TradeNo] = n
			}
			open := byTrade["A-ATM-OPEN"]
			if open.PaymentState != storage.PaymentUnpaid || deref(open.BankCode) != "042" || deref(open.BankName) != "Harbor Trust Bank" ||
				deref(open.CodeNo) != "9601-8812-0375" || open.ExpiredAt == nil {
				t.Errorf("unpaid ATM payment: %+v", open)
			}
			lapsed := byTrade["A-CVS-LAPSED"]
			if lapsed.PaymentState != storage.PaymentExpired || deref(lapsed.CodeNo) != "CVS-7731" || lapsed.ExpiredAt == nil {
				t.Errorf("lapsed convenience-store payment: %+v", lapsed)
			}
			if a := byTrade["A-ABANDONED-EXPIRED"]; a.PaymentType != nil || a.PaymentState != storage.PaymentExpired {
				t.Errorf("expired abandoned checkout: %+v", a)
			}
		}

		// Rule 1: nothing on a payment joins attempts into a purchase.
		r := e.post(e.A, token, `{ __type(name: "Payment") { fields { name } } }`, nil)
		for _, banned := range []string{"order", "purchase", "attempt", "retry", "parent", "group"} {
			if strings.Contains(strings.ToLower(string(r.Data)), banned) {
				t.Errorf("Payment has a field like %q: %s", banned, r.Data)
			}
		}
	})
}

// TestPaymentPageSize: up to 50 per page; 51 is refused, not cut down (spec, Limits).
func TestPaymentPageSize(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		data := &storage.SchoolData{Members: []storage.MemberSeed{{Email: sam, Name: "Sam", Roles: []storage.Role{storage.RoleStudent}}}}
		for i := range 120 {
			data.Payments = append(data.Payments, storage.PaymentSeed{
				TradeNo: fmt.Sprintf("P-%03d", i), Member: sam, Amount: 100, Currency: "USD", PaymentType: "credit_card",
				CreatedAt:     past.Add(time.Duration(i%7) * time.Hour), // many ties
				PaymentStatus: storage.PaymentStatus{PaymentState: storage.PaymentPaid},
			})
		}
		e.Seed(e.A, data)
		token := e.Token(e.A, sam, readScope)
		nodes := e.payments(t, token, 50)
		seen := map[string]bool{}
		for _, n := range nodes {
			if seen[n.TradeNo] {
				t.Fatalf("%s listed twice", n.TradeNo)
			}
			seen[n.TradeNo] = true
		}
		if len(nodes) != 120 {
			t.Errorf("%d payments over the pages, want 120", len(nodes))
		}
		r := e.post(e.A, token, `{ viewer { payments(first: 51) { nodes { tradeNo } } } }`, nil)
		if r.code(0) != "BAD_USER_INPUT" || !strings.Contains(string(r.Data), `"viewer":null`) && !strings.Contains(string(r.Data), `"payments":null`) {
			t.Errorf("first: 51: %s", r.raw)
		}
	})
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
