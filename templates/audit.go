package templates

import (
	"context"
	"io"
)

// securityEventsFile is the security event log's page.
const securityEventsFile = "security_events.html"

// SecurityEventKind is one choice of the page's kind filter.
type SecurityEventKind struct {
	Value    string // "sign_in"
	Selected bool
}

// SecurityEventItem is one event as the page shows it. Every field is plain text: the member
// fields are an e-mail address when the member is known, "member 42" otherwise.
type SecurityEventItem struct {
	ID        int64
	At        string
	Kind      string
	Result    string
	Failed    bool // a failure or a throttled attempt, shown as such
	Actor     string
	Subject   string
	Client    string
	Scopes    string
	Address   string
	Browser   string
	RequestID string
	Detail    string
}

// SecurityEventsPage is the security event log of a school for its operators. Its filter form
// is a GET of Action with member, kind, since and until (dates, YYYY-MM-DD).
type SecurityEventsPage struct {
	School string
	Operator
	Action string
	// Member, Kind, Since and Until refill the filter form.
	Member, Kind, Since, Until string
	Kinds                      []SecurityEventKind
	// Message says why the filter could not be used (a date that does not read).
	Message string
	Events  []SecurityEventItem
	// OlderURL is the next page of older events ("" on the last page); NewestURL the first page
	// of the same filter ("" on the first page).
	OlderURL, NewestURL string
}

// auditPages are the pages of the security event log.
func auditPages() []namedPage {
	return []namedPage{
		{securityEventsFile, SecurityEventsPage{
			School: "S", Operator: Operator{MemberName: "N", MemberEmail: "e@example.com", CSRFToken: "t"}, Action: "/a",
			Member: "m", Kind: "sign_in", Since: "2026-01-01", Until: "2026-01-02", Message: "m",
			Kinds: []SecurityEventKind{{Value: "sign_in", Selected: true}, {Value: "role_changed"}},
			Events: []SecurityEventItem{{ID: 1, At: "a", Kind: "k", Result: "failure", Failed: true, Actor: "a", Subject: "s",
				Client: "c", Scopes: "openid", Address: "192.0.2.1", Browser: "b", RequestID: "r", Detail: "d"}, {ID: 2}},
			OlderURL: "/a?before=1", NewestURL: "/a",
		}},
	}
}

// SecurityEvents renders the security event log's page.
func (s *Set) SecurityEvents(ctx context.Context, w io.Writer, v SecurityEventsPage) error {
	return s.renderNamed(ctx, w, securityEventsFile, v)
}
