package operator

import (
	"context"

	"github.com/danielgtaylor/huma/v2"

	"github.com/proctorhq/proctor/account"
	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/storage"
)

// Member is a member of the school with their roles there.
type Member struct {
	ID        int64    `json:"id"`
	Email     string   `json:"email"`
	Name      string   `json:"name"`
	AvatarURL string   `json:"avatar_url,omitempty"`
	Roles     []string `json:"roles" doc:"Most powerful first."`
}

func memberOut(m storage.MemberRoles) Member {
	return Member{ID: m.Member.ID, Email: m.Member.Email, Name: m.Member.Name, AvatarURL: m.Member.AvatarURL, Roles: storage.RoleNames(m.Roles)}
}

// rolesOf reads role names the schema has already checked.
func rolesOf(names []string) []storage.Role {
	out := make([]storage.Role, len(names))
	for i, r := range names {
		out[i] = storage.Role(r)
	}
	return out
}

// MemberRoles is the new set of a member's roles. An empty list removes the member from the
// school (their identity, which is deployment-wide, stays).
type MemberRoles struct {
	Roles []string `json:"roles" maxItems:"4" uniqueItems:"true" enum:"owner,admin,lecturer,student"`
}

// NewMember is an invitation: who to invite and with which roles.
type NewMember struct {
	Email string   `json:"email" format:"email" maxLength:"254" doc:"The address the invitation goes to; an identity that already exists (at another school) joins this school and keeps its password."`
	Name  string   `json:"name,omitempty" maxLength:"100" doc:"Display name of a new identity; an existing identity keeps its own."`
	Roles []string `json:"roles,omitempty" minItems:"1" maxItems:"4" uniqueItems:"true" enum:"owner,admin,lecturer,student" doc:"Roles at the school; student if absent. Roles the member already holds here are kept."`
}

// Inviter invites members by e-mail (account.Service): the member gets a one-time link to
// choose a password, and the invitation commits with its e-mail.
type Inviter interface {
	Invite(ctx context.Context, in account.Invitation) (account.InviteResult, error)
}

// MemberPath names a member of the school.
type MemberPath struct {
	MemberID int64 `path:"member_id" minimum:"1"`
}

func (h *Handler) registerMembers(api huma.API) {
	registerList(h, api, "list-members", "member", stores.ListSchoolMembers, memberOut)

	register(h, api, "invite-member", func(ctx context.Context, in *struct{ Body NewMember }) (*struct{ Body Member }, error) {
		// format:"email" is huma's looser check; the address rule is storage.ValidEmail, the
		// same for the CLI, seed files and the invitation itself.
		if !storage.ValidEmail(storage.NormaliseEmail(in.Body.Email)) {
			return nil, huma.Error422UnprocessableEntity("The e-mail address is not one Proctor accepts.", &huma.ErrorDetail{
				Location: "body.email", Message: "not an e-mail address",
			})
		}
		roles := []storage.Role{storage.RoleStudent}
		if len(in.Body.Roles) > 0 {
			roles = rolesOf(in.Body.Roles)
		}
		// The invitation adds roles and keeps the member's own, so the rule is asked about a
		// member who holds none of them; an existing owner's roles are the invitation's
		// business (account.Service), which never takes one away.
		if err := storage.RoleChangeRefusal(callerFrom(ctx).roles, nil, roles); err != nil {
			return nil, h.problem(ctx, "member", err)
		}
		if h.inviter == nil {
			return nil, huma.Error503ServiceUnavailable("Invitations are not available on this server.")
		}
		res, err := h.inviter.Invite(ctx, account.Invitation{Email: in.Body.Email, Name: in.Body.Name, Roles: roles, By: callerFrom(ctx).by()})
		if err != nil {
			return nil, h.problem(ctx, "member", err)
		}
		got, err := h.store.GetRoles(ctx, res.Member.ID)
		if err != nil {
			return nil, h.problem(ctx, "member", err)
		}
		return &struct{ Body Member }{memberOut(storage.MemberRoles{Member: res.Member, Roles: got})}, nil
	})

	register(h, api, "set-member-roles", func(ctx context.Context, in *struct {
		MemberPath
		Body MemberRoles
	}) (*struct{ Body Member }, error) {
		roles := rolesOf(in.Body.Roles)
		// The rule (storage.ChangeRoles) is checked on the roles read in the write's
		// transaction, so a member made an owner after the request began is not changed by an
		// admin; the last-owner check is SetSchoolRoles's, in the same transaction.
		var current, got []storage.Role
		err := storage.InTx(ctx, h.store.Directory, func(ctx context.Context) (err error) {
			current, got, err = storage.ChangeRoles(ctx, h.store, callerFrom(ctx).roles, in.MemberID, roles)
			return err
		})
		if err != nil {
			return nil, h.problem(ctx, "member", err)
		}
		if detail, changed := audit.RoleChange(storage.RoleNames(current), storage.RoleNames(got)); changed {
			e := callerFrom(ctx).by()
			e.Kind, e.SubjectID, e.Detail = audit.KindRoleChanged, in.MemberID, detail
			h.audit.Note(ctx, e)
		}
		m, err := h.store.GetMember(ctx, in.MemberID)
		return bodyOf(ctx, h, "member", storage.MemberRoles{Member: m, Roles: got}, err, memberOut)
	})
}
