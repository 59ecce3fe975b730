package graphql

import (
	"context"

	"github.com/proctorhq/proctor/storage"
)

// root resolves Query and Mutation: the roots of the schema, which gqlgen reaches through the
// resolver interfaces it generates (exec_gen.go).
type root struct{}

func (root) Query() QueryResolver       { return query{} }
func (root) Mutation() MutationResolver { return mutation{} }

type (
	query    struct{}
	mutation struct{}
)

// Viewer is the entry to everything account:read grants; without the scope the field is null
// with an error naming it (spec, Errors: 200 with an entry in errors).
func (query) Viewer(ctx context.Context) (*viewer, error) {
	req, err := requestWithScope(ctx, scopeRead)
	if err != nil {
		return nil, err
	}
	return &viewer{req: req}, nil
}

// viewer resolves the signed-in member. Each connection reads its page in one statement and
// hands its nodes a batch that reads what they share (curricula, progress, schedules) once for
// the whole page, so a request's statements do not grow with the data.
type viewer struct{ req *request }

func (v *viewer) ID() string { return id(v.req.grant.MemberID) }

func (v *viewer) Name() (string, error) {
	m, err := v.req.member()
	return m.Name, err
}

func (v *viewer) Email() (string, error) {
	m, err := v.req.member()
	return m.Email, err
}

func (v *viewer) Avatar() (*avatar, error) {
	m, err := v.req.member()
	if err != nil || m.AvatarURL == "" {
		return nil, err
	}
	return &avatar{url: m.AvatarURL}, nil
}

type avatar struct{ url string }

func (a *avatar) URL() string { return a.url }

// Schools crosses schools by design: it lists the viewer's own roles everywhere (spec, Viewer
// table), and nothing else of the other schools.
func (v *viewer) Schools(ctx context.Context) ([]*schoolMembership, error) {
	list, err := v.req.store.ListMemberSchools(ctx, v.req.grant.MemberID)
	if err != nil {
		return nil, err
	}
	return nodesOf(list, func(s storage.SchoolRoles) *schoolMembership {
		return &schoolMembership{s: s, current: s.SchoolID == v.req.school.SchoolID}
	}), nil
}

type schoolMembership struct {
	s       storage.SchoolRoles
	current bool
}

func (m *schoolMembership) ID() string        { return id(m.s.SchoolID) }
func (m *schoolMembership) Subdomain() string { return m.s.Subdomain }
func (m *schoolMembership) Name() string      { return m.s.Name }
func (m *schoolMembership) Current() bool     { return m.current }

func (m *schoolMembership) Roles() []string {
	return storage.RoleNames(m.s.Roles)
}
