package demo_test

import (
	"context"
	"maps"
	"testing"
	"time"

	"github.com/proctorhq/proctor/password"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/seed"
	"github.com/proctorhq/proctor/seed/demo"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/gormstore"
	"github.com/proctorhq/proctor/storage/gormstore/storetest"
)

// Both demo schools apply to one fresh database, twice, with the same result; the member
// holding roles at both ends up as one identity with both schools.
func TestDemoAppliesTwice(t *testing.T) {
	ctx := context.Background()
	st := storetest.Open(t, gormstore.DriverSQLite)
	opts := seed.Options{Params: password.Params{MemoryKiB: 64, Time: 1, Threads: 1}}
	now := time.Now()
	first := map[string]storage.ImportStats{}
	for round := range 2 {
		for _, s := range demo.Schools("127.0.0.1:8080") {
			if err := st.SyncSchool(ctx, s.SchoolID, s.Subdomain, s.Name); err != nil {
				t.Fatal(err)
			}
			sctx := school.NewContext(ctx, &school.School{SchoolID: s.SchoolID, Subdomain: s.Subdomain, Name: s.Name})
			f, err := s.Load(now)
			if err != nil {
				t.Fatal(err)
			}
			stats, err := f.Apply(sctx, st, opts)
			if err != nil {
				t.Fatalf("round %d, %s: %v", round+1, s.FileName, err)
			}
			if round == 0 {
				first[s.Subdomain] = stats
			} else if !maps.Equal(stats, first[s.Subdomain]) {
				t.Errorf("%s: second apply %v, first %v", s.FileName, stats, first[s.Subdomain])
			}
		}
	}

	for _, a := range demo.Accounts() {
		m, err := st.GetMemberByEmail(ctx, a.Email)
		if err != nil {
			t.Fatalf("%s: %v", a.Email, err)
		}
		if err := password.Verify(a.Password, m.PasswordHash); err != nil {
			t.Errorf("%s cannot log in with the printed password: %v", a.Email, err)
		}
		schools, err := st.ListMemberSchools(ctx, m.ID)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, s := range schools {
			if s.Subdomain == a.SchoolSubdomain {
				for _, r := range s.Roles {
					found = found || string(r) == a.Role
				}
			}
		}
		if !found {
			t.Errorf("%s: schools %+v lack %s at %s", a.Email, schools, a.Role, a.SchoolSubdomain)
		}
	}
	jordan, err := st.GetMemberByEmail(ctx, "jordan.lee@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if schools, err := st.ListMemberSchools(ctx, jordan.ID); err != nil || len(schools) != 2 {
		t.Errorf("Jordan's schools = %+v, %v; want both", schools, err)
	}
}
