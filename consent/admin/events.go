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
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/templates"
)

// EventsPath is the security event log's page.
const EventsPath = "/admin/security-events"

// eventsPageSize is how many events one page shows.
const eventsPageSize = 50

// dateLayout is how the page's since and until read (an HTML date input's value).
const dateLayout = "2006-01-02"

// Messages of the events page's filter.
const (
	MsgEventsBadMember = "Enter a member's e-mail address or their id (a number)."
	MsgEventsBadKind   = "Choose a kind from the list."
	MsgEventsBadDate   = "Enter dates as YYYY-MM-DD, the first no later than the second."
	MsgEventsBadPage   = "That page of events does not exist. Start again from the newest."
)

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
		School: v.tenant.Name, Operator: h.operatorView(v), Action: EventsPath,
		Member: strings.TrimSpace(q.Get("member")), Kind: q.Get("kind"), Since: q.Get("since"), Until: q.Get("until"),
	}
	for _, k := range audit.Kinds {
		page.Kinds = append(page.Kinds, templates.SecurityEventKind{Value: string(k), Selected: string(k) == page.Kind})
	}
	f, none, msg, err := h.eventFilter(r, page)
	if err != nil {
		return err
	}
	if msg != "" {
		page.Message = msg
		h.writePage(w, r, http.StatusBadRequest, func(out io.Writer) error { return h.tpl.SecurityEvents(out, page) })
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
			ID: e.ID, At: e.At.UTC().Format("2006-01-02 15:04:05 UTC"), Kind: string(e.Kind), Result: string(e.Result),
			Failed: e.Result == audit.ResultFailure || e.Result == audit.ResultThrottled,
			Client: e.ClientID, Scopes: strings.Join(e.Scopes, " "), Address: e.ClientAddr, Browser: e.UserAgent,
			RequestID: e.RequestID, Detail: e.Detail,
		}
		if item.Actor, err = h.actorName(r, names, e); err != nil {
			return err
		}
		if e.SubjectID != 0 {
			if item.Subject, err = h.memberName(r, names, e.SubjectID); err != nil {
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
	h.writePage(w, r, http.StatusOK, func(out io.Writer) error { return h.tpl.SecurityEvents(out, page) })
	return nil
}

// eventFilter reads the page's query into a filter. none is set when the filter names an
// address nobody has: the answer is an empty list, the same as for a member with no events
// here, so that the page tells nothing about identities of other schools. msg is a sentence
// for a filter that cannot be used.
func (h *Handler) eventFilter(r *http.Request, page templates.SecurityEventsPage) (f audit.Filter, none bool, msg string, err error) {
	f.Limit = eventsPageSize
	if m := page.Member; m != "" {
		if id, perr := strconv.ParseInt(m, 10, 64); perr == nil {
			if id <= 0 {
				return f, false, MsgEventsBadMember, nil
			}
			f.MemberID = id
		} else {
			email := storage.NormaliseEmail(m)
			if !storage.ValidEmail(email) {
				return f, false, MsgEventsBadMember, nil
			}
			found, gerr := h.store.GetMemberByEmail(r.Context(), email)
			switch {
			case errors.Is(gerr, storage.ErrNotFound):
				none = true
			case gerr != nil:
				return f, false, "", fmt.Errorf("admin: look up member: %w", gerr)
			default:
				f.MemberID = found.ID
			}
		}
	}
	if k := audit.Kind(page.Kind); k != "" {
		if !audit.KnownKind(k) {
			return f, false, MsgEventsBadKind, nil
		}
		f.Kinds = []audit.Kind{k}
	}
	if page.Since != "" {
		if f.Since, err = time.Parse(dateLayout, page.Since); err != nil {
			return f, false, MsgEventsBadDate, nil
		}
	}
	if page.Until != "" {
		until, perr := time.Parse(dateLayout, page.Until)
		if perr != nil {
			return f, false, MsgEventsBadDate, nil
		}
		// The day named is included.
		f.Until = until.Add(24 * time.Hour)
	}
	if !f.Since.IsZero() && !f.Until.IsZero() && !f.Since.Before(f.Until) {
		return f, false, MsgEventsBadDate, nil
	}
	if b := r.URL.Query().Get("before"); b != "" {
		id, perr := strconv.ParseInt(b, 10, 64)
		if perr != nil || id <= 0 {
			return f, false, MsgEventsBadPage, nil
		}
		f.BeforeID = id
	}
	return f, none, "", nil
}

// actorName says who did e: a member's or operator's e-mail, or what acted.
func (h *Handler) actorName(r *http.Request, names map[int64]string, e audit.Event) (string, error) {
	switch e.Actor {
	case audit.ActorCLI:
		return "the command line", nil
	case audit.ActorSystem:
		return "Proctor", nil
	}
	if e.ActorID == 0 {
		return "an unknown " + string(e.Actor), nil
	}
	name, err := h.memberName(r, names, e.ActorID)
	if err != nil {
		return "", err
	}
	if e.Actor == audit.ActorOperator {
		return "operator " + name, nil
	}
	return name, nil
}

// memberName is the member's e-mail address, or "member N (removed)" for an identity that no
// longer exists: the log outlives its members.
func (h *Handler) memberName(r *http.Request, names map[int64]string, id int64) (string, error) {
	if n, ok := names[id]; ok {
		return n, nil
	}
	m, err := h.store.GetMember(r.Context(), id)
	switch {
	case errors.Is(err, storage.ErrNotFound):
		names[id] = "member " + strconv.FormatInt(id, 10) + " (removed)"
	case err != nil:
		return "", fmt.Errorf("admin: member %d of an event: %w", id, err)
	default:
		names[id] = m.Email
	}
	return names[id], nil
}
