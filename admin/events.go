package admin

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/i18n"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/templates"
)

// EventsPath is the security event log's page.
const EventsPath = "/admin/security-events"

// eventsPageSize is how many events one page shows.
const eventsPageSize = 50

// dateLayout is how the page's since and until read (an HTML date input's value).
const dateLayout = "2006-01-02"

// filterProblem is why the events page's filter cannot be used; filterText says it.
type filterProblem int

const (
	filterOK filterProblem = iota
	filterBadMember
	filterBadKind
	filterBadDate
	filterBadPage
)

// filterText is the page's sentence about a filter that cannot be used.
func filterText(loc *i18n.Localizer, p filterProblem) string {
	switch p {
	case filterBadMember:
		return loc.Text("admin.events.bad_member")
	case filterBadKind:
		return loc.Text("admin.events.bad_kind")
	case filterBadDate:
		return loc.Text("admin.events.bad_date")
	case filterBadPage:
		return loc.Text("admin.events.bad_page")
	}
	return ""
}

// mountEvents registers the security event log's page (/admin/security-events). It is shown to
// every school's owners and admins, whatever its features; a store that keeps no log (a stand-in
// in some tests) has no page.
func (h *Handler) mountEvents(r *mux.Router) {
	log, ok := h.store.(audit.Store)
	if !ok {
		return
	}
	r.Handle(EventsPath, h.operator(func(w http.ResponseWriter, r *http.Request, v visit) error {
		return h.events(w, r, v, log)
	})).Methods(http.MethodGet)
}

// events shows one page of the school's events, newest first, as the query's filter selects.
// The log is school-scoped by the request's school, like every store call here.
func (h *Handler) events(w http.ResponseWriter, r *http.Request, v visit, log audit.Store) error {
	ctx := r.Context()
	q := r.URL.Query()
	page := templates.SecurityEventsPage{
		School: v.school.Name, Operator: h.operatorView(v), Action: EventsPath,
		Member: strings.TrimSpace(q.Get("member")), Kind: q.Get("kind"), Since: q.Get("since"), Until: q.Get("until"),
	}
	for _, k := range audit.Kinds {
		page.Kinds = append(page.Kinds, templates.SecurityEventKind{Value: string(k), Selected: string(k) == page.Kind})
	}
	f, none, problem, err := h.eventFilter(r)
	if err != nil {
		return err
	}
	if problem != filterOK {
		page.Message = filterText(v.loc, problem)
		h.writePage(w, r, http.StatusBadRequest, func(out io.Writer) error { return h.tpl.SecurityEvents(r.Context(), out, page) })
		return nil
	}
	var events []audit.Event
	if !none {
		if events, err = log.ListSecurityEvents(ctx, f); err != nil {
			return fmt.Errorf("admin: list security events: %w", err)
		}
	}
	names := map[int64]string{}
	for _, e := range events {
		item := templates.SecurityEventItem{
			ID: e.ID, At: v.loc.DateTime(e.At), Kind: string(e.Kind), Result: resultText(v.loc, e.Result),
			Failed: e.Result == audit.ResultFailure || e.Result == audit.ResultThrottled,
			Client: e.ClientID, Scopes: strings.Join(e.Scopes, " "), Address: e.ClientAddr, Browser: e.UserAgent,
			RequestID: e.RequestID, Detail: e.Detail,
		}
		if item.Actor, err = h.actorName(r, v.loc, names, e); err != nil {
			return err
		}
		if e.SubjectID != 0 {
			if item.Subject, err = h.memberName(r, v.loc, names, e.SubjectID); err != nil {
				return err
			}
		}
		page.Events = append(page.Events, item)
	}
	base := url.Values{}
	for k, val := range map[string]string{"member": page.Member, "kind": page.Kind, "since": page.Since, "until": page.Until} {
		if val != "" {
			base.Set(k, val)
		}
	}
	if len(events) == eventsPageSize {
		older := url.Values{}
		for k, vs := range base {
			older[k] = vs
		}
		older.Set("before", strconv.FormatInt(events[len(events)-1].ID, 10))
		page.OlderURL = EventsPath + "?" + older.Encode()
	}
	if f.BeforeID != 0 {
		page.NewestURL = EventsPath
		if len(base) > 0 {
			page.NewestURL += "?" + base.Encode()
		}
	}
	h.writePage(w, r, http.StatusOK, func(out io.Writer) error { return h.tpl.SecurityEvents(r.Context(), out, page) })
	return nil
}

// eventQuery is the page's query, read: the member as an id or a normalised address, and the
// rest of the filter.
type eventQuery struct {
	memberID int64
	email    string
	filter   audit.Filter
}

// readEventQuery reads the page's filter from its query, or says why it cannot be used. It
// looks nothing up.
func readEventQuery(q url.Values) (eq eventQuery, problem filterProblem) {
	eq.filter.Limit = eventsPageSize
	if m := strings.TrimSpace(q.Get("member")); m != "" {
		if id, err := strconv.ParseInt(m, 10, 64); err == nil {
			if id <= 0 {
				return eq, filterBadMember
			}
			eq.memberID = id
		} else {
			eq.email = storage.NormaliseEmail(m)
			if !storage.ValidEmail(eq.email) {
				return eq, filterBadMember
			}
		}
	}
	if k := audit.Kind(q.Get("kind")); k != "" {
		if !audit.KnownKind(k) {
			return eq, filterBadKind
		}
		eq.filter.Kinds = []audit.Kind{k}
	}
	var err error
	if s := q.Get("since"); s != "" {
		if eq.filter.Since, err = time.Parse(dateLayout, s); err != nil {
			return eq, filterBadDate
		}
	}
	if s := q.Get("until"); s != "" {
		until, err := time.Parse(dateLayout, s)
		if err != nil {
			return eq, filterBadDate
		}
		// The day named is included.
		eq.filter.Until = until.Add(24 * time.Hour)
	}
	if f := eq.filter; !f.Since.IsZero() && !f.Until.IsZero() && !f.Since.Before(f.Until) {
		return eq, filterBadDate
	}
	if b := q.Get("before"); b != "" {
		id, err := strconv.ParseInt(b, 10, 64)
		if err != nil || id <= 0 {
			return eq, filterBadPage
		}
		eq.filter.BeforeID = id
	}
	return eq, filterOK
}

// eventFilter reads the page's query into a filter, finding the member of an address. none is
// set when the address is nobody's: the answer is an empty list, the same as for a member with
// no events here, so that the page tells nothing about identities of other schools. msg is a
// filterProblem other than filterOK for a filter that cannot be used.
func (h *Handler) eventFilter(r *http.Request) (f audit.Filter, none bool, problem filterProblem, err error) {
	eq, problem := readEventQuery(r.URL.Query())
	if problem != filterOK {
		return eq.filter, false, problem, nil
	}
	f = eq.filter
	f.MemberID = eq.memberID
	if eq.email != "" {
		m, err := h.store.GetMemberByEmail(r.Context(), eq.email)
		switch {
		case errors.Is(err, storage.ErrNotFound):
			return f, true, filterOK, nil
		case err != nil:
			return f, false, filterOK, fmt.Errorf("admin: look up member: %w", err)
		}
		f.MemberID = m.ID
	}
	return f, false, filterOK, nil
}

// resultText is an event's result as the page says it.
func resultText(loc *i18n.Localizer, r audit.Result) string {
	switch r {
	case audit.ResultSuccess:
		return loc.Text("admin.events.result.success")
	case audit.ResultFailure:
		return loc.Text("admin.events.result.failure")
	case audit.ResultThrottled:
		return loc.Text("admin.events.result.throttled")
	}
	return string(r)
}

// actorName says who did e: a member's or operator's e-mail, or what acted.
func (h *Handler) actorName(r *http.Request, loc *i18n.Localizer, names map[int64]string, e audit.Event) (string, error) {
	switch e.Actor {
	case audit.ActorCLI:
		return loc.Text("admin.events.actor.cli"), nil
	case audit.ActorSystem:
		return loc.Text("admin.events.actor.system"), nil
	}
	if e.ActorID == 0 {
		switch e.Actor {
		case audit.ActorMember:
			return loc.Text("admin.events.actor.unknown_member"), nil
		case audit.ActorOperator:
			return loc.Text("admin.events.actor.unknown_operator"), nil
		}
		return loc.Text("admin.events.actor.unknown", "Actor", string(e.Actor)), nil
	}
	name, err := h.memberName(r, loc, names, e.ActorID)
	if err != nil {
		return "", err
	}
	if e.Actor == audit.ActorOperator {
		return loc.Text("admin.events.actor.operator", "Name", name), nil
	}
	return name, nil
}

// memberName is the member's e-mail address, or "member N (removed)" for an identity that no
// longer exists: the log outlives its members.
func (h *Handler) memberName(r *http.Request, loc *i18n.Localizer, names map[int64]string, id int64) (string, error) {
	if n, ok := names[id]; ok {
		return n, nil
	}
	m, err := h.store.GetMember(r.Context(), id)
	switch {
	case errors.Is(err, storage.ErrNotFound):
		names[id] = loc.Text("admin.events.removed_member", "ID", strconv.FormatInt(id, 10))
	case err != nil:
		return "", fmt.Errorf("admin: member %d of an event: %w", id, err)
	default:
		names[id] = m.Email
	}
	return names[id], nil
}
