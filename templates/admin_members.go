package templates

import (
	"context"
	"io"
)

// Files of the member administration pages.
const (
	adminMembersFile       = "admin_members.html"
	adminMemberFile        = "admin_member.html"
	adminMemberConfirmFile = "admin_member_confirm.html"
)

// MemberSummary is what the member administration pages show of one member.
type MemberSummary struct {
	Name  string
	Email string
	URL   string // the member's page
	// Status is "active", "invited", "no-password" (an invitation that lapsed) or "locked";
	// StatusText says it in words.
	Status     string
	StatusText string
	Roles      []string // role names, most powerful first
	LastSignIn string   // "" when never
	// Factors says which second factors the member has ("Authenticator app, 2 passkeys");
	// FactorsShown is unset when the server keeps no second factors.
	Factors      string
	FactorsShown bool
	// InvitationExpires is when an invited member's invitation lapses.
	InvitationExpires string
}

// MembersPage lists a school's members, optionally filtered by a search. Its search form
// sends q to SearchAction by GET.
type MembersPage struct {
	School string
	Operator
	SearchAction string
	Search       string
	Notice       string
	Members      []MemberSummary
	FactorsShown bool
	NextURL      string // the next page of the list; "" on the last
}

// MemberAction is a link from a member's page to an action's confirmation page.
type MemberAction struct {
	ID     string // the element id, for tests and assistive technology
	URL    string
	Label  string
	Danger bool
}

// MemberPage is one member's page: who they are, their status, and the actions the
// signed-in operator may take. Refusals say, in sentences, why an action is not offered.
type MemberPage struct {
	School string
	Operator
	ListURL  string
	Notice   string
	Member   MemberSummary
	Actions  []MemberAction
	Refusals []string
}

// RoleChoice is one role box of the roles form.
type RoleChoice struct {
	Name, Label string
	Checked     bool
}

// MemberConfirmPage asks the operator to confirm an action on a member before the POST that
// takes it (posting csrf_token, and role once per checked box for the roles form). Refusal,
// when set, says why the action cannot be taken and the form is not shown.
type MemberConfirmPage struct {
	School string
	Operator
	Confirmation
	Member  MemberSummary
	Refusal string
	Roles   []RoleChoice // only on the roles form
}

// adminMemberPages are the pages of /admin/members.
func adminMemberPages() []namedPage {
	m := MemberSummary{Name: "N", Email: "e@example.com", URL: "/m", Status: "active", StatusText: "Active",
		Roles: []string{"owner"}, LastSignIn: "today", Factors: "f", FactorsShown: true, InvitationExpires: "x"}
	op := Operator{MemberName: "O", MemberEmail: "o@example.com", CSRFToken: "t"}
	return []namedPage{
		{adminMembersFile, MembersPage{School: "S", Operator: op, SearchAction: "/s", Search: "q", Notice: "n",
			Members: []MemberSummary{m}, FactorsShown: true, NextURL: "/x?after=c"}},
		{adminMemberFile, MemberPage{School: "S", Operator: op, ListURL: "/l", Notice: "n", Member: m,
			Actions: []MemberAction{{ID: "a", URL: "/a", Label: "A", Danger: true}}, Refusals: []string{"r"}}},
		{adminMemberConfirmFile, MemberConfirmPage{School: "S", Operator: op, Member: m, Refusal: "r",
			Confirmation: Confirmation{Title: "T", Explanation: "E", FormAction: "/f", Button: "B", Danger: true, CancelURL: "/c", ListURL: "/l", Message: "m"},
			Roles:        []RoleChoice{{Name: "owner", Label: "Owner", Checked: true}}}},
	}
}

// AdminMembers renders the list of a school's members.
func (s *Set) AdminMembers(ctx context.Context, w io.Writer, v MembersPage) error {
	return s.renderNamed(ctx, w, adminMembersFile, v)
}

// AdminMember renders one member's page.
func (s *Set) AdminMember(ctx context.Context, w io.Writer, v MemberPage) error {
	return s.renderNamed(ctx, w, adminMemberFile, v)
}

// AdminMemberConfirm renders the confirmation of an action on a member.
func (s *Set) AdminMemberConfirm(ctx context.Context, w io.Writer, v MemberConfirmPage) error {
	return s.renderNamed(ctx, w, adminMemberConfirmFile, v)
}
