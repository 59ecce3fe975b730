package password

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCheckPolicy(t *testing.T) {
	const email = "ann.example@school.example"
	avoid := []string{email, "Ann Example"}
	// Eight characters, sixteen bytes: the length rule counts characters.
	cyrillic := "дождикит"
	if utf8.RuneCountInString(cyrillic) != 8 || len(cyrillic) != 16 {
		t.Fatalf("test password %q: %d runes, %d bytes", cyrillic, utf8.RuneCountInString(cyrillic), len(cyrillic))
	}
	for _, tc := range []struct {
		name  string
		pw    string
		avoid []string
		want  error
	}{
		{"long passphrase", "correct horse battery staple", avoid, nil},
		{"eight characters", "k7#Qz!pL", avoid, nil},
		{"eight non-ASCII characters", cyrillic, avoid, nil},
		{"seven non-ASCII characters in more than eight bytes", "дождики", avoid, ErrTooShort},
		{"seven characters", "k7#Qz!p", avoid, ErrTooShort},
		{"empty", "", avoid, ErrTooShort},
		{"at the byte limit", strings.Repeat("ab", MaxLength/2), avoid, nil},
		{"over the byte limit", strings.Repeat("я", MaxLength/2+1), avoid, ErrTooLongNew},
		{"no composition rules: lower case only", "glacierpuddingsonata", avoid, nil},

		{"common", "password", nil, ErrCommon},
		{"common, other case", "PassWord", nil, ErrCommon},
		{"common, surrounding spaces", "  iloveyou ", nil, ErrCommon},
		{"common and short but padded to length", "dragon  ", nil, ErrCommon},
		{"common digits", "12345678", nil, ErrCommon},
		{"common, further down the list", "trustno1", nil, ErrCommon},

		{"the e-mail address", email, avoid, ErrContext},
		{"the e-mail address, other case", "ANN.Example@School.example", avoid, ErrContext},
		{"the e-mail's local part", "ann.example", avoid, ErrContext},
		{"the e-mail's local part, other case and spaces", " Ann.Example ", avoid, ErrContext},
		{"the name", "ann example", avoid, ErrContext},
		{"contains the name but is longer", "ann example rides bikes", avoid, nil},
		{"a short local part is not avoided", "bob@x.example", []string{"bob@x.example"}, ErrContext},
		{"empty avoid words are ignored", "glacierpuddingsonata", []string{"", "  "}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckPolicy(tc.pw, tc.avoid...)
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("CheckPolicy(%q) = %v, want %v", tc.pw, err, tc.want)
			}
		})
	}
}

// A local part shorter than MinLength could never be a password (it fails the length rule on
// its own), so only one of at least eight characters is compared; the rule is exercised here
// with a local part of exactly eight.
func TestCheckPolicyLocalPartLength(t *testing.T) {
	if err := CheckPolicy("annexamp", "annexamp@x.example"); !errors.Is(err, ErrContext) {
		t.Errorf("eight-character local part: %v", err)
	}
	if err := CheckPolicy("annexamp", "annexam@x.example"); err != nil {
		t.Errorf("a seven-character local part inside the password: %v", err)
	}
}

// The texts are shown to members as they are: sentences, each ending with a full stop.
func TestPolicyMessages(t *testing.T) {
	for _, err := range []error{ErrTooShort, ErrTooLongNew, ErrCommon, ErrContext} {
		msg := err.Error()
		if msg == "" || strings.HasPrefix(msg, "password:") || !strings.HasSuffix(msg, ".") || strings.ToUpper(msg[:1]) != msg[:1] {
			t.Errorf("%q is not a sentence for members", msg)
		}
	}
}

func TestCommonPasswordsList(t *testing.T) {
	set := commonPasswords()
	if len(set) < 25_000 {
		t.Fatalf("common password set has %d entries; the list shipped with zxcvbn has 30,000", len(set))
	}
	for p := range set {
		if p != normalise(p) {
			t.Fatalf("entry %q is not normalised", p)
		}
	}
}
