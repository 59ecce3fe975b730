package conformance

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/proctorhq/proctor/account/accountstore"
	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
)

// linkOf is an unused link of the member, made at day 1 and expiring at day 2.
func linkOf(id string, member int64, purpose accountstore.Purpose) accountstore.Link {
	return accountstore.Link{
		ID: id, MemberID: member, Purpose: purpose, Email: "ada@example.test", PasswordStamp: "stamp-" + id,
		CreatedAt: at(1, 8), ExpiresAt: at(2, 8),
	}
}

func testAccountLinks(t *testing.T, s storage.Store) {
	as := narrow[accountstore.Store](t, s)
	ctxA, _, member := oauthSetup(t, s)
	inv := linkOf("link-1", member, accountstore.PurposeInvitation)
	must(t, "CreateLink", as.CreateLink(ctxA, inv))
	got, err := as.GetLink(ctxA, "link-1", accountstore.PurposeInvitation, at(1, 9))
	must(t, "GetLink", err)
	want := inv
	want.SchoolID = schoolA.SchoolID
	wantEqual(t, "stored link", got, want)

	wantErr(t, "CreateLink with a taken id", as.CreateLink(ctxA, inv), storage.ErrAlreadyExists)
	unknown := linkOf("link-x", member+1000, accountstore.PurposeInvitation)
	wantErr(t, "CreateLink for an unknown member", as.CreateLink(ctxA, unknown), storage.ErrNotFound)
	wantErr(t, "CreateLink without an id", as.CreateLink(ctxA, linkOf("", member, accountstore.PurposeReset)), storage.ErrInvalidArgument)

	// Not found, whatever the reason: another purpose, expiry (at the expiry itself too), an
	// unknown id.
	for _, c := range []struct {
		what    string
		id      string
		purpose accountstore.Purpose
		at      time.Time
	}{
		{"of another purpose", "link-1", accountstore.PurposeReset, at(1, 9)},
		{"at its expiry", "link-1", accountstore.PurposeInvitation, at(2, 8)},
		{"after its expiry", "link-1", accountstore.PurposeInvitation, at(3, 8)},
		{"of an unknown id", "nope", accountstore.PurposeInvitation, at(1, 9)},
	} {
		_, err := as.GetLink(ctxA, c.id, c.purpose, c.at)
		wantErr(t, "GetLink "+c.what, err, storage.ErrNotFound)
		_, err = as.ConsumeLink(ctxA, c.id, c.purpose, c.at)
		wantErr(t, "ConsumeLink "+c.what, err, storage.ErrNotFound)
	}

	// Consumed once, then gone for both reads.
	used, err := as.ConsumeLink(ctxA, "link-1", accountstore.PurposeInvitation, at(1, 10))
	must(t, "ConsumeLink", err)
	want.UsedAt = at(1, 10)
	wantEqual(t, "consumed link", used, want)
	_, err = as.ConsumeLink(ctxA, "link-1", accountstore.PurposeInvitation, at(1, 11))
	wantErr(t, "ConsumeLink twice", err, storage.ErrNotFound)
	_, err = as.GetLink(ctxA, "link-1", accountstore.PurposeInvitation, at(1, 11))
	wantErr(t, "GetLink of a used link", err, storage.ErrNotFound)

	// A new link of a member and purpose replaces the unused earlier one, and only that one.
	other := otherMember(t, s)
	must(t, "CreateLink", as.CreateLink(ctxA, linkOf("reset-1", member, accountstore.PurposeReset)))
	must(t, "CreateLink", as.CreateLink(ctxA, linkOf("invite-2", member, accountstore.PurposeInvitation)))
	must(t, "CreateLink", as.CreateLink(ctxA, linkOf("reset-grace", other.ID, accountstore.PurposeReset)))
	must(t, "CreateLink", as.CreateLink(ctxA, linkOf("reset-2", member, accountstore.PurposeReset)))
	_, err = as.GetLink(ctxA, "reset-1", accountstore.PurposeReset, at(1, 9))
	wantErr(t, "GetLink of a replaced link", err, storage.ErrNotFound)
	for _, l := range []struct {
		id      string
		purpose accountstore.Purpose
	}{{"reset-2", accountstore.PurposeReset}, {"invite-2", accountstore.PurposeInvitation}, {"reset-grace", accountstore.PurposeReset}} {
		if _, err := as.GetLink(ctxA, l.id, l.purpose, at(1, 9)); err != nil {
			t.Errorf("GetLink %s after another link replaced reset-1: %v", l.id, err)
		}
	}

	// DeleteMemberLinks ends the member's unused links of the purpose at every school, no one
	// else's, and not those of other purposes.
	ctxB := inSchool(t, schoolB)
	must(t, "CreateLink at B", as.CreateLink(ctxB, linkOf("reset-b", member, accountstore.PurposeReset)))
	must(t, "DeleteMemberLinks", as.DeleteMemberLinks(t.Context(), member, accountstore.PurposeReset))
	_, err = as.GetLink(ctxA, "reset-2", accountstore.PurposeReset, at(1, 9))
	wantErr(t, "GetLink at A after DeleteMemberLinks", err, storage.ErrNotFound)
	_, err = as.GetLink(ctxB, "reset-b", accountstore.PurposeReset, at(1, 9))
	wantErr(t, "GetLink at B after DeleteMemberLinks", err, storage.ErrNotFound)
	if _, err := as.GetLink(ctxA, "reset-grace", accountstore.PurposeReset, at(1, 9)); err != nil {
		t.Errorf("another member's link went with DeleteMemberLinks: %v", err)
	}
	if _, err := as.GetLink(ctxA, "invite-2", accountstore.PurposeInvitation, at(1, 9)); err != nil {
		t.Errorf("a link of another purpose went with DeleteMemberLinks: %v", err)
	}
}

func testAccountLinkIsolation(t *testing.T, s storage.Store) {
	as := narrow[accountstore.Store](t, s)
	ctxA, ctxB, member := oauthSetup(t, s)
	must(t, "CreateLink at A", as.CreateLink(ctxA, linkOf("link-a", member, accountstore.PurposeReset)))
	_, err := as.GetLink(ctxB, "link-a", accountstore.PurposeReset, at(1, 9))
	wantErr(t, "GetLink of A's link at B", err, storage.ErrNotFound)
	_, err = as.ConsumeLink(ctxB, "link-a", accountstore.PurposeReset, at(1, 9))
	wantErr(t, "ConsumeLink of A's link at B", err, storage.ErrNotFound)
	// A new link at B does not replace A's.
	must(t, "CreateLink at B", as.CreateLink(ctxB, linkOf("link-b", member, accountstore.PurposeReset)))
	got, err := as.ConsumeLink(ctxA, "link-a", accountstore.PurposeReset, at(1, 9))
	must(t, "ConsumeLink at A", err)
	if got.SchoolID != schoolA.SchoolID {
		t.Errorf("link of school %d, want %d", got.SchoolID, schoolA.SchoolID)
	}
	if l, err := as.GetLink(ctxB, "link-b", accountstore.PurposeReset, at(1, 9)); err != nil || l.SchoolID != schoolB.SchoolID {
		t.Errorf("GetLink at B: %+v, %v", l, err)
	}

	// Without a school, the school-scoped methods refuse.
	ctx := t.Context()
	calls := map[string]func() error{
		"CreateLink": func() error { return as.CreateLink(ctx, linkOf("link-none", member, accountstore.PurposeReset)) },
		"GetLink": func() error {
			_, err := as.GetLink(ctx, "link-b", accountstore.PurposeReset, at(1, 9))
			return err
		},
		"ConsumeLink": func() error {
			_, err := as.ConsumeLink(ctx, "link-b", accountstore.PurposeReset, at(1, 9))
			return err
		},
		"ListMemberSessions":  func() error { _, err := as.ListMemberSessions(ctx, member, at(1, 9)); return err },
		"DeleteMemberSession": func() error { return as.DeleteMemberSession(ctx, member, "x") },
		"DeleteOtherSessions": func() error { _, err := as.DeleteOtherSessions(ctx, member, "", false); return err },
		"ListConnectedApps":   func() error { _, err := as.ListConnectedApps(ctx, member, at(1, 9)); return err },
		"RevokeConnectedApp": func() error {
			_, err := as.RevokeConnectedApp(ctx, member, "app", at(1, 9))
			return err
		},
		"AppendSecurityEvent": func() error {
			return as.AppendSecurityEvent(ctx, accountstore.Event{Kind: audit.KindSignIn, Actor: audit.ActorMember, ActorID: member, At: at(1, 9)})
		},
		"ListSecurityEvents": func() error { _, err := as.ListSecurityEvents(ctx, audit.Filter{MemberID: member}); return err },
	}
	for name, call := range calls {
		wantErr(t, name+" without a school", call(), school.ErrNoSchool)
	}
	if _, err := as.GetLink(ctxB, "link-b", accountstore.PurposeReset, at(1, 9)); err != nil {
		t.Errorf("GetLink at B after the refused calls: %v", err)
	}
}

func testConcurrentConsumeLink(t *testing.T, s storage.Store) {
	as := narrow[accountstore.Store](t, s)
	ctxA, _, member := oauthSetup(t, s)
	const rounds, racers = 3, 8
	for round := range rounds {
		id := fmt.Sprintf("race-%d", round)
		must(t, "CreateLink", as.CreateLink(ctxA, linkOf(id, member, accountstore.PurposeInvitation)))
		exactlyOneWins(t, fmt.Sprintf("round %d: consumers of one link", round), racers, func() error {
			_, err := as.ConsumeLink(ctxA, id, accountstore.PurposeInvitation, at(1, 9))
			return err
		})
	}
}

func testMemberSessions(t *testing.T, s storage.Store) {
	as := narrow[accountstore.Store](t, s)
	ctxA, ctxB, member := oauthSetup(t, s)
	other := otherMember(t, s)
	session := func(ctx context.Context, id string, m int64, seen, expires time.Time) storage.LoginSession {
		ls := storage.LoginSession{ID: id, MemberID: m, CreatedAt: at(1, 0), LastSeenAt: seen, ExpiresAt: expires,
			UserAgent: "Browser " + id, ClientAddr: "192.0.2.1"}
		must(t, "CreateLoginSession "+id, s.CreateLoginSession(ctx, ls))
		return ls
	}
	s1 := session(ctxA, "s-1", member, at(2, 0), at(20, 0))
	s2 := session(ctxA, "s-2", member, at(4, 0), at(20, 0))
	s3 := session(ctxA, "s-3", member, at(3, 0), at(20, 0))
	session(ctxA, "s-expired", member, at(5, 0), at(9, 0))
	session(ctxA, "s-grace", other.ID, at(5, 0), at(20, 0))
	session(ctxB, "s-b", member, at(5, 0), at(20, 0))

	// The stored session carries its browser and address.
	got, _, err := s.GetLoginSession(ctxA, "s-1")
	must(t, "GetLoginSession", err)
	wantEqual(t, "stored session", got, s1)

	info := func(ls storage.LoginSession) accountstore.SessionInfo {
		return accountstore.SessionInfo{ID: ls.ID, CreatedAt: ls.CreatedAt, LastSeenAt: ls.LastSeenAt, ExpiresAt: ls.ExpiresAt,
			UserAgent: ls.UserAgent, ClientAddr: ls.ClientAddr}
	}
	list, err := as.ListMemberSessions(ctxA, member, at(10, 0))
	must(t, "ListMemberSessions", err)
	wantEqual(t, "the member's live sessions at A, latest seen first", list,
		[]accountstore.SessionInfo{info(s2), info(s3), info(s1)})

	wantErr(t, "DeleteMemberSession of another member's session", as.DeleteMemberSession(ctxA, member, "s-grace"), storage.ErrNotFound)
	wantErr(t, "DeleteMemberSession of the member's session at B", as.DeleteMemberSession(ctxA, member, "s-b"), storage.ErrNotFound)
	wantErr(t, "DeleteMemberSession of an unknown id", as.DeleteMemberSession(ctxA, member, "nope"), storage.ErrNotFound)
	must(t, "DeleteMemberSession", as.DeleteMemberSession(ctxA, member, "s-3"))
	_, _, err = s.GetLoginSession(ctxA, "s-3")
	wantErr(t, "GetLoginSession of a deleted session", err, storage.ErrNotFound)
	for ctx, id := range map[context.Context]string{ctxA: "s-grace", ctxB: "s-b"} {
		if _, _, err := s.GetLoginSession(ctx, id); err != nil {
			t.Errorf("session %s after the refused deletes: %v", id, err)
		}
	}

	// At A only, keeping s-1: s-2 and the expired one go; Grace's and B's stay.
	n, err := as.DeleteOtherSessions(ctxA, member, "s-1", false)
	must(t, "DeleteOtherSessions", err)
	if n != 2 {
		t.Errorf("DeleteOtherSessions at A ended %d sessions, want 2", n)
	}
	list, err = as.ListMemberSessions(ctxA, member, at(10, 0))
	must(t, "ListMemberSessions", err)
	wantEqual(t, "sessions left at A", list, []accountstore.SessionInfo{info(s1)})
	if _, _, err := s.GetLoginSession(ctxB, "s-b"); err != nil {
		t.Errorf("the session at B after DeleteOtherSessions at A: %v", err)
	}

	// Everywhere, keeping s-1: B's goes too; Grace's stays.
	session(ctxA, "s-4", member, at(6, 0), at(20, 0))
	n, err = as.DeleteOtherSessions(ctxA, member, "s-1", true)
	must(t, "DeleteOtherSessions everywhere", err)
	if n != 2 {
		t.Errorf("DeleteOtherSessions everywhere ended %d sessions, want 2", n)
	}
	_, _, err = s.GetLoginSession(ctxB, "s-b")
	wantErr(t, "the session at B after DeleteOtherSessions everywhere", err, storage.ErrNotFound)
	for _, id := range []string{"s-1", "s-grace"} {
		if _, _, err := s.GetLoginSession(ctxA, id); err != nil {
			t.Errorf("session %s after DeleteOtherSessions everywhere: %v", id, err)
		}
	}
	// Keeping none, without a school (everywhere needs none).
	n, err = as.DeleteOtherSessions(t.Context(), member, "", true)
	must(t, "DeleteOtherSessions everywhere keeping none", err)
	if n != 1 {
		t.Errorf("DeleteOtherSessions keeping none ended %d sessions, want 1", n)
	}
	if _, _, err := s.GetLoginSession(ctxA, "s-grace"); err != nil {
		t.Errorf("another member's session after DeleteOtherSessions: %v", err)
	}
}

func testConnectedApps(t *testing.T, s storage.Store) {
	as := narrow[accountstore.Store](t, s)
	ctxA, ctxB, member := oauthSetup(t, s)
	other := otherMember(t, s)
	zed := publicClient("app-z")
	zed.Name = "Zed"
	_, err := s.CreateClient(ctxA, zed)
	must(t, "CreateClient", err)
	alpha := publicClient("app-a")
	alpha.Name = "Alpha"
	_, err = s.CreateClient(ctxA, alpha)
	must(t, "CreateClient", err)

	pair := func(ctx context.Context, client, rid, n string, m int64, requested time.Time, scopes []string, edit func(*storage.TokenPair)) storage.TokenPair {
		p := pairOf(client, rid, n, m)
		p.RequestedAt, p.Scopes = requested, scopes
		if edit != nil {
			edit(&p)
		}
		return mustPair(t, s, ctx, p)
	}
	// Zed: two grants, one refreshed; an expired and a revoked pair do not count.
	pair(ctxA, "app-z", "z1", "z1a", member, at(2, 8), []string{"openid", "account:read"}, nil)
	pair(ctxA, "app-z", "z1", "z1b", member, at(3, 8), []string{"openid", "account:read"}, nil)
	pair(ctxA, "app-z", "z2", "z2", member, at(4, 8), []string{"courses:read", "openid"}, nil)
	pair(ctxA, "app-z", "z3", "z3-expired", member, at(1, 8), []string{"expired:scope"}, func(p *storage.TokenPair) {
		p.RefreshExpiresAt = ptr(at(9, 0))
	})
	pair(ctxA, "app-z", "z4", "z4-revoked", member, at(1, 7), []string{"revoked:scope"}, func(p *storage.TokenPair) {
		p.RevokedAt = ptr(at(5, 0))
	})
	// Alpha: a pair without a refresh token, live by its access token.
	pair(ctxA, "app-a", "a1", "a1", member, at(5, 8), []string{"openid"}, func(p *storage.TokenPair) {
		p.RefreshSignature, p.RefreshExpiresAt, p.AccessExpiresAt = "", nil, at(11, 0)
	})
	// A client without a stored row (a Client ID Metadata Document) is named by its id.
	doc := "https://app.example.test/client.json"
	pair(ctxA, doc, "d1", "d1", member, at(6, 8), []string{"openid"}, nil)
	// Another member's and another school's pairs are not the member's here.
	pair(ctxA, "app-z", "g1", "g1", other.ID, at(2, 8), []string{"openid"}, nil)
	pair(ctxB, "app-b", "b1", "b1", member, at(2, 8), []string{"openid"}, nil)
	// A pair without an access-only life left at `at`.
	pair(ctxA, "app-a", "a2", "a2-expired", member, at(1, 8), []string{"gone:scope"}, func(p *storage.TokenPair) {
		p.RefreshSignature, p.RefreshExpiresAt, p.AccessExpiresAt = "", nil, at(9, 0)
	})

	now := at(10, 0)
	apps, err := as.ListConnectedApps(ctxA, member, now)
	must(t, "ListConnectedApps", err)
	wantEqual(t, "connected apps at A", apps, []accountstore.ConnectedApp{
		{ClientID: "app-a", ClientName: "Alpha", Scopes: []string{"openid"}, GrantedAt: at(5, 8), LastUsedAt: at(5, 8)},
		{ClientID: doc, ClientName: doc, Scopes: []string{"openid"}, GrantedAt: at(6, 8), LastUsedAt: at(6, 8)},
		{ClientID: "app-z", ClientName: "Zed", Scopes: []string{"account:read", "courses:read", "openid"}, GrantedAt: at(2, 8), LastUsedAt: at(4, 8)},
	})
	apps, err = as.ListConnectedApps(ctxB, member, now)
	must(t, "ListConnectedApps at B", err)
	if len(apps) != 1 || apps[0].ClientID != "app-b" || apps[0].ClientName != "app-b" {
		t.Errorf("connected apps at B: %+v", apps)
	}

	// Revoking Zed revokes every unrevoked pair of it for the member at A, expired or not.
	must(t, "CreateAuthorizationCode", s.CreateAuthorizationCode(ctxA, codeOf("app-z", "z5", "code-z", member)))
	must(t, "CreateAuthorizationCode", s.CreateAuthorizationCode(ctxA, codeOf("app-z", "g2", "code-grace", other.ID)))
	n, err := as.RevokeConnectedApp(ctxA, member, "app-z", at(10, 1))
	must(t, "RevokeConnectedApp", err)
	if n != 4 {
		t.Errorf("RevokeConnectedApp revoked %d pairs, want 4", n)
	}
	for _, sig := range []string{"at-z1a", "at-z1b", "at-z2", "at-z3-expired"} {
		if p := getPair(t, s, ctxA, sig); p.RevokedAt == nil || !p.RevokedAt.Equal(at(10, 1)) {
			t.Errorf("pair %s after RevokeConnectedApp: revoked at %v", sig, p.RevokedAt)
		}
	}
	if p := getPair(t, s, ctxA, "at-z4-revoked"); p.RevokedAt == nil || !p.RevokedAt.Equal(at(5, 0)) {
		t.Errorf("an earlier revocation was rewritten: %v", p.RevokedAt)
	}
	if c, err := s.GetAuthorizationCode(ctxA, "code-z"); err != nil || c.Active {
		t.Errorf("the member's code of the revoked app: %+v, %v", c, err)
	}
	if c, err := s.GetAuthorizationCode(ctxA, "code-grace"); err != nil || !c.Active {
		t.Errorf("another member's code of the revoked app: %+v, %v", c, err)
	}
	for ctx, sig := range map[context.Context]string{ctxA: "at-g1", ctxB: "at-b1"} {
		if p := getPair(t, s, ctx, sig); p.RevokedAt != nil {
			t.Errorf("pair %s was revoked with the member's app at A", sig)
		}
	}
	if p := getPair(t, s, ctxA, "at-a1"); p.RevokedAt != nil {
		t.Error("another client's pair was revoked with Zed")
	}
	apps, err = as.ListConnectedApps(ctxA, member, now)
	must(t, "ListConnectedApps", err)
	if len(apps) != 2 || apps[0].ClientID != "app-a" || apps[1].ClientID != doc {
		t.Errorf("connected apps after revoking Zed: %+v", apps)
	}
	n, err = as.RevokeConnectedApp(ctxA, member, "app-z", at(10, 2))
	must(t, "RevokeConnectedApp twice", err)
	if n != 0 {
		t.Errorf("RevokeConnectedApp twice revoked %d pairs", n)
	}
	// B's client is not reachable from A.
	n, err = as.RevokeConnectedApp(ctxA, member, "app-b", at(10, 2))
	must(t, "RevokeConnectedApp of B's client at A", err)
	if n != 0 {
		t.Errorf("RevokeConnectedApp of B's client at A revoked %d pairs", n)
	}

	// Everything of the member everywhere, nothing of Grace's.
	n, err = as.RevokeAllConnectedApps(t.Context(), member, at(10, 3))
	must(t, "RevokeAllConnectedApps", err)
	if n != 4 { // a1, a2-expired, d1, b1
		t.Errorf("RevokeAllConnectedApps revoked %d pairs, want 4", n)
	}
	for ctx, sig := range map[context.Context]string{ctxA: "at-d1", ctxB: "at-b1"} {
		if p := getPair(t, s, ctx, sig); p.RevokedAt == nil {
			t.Errorf("pair %s after RevokeAllConnectedApps is not revoked", sig)
		}
	}
	if p := getPair(t, s, ctxA, "at-g1"); p.RevokedAt != nil {
		t.Error("another member's pair was revoked by RevokeAllConnectedApps")
	}
	for _, ctx := range []context.Context{ctxA, ctxB} {
		apps, err := as.ListConnectedApps(ctx, member, now)
		must(t, "ListConnectedApps", err)
		if len(apps) != 0 {
			t.Errorf("connected apps after RevokeAllConnectedApps: %+v", apps)
		}
	}
	if apps, err := as.ListConnectedApps(ctxA, other.ID, now); err != nil || len(apps) != 1 {
		t.Errorf("Grace's connected apps: %+v, %v", apps, err)
	}
}

func testAccountPurge(t *testing.T, s storage.Store) {
	as := narrow[accountstore.Store](t, s)
	ctxA, ctxB, member := oauthSetup(t, s)
	before := at(10, 0)
	link := func(ctx context.Context, id string, purpose accountstore.Purpose, expires time.Time, used bool) {
		l := linkOf(id, member, purpose)
		l.ExpiresAt = expires
		must(t, "CreateLink", as.CreateLink(ctx, l))
		if used {
			_, err := as.ConsumeLink(ctx, id, purpose, at(1, 9))
			must(t, "ConsumeLink", err)
		}
	}
	link(ctxA, "l-expired", accountstore.PurposeInvitation, at(9, 0), false)
	link(ctxA, "l-used-expired", accountstore.PurposeReset, at(9, 0), true)
	link(ctxB, "l-expired-b", accountstore.PurposeReset, at(8, 0), false)
	// Used first: a new link replaces only unused ones, so both stay.
	link(ctxA, "l-used-live", accountstore.PurposeEmailChange, at(11, 0), true)
	link(ctxA, "l-live", accountstore.PurposeEmailChange, at(11, 0), false)

	n, err := s.PurgeExpired(t.Context(), before, 100)
	must(t, "PurgeExpired", err)
	if n != 3 {
		t.Errorf("PurgeExpired deleted %d rows, want 3 links", n)
	}
	if _, err := as.GetLink(ctxA, "l-live", accountstore.PurposeEmailChange, at(9, 0)); err != nil {
		t.Errorf("live link after the purge: %v", err)
	}
	// A second purge finds nothing left.
	n, err = s.PurgeExpired(t.Context(), before, 100)
	must(t, "PurgeExpired", err)
	if n != 0 {
		t.Errorf("second purge deleted %d rows", n)
	}
	// The used live link is still stored: its id is taken.
	wantErr(t, "CreateLink over the used live link", as.CreateLink(ctxA, linkOf("l-used-live", member, accountstore.PurposeEmailChange)), storage.ErrAlreadyExists)
	// The expired ones are gone: their ids are free again.
	must(t, "CreateLink over a purged link", as.CreateLink(ctxA, linkOf("l-expired", member, accountstore.PurposeInvitation)))
}
