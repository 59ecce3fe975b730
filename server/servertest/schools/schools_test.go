package schools_test

import (
	"io"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/storage"
)

// TestEnv: both schools are served on the one listener, told apart by Host, with the request
// context the server's middleware gives; an unknown host is not served.
func TestEnv(t *testing.T) {
	e := schools.New(t, schools.Options{})
	e.Handle(schools.Middleware(e.Registry, false, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tn, err := school.FromContext(r.Context())
		info := edge.FromContext(r.Context())
		if err != nil || info == nil || !info.ClientAddr.IsLoopback() {
			http.Error(w, "no school or edge info", http.StatusInternalServerError)
			return
		}
		_, _ = io.WriteString(w, tn.Subdomain)
	})))
	for _, tc := range []struct{ origin, want string }{{e.A.Origin, "north"}, {e.B.Origin, "lumen"}} {
		resp, err := http.Get(tc.origin + "/")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || string(body) != tc.want {
			t.Errorf("%s: %d %q, want %q", tc.origin, resp.StatusCode, body, tc.want)
		}
	}
	req, _ := http.NewRequest(http.MethodGet, e.Server.URL+"/", nil)
	req.Host = "elsewhere.example"
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown host: %d", resp.StatusCode)
	}
	if m := schools.Member(t, e.Store, "ann@example.com", "Ann"); m.PasswordHash != schools.CheapHash() {
		t.Error("the member does not sign in with Password")
	}
}

// Member signs in with Password unless NoPassword, carries its Avatar, and holds at each school
// exactly the roles the last At for that school names; a member without At holds none.
func TestMember(t *testing.T) {
	e := schools.New(t, schools.Options{})
	ann := schools.Member(t, e.Store, "ann@example.com", "Ann")
	bob := schools.Member(t, e.Store, "bob@example.com", "Bob", schools.NoPassword(), schools.Avatar("https://img.example/bob"),
		schools.At(e.A, storage.RoleStudent), schools.At(e.B, storage.RoleOwner), schools.At(e.B, storage.RoleLecturer, storage.RoleAdmin))
	if ann.PasswordHash != schools.CheapHash() || ann.AvatarURL != "" || ann.Name != "Ann" {
		t.Errorf("ann: %+v", ann)
	}
	stored := schools.MemberByEmail(t, e.Store, "bob@example.com")
	if bob.PasswordHash != "" || stored.PasswordHash != "" || stored.AvatarURL != "https://img.example/bob" || stored.Name != "Bob" {
		t.Errorf("bob: %+v", stored)
	}
	for _, tc := range []struct {
		m    storage.Member
		at   *school.School
		want []storage.Role
	}{
		{ann, e.A, nil},
		{ann, e.B, nil},
		{bob, e.A, []storage.Role{storage.RoleStudent}},
		{bob, e.B, []storage.Role{storage.RoleAdmin, storage.RoleLecturer}},
	} {
		got, err := e.Store.GetRoles(schools.Ctx(t, tc.at), tc.m.ID)
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s at %s: %v, want %v", tc.m.Email, tc.at.Subdomain, got, tc.want)
		}
	}
}

func TestClock(t *testing.T) {
	start := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	c := schools.NewClock(start)
	c.Advance(time.Minute)
	if !c.Now().Equal(start.Add(time.Minute)) {
		t.Fatalf("Advance: %v", c.Now())
	}
	c.Set(start)
	if !c.Now().Equal(start) {
		t.Fatalf("Set: %v", c.Now())
	}
}
