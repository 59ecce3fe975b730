package conformance

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/proctorhq/proctor/account/accountstore"
	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/roster"
	"github.com/proctorhq/proctor/storage"
)

// testRoster: members of the school only, by id, paged; search by e-mail or name ignoring
// case, wildcards taken literally; password, live invitation and latest sign-in per school.
func testRoster(t *testing.T, s storage.Store) {
	rs, as := narrow[roster.Store](t, s), narrow[accountstore.Store](t, s)
	es := narrow[audit.Store](t, s)
	ctxA, ctxB := syncSchools(t, s)
	var ids []int64
	for i, m := range []struct {
		email, name, hash string
		a, b              storage.Role
	}{
		{"ada@example.test", "Ada Lovelace", "hash", storage.RoleOwner, ""},
		{"grace@example.test", "Grace HOPPER", "", storage.RoleStudent, storage.RoleOwner},
		{"edsger@example.test", "Edsger 100%_sure", "hash", storage.RoleLecturer, ""},
		{"barbara@liskov.test", "Barbara", "hash", "", storage.RoleStudent}, // B only
		{"alan@example.test", "Alan", "", storage.RoleAdmin, ""},
	} {
		mem, err := s.CreateMember(t.Context(), storage.Member{Email: m.email, Name: m.name, PasswordHash: m.hash})
		must(t, "CreateMember", err)
		ids = append(ids, mem.ID)
		if m.a != "" {
			must(t, fmt.Sprint("SetRoles at A ", i), s.SetRoles(ctxA, mem.ID, []storage.Role{m.a}))
		}
		if m.b != "" {
			must(t, fmt.Sprint("SetRoles at B ", i), s.SetRoles(ctxB, mem.ID, []storage.Role{m.b}))
		}
	}
	ada, grace, edsger, barbara, alan := ids[0], ids[1], ids[2], ids[3], ids[4]
	must(t, "SetRoles", s.SetRoles(ctxA, ada, []storage.Role{storage.RoleStudent, storage.RoleOwner}))

	// Grace is invited at A (a live link); Alan's invitation has expired; Grace's link at B and
	// a used one do not count at A.
	link := func(id string, m int64, exp int) accountstore.Link {
		l := linkOf(id, m, accountstore.PurposeInvitation)
		l.ExpiresAt = at(exp, 8)
		return l
	}
	must(t, "CreateLink", as.CreateLink(ctxA, link("inv-grace", grace, 20)))
	must(t, "CreateLink", as.CreateLink(ctxA, link("inv-alan", alan, 5)))
	must(t, "CreateLink", as.CreateLink(ctxB, link("inv-grace-b", grace, 25)))
	// Sign-ins: Ada by an event, later than her session; Edsger by a session only; Grace at B only.
	signIn := func(ctx context.Context, m int64, when time.Time, res audit.Result, kind audit.Kind) {
		t.Helper()
		must(t, "AppendSecurityEvent", es.AppendSecurityEvent(ctx, audit.Event{Kind: kind, Result: res, At: when,
			Actor: audit.ActorMember, ActorID: m, SubjectID: m}))
	}
	signIn(ctxA, ada, at(6, 1), audit.ResultSuccess, audit.KindSignIn)
	signIn(ctxA, ada, at(9, 1), audit.ResultSuccess, audit.KindPasswordChanged)
	signIn(ctxA, ada, at(9, 2), audit.ResultFailure, audit.KindSignIn)
	// An operator acting on Ada is no sign-in of hers.
	must(t, "AppendSecurityEvent", es.AppendSecurityEvent(ctxA, audit.Event{Kind: audit.KindLockoutLifted, At: at(9, 3),
		Actor: audit.ActorOperator, ActorID: alan, SubjectID: ada}))
	must(t, "CreateLoginSession", s.CreateLoginSession(ctxA, storage.LoginSession{ID: "s-ada", MemberID: ada, CreatedAt: at(5, 1), ExpiresAt: at(30, 0)}))
	must(t, "CreateLoginSession", s.CreateLoginSession(ctxA, storage.LoginSession{ID: "s-ed", MemberID: edsger, CreatedAt: at(7, 1), ExpiresAt: at(30, 0)}))
	signIn(ctxB, grace, at(8, 1), audit.ResultSuccess, audit.KindSignIn)

	now := at(10, 0)
	list, next, err := rs.ListRoster(ctxA, roster.Query{}, now)
	must(t, "ListRoster", err)
	if next != "" {
		t.Errorf("one page: next %q", next)
	}
	got := map[int64]roster.Entry{}
	var order []int64
	for _, e := range list {
		got[e.Member.ID] = e
		order = append(order, e.Member.ID)
		if e.Member.PasswordHash != "" {
			t.Errorf("entry of member %d carries the password hash", e.Member.ID)
		}
	}
	wantEqual(t, "members of A by id", order, []int64{ada, grace, edsger, alan})
	if _, ok := got[barbara]; ok {
		t.Error("a member of B only is on A's roster")
	}
	wantEqual(t, "Ada's roles", got[ada].Roles, []storage.Role{storage.RoleOwner, storage.RoleStudent})
	for _, c := range []struct {
		who        string
		id         int64
		canSignIn  bool // has a password
		invitation bool
		invited    bool
		lastSignIn string
	}{
		{"Ada", ada, true, false, false, at(6, 1).String()},
		{"Grace", grace, false, true, true, ""},
		{"Edsger", edsger, true, false, false, at(7, 1).String()},
		{"Alan", alan, false, false, false, ""},
	} {
		e := got[c.id]
		last := ""
		if !e.LastSignInAt.IsZero() {
			last = e.LastSignInAt.UTC().String()
		}
		if fmt.Sprint(e.HasPassword) != fmt.Sprint(c.canSignIn) || e.InvitationExpiresAt.IsZero() == c.invitation || e.Invited() != c.invited || last != c.lastSignIn {
			t.Errorf("%s: %+v; want password %v, invitation %v, invited %v, last sign-in %q", c.who, e, c.canSignIn, c.invitation, c.invited, c.lastSignIn)
		}
	}
	if !got[grace].InvitationExpiresAt.Equal(at(20, 8)) {
		t.Errorf("Grace's invitation expires %v at A, want %v", got[grace].InvitationExpiresAt, at(20, 8))
	}
	// Past its expiry, the invitation is no longer live.
	later, _, err := rs.ListRoster(ctxA, roster.Query{Search: "grace"}, at(21, 0))
	must(t, "ListRoster later", err)
	if len(later) != 1 || later[0].Invited() {
		t.Errorf("Grace after her invitation expired: %+v", later)
	}

	// Paging: two a page, in id order, the cursor continuing.
	var paged []int64
	after := ""
	for range 5 {
		page, next, err := rs.ListRoster(ctxA, roster.Query{Page: storage.Page{First: 2, After: after}}, now)
		must(t, "ListRoster page", err)
		for _, e := range page {
			paged = append(paged, e.Member.ID)
		}
		if after = next; after == "" {
			break
		}
	}
	wantEqual(t, "paged roster", paged, []int64{ada, grace, edsger, alan})
	_, _, err = rs.ListRoster(ctxA, roster.Query{Page: storage.Page{After: "junk"}}, now)
	wantErr(t, "ListRoster with a junk cursor", err, storage.ErrInvalidArgument)

	// Search.
	for _, c := range []struct {
		search string
		want   []int64
	}{
		{"HOPPER", []int64{grace}},
		{"hopper", []int64{grace}},
		{"  ada@EXAMPLE ", []int64{ada}},
		{"example.test", []int64{ada, grace, edsger, alan}},
		{"liskov", nil}, // B's member
		{"barbara", nil},
		{"%", []int64{edsger}},
		{"_", []int64{edsger}},
		{"100%_s", []int64{edsger}},
		{"a%a", nil},
		{`\`, nil},
		{"nobody", nil},
	} {
		page, _, err := rs.ListRoster(ctxA, roster.Query{Search: c.search}, now)
		must(t, "ListRoster search "+c.search, err)
		var found []int64
		for _, e := range page {
			found = append(found, e.Member.ID)
		}
		wantEqual(t, fmt.Sprintf("search %q", c.search), found, c.want)
	}
	for what, search := range map[string]string{
		"a long search": strings.Repeat("a", roster.MaxSearch+1), "a NUL": "a\x00", "a line break": "a\nb", "no UTF-8": "a\xffb",
	} {
		_, _, err = rs.ListRoster(ctxA, roster.Query{Search: search}, now)
		wantErr(t, "ListRoster with "+what, err, storage.ErrInvalidArgument)
	}

	// One entry: a member of the school, or not found.
	e, err := rs.GetRosterEntry(ctxA, ada, now)
	must(t, "GetRosterEntry", err)
	wantEqual(t, "GetRosterEntry", e, got[ada])
	for what, id := range map[string]int64{"a member of B only": barbara, "an unknown member": alan + 1000} {
		_, err := rs.GetRosterEntry(ctxA, id, now)
		wantErr(t, "GetRosterEntry of "+what, err, storage.ErrNotFound)
	}
	// At B, B's view.
	e, err = rs.GetRosterEntry(ctxB, grace, now)
	must(t, "GetRosterEntry at B", err)
	if !e.LastSignInAt.Equal(at(8, 1)) || !e.InvitationExpiresAt.Equal(at(25, 8)) || e.Roles[0] != storage.RoleOwner {
		t.Errorf("Grace at B: %+v", e)
	}
}

// testRevokeSchoolGrants: the member's pairs and codes at the school go, not elsewhere, not
// another member's.
func testRevokeSchoolGrants(t *testing.T, s storage.Store) {
	rs := narrow[roster.Store](t, s)
	ctxA, ctxB, member := oauthSetup(t, s)
	other := otherMember(t, s)
	mustPair(t, s, ctxA, pairOf("app-1", "r1", "a1", member))
	mustPair(t, s, ctxA, pairOf("app-2", "r2", "a2", member))
	mustPair(t, s, ctxA, pairOf("app-1", "r3", "g1", other.ID))
	mustPair(t, s, ctxB, pairOf("app-b", "r4", "b1", member))
	must(t, "CreateAuthorizationCode", s.CreateAuthorizationCode(ctxA, codeOf("app-1", "r5", "code-a", member)))
	must(t, "CreateAuthorizationCode", s.CreateAuthorizationCode(ctxB, codeOf("app-b", "r6", "code-b", member)))

	n, err := rs.RevokeSchoolGrants(ctxA, member, at(10, 0))
	must(t, "RevokeSchoolGrants", err)
	if n != 2 {
		t.Errorf("RevokeSchoolGrants revoked %d pairs, want 2", n)
	}
	for _, sig := range []string{"at-a1", "at-a2"} {
		if p := getPair(t, s, ctxA, sig); p.RevokedAt == nil || !p.RevokedAt.Equal(at(10, 0)) {
			t.Errorf("pair %s: revoked %v", sig, p.RevokedAt)
		}
	}
	if p := getPair(t, s, ctxA, "at-g1"); p.RevokedAt != nil {
		t.Error("another member's pair was revoked")
	}
	if p := getPair(t, s, ctxB, "at-b1"); p.RevokedAt != nil {
		t.Error("the member's pair at another school was revoked")
	}
	if c, err := s.GetAuthorizationCode(ctxA, "code-a"); err != nil || c.Active {
		t.Errorf("the member's code at A: %+v, %v", c, err)
	}
	if c, err := s.GetAuthorizationCode(ctxB, "code-b"); err != nil || !c.Active {
		t.Errorf("the member's code at B: %+v, %v", c, err)
	}
	if n, err := rs.RevokeSchoolGrants(ctxA, member, at(11, 0)); err != nil || n != 0 {
		t.Errorf("RevokeSchoolGrants again: %d, %v", n, err)
	}
	if _, err := rs.RevokeSchoolGrants(t.Context(), member, at(11, 0)); err == nil {
		t.Error("RevokeSchoolGrants without a school succeeded")
	}
}
