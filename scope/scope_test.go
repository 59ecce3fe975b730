package scope

import (
	"slices"
	"testing"
)

func TestCatalogueMatchesSpec(t *testing.T) {
	names := Names()
	if len(names) != 38 {
		t.Fatalf("catalogue has %d scopes, the spec lists 38", len(names))
	}
	for _, n := range names {
		if s, ok := Lookup(n); !ok || s.Description == "" {
			t.Errorf("%s: missing or without description", n)
		}
	}
	if got := NamesFor(Member); !slices.Equal(got, []string{AccountRead, AccountWrite}) {
		t.Errorf("member scopes = %v", got)
	}
	if got := NamesFor(Identity); !slices.Equal(got, []string{OpenID, Profile, Email}) {
		t.Errorf("identity scopes = %v", got)
	}
	for _, n := range NamesFor(Operator) {
		if n == AccountRead || n == AccountWrite {
			t.Errorf("operator audience holds %s (spec, Authentication rule 11)", n)
		}
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		ok   bool
	}{
		{"openid profile", []string{"openid", "profile"}, true},
		{"  openid   openid email ", []string{"openid", "email"}, true},
		{"", nil, true},
		{"courses:read\tprofile", nil, false},
		{`a"b`, nil, false},
		{`a\b`, nil, false},
		{"caf\u00e9", nil, false},
	} {
		got, ok := Parse(tc.in)
		if ok != tc.ok || !slices.Equal(got, tc.want) {
			t.Errorf("Parse(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"openid profile", "a  b", "\x00", "account:read account:read"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := Parse(s)
		if !ok {
			return
		}
		seen := map[string]bool{}
		for _, n := range got {
			if n == "" || seen[n] {
				t.Fatalf("Parse(%q) = %q: empty or repeated token", s, got)
			}
			seen[n] = true
		}
	})
}
