package scope

import (
	"testing"

	"github.com/proctorhq/proctor/i18n"
	"github.com/proctorhq/proctor/server/servertest/schools"
)

// Every scope of the catalogue has its sentence in the message catalogue (every language has
// every English message: package i18n's tests), under a key no other scope shares, and the
// English sentence is the scope's Description.
func TestEveryScopeDescribed(t *testing.T) {
	cat := schools.Catalogue(t)
	en := cat.Localizer("en", nil)
	seen := map[string]string{}
	for _, s := range All() {
		k := Key(s.Name)
		if other, ok := seen[k]; ok {
			t.Errorf("%s and %s share the key %s", s.Name, other, k)
		}
		seen[k] = s.Name
		if !cat.Has(k) {
			t.Errorf("scope %s has no message %s in the catalogue", s.Name, k)
			continue
		}
		if got := Describe(en, s.Name); got != s.Description {
			t.Errorf("%s: English %q, Description %q", s.Name, got, s.Description)
		}
		for _, lang := range []string{"zh-TW", "ja"} {
			if got := Describe(cat.Localizer(lang, nil), s.Name); got == s.Description || got == s.Name {
				t.Errorf("%s in %s: %q is not translated", s.Name, lang, got)
			}
		}
	}
}

func TestKey(t *testing.T) {
	for name, want := range map[string]string{
		"openid":                "scope.openid",
		"account:read":          "scope.account_read",
		"membership_plans:read": "scope.membership_plans_read",
		"a.b:c":                 "scope.a_b_c",
	} {
		if got := Key(name); got != want {
			t.Errorf("Key(%q) = %q, want %q", name, got, want)
		}
	}
	if got := Describe(i18n.FromContext(t.Context()), "not:a:scope"); got != "not:a:scope" {
		t.Errorf("an unknown scope is described as %q", got)
	}
}
