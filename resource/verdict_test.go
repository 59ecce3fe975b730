package resource_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/proctorhq/proctor/resource"
)

// observingVerifier answers every token with grant and err, and keeps the verdicts it is told.
type observingVerifier struct {
	grant    resource.Grant
	err      error
	verdicts []string
}

func (v *observingVerifier) Verify(context.Context, string) (resource.Grant, error) {
	return v.grant, v.err
}

func (v *observingVerifier) ObserveVerdict(_ context.Context, verdict string) {
	v.verdicts = append(v.verdicts, verdict)
}

// TestDoorVerdicts checks that a Door tells a VerdictObserver its verdict, once per request.
func TestDoorVerdicts(t *testing.T) {
	member := resource.Grant{MemberID: 1, Scopes: []string{"account:read"}}
	for _, c := range []struct {
		name   string
		header string
		grant  resource.Grant
		err    error
		policy resource.Policy
		want   string
	}{
		{"ok", "Bearer t", member, nil, resource.Policy{Scopes: []string{"account:read"}}, resource.VerdictOK},
		{"anonymous", "", resource.Grant{}, nil, resource.Policy{Anonymous: true}, resource.VerdictAnonymous},
		{"missing", "", resource.Grant{}, resource.ErrNoToken, resource.Policy{}, "missing"},
		{"malformed header", "Basic x", member, nil, resource.Policy{}, "invalid"},
		{"invalid", "Bearer t", resource.Grant{}, resource.ErrInvalidToken, resource.Policy{}, "invalid"},
		{"other school", "Bearer t", resource.Grant{}, resource.ErrOtherOrganization, resource.Policy{}, "other_school"},
		{"no verdict", "Bearer t", resource.Grant{}, resource.ErrNoVerdict, resource.Policy{}, "no_verdict"},
		{"no member", "Bearer t", resource.Grant{ClientID: "app"}, nil, resource.Policy{}, "no_member"},
		{"scope", "Bearer t", member, nil, resource.Policy{Scopes: []string{"account:write"}}, "insufficient_scope"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := &observingVerifier{grant: c.grant, err: c.err}
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			if c.header != "" {
				r.Header.Set("Authorization", c.header)
			}
			resource.Door{Name: "test", Verifier: v}.Authenticate(r, c.policy)
			if len(v.verdicts) != 1 || v.verdicts[0] != c.want {
				t.Errorf("verdicts %q, want [%q]", v.verdicts, c.want)
			}
		})
	}
}
