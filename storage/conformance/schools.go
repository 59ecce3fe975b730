package conformance

import (
	"testing"

	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
)

func testSchools(t *testing.T, s storage.Store) {
	ctxA, _ := syncSchools(t, s)

	got, err := s.GetSchool(ctxA)
	must(t, "GetSchool", err)
	wantEqual(t, "new school", got, storage.School{ID: 1, Subdomain: "a", Name: "School A", UpdatedAt: got.UpdatedAt})
	if got.UpdatedAt.IsZero() {
		t.Error("UpdatedAt is zero")
	}

	// Renaming keeps the operator's settings.
	data := &storage.SchoolData{School: FullSchoolData().School}
	mustImport(t, s, ctxA, data)
	must(t, "SyncSchool rename", s.SyncSchool(t.Context(), 1, "a2", "School A2"))
	got, err = s.GetSchool(ctxA)
	must(t, "GetSchool", err)
	wantEqual(t, "renamed school", got, storage.School{
		ID: 1, Subdomain: "a2", Name: "School A2",
		Settings: *data.School.Settings, Appearance: *data.School.Appearance, UpdatedAt: got.UpdatedAt,
	})

	// Syncing unchanged values is a no-op.
	before := got
	must(t, "SyncSchool again", s.SyncSchool(t.Context(), 1, "a2", "School A2"))
	got, err = s.GetSchool(ctxA)
	must(t, "GetSchool", err)
	wantEqual(t, "school after identical sync", got, before)

	// Another school may not take the subdomain.
	wantErr(t, "SyncSchool with a taken subdomain", s.SyncSchool(t.Context(), 3, "a2", "Copy"), storage.ErrAlreadyExists)

	_, err = s.GetSchool(inSchool(t, &school.School{SchoolID: 99, Subdomain: "zz"}))
	wantErr(t, "GetSchool of a school without a row", err, storage.ErrNotFound)

	_, err = s.GetSchool(t.Context())
	wantErr(t, "GetSchool without a school", err, school.ErrNoSchool)
}
