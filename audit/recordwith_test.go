package audit_test

import (
	"errors"
	"testing"
	"time"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/school"
)

// RecordWith hands the writer the event filled in as Record fills it, and counts it only when
// the writer succeeds; a nil recorder hands it nothing.
func TestRecordWith(t *testing.T) {
	var nilRec *audit.Recorder
	if err := nilRec.RecordWith(t.Context(), audit.Event{Kind: audit.KindConsentApproved}, func(e *audit.Event) error {
		if e != nil {
			t.Errorf("a nil recorder handed the writer %+v", e)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	now := time.Date(2026, time.May, 1, 9, 0, 0, 0, time.UTC)
	var counted []audit.Kind
	rec := audit.NewRecorder(nil, nil, audit.WithClock(func() time.Time { return now }),
		audit.WithCounter(func(_ int64, k audit.Kind, _ audit.Result) { counted = append(counted, k) }))
	ctx := school.NewContext(t.Context(), &school.School{SchoolID: 3, Subdomain: "c"})

	var got audit.Event
	err := rec.RecordWith(ctx, audit.Event{Kind: audit.KindConsentApproved}, func(e *audit.Event) error {
		got = *e
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got.SchoolID != 3 || !got.At.Equal(now) || got.Result != audit.ResultSuccess {
		t.Errorf("the writer got %+v", got)
	}
	refused := errors.New("refused")
	if err := rec.RecordWith(ctx, audit.Event{Kind: audit.KindConsentDenied}, func(*audit.Event) error { return refused }); !errors.Is(err, refused) {
		t.Errorf("the writer's error came back as %v", err)
	}
	if len(counted) != 1 || counted[0] != audit.KindConsentApproved {
		t.Errorf("counted %v, want the one written event", counted)
	}
}
