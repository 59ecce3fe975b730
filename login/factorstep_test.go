package login

import (
	"strings"
	"testing"
	"time"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/templates"
)

func pendingHandler(t testing.TB) *Handler {
	t.Helper()
	tpl, err := templates.New()
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(Deps{Store: &countingStore{}, Secret: config.Secret([]byte("0123456789abcdef0123456789abcdef")), Templates: tpl})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestPendingCookie(t *testing.T) {
	h := pendingHandler(t)
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	p := pendingSignIn{SchoolID: 1, MemberID: 7, AMR: []string{"pwd"}, Expires: now.Add(PendingLifetime)}
	v := h.encodePending(p)
	got, err := parsePending(h.pendingKey, v, 1, now)
	if err != nil || got.MemberID != 7 || got.SchoolID != 1 || strings.Join(got.AMR, ",") != "pwd" || !got.Expires.Equal(p.Expires) {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
	body, sig, _ := strings.Cut(v, ".")
	other := h.encodePending(pendingSignIn{SchoolID: 2, MemberID: 8, Expires: now.Add(time.Minute)})
	otherBody, _, _ := strings.Cut(other, ".")
	for _, c := range []struct {
		what   string
		value  string
		school int64
		at     time.Time
	}{
		{"at its expiry", v, 1, p.Expires},
		{"after its expiry", v, 1, p.Expires.Add(time.Second)},
		{"at another school", v, 2, now},
		{"with another body", otherBody + "." + sig, 1, now},
		{"with another signature", body + "." + strings.Repeat("A", len(sig)), 1, now},
		{"unsigned", body, 1, now},
		{"signed by another key", pendingHandlerWithSecret(t, "fedcba9876543210fedcba9876543210").encodePending(p), 1, now},
		{"empty", "", 1, now},
		// A cookie made to live longer than a pending sign-in may (a clock moved back) is refused.
		{"too long-lived", h.encodePending(pendingSignIn{SchoolID: 1, MemberID: 7, Expires: now.Add(time.Hour)}), 1, now},
	} {
		if _, err := parsePending(h.pendingKey, c.value, c.school, c.at); err == nil {
			t.Errorf("a pending cookie %s was accepted", c.what)
		}
	}
	// The pending key is no other key of the handler: a known-device or CSRF MAC cannot stand in.
	if string(h.pendingKey) == string(h.csrfKey) || string(h.pendingKey) == string(h.deviceKey) || string(h.pendingKey) == string(h.sessionKey) {
		t.Error("the pending cookie's key is shared")
	}
}

func pendingHandlerWithSecret(t testing.TB, secret string) *Handler {
	tpl, err := templates.New()
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(Deps{Store: &countingStore{}, Secret: config.Secret([]byte(secret)), Templates: tpl})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestReadCodeField(t *testing.T) {
	for in, want := range map[string]string{
		"123456":                       "123456",
		" 123 456 ":                    "123456",
		"ABCDE-fghij":                  "abcdefghij",
		"abcde\tfghij":                 "abcdefghij",
		"":                             "",
		"12345<":                       "",
		"１２３４５６":                       "",
		strings.Repeat("1", maxCode+1): "",
	} {
		got, ok := ReadCodeField(in)
		if got != want || ok != (want != "") {
			t.Errorf("ReadCodeField(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	if CodeKind("123456") != "totp" || CodeKind("12345a") != "recovery_code" || CodeKind("abcdefghij") != "recovery_code" {
		t.Error("CodeKind")
	}
}

func FuzzParsePending(f *testing.F) {
	h := pendingHandler(f)
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	f.Add(h.encodePending(pendingSignIn{SchoolID: 1, MemberID: 7, AMR: []string{"pwd"}, Expires: now.Add(time.Minute)}))
	f.Add("a.b")
	f.Add("..")
	f.Add("MXwyfHB3ZHwz.")
	f.Fuzz(func(t *testing.T, v string) {
		p, err := parsePending(h.pendingKey, v, 1, now)
		if err != nil {
			return
		}
		// Whatever is accepted was signed by us, for this school, and not expired.
		if p.SchoolID != 1 || p.MemberID <= 0 || !now.Before(p.Expires) {
			t.Fatalf("accepted %q as %+v", v, p)
		}
		if h.encodePending(p) != v {
			t.Fatalf("accepted %q, which is not what encodePending makes of %+v", v, p)
		}
	})
}

func FuzzReadCodeField(f *testing.F) {
	for _, s := range []string{"123456", "abcde-fghij", " 12 34 56 ", "", "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		code, ok := ReadCodeField(s)
		if !ok {
			if code != "" {
				t.Fatalf("refused %q but returned %q", s, code)
			}
			return
		}
		if len(code) == 0 || len(code) > maxCode {
			t.Fatalf("ReadCodeField(%q) = %q", s, code)
		}
		for i := 0; i < len(code); i++ {
			if c := code[i]; (c < '0' || c > '9') && (c < 'a' || c > 'z') {
				t.Fatalf("ReadCodeField(%q) = %q holds %q", s, code, c)
			}
		}
		if again, ok := ReadCodeField(code); !ok || again != code {
			t.Fatalf("not idempotent on %q: %q", code, again)
		}
	})
}
