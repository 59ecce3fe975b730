package audit_test

import (
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage/gormstore/storetest"
)

func TestClipUserAgent(t *testing.T) {
	straddle := strings.Repeat("a", audit.MaxUserAgent-1) + "é" // the last character straddles the bound
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"Mozilla/5.0 (X11; Linux x86_64)", "Mozilla/5.0 (X11; Linux x86_64)"},
		{"ünïcode ✓ \uFFFD", "ünïcode ✓ \uFFFD"}, // a replacement character sent as such is text
		{"bad\r\nheader\x00\x7f\ttab", "badheadertab"},
		{"c1\u0085\u009fcontrols", "c1controls"},
		{"bad\xffutf8\xc3", "badutf8"},
		{"cut\xe2\x9c", "cut"}, // a sequence missing its last byte
		{straddle, strings.Repeat("a", audit.MaxUserAgent-1)},
		{strings.Repeat("a", audit.MaxUserAgent-2) + "✓", strings.Repeat("a", audit.MaxUserAgent-2)},
		{strings.Repeat("a", audit.MaxUserAgent-3) + "✓", strings.Repeat("a", audit.MaxUserAgent-3) + "✓"},
		{strings.Repeat("b", 2*audit.MaxUserAgent), strings.Repeat("b", audit.MaxUserAgent)},
		// What is dropped does not count against the bound.
		{strings.Repeat("\x00", 100) + strings.Repeat("c", audit.MaxUserAgent), strings.Repeat("c", audit.MaxUserAgent)},
	} {
		got := audit.ClipUserAgent(tc.in)
		if got != tc.want {
			t.Errorf("ClipUserAgent(%q) = %q, want %q", tc.in, got, tc.want)
		}
		checkClipped(t, tc.in, got)
	}
}

// FuzzClipUserAgent checks what ClipUserAgent promises of any header a client sends.
func FuzzClipUserAgent(f *testing.F) {
	for _, seed := range []string{"", "Mozilla/5.0", "a\r\nb", "\xff\xfe", strings.Repeat("é", 300),
		strings.Repeat("x", audit.MaxUserAgent-1) + "é", "\u0085\u202e"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		checkClipped(t, in, audit.ClipUserAgent(in))
	})
}

// checkClipped fails t unless got, ClipUserAgent's answer for in, is valid UTF-8 of at most
// MaxUserAgent bytes without a control character.
func checkClipped(t *testing.T, in, got string) {
	t.Helper()
	if len(got) > audit.MaxUserAgent || !utf8.ValidString(got) {
		t.Fatalf("ClipUserAgent(%q) = %q: %d bytes, valid UTF-8 %v", in, got, len(got), utf8.ValidString(got))
	}
	for _, c := range got {
		if c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) {
			t.Fatalf("ClipUserAgent(%q) kept control character %U", in, c)
		}
	}
}

// A User-Agent whose last character straddles the bound is stored, cut before that character:
// PostgreSQL refuses invalid UTF-8 in a text column, so a cut through the character would lose
// the whole event.
func TestRecordStoresClippedUserAgent(t *testing.T) {
	for _, backend := range storetest.Backends() {
		t.Run(backend, func(t *testing.T) {
			s := storetest.Open(t, backend)
			tn := &school.School{SchoolID: 1, Subdomain: "a", Name: "A"}
			if err := s.SyncSchool(t.Context(), tn.SchoolID, tn.Subdomain, tn.Name); err != nil {
				t.Fatal(err)
			}
			ctx := school.NewContext(t.Context(), tn)
			r := httptest.NewRequest("GET", "/", nil).WithContext(ctx)
			r.Header.Set("User-Agent", strings.Repeat("x", 511)+"é")
			rec := audit.NewRecorder(s, nil)
			if err := rec.Record(ctx, audit.FromRequest(r, audit.Event{Kind: audit.KindSignIn, Actor: audit.ActorMember})); err != nil {
				t.Fatalf("record: %v", err)
			}
			got, err := s.ListSecurityEvents(ctx, audit.Filter{Limit: 10})
			if err != nil || len(got) != 1 {
				t.Fatalf("events %+v, %v", got, err)
			}
			if ua := got[0].UserAgent; ua != strings.Repeat("x", 511) || !utf8.ValidString(ua) {
				t.Errorf("stored User-Agent %q (%d bytes)", ua, len(ua))
			}
		})
	}
}
