package admin_test

import (
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/proctorhq/proctor/admin"
	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/mail"
	"github.com/proctorhq/proctor/roster"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/server/servertest"
	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/storage"
)

// membersURL is the URL at school t of the member page of id plus suffix (id 0: the list).
func (e *env) membersURL(t *school.School, id int64, suffix string) string {
	if id == 0 {
		return t.Origin + admin.MembersPath + suffix
	}
	return t.Origin + admin.MembersPath + "/" + strconv.FormatInt(id, 10) + suffix
}

// roles reads the member's roles at t.
func (e *env) roles(t *school.School, id int64) []storage.Role {
	e.t.Helper()
	roles, err := e.store.GetRoles(e.ctx(t), id)
	if err != nil {
		e.t.Fatal(err)
	}
	return roles
}

// wantRoles reports whether the member's roles at t are want, and says what differs otherwise;
// about names the roles in the message.
func (e *env) wantRoles(t *school.School, id int64, about string, want ...storage.Role) bool {
	e.t.Helper()
	if got := e.roles(t, id); !slices.Equal(got, want) {
		e.t.Errorf("%s: %v", about, got)
		return false
	}
	return true
}

// confirm opens an action's confirmation page at school A, fills it with set (the roles form's
// boxes replaced by roles, when given) and posts it, the way a browser does.
func (b *browser) confirm(e *env, id int64, action string, roles ...storage.Role) page {
	b.t.Helper()
	p := b.Get(e.membersURL(e.a, id, "/"+action))
	if p.Status != http.StatusOK {
		b.t.Fatalf("confirmation page of %s: %d\n%s", action, p.Status, p.Body)
	}
	f := formWith(b.t, p.Body, "csrf_token")
	if f.Action != admin.MembersPath+"/"+strconv.FormatInt(id, 10)+"/"+action {
		b.t.Fatalf("the %s form posts to %q", action, f.Action)
	}
	if roles != nil {
		f.Values.Del("role")
		for _, r := range roles {
			f.Values.Add("role", string(r))
		}
	}
	return b.Post(resolve(e.a.Origin+admin.MembersPath, f.Action), f.Values)
}

// wantDone checks a POST's Post/Redirect/Get to the member's page, and that page's notice.
func (b *browser) wantDone(e *env, r page, id int64, notice string) page {
	b.t.Helper()
	want := admin.MembersPath + "/" + strconv.FormatInt(id, 10) + "?done="
	if r.Status != http.StatusSeeOther || !strings.HasPrefix(r.Header.Get("Location"), want) {
		b.t.Fatalf("POST: %d Location %q, want 303 to %s...\n%s", r.Status, r.Header.Get("Location"), want, r.Body)
	}
	p := b.Get(resolve(e.a.Origin, r.Header.Get("Location")))
	if p.Status != http.StatusOK || !strings.Contains(p.Body, notice) {
		b.t.Fatalf("after the POST: %d, want the notice %q\n%s", p.Status, notice, p.Body)
	}
	return p
}

// lockOut spends email's failed sign-in budget at school A (five wrong passwords).
func (e *env) lockOut(email string) {
	e.t.Helper()
	for i := range login.DefaultAccountLimit.Max {
		if r := e.browser().TrySignIn(e.a, email, "wrong guess "+strconv.Itoa(i)); r.Status != http.StatusOK {
			e.t.Fatalf("failed sign-in %d: %d", i, r.Status)
		}
	}
	if r := e.browser().TrySignIn(e.a, email, memberPass); r.Status != http.StatusTooManyRequests {
		e.t.Fatalf("after the failures: %d, want 429", r.Status)
	}
}

// mailbox is a post office of the test that sends the store's outbox, one attempt a message.
func (e *env) mailbox() *servertest.PostOffice {
	e.t.Helper()
	return servertest.NewPostOffice(e.t, e.store, e.secret, mail.Options{MaxAttempts: 1})
}

// wantEvent checks that the log of school t holds exactly one event of kind by the operator
// actor on subject, with a detail containing detail, and returns it.
func (e *env) wantEvent(t *school.School, kind audit.Kind, actor, subject int64, detail string) audit.Event {
	e.t.Helper()
	events, err := e.store.ListSecurityEvents(e.ctx(t), audit.Filter{MemberID: subject, Kinds: []audit.Kind{kind}, Limit: audit.MaxPage})
	if err != nil {
		e.t.Fatal(err)
	}
	var found []audit.Event
	for _, ev := range events {
		if ev.Actor == audit.ActorOperator {
			found = append(found, ev)
		}
	}
	if len(found) != 1 {
		e.t.Fatalf("%d operator events %s about member %d at %s, want 1: %+v", len(found), kind, subject, t.Name, events)
	}
	ev := found[0]
	if ev.ActorID != actor || ev.SubjectID != subject || ev.Result != audit.ResultSuccess || !strings.Contains(ev.Detail, detail) ||
		ev.SchoolID != t.SchoolID || ev.RequestID == "" || ev.UserAgent == "" {
		e.t.Errorf("event %s: %+v; want actor %d, subject %d, detail with %q", kind, ev, actor, subject, detail)
	}
	return ev
}

var linkPattern = regexp.MustCompile(`http://[a-z0-9.:]+/(?:invitation|login/reset)\?token=[A-Za-z0-9_-]+`)

// The list: the school's members only, with status and roles, searchable, paged by 50.
func TestMembersList(t *testing.T) {
	e := newEnv(t)
	signIn := time.Now().UTC()
	b := e.signedIn(e.a, ownerEmail)
	list := b.Get(e.membersURL(e.a, 0, ""))
	if list.Status != http.StatusOK {
		t.Fatalf("list: %d\n%s", list.Status, list.Body)
	}
	for _, email := range []string{ownerEmail, adminEmail, lecturerEmail, studentEmail} {
		if !strings.Contains(list.Body, email) {
			t.Errorf("the list lacks %s", email)
		}
	}
	if strings.Contains(list.Body, outsiderEmail) {
		t.Error("the list shows a member of another school")
	}
	if !strings.Contains(list.Body, "Active") || !strings.Contains(list.Body, "Second factors") {
		t.Errorf("status or factors column:\n%s", list.Body)
	}
	// The owner's own sign-in is their last one: dated the day it began or, had midnight passed
	// meanwhile, the day the list was read.
	if day, listed := signIn.Format("2 Jan 2006"), time.Now().UTC().Format("2 Jan 2006"); !strings.Contains(list.Body, day) && !strings.Contains(list.Body, listed) {
		t.Errorf("the list shows no sign-in of %s", listed)
	}

	for q, want := range map[string][]string{
		"LECTURER":                  {lecturerEmail},
		"name of student":           {studentEmail},
		"example.com":               {ownerEmail, adminEmail, lecturerEmail, studentEmail},
		"outsider":                  nil,
		"%":                         nil,
		`<script>alert(1)</script>`: nil,
	} {
		r := b.Get(e.membersURL(e.a, 0, "?"+url.Values{"q": {q}}.Encode()))
		if r.Status != http.StatusOK {
			t.Fatalf("search %q: %d", q, r.Status)
		}
		for _, email := range []string{ownerEmail, adminEmail, lecturerEmail, studentEmail, outsiderEmail} {
			if got := strings.Contains(r.Body, ">"+email+"<"); got != slices.Contains(want, email) {
				t.Errorf("search %q: shows %s %v", q, email, got)
			}
		}
		if strings.Contains(r.Body, "<script>") {
			t.Errorf("search %q is echoed unescaped", q)
		}
	}
	if r := b.Get(e.membersURL(e.a, 0, "?q="+strings.Repeat("x", roster.MaxSearch+1))); r.Status != http.StatusBadRequest {
		t.Errorf("a long search: %d", r.Status)
	}
	if r := b.Get(e.membersURL(e.a, 0, "?after=junk")); r.Status != http.StatusBadRequest {
		t.Errorf("a junk cursor: %d", r.Status)
	}

	// Paging: 55 more members, 50 a page; the search is kept on the next page.
	for i := range 55 {
		schools.Member(t, e.store, "many"+strconv.Itoa(i)+"@example.org", "Many", schools.NoPassword(), schools.At(e.a, storage.RoleStudent))
	}
	first := b.Get(e.membersURL(e.a, 0, "?q=example.org"))
	if n := strings.Count(first.Body, `class="member-name"`); n != 50 {
		t.Errorf("first page: %d members", n)
	}
	next := regexp.MustCompile(`href="([^"]+)" rel="next"`).FindStringSubmatch(first.Body)
	if next == nil {
		t.Fatal("no link to the next page")
	}
	second := b.Get(resolve(e.a.Origin+admin.MembersPath, strings.ReplaceAll(next[1], "&amp;", "&")))
	if n := strings.Count(second.Body, `class="member-name"`); n != 5 || strings.Contains(second.Body, `rel="next"`) {
		t.Errorf("second page: %d members\n%s", n, second.Body)
	}
}

// Statuses: no password, invited (after the invitation action), locked.
func TestMemberStatus(t *testing.T) {
	e := newEnv(t)
	box := e.mailbox()
	b := e.signedIn(e.a, ownerEmail)
	newbie := schools.Member(t, e.store, "newbie@example.com", "Newbie", schools.NoPassword(), schools.At(e.a, storage.RoleLecturer))
	p := b.Get(e.membersURL(e.a, newbie.ID, ""))
	if got := textOf(t, p.Body, "member-status"); got != "No password" {
		t.Errorf("status %q", got)
	}
	if strings.Contains(p.Body, "/reset-link") || strings.Contains(p.Body, "/unlock") {
		t.Error("a reset link or an unlock is offered to a member without a password or a lockout")
	}
	if r := b.Get(e.membersURL(e.a, newbie.ID, "/reset-link")); r.Status != http.StatusNotFound {
		t.Errorf("reset link for a member without a password: %d", r.Status)
	}

	// The invitation: the message goes out, the member is invited, their roles unchanged.
	b.wantDone(e, b.confirm(e, newbie.ID, admin.ActionInvite), newbie.ID, "An invitation was sent")
	msgs := box.Deliver()
	if len(msgs) != 1 || msgs[0].To[0] != "newbie@example.com" || !strings.Contains(msgs[0].Text, "/invitation?token=") {
		t.Fatalf("messages: %+v", msgs)
	}
	p = b.Get(e.membersURL(e.a, newbie.ID, ""))
	if got := textOf(t, p.Body, "member-status"); !strings.HasPrefix(got, "Invited") {
		t.Errorf("status after the invitation %q", got)
	}
	e.wantRoles(e.a, newbie.ID, "roles after the invitation", storage.RoleLecturer)
	owner := e.memberID(ownerEmail)
	e.wantEvent(e.a, audit.KindInvitationSent, owner, newbie.ID, "")
	if r := b.Get(e.membersURL(e.a, e.memberID(studentEmail), "/invite")); r.Status != http.StatusNotFound {
		t.Errorf("invitation of a member with a password: %d", r.Status)
	}

	// A lockout shows, is offered to be lifted, and goes.
	student := e.memberID(studentEmail)
	e.lockOut(studentEmail)
	p = b.Get(e.membersURL(e.a, student, ""))
	if got := textOf(t, p.Body, "member-status"); got != "Locked" || !strings.Contains(p.Body, `id="action-unlock"`) {
		t.Errorf("status of a locked member %q\n%s", got, p.Body)
	}
	if list := b.Get(e.membersURL(e.a, 0, "?q=student")); !strings.Contains(list.Body, "status-locked") {
		t.Error("the list does not show the lockout")
	}
	p = b.wantDone(e, b.confirm(e, student, admin.ActionUnlock), student, "The lockout was lifted")
	if got := textOf(t, p.Body, "member-status"); got != "Active" {
		t.Errorf("status after the unlock %q", got)
	}
	e.wantEvent(e.a, audit.KindLockoutLifted, owner, student, "")
	e.signedIn(e.a, studentEmail) // fails the test if refused
}

// Each action of an owner does what it says, to this school only.
func TestMemberActions(t *testing.T) {
	e := newEnv(t)
	box := e.mailbox()
	b := e.signedIn(e.a, ownerEmail)
	student := e.memberID(studentEmail)

	// Roles: a confirmation page with the current roles checked, then the change.
	confirm := b.Get(e.membersURL(e.a, student, "/roles"))
	if f := formWith(t, confirm.Body, "csrf_token"); !slices.Equal(f.Values["role"], []string{"student"}) {
		t.Errorf("roles form: %v", f.Values)
	}
	b.wantDone(e, b.confirm(e, student, admin.ActionRoles, storage.RoleLecturer, storage.RoleStudent), student, "The roles were changed")
	e.wantRoles(e.a, student, "roles", storage.RoleLecturer, storage.RoleStudent)
	owner := e.memberID(ownerEmail)
	e.wantEvent(e.a, audit.KindRoleChanged, owner, student, "student -> lecturer, student")
	// An unchanged form records nothing more (wantEvent wants exactly one).
	b.wantDone(e, b.confirm(e, student, admin.ActionRoles, storage.RoleLecturer, storage.RoleStudent), student, "nothing changed")
	e.wantEvent(e.a, audit.KindRoleChanged, owner, student, "")
	token := b.Get(e.membersURL(e.a, student, "/roles")).CSRF(t)
	if r := b.Post(e.membersURL(e.a, student, "/roles"), url.Values{"csrf_token": {token}}); r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.Body, "Pick at least one role") {
		t.Errorf("no role: %d", r.Status)
	}
	if r := b.Post(e.membersURL(e.a, student, "/roles"), url.Values{"csrf_token": {token}, "role": {"wizard"}}); r.Status != http.StatusBadRequest {
		t.Errorf("unknown role: %d", r.Status)
	}

	// A reset link goes to the member.
	b.wantDone(e, b.confirm(e, student, admin.ActionResetLink), student, "A password reset link was sent")
	msgs := box.Deliver()
	if len(msgs) != 1 || msgs[0].To[0] != studentEmail || !linkPattern.MatchString(msgs[0].Text) || !strings.Contains(msgs[0].Text, "/login/reset?token=") {
		t.Fatalf("messages: %+v", msgs)
	}
	if ev := e.wantEvent(e.a, audit.KindPasswordResetRequested, owner, student, ""); ev.Detail != "" {
		t.Errorf("the event's detail %q", ev.Detail)
	}

	// Sign out everywhere: the member's sessions and grants at A end; at B they stay.
	if err := e.store.SetRoles(e.ctx(e.b), student, []storage.Role{storage.RoleStudent}); err != nil {
		t.Fatal(err)
	}
	atA, atB := e.signedIn(e.a, studentEmail), e.signedIn(e.b, studentEmail)
	id := b.createPublic(e, "Study Buddy")
	tr := e.tokens(app(id, "")) // the student's grant
	b.wantDone(e, b.confirm(e, student, admin.ActionSignOut), student, "signed out everywhere")
	if r := atA.Get(e.a.Origin + "/account"); r.Status != http.StatusSeeOther {
		t.Errorf("the student's session at A after sign-out everywhere: %d", r.Status)
	}
	if r := atB.Get(e.b.Origin + "/account"); r.Status != http.StatusOK {
		t.Errorf("the student's session at B after sign-out everywhere at A: %d", r.Status)
	}
	if got := e.oauth.Userinfo(e.a, tr.AccessToken); got != http.StatusUnauthorized {
		t.Errorf("the student's token after sign-out everywhere: %d", got)
	}
	// Two sessions: the browser's, and the one that approved the application.
	e.wantEvent(e.a, audit.KindSignedOutEverywhere, owner, student, "2 sessions ended, 1 token pair revoked")
	if events, _ := e.store.ListSecurityEvents(e.ctx(e.b), audit.Filter{MemberID: student, Kinds: []audit.Kind{audit.KindSignedOutEverywhere}}); len(events) != 0 {
		t.Errorf("school B's log holds A's action: %+v", events)
	}

	// Removal: roles, sessions and grants at A go; the account and B's roles stay.
	atA = e.signedIn(e.a, studentEmail)
	tr = e.tokens(app(id, ""))
	r := b.confirm(e, student, admin.ActionRemove)
	if r.Status != http.StatusSeeOther || r.Header.Get("Location") != admin.MembersPath+"?done=remove" {
		t.Fatalf("remove: %d %q", r.Status, r.Header.Get("Location"))
	}
	if list := b.Get(resolve(e.a.Origin, r.Header.Get("Location"))); !strings.Contains(list.Body, "was removed") || strings.Contains(list.Body, studentEmail) {
		t.Errorf("the list after the removal:\n%s", list.Body)
	}
	if got := e.roles(e.a, student); len(got) != 0 {
		t.Errorf("roles at A after the removal: %v", got)
	}
	e.wantRoles(e.b, student, "roles at B after the removal at A", storage.RoleStudent)
	if r := atA.Get(e.a.Origin + "/account"); r.Status != http.StatusSeeOther {
		t.Errorf("the session at A after the removal: %d", r.Status)
	}
	if got := e.oauth.Userinfo(e.a, tr.AccessToken); got != http.StatusUnauthorized {
		t.Errorf("the token after the removal: %d", got)
	}
	if r := b.Get(e.membersURL(e.a, student, "")); r.Status != http.StatusNotFound {
		t.Errorf("the removed member's page: %d", r.Status)
	}
	e.wantEvent(e.a, audit.KindMemberRemoved, owner, student, "lecturer, student; 2 sessions ended, 1 token pair revoked")
}

// memberRoutes are every route of the member pages for the member id, with a form token.
func (e *env) memberRoutes(b *browser, id int64, token string) []page {
	out := []page{b.Get(e.membersURL(e.a, 0, "")), b.Get(e.membersURL(e.a, id, ""))}
	for _, a := range []string{admin.ActionRoles, admin.ActionInvite, admin.ActionResetLink, admin.ActionUnlock,
		admin.ActionResetFactors, admin.ActionSignOut, admin.ActionRemove} {
		out = append(out,
			b.Get(e.membersURL(e.a, id, "/"+a)),
			b.Post(e.membersURL(e.a, id, "/"+a), url.Values{"csrf_token": {token}, "role": {"owner"}}))
	}
	return out
}

// Students, lecturers and members of other schools get the 403 page on every route, and
// nothing changes.
func TestMembersOnlyOperators(t *testing.T) {
	e := newEnv(t)
	box := e.mailbox()
	student := e.memberID(studentEmail)
	for _, email := range []string{studentEmail, lecturerEmail, outsiderEmail} {
		t.Run(email, func(t *testing.T) {
			b := e.signedIn(e.a, email)
			token := b.Get(e.a.Origin + login.LogoutPath).CSRF(t)
			for _, r := range e.memberRoutes(b, student, token) {
				if r.Status != http.StatusForbidden || !strings.Contains(r.Body, "Only the owners and admins of Northwind") {
					t.Errorf("%s %s: %d, want the 403 page", r.Method, r.URL.Path, r.Status)
				}
				if strings.Contains(r.Body, studentEmail) && email != studentEmail {
					t.Errorf("%s %s: the 403 page shows the member", r.Method, r.URL.Path)
				}
			}
		})
	}
	e.wantRoles(e.a, student, "roles after the refusals", storage.RoleStudent)
	if msgs := box.Deliver(); len(msgs) != 0 {
		t.Errorf("mail after the refusals: %d", len(msgs))
	}
	// Not signed in: to the sign-in page and back.
	r := e.browser().Get(e.membersURL(e.a, student, ""))
	want := login.LoginPath + "?return_to=" + url.QueryEscape(admin.MembersPath+"/"+strconv.FormatInt(student, 10))
	if r.Status != http.StatusSeeOther || r.Header.Get("Location") != want {
		t.Errorf("not signed in: %d %q", r.Status, r.Header.Get("Location"))
	}
	// The pages do not depend on the MCP feature: school B, without it, has them.
	if r := e.signedIn(e.b, ownerEmail).Get(e.membersURL(e.b, 0, "")); r.Status != http.StatusOK || !strings.Contains(r.Body, outsiderEmail) {
		t.Errorf("list at B: %d", r.Status)
	}
}

// Another school's member, an unknown one, a malformed id and an unknown action: the 404 page,
// on every route, and nothing changes.
func TestMembersOtherSchoolNotFound(t *testing.T) {
	e := newEnv(t)
	b := e.signedIn(e.a, ownerEmail)
	token := b.Get(e.membersURL(e.a, 0, "")).CSRF(t)
	outsider := e.memberID(outsiderEmail)
	for _, r := range e.memberRoutes(b, outsider, token)[1:] {
		if r.Status != http.StatusNotFound || !strings.Contains(r.Body, "Member not found") || strings.Contains(r.Body, outsiderEmail) {
			t.Errorf("%s %s: %d, want the 404 page", r.Method, r.URL.Path, r.Status)
		}
	}
	e.wantRoles(e.b, outsider, "the outsider's roles at B", storage.RoleStudent)
	student := strconv.FormatInt(e.memberID(studentEmail), 10)
	for _, path := range []string{"/999999", "/abc", "/0", "/-1", "/0" + student, "/" + student + "/nope", "/" + student + "/roles/x"} {
		if r := b.Get(e.a.Origin + admin.MembersPath + path); r.Status != http.StatusNotFound {
			t.Errorf("GET %s: %d", path, r.Status)
		}
	}
}

// The school's last owner can be neither demoted nor removed; once someone else owns it, they
// can.
func TestMembersLastOwner(t *testing.T) {
	e := newEnv(t)
	b := e.signedIn(e.a, ownerEmail)
	owner := e.memberID(ownerEmail)
	for _, r := range []page{
		b.confirm(e, owner, admin.ActionRoles, storage.RoleAdmin),
		b.confirm(e, owner, admin.ActionRemove),
	} {
		if r.Status != http.StatusConflict || !strings.Contains(r.Body, "is the last owner of Northwind") {
			t.Errorf("%s: %d, want 409 with the sentence\n%s", r.URL.Path, r.Status, r.Body)
		}
	}
	if !e.wantRoles(e.a, owner, "roles of the last owner", storage.RoleOwner) {
		t.FailNow()
	}
	if events, _ := e.store.ListSecurityEvents(e.ctx(e.a), audit.Filter{Kinds: []audit.Kind{audit.KindRoleChanged, audit.KindMemberRemoved}}); len(events) != 0 {
		t.Errorf("refused changes were logged: %+v", events)
	}
	admID := e.memberID(adminEmail)
	b.wantDone(e, b.confirm(e, admID, admin.ActionRoles, storage.RoleOwner), admID, "The roles were changed")
	b.wantDone(e, b.confirm(e, owner, admin.ActionRoles, storage.RoleAdmin), owner, "The roles were changed")
	e.wantRoles(e.a, owner, "roles after the demotion", storage.RoleAdmin)
}

// What an admin may not do: touch an owner, make an owner, reset factors, sign themself out
// here. What they may: manage other members.
func TestMembersAdminLimits(t *testing.T) {
	e := newEnv(t)
	b := e.signedIn(e.a, adminEmail)
	owner, student, self := e.memberID(ownerEmail), e.memberID(studentEmail), e.memberID(adminEmail)
	p := b.Get(e.membersURL(e.a, owner, ""))
	if p.Status != http.StatusOK || strings.Contains(p.Body, "/roles") || strings.Contains(p.Body, "/remove") ||
		strings.Contains(p.Body, "/sign-out") || !strings.Contains(p.Body, "Only an owner can change an owner") {
		t.Errorf("an owner's page for an admin:\n%s", p.Body)
	}
	token := p.CSRF(t)
	for _, a := range []string{admin.ActionRoles, admin.ActionRemove, admin.ActionSignOut} {
		for _, r := range []page{
			b.Get(e.membersURL(e.a, owner, "/"+a)),
			b.Post(e.membersURL(e.a, owner, "/"+a), url.Values{"csrf_token": {token}, "role": {"student"}}),
		} {
			if r.Status != http.StatusForbidden || !strings.Contains(r.Body, "Only an owner can") {
				t.Errorf("%s %s: %d", r.Method, r.URL.Path, r.Status)
			}
		}
	}
	e.wantRoles(e.a, owner, "the owner's roles", storage.RoleOwner)
	// No owner box, and an owner role posted anyway is refused.
	if f := formWith(t, b.Get(e.membersURL(e.a, student, "/roles")).Body, "csrf_token"); strings.Contains(b.Get(e.membersURL(e.a, student, "/roles")).Body, `value="owner"`) {
		t.Errorf("the roles form offers owner to an admin: %v", f.Values)
	}
	r := b.Post(e.membersURL(e.a, student, "/roles"), url.Values{"csrf_token": {token}, "role": {"owner"}})
	if r.Status != http.StatusForbidden || !strings.Contains(r.Body, "Only an owner can make someone an owner") {
		t.Errorf("admin grants owner: %d", r.Status)
	}
	if r := b.Post(e.membersURL(e.a, self, "/roles"), url.Values{"csrf_token": {token}, "role": {"owner"}}); r.Status != http.StatusForbidden {
		t.Errorf("admin makes themself owner: %d", r.Status)
	}
	if r := b.Get(e.membersURL(e.a, self, "/sign-out")); r.Status != http.StatusForbidden || !strings.Contains(r.Body, "your account page") {
		t.Errorf("sign yourself out: %d", r.Status)
	}
	// Other members: allowed.
	b.wantDone(e, b.confirm(e, student, admin.ActionRoles, storage.RoleAdmin), student, "The roles were changed")
	e.wantRoles(e.a, student, "roles set by the admin", storage.RoleAdmin)
}

// Every POST needs the session's token; without it, 403 and the form again, nothing done.
func TestMembersCSRF(t *testing.T) {
	e := newEnv(t)
	b := e.signedIn(e.a, ownerEmail)
	student := e.memberID(studentEmail)
	other := e.signedIn(e.a, adminEmail).Get(e.membersURL(e.a, 0, "")).CSRF(t)
	for _, token := range []string{"", "nope", other} {
		for _, a := range []string{admin.ActionRoles, admin.ActionResetLink, admin.ActionUnlock, admin.ActionSignOut, admin.ActionRemove} {
			form := url.Values{"role": {"admin"}}
			if token != "" {
				form.Set("csrf_token", token)
			}
			r := b.Post(e.membersURL(e.a, student, "/"+a), form)
			if r.Status != http.StatusForbidden || !strings.Contains(r.Body, formExpired) {
				t.Errorf("%s with token %q: %d", a, token, r.Status)
			}
		}
	}
	e.wantRoles(e.a, student, "roles", storage.RoleStudent)
}

// Second factors: shown on the list and the member's page; an owner resets them (not their
// own), an admin cannot.
func TestMemberFactorsReset(t *testing.T) {
	e := newEnv(t)
	student, owner := e.memberID(studentEmail), e.memberID(ownerEmail)
	ctx := e.ctx(e.a)
	if err := e.store.PutPendingTOTP(ctx, student, []byte("sealed"), time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := e.store.ConfirmTOTP(ctx, student, 1, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := e.store.ReplaceRecoveryCodes(ctx, student, []string{"h1", "h2"}, time.Now()); err != nil {
		t.Fatal(err)
	}
	// The same member's factor at B is not A's to reset.
	if err := e.store.SetRoles(e.ctx(e.b), student, []storage.Role{storage.RoleStudent}); err != nil {
		t.Fatal(err)
	}
	if err := e.store.PutPendingTOTP(e.ctx(e.b), student, []byte("sealed-b"), time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := e.store.ConfirmTOTP(e.ctx(e.b), student, 1, time.Now()); err != nil {
		t.Fatal(err)
	}

	adm := e.signedIn(e.a, adminEmail)
	p := adm.Get(e.membersURL(e.a, student, ""))
	if got := textOf(t, p.Body, "member-factors"); got != "Authenticator app, 2 recovery codes left" {
		t.Errorf("factors %q", got)
	}
	if strings.Contains(p.Body, "/reset-factors") || !strings.Contains(p.Body, "Only an owner can reset") {
		t.Errorf("an admin is offered the reset:\n%s", p.Body)
	}
	if r := adm.Post(e.membersURL(e.a, student, "/reset-factors"), url.Values{"csrf_token": {p.CSRF(t)}}); r.Status != http.StatusForbidden {
		t.Errorf("admin resets factors: %d", r.Status)
	}

	b := e.signedIn(e.a, ownerEmail)
	if list := b.Get(e.membersURL(e.a, 0, "?q=student")); !strings.Contains(list.Body, "Authenticator app, 2 recovery codes left") {
		t.Error("the list does not show the factors")
	}
	if r := b.Get(e.membersURL(e.a, owner, "/reset-factors")); r.Status != http.StatusForbidden {
		t.Errorf("an owner resets their own factors: %d", r.Status)
	}
	p = b.wantDone(e, b.confirm(e, student, admin.ActionResetFactors), student, "second factor")
	if got := textOf(t, p.Body, "member-factors"); got != "None" || strings.Contains(p.Body, "/reset-factors") {
		t.Errorf("factors after the reset %q", got)
	}
	e.wantEvent(e.a, audit.KindFactorsReset, owner, student, "3 factors removed")
	if sums, err := e.store.FactorSummaries(e.ctx(e.b), []int64{student}); err != nil || !sums[student].TOTP {
		t.Errorf("the factor at B after A's reset: %+v, %v", sums, err)
	}
}
