package audit

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/school"
)

// Recorder appends events to a Store, filling in what the request context knows, and counts
// them. A nil *Recorder records nothing, so a package may take one as optional.
type Recorder struct {
	store Store
	log   *slog.Logger
	now   func() time.Time
	// count, if set, is called once per recorded event (the Prometheus counter by school, kind
	// and result).
	count func(schoolID int64, k Kind, res Result)
}

// Option configures a Recorder.
type Option func(*Recorder)

// WithCounter has the recorder call count once per recorded event (after the store accepted
// it): the server's Prometheus counter by school, kind and result.
func WithCounter(count func(schoolID int64, k Kind, res Result)) Option {
	return func(rec *Recorder) { rec.count = count }
}

// WithClock sets the clock that dates events recorded without a time (tests).
func WithClock(now func() time.Time) Option {
	return func(rec *Recorder) {
		if now != nil {
			rec.now = now
		}
	}
}

// NewRecorder returns a recorder over store. log may be nil (discard).
func NewRecorder(store Store, log *slog.Logger, opts ...Option) *Recorder {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	rec := &Recorder{store: store, log: log, now: time.Now}
	for _, o := range opts {
		o(rec)
	}
	return rec
}

// Record appends e and returns the store's error, for callers that record inside a transaction
// and must roll back without it. Result defaults to ResultSuccess; At, RequestID and
// ClientAddr default to the clock and the request context's edge.Info.
func (rec *Recorder) Record(ctx context.Context, e Event) error {
	return rec.RecordWith(ctx, e, func(e *Event) error {
		if e == nil { // a nil Recorder
			return nil
		}
		return rec.store.AppendSecurityEvent(ctx, *e)
	})
}

// RecordWith records e through write instead of the store: for an event that goes to the
// database in the same statement as the change it tells of (the consent with its code), so that
// neither is stored without the other. write gets e filled in like Record's (nil from a nil
// Recorder, which records nothing) and the event is counted once write succeeds.
func (rec *Recorder) RecordWith(ctx context.Context, e Event, write func(*Event) error) error {
	if rec == nil {
		return write(nil)
	}
	e = rec.fill(ctx, e)
	if err := write(&e); err != nil {
		return err
	}
	if rec.count != nil {
		rec.count(e.SchoolID, e.Kind, e.Result)
	}
	return nil
}

// Note appends e like Record and logs a failure instead of returning it: for events recorded
// after the fact they tell of (a sign-in is not undone because its record failed).
func (rec *Recorder) Note(ctx context.Context, e Event) {
	if err := rec.Record(ctx, e); err != nil {
		rec.log.ErrorContext(ctx, "security event not recorded", "kind", string(e.Kind), "request_id", edge.FromContext(ctx).ID, "err", err)
	}
}

// FromRequest returns e with the request's User-Agent (ClipUserAgent), for events of a
// browser's or client's request.
func FromRequest(r *http.Request, e Event) Event {
	e.UserAgent = ClipUserAgent(r.UserAgent())
	return e
}

// MemberEvent is the event of kind of a member acting on their own account through r: the
// member (0 when unknown, as for a failed sign-in) is both actor and subject, and the request's
// User-Agent comes with it (FromRequest). Its address and id come from the context when it is
// recorded; a caller sets Result and At when they are not the Recorder's defaults.
func MemberEvent(r *http.Request, memberID int64, kind Kind, detail string) Event {
	return FromRequest(r, Event{Kind: kind, Actor: ActorMember, ActorID: memberID, SubjectID: memberID, Detail: detail})
}

func (rec *Recorder) fill(ctx context.Context, e Event) Event {
	if e.Result == "" {
		e.Result = ResultSuccess
	}
	if e.At.IsZero() {
		e.At = rec.now().UTC()
	}
	if t, err := school.FromContext(ctx); err == nil {
		e.SchoolID = t.SchoolID
	}
	info := edge.FromContext(ctx)
	if e.RequestID == "" {
		e.RequestID = info.ID
	}
	if e.ClientAddr == "" && info.ClientAddr.IsValid() {
		e.ClientAddr = info.ClientAddr.Unmap().String()
	}
	return e
}
