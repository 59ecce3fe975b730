package account

import (
	"strings"
	"testing"

	"github.com/proctorhq/proctor/audit"
)

var userAgentCases = []struct{ ua, want string }{
	{"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36", "Chrome on macOS"},
	{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.2903.86", "Edge on Windows"},
	{"Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0", "Firefox on Windows"},
	{"Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0", "Firefox on Ubuntu"},
	{"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36", "Chrome on Linux"},
	{"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.2 Safari/605.1.15", "Safari on macOS"},
	{"Mozilla/5.0 (iPhone; CPU iPhone OS 18_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.2 Mobile/15E148 Safari/604.1", "Safari on iOS"},
	{"Mozilla/5.0 (iPad; CPU OS 17_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1", "Chrome on iPadOS"},
	{"Mozilla/5.0 (iPhone; CPU iPhone OS 18_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/133.0 Mobile/15E148 Safari/605.1.15", "Firefox on iOS"},
	{"Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.81 Mobile Safari/537.36", "Chrome on Android"},
	{"Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/27.0 Chrome/125.0.0.0 Mobile Safari/537.36", "Samsung Internet on Android"},
	{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 OPR/115.0.0.0", "Opera on Windows"},
	{"Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36", "Chrome on ChromeOS"},
	{"Mozilla/5.0 (Windows NT 6.1; Trident/7.0; rv:11.0) like Gecko", "Internet Explorer on Windows"},
	{"curl/8.11.1", "curl"},
	{"Go-http-client/1.1", "Go HTTP client"},
	{"Mozilla/5.0 (Windows NT 10.0)", "Windows"},
	{"", unknownDevice},
	{"<script>alert(1)</script>", unknownDevice},
	{"something else entirely", unknownDevice},
}

func TestDeviceSummary(t *testing.T) {
	for _, tc := range userAgentCases {
		if got := deviceSummary(tc.ua); got != tc.want {
			t.Errorf("deviceSummary(%q) = %q, want %q", tc.ua, got, tc.want)
		}
	}
}

func TestDeviceSummaryReadsOnlyTheStart(t *testing.T) {
	// A token past the bound is not seen: the header is clipped before it is read.
	ua := strings.Repeat("x", audit.MaxUserAgent) + " Firefox/133.0"
	if got := deviceSummary(ua); got != unknownDevice {
		t.Errorf("got %q", got)
	}
}

// summaries is every answer deviceSummary can give.
func summaries() map[string]bool {
	out := map[string]bool{unknownDevice: true}
	for _, b := range uaBrowsers {
		out[b.name] = true
		for _, s := range uaSystems {
			out[b.name+" on "+s.name] = true
		}
	}
	for _, s := range uaSystems {
		out[s.name] = true
	}
	return out
}

// FuzzDeviceSummary checks that any header yields one of the fixed answers: nothing of the
// header itself reaches the page.
func FuzzDeviceSummary(f *testing.F) {
	for _, tc := range userAgentCases {
		f.Add(tc.ua)
	}
	f.Add(strings.Repeat("Chrome/", 200))
	f.Add("\xff\xfeWindows\x00Firefox/")
	known := summaries()
	f.Fuzz(func(t *testing.T, ua string) {
		got := deviceSummary(ua)
		if !known[got] {
			t.Fatalf("deviceSummary(%q) = %q, not a fixed answer", ua, got)
		}
	})
}
