package authz

import (
	"strconv"

	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
)

// memberClaims are the identity claims of UserInfo and the ID token, which match (spec, "ID
// token claims"). sub, org_id and roles are always present: they say who the member is at this
// school, which every client of it needs. The rest follow OpenID Connect Core section 5.4:
// profile releases name and picture, email releases email.
func memberClaims(t *school.School, m storage.Member, roles []storage.Role, scopes []string) map[string]any {
	c := map[string]any{
		"sub":    strconv.FormatInt(m.ID, 10),
		"org_id": strconv.FormatInt(t.SchoolID, 10),
		"roles":  storage.RoleNames(roles),
	}
	for _, s := range scopes {
		switch s {
		case "profile":
			c["name"] = m.Name
			c["picture"] = m.AvatarURL
		case "email":
			c["email"] = m.Email
		}
	}
	return c
}
