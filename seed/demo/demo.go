package demo

import (
	"bytes"
	_ "embed"
	"net"
	"reflect"
	"time"

	"github.com/proctorhq/proctor/seed"
)

var (
	//go:embed northwind.yaml
	northwindYAML string
	//go:embed lumen.yaml
	lumenYAML string
)

// Reference is the day the fixtures are written around: Monday 2026-11-16, 00:00 UTC.
var Reference = time.Date(2026, time.November, 16, 0, 0, 0, 0, time.UTC)

// School is one demo school: what its school file would say, and its fixture.
type School struct {
	SchoolID  int64
	Subdomain string
	Name      string
	BaseURL   string
	// Fixture is the embedded YAML, a fresh copy per call of Schools; its dates are those of
	// Reference (see Load).
	Fixture []byte
	// FileName names the fixture in error messages.
	FileName string
	// Locale and TimeZone are the school file's locale and timezone: the language of its pages
	// for a browser that asks for none of Proctor's, and the zone they write dates in.
	Locale, TimeZone string
}

// DefaultPort is used when the address given to Schools has no port.
const DefaultPort = "8080"

// Schools returns the two demo schools served at addr ("127.0.0.1:8080"): only the port is
// taken from it, because each school has its own loopback host name on that port.
func Schools(addr string) []School {
	port := DefaultPort
	if _, p, err := net.SplitHostPort(addr); err == nil && p != "" {
		port = p
	}
	return []School{
		{
			SchoolID: 1, Subdomain: "northwind", Name: "Northwind Academy",
			BaseURL: "http://127.0.0.1:" + port,
			Fixture: []byte(northwindYAML), FileName: "northwind.yaml",
			Locale: "en", TimeZone: "America/New_York",
		},
		{
			SchoolID: 2, Subdomain: "lumen", Name: "Lumen School",
			BaseURL: "http://localhost:" + port,
			Fixture: []byte(lumenYAML), FileName: "lumen.yaml",
			// Lumen's pages show Traditional Chinese to a browser that asks for neither
			// Japanese nor English: the demo of a school's default language.
			Locale: "zh-TW", TimeZone: "Asia/Tokyo",
		},
	}
}

// Load parses the school's fixture and moves its dates forward by the whole weeks between
// Reference and now (never back), keeping weekdays, so that the demo looks the same on any day.
// The result still has to be validated and applied like any fixture.
func (s School) Load(now time.Time) (*seed.Fixture, error) {
	f, err := seed.Load(s.FileName, bytes.NewReader(s.Fixture))
	if err != nil {
		return nil, err
	}
	const week = 7 * 24 * time.Hour
	if weeks := now.Sub(Reference) / week; weeks > 0 {
		shift(reflect.ValueOf(&f.Data).Elem(), weeks*week)
	}
	return f, nil
}

var timeType = reflect.TypeFor[time.Time]()

// shift adds d to every time in v, wherever it sits in the SchoolData tree.
func shift(v reflect.Value, d time.Duration) {
	switch {
	case v.Type() == timeType:
		if t := v.Interface().(time.Time); !t.IsZero() {
			v.Set(reflect.ValueOf(t.Add(d)))
		}
	case v.Kind() == reflect.Pointer:
		if !v.IsNil() {
			shift(v.Elem(), d)
		}
	case v.Kind() == reflect.Slice:
		for i := range v.Len() {
			shift(v.Index(i), d)
		}
	case v.Kind() == reflect.Struct:
		for i := range v.NumField() {
			shift(v.Field(i), d)
		}
	}
}

// Account is a demo login printed at start-up.
type Account struct {
	SchoolSubdomain string
	Email           string
	Password        string
	Role            string
}

// Accounts returns the demo logins: for each school its owner, a lecturer and a student, and
// Jordan Lee, who holds a role at both schools with one identity and one password.
func Accounts() []Account {
	return []Account{
		{"northwind", "olivia.bennett@northwind.example", "owner-demo-pass", "owner"},
		{"northwind", "priya.nair@northwind.example", "lecturer-demo-pass", "lecturer"},
		{"northwind", "sam.carter@example.com", "student-demo-pass", "student"},
		{"northwind", "jordan.lee@example.com", "jordan-demo-pass", "student"},
		{"lumen", "haruka.sato@lumen.example", "owner-demo-pass", "owner"},
		{"lumen", "kenji.watanabe@lumen.example", "lecturer-demo-pass", "lecturer"},
		{"lumen", "mei.tanaka@example.com", "student-demo-pass", "student"},
		{"lumen", "jordan.lee@example.com", "jordan-demo-pass", "admin"},
	}
}
