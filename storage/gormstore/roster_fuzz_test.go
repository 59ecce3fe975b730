package gormstore

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/proctorhq/proctor/roster"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
)

// FuzzRosterSearch: any search text an operator types is matched literally (LIKE's wildcards
// and the escape character escaped), never fails the statement, and finds only members whose
// e-mail or name contains it.
func FuzzRosterSearch(f *testing.F) {
	for _, s := range []string{"", "ada", "ADA", "%", "_", `\`, `\%`, "100%_", "é", "'; DROP TABLE members; --", "\x00", "a\xffb"} {
		f.Add(s)
	}
	s := newSQLiteStore(f)
	tn := &school.School{SchoolID: 1, Subdomain: "a", Name: "A"}
	if err := s.SyncSchool(f.Context(), tn.SchoolID, tn.Subdomain, tn.Name); err != nil {
		f.Fatal(err)
	}
	ctx := school.NewContext(f.Context(), tn)
	for _, m := range []storage.Member{
		{Email: "ada@example.test", Name: "Ada Lovelace"},
		{Email: "percent@example.test", Name: `100%_sure \ back`},
		{Email: "grace@example.test", Name: "Grace Hopper"},
	} {
		m, err := s.CreateMember(f.Context(), m)
		if err != nil {
			f.Fatal(err)
		}
		if err := s.SetRoles(ctx, m.ID, []storage.Role{storage.RoleStudent}); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, search string) {
		got, _, err := s.ListRoster(ctx, roster.Query{Search: search}, time.Now())
		if roster.CheckSearch(search) != nil {
			if !errors.Is(err, storage.ErrInvalidArgument) {
				t.Fatalf("ListRoster(%q) of a refused text: %v", search, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("ListRoster(%q): %v", search, err)
		}
		want := strings.ToLower(strings.TrimSpace(search))
		for _, e := range got {
			// SQLite folds ASCII case only: compare as it does.
			if !strings.Contains(asciiLower(e.Member.Email), want) && !strings.Contains(asciiLower(e.Member.Name), want) {
				t.Errorf("search %q found %q (%q)", search, e.Member.Email, e.Member.Name)
			}
		}
	})
}

func asciiLower(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}
