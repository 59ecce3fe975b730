package account

import (
	"strings"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/i18n"
)

// uaRule maps a token of a User-Agent header to a name. Tables are read in order: the first
// rule whose token the header contains wins, so tokens that other browsers copy come last
// (Edge's and Opera's headers also say "Chrome/", Chrome's also says "Safari/").
type uaRule struct {
	token, name string
}

var uaBrowsers = []uaRule{
	{"Edg/", "Edge"},
	{"EdgA/", "Edge"},
	{"EdgiOS/", "Edge"},
	{"Edge/", "Edge"},
	{"OPR/", "Opera"},
	{"Opera", "Opera"},
	{"SamsungBrowser/", "Samsung Internet"},
	{"Vivaldi/", "Vivaldi"},
	{"YaBrowser/", "Yandex Browser"},
	{"Firefox/", "Firefox"},
	{"FxiOS/", "Firefox"},
	{"CriOS/", "Chrome"},
	{"Chromium/", "Chromium"},
	{"Chrome/", "Chrome"},
	{"Trident/", "Internet Explorer"},
	{"MSIE ", "Internet Explorer"},
	// Safari last among browsers: every WebKit and Blink browser names it.
	{"Version/", "Safari"},
	{"Safari/", "Safari"},
	{"curl/", "curl"},
	{"Wget/", "Wget"},
	{"Go-http-client/", "Go HTTP client"},
	{"python-requests/", "Python requests"},
	{"okhttp/", "OkHttp"},
}

var uaSystems = []uaRule{
	// iPhone and iPad headers also say "like Mac OS X"; Android's often say "Linux".
	{"iPhone", "iOS"},
	{"iPod", "iOS"},
	{"iPad", "iPadOS"},
	{"Android", "Android"},
	{"CrOS", "ChromeOS"},
	{"Windows Phone", "Windows Phone"},
	{"Windows", "Windows"},
	{"Macintosh", "macOS"},
	{"Mac OS X", "macOS"},
	{"Ubuntu", "Ubuntu"},
	{"Fedora", "Fedora"},
	{"FreeBSD", "FreeBSD"},
	{"OpenBSD", "OpenBSD"},
	{"Linux", "Linux"},
	{"X11", "Linux"},
}

// unknownDevice is deviceSummary's answer for a header it recognises nothing in.
const unknownDevice = "Unknown device"

// deviceJoin joins a browser and a system in deviceSummary's answer ("Chrome on macOS").
const deviceJoin = " on "

// deviceSummary names the browser and operating system a User-Agent header claims ("Chrome on
// macOS"), for the account page's lists of sessions and sign-ins. The answer is built only from
// the names in the tables above, never from the header's own text, so a crafted header cannot
// put words on the page; and it is a hint, not a fact: any client may claim anything.
func deviceSummary(ua string) string {
	ua = audit.ClipUserAgent(ua)
	browser, system := firstMatch(ua, uaBrowsers), firstMatch(ua, uaSystems)
	switch {
	case browser != "" && system != "":
		return browser + deviceJoin + system
	case browser != "":
		return browser
	case system != "":
		return system
	default:
		return unknownDevice
	}
}

func firstMatch(ua string, rules []uaRule) string {
	for _, r := range rules {
		if strings.Contains(ua, r.token) {
			return r.name
		}
	}
	return ""
}

// localDevice writes a deviceSummary answer in the member's language: the summary is kept as
// it is in the security event log (an event's detail names the device signed out), so the
// account page rewrites it when it shows it. The product names stay as they are; only the
// words around them change. A summary deviceSummary cannot give is returned unchanged.
func localDevice(loc *i18n.Localizer, summary string) string {
	if summary == unknownDevice {
		return loc.Text("account.unknown_device")
	}
	browser, system, ok := strings.Cut(summary, deviceJoin)
	if ok && knownName(browser, uaBrowsers) && knownName(system, uaSystems) {
		return loc.Text("account.device", "Browser", browser, "System", system)
	}
	return summary
}

// knownName reports whether name is one of the names of rules.
func knownName(name string, rules []uaRule) bool {
	for _, r := range rules {
		if r.name == name {
			return true
		}
	}
	return false
}
