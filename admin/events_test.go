package admin_test

import (
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/proctorhq/proctor/admin"
	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/server/servertest/schools"
)

var (
	eventKindPattern = regexp.MustCompile(`class="app-name kind">([a-z_]+)<`)
	eventIDPattern   = regexp.MustCompile(`id="event-([0-9]+)"`)
)

// eventKinds lists the kinds a page of events shows, in order.
func eventKinds(body string) []string {
	var out []string
	for _, m := range eventKindPattern.FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	return out
}

// memberID returns the id of the member with the address.
func (e *env) memberID(email string) int64 {
	e.t.Helper()
	return schools.MemberByEmail(e.t, e.store, email).ID
}

// addEvent appends an event to school t's log directly.
func (e *env) addEvent(t *school.School, ev audit.Event) {
	e.t.Helper()
	if err := e.store.AppendSecurityEvent(e.ctx(t), ev); err != nil {
		e.t.Fatal(err)
	}
}

// eventsURL is the events page at school t with the query q.
func eventsURL(t *school.School, q url.Values) string {
	u := t.Origin + admin.EventsPath
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

func TestEventsPage(t *testing.T) {
	e := newEnv(t)
	student, admin1 := e.memberID(studentEmail), e.memberID(adminEmail)
	day := func(d int) time.Time { return time.Date(2026, time.March, d, 10, 0, 0, 0, time.UTC) }
	e.addEvent(e.a, audit.Event{Kind: audit.KindRoleChanged, At: day(1), Actor: audit.ActorOperator, ActorID: admin1, SubjectID: student,
		Detail: "lecturer -> student", ClientAddr: "192.0.2.9", UserAgent: "Agent/<b>1</b>", RequestID: "req-role"})
	e.addEvent(e.a, audit.Event{Kind: audit.KindConsentApproved, At: day(2), Actor: audit.ActorMember, ActorID: student, SubjectID: student,
		ClientID: "app-1", Scopes: []string{"openid", "profile"}})
	e.addEvent(e.a, audit.Event{Kind: audit.KindSignIn, Result: audit.ResultFailure, At: day(3), Actor: audit.ActorMember})
	e.addEvent(e.a, audit.Event{Kind: audit.KindSigningKeyRotated, At: day(4), Actor: audit.ActorCLI, Detail: "kid k-1"})
	e.addEvent(e.a, audit.Event{Kind: audit.KindGrantRevoked, At: day(5), Actor: audit.ActorSystem, SubjectID: student + 1000, Detail: "reuse_detected"})
	// Another school's event: never on school A's page.
	e.addEvent(e.b, audit.Event{Kind: audit.KindClientDeleted, At: day(2), Actor: audit.ActorOperator, ActorID: e.memberID(ownerEmail), ClientID: "only-at-b", Detail: "only-at-b"})

	b := e.signedIn(e.a, adminEmail) // records the admin's sign-in, the newest event
	p := b.Get(eventsURL(e.a, nil))
	if p.Status != http.StatusOK {
		t.Fatalf("events page: %d\n%s", p.Status, p.Body)
	}
	want := []string{"sign_in", "grant_revoked", "signing_key_rotated", "sign_in", "consent_approved", "role_changed"}
	if got := eventKinds(p.Body); !slices.Equal(got, want) {
		t.Errorf("kinds on the page: %v, want %v", got, want)
	}
	for _, s := range []string{
		"operator " + adminEmail, studentEmail, "lecturer -&gt; student", "192.0.2.9", "Agent/&lt;b&gt;1&lt;/b&gt;", "req-role",
		"app-1", "openid profile", "an unknown member", "the command line", "kid k-1", "Proctor", "reuse_detected",
		fmt.Sprintf("member %d (removed)", student+1000), `class="badge result failed">failure`,
	} {
		if !strings.Contains(p.Body, s) {
			t.Errorf("the page does not show %q", s)
		}
	}
	if strings.Contains(p.Body, "only-at-b") {
		t.Error("school A's page shows school B's event")
	}

	filter := func(q url.Values, want ...string) {
		t.Helper()
		p := b.Get(eventsURL(e.a, q))
		if got := eventKinds(p.Body); p.Status != http.StatusOK || !slices.Equal(got, want) {
			t.Errorf("filter %v: %d, kinds %v, want %v", q, p.Status, got, want)
		}
	}
	filter(url.Values{"member": {studentEmail}}, "consent_approved", "role_changed")
	filter(url.Values{"member": {" Student@Example.com "}}, "consent_approved", "role_changed")
	filter(url.Values{"member": {fmt.Sprint(admin1)}}, "sign_in", "role_changed")
	filter(url.Values{"member": {fmt.Sprint(student + 1000)}}, "grant_revoked")
	// An address nobody has, and one of a member of another school only: an empty list alike.
	filter(url.Values{"member": {"nobody@example.com"}})
	filter(url.Values{"member": {outsiderEmail}})
	filter(url.Values{"kind": {"sign_in"}}, "sign_in", "sign_in")
	filter(url.Values{"since": {"2026-03-02"}, "until": {"2026-03-04"}}, "signing_key_rotated", "sign_in", "consent_approved")
	filter(url.Values{"member": {studentEmail}, "kind": {"role_changed"}, "until": {"2026-03-01"}}, "role_changed")
	p = b.Get(eventsURL(e.a, url.Values{"kind": {"role_changed"}}))
	if !strings.Contains(p.Body, `<option value="role_changed" selected>`) {
		t.Error("the kind filter is not kept")
	}

	for _, q := range []url.Values{
		{"member": {"not an address"}}, {"member": {"-3"}}, {"kind": {"nonsense"}}, {"since": {"03/01/2026"}},
		{"since": {"2026-03-05"}, "until": {"2026-03-01"}}, {"before": {"x"}}, {"before": {"0"}},
	} {
		if p := b.Get(eventsURL(e.a, q)); p.Status != http.StatusBadRequest || !strings.Contains(p.Body, `id="filter-message"`) {
			t.Errorf("filter %v: %d, want 400 with a message", q, p.Status)
		}
	}
}

func TestEventsPaging(t *testing.T) {
	e := newEnv(t)
	student := e.memberID(studentEmail)
	const n = 120
	for i := range n {
		e.addEvent(e.a, audit.Event{Kind: audit.KindSessionEnded, Actor: audit.ActorMember, ActorID: student, SubjectID: student,
			At: time.Date(2026, time.March, 1, 0, 0, i, 0, time.UTC), Detail: fmt.Sprintf("n%03d", i)})
	}
	b := e.signedIn(e.a, ownerEmail)
	var details []string
	next := eventsURL(e.a, url.Values{"member": {studentEmail}})
	pages := 0
	for next != "" && pages < 10 {
		p := b.Get(next)
		if p.Status != http.StatusOK {
			t.Fatalf("page %d: %d", pages, p.Status)
		}
		pages++
		ids := eventIDPattern.FindAllStringSubmatch(p.Body, -1)
		if len(ids) > 50 {
			t.Errorf("page %d shows %d events", pages, len(ids))
		}
		for _, m := range regexp.MustCompile(`class="note detail">(n[0-9]+)<`).FindAllStringSubmatch(p.Body, -1) {
			details = append(details, m[1])
		}
		next = ""
		if m := regexp.MustCompile(`href="([^"]+)" rel="next" id="older"`).FindStringSubmatch(p.Body); m != nil {
			next = e.a.Origin + html.UnescapeString(m[1])
			if !strings.Contains(next, "member=") {
				t.Errorf("the older link drops the filter: %s", next)
			}
		}
	}
	if pages != 3 || len(details) != n {
		t.Fatalf("%d pages, %d events, want 3 pages of %d events", pages, len(details), n)
	}
	for i, d := range details {
		if want := fmt.Sprintf("n%03d", n-1-i); d != want {
			t.Fatalf("event %d is %s, want %s (newest first)", i, d, want)
		}
	}
}

func TestEventsOnlyOperators(t *testing.T) {
	e := newEnv(t)
	e.addEvent(e.a, audit.Event{Kind: audit.KindSigningKeyRotated, Actor: audit.ActorCLI, Detail: "secret-looking-kid"})
	for _, email := range []string{studentEmail, lecturerEmail} {
		p := e.signedIn(e.a, email).Get(eventsURL(e.a, nil))
		if p.Status != http.StatusForbidden || strings.Contains(p.Body, "secret-looking-kid") {
			t.Errorf("%s: %d, want 403 without the events", email, p.Status)
		}
	}
	// The owner of both schools sees each school's own log at its own host; at B, where the
	// outsider is a student, the outsider is refused.
	e.addEvent(e.b, audit.Event{Kind: audit.KindClientCreated, Actor: audit.ActorCLI, ClientID: "b-client"})
	owner := e.signedIn(e.b, ownerEmail)
	p := owner.Get(eventsURL(e.b, nil))
	if p.Status != http.StatusOK || strings.Contains(p.Body, "secret-looking-kid") || !strings.Contains(p.Body, "b-client") {
		t.Errorf("owner at B: %d, or the page mixes the schools' logs", p.Status)
	}
	if p := e.signedIn(e.b, outsiderEmail).Get(eventsURL(e.b, nil)); p.Status != http.StatusForbidden {
		t.Errorf("student at B: %d, want 403", p.Status)
	}
	// Not signed in: to the sign-in page. A session of school B is nobody at school A.
	if p := e.browser().Get(eventsURL(e.a, nil)); p.Status != http.StatusSeeOther {
		t.Errorf("not signed in: %d, want 303", p.Status)
	}
	if p := owner.Get(eventsURL(e.a, nil)); p.Status != http.StatusSeeOther {
		t.Errorf("B's session at A: %d, want 303 to sign in", p.Status)
	}
}

// The applications pages record what operators do to clients, never a secret.
func TestApplicationEvents(t *testing.T) {
	e := newEnv(t)
	b := e.signedIn(e.a, ownerEmail)
	id, secret, _ := b.createConfidential(e, "Grade Sync")
	confirm := b.Get(e.appsURL(e.a, "/"+id+"/rotate"))
	f := formWith(t, confirm.Body, "csrf_token")
	r := b.Post(resolve(e.appsURL(e.a, ""), f.Action), f.Values)
	newSecret := textOf(t, r.Body, "client-secret")
	confirm = b.Get(e.appsURL(e.a, "/"+id+"/delete"))
	f = formWith(t, confirm.Body, "csrf_token")
	if r := b.Post(resolve(e.appsURL(e.a, ""), f.Action), f.Values); r.Status != http.StatusSeeOther {
		t.Fatalf("delete: %d", r.Status)
	}
	events, err := e.store.ListSecurityEvents(e.ctx(e.a), audit.Filter{
		Kinds: []audit.Kind{audit.KindClientCreated, audit.KindClientSecretRotated, audit.KindClientDeleted}, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []audit.Kind
	owner := e.memberID(ownerEmail)
	for _, ev := range events {
		kinds = append(kinds, ev.Kind)
		if ev.Actor != audit.ActorOperator || ev.ActorID != owner || ev.ClientID != id || ev.RequestID == "" || ev.ClientAddr == "" {
			t.Errorf("event %+v", ev)
		}
		if s := fmt.Sprintf("%+v", ev); strings.Contains(s, secret) || strings.Contains(s, newSecret) {
			t.Errorf("an event holds the client secret: %s", s)
		}
	}
	if want := []audit.Kind{audit.KindClientDeleted, audit.KindClientSecretRotated, audit.KindClientCreated}; !slices.Equal(kinds, want) {
		t.Errorf("kinds %v, want %v", kinds, want)
	}
}
