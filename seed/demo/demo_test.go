package demo_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/proctorhq/proctor/look"
	"github.com/proctorhq/proctor/seed"
	"github.com/proctorhq/proctor/seed/demo"
	"github.com/proctorhq/proctor/storage"
)

func TestFixturesValidate(t *testing.T) {
	for _, s := range demo.Schools("127.0.0.1:8080") {
		for _, now := range []time.Time{demo.Reference, time.Now()} {
			f, err := s.Load(now)
			if err != nil {
				t.Fatalf("%s: %v", s.FileName, err)
			}
			if errs := f.Validate(); len(errs) > 0 {
				t.Errorf("%s does not validate:\n%v", s.FileName, errs)
			}
		}
		if n := bytes.Count(s.Fixture, []byte("\n")); n > 1500 {
			t.Errorf("%s has %d lines; keep a demo fixture readable", s.FileName, n)
		}
	}
}

func TestSchools(t *testing.T) {
	for addr, port := range map[string]string{"127.0.0.1:9090": "9090", ":9191": "9191", "": demo.DefaultPort, "localhost": demo.DefaultPort} {
		s := demo.Schools(addr)
		if len(s) != 2 {
			t.Fatalf("%d schools", len(s))
		}
		want := []string{"http://127.0.0.1:" + port, "http://localhost:" + port}
		if s[0].BaseURL != want[0] || s[1].BaseURL != want[1] {
			t.Errorf("Schools(%q) base URLs %q, %q; want %q", addr, s[0].BaseURL, s[1].BaseURL, want)
		}
	}
	s := demo.Schools("")
	if s[0].SchoolID != 1 || s[0].Subdomain != "northwind" || s[0].Name != "Northwind Academy" ||
		s[1].SchoolID != 2 || s[1].Subdomain != "lumen" || s[1].Name != "Lumen School" {
		t.Errorf("schools = %+v", s)
	}
	// Each call hands out its own copy of the embedded file.
	s[0].Fixture[0] = 'X'
	if demo.Schools("")[0].Fixture[0] == 'X' {
		t.Error("Schools shares the embedded bytes")
	}
}

func load(t *testing.T, s demo.School, now time.Time) *seed.Fixture {
	t.Helper()
	f, err := s.Load(now)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func bySubdomain(t *testing.T) map[string]*seed.Fixture {
	m := map[string]*seed.Fixture{}
	for _, s := range demo.Schools("") {
		m[s.Subdomain] = load(t, s, demo.Reference)
	}
	return m
}

// Every printed account can log in with its printed password and holds the printed role.
func TestAccountsMatchFixtures(t *testing.T) {
	fixtures := bySubdomain(t)
	schools := map[string]map[string]bool{} // e-mail -> subdomains
	roles := map[string]map[string]bool{}   // subdomain -> roles printed
	for _, a := range demo.Accounts() {
		f := fixtures[a.SchoolSubdomain]
		if f == nil {
			t.Fatalf("account %s names unknown school %q", a.Email, a.SchoolSubdomain)
		}
		i := slices.IndexFunc(f.Data.Members, func(m storage.MemberSeed) bool { return m.Email == a.Email })
		if i < 0 {
			t.Errorf("%s is not in %s", a.Email, f.File)
			continue
		}
		m := f.Data.Members[i]
		if m.Password != a.Password {
			t.Errorf("%s at %s: fixture password %q, printed %q", a.Email, a.SchoolSubdomain, m.Password, a.Password)
		}
		if !slices.Contains(m.Roles, storage.Role(a.Role)) {
			t.Errorf("%s at %s: roles %v lack %s", a.Email, a.SchoolSubdomain, m.Roles, a.Role)
		}
		if schools[a.Email] == nil {
			schools[a.Email] = map[string]bool{}
		}
		schools[a.Email][a.SchoolSubdomain] = true
		if roles[a.SchoolSubdomain] == nil {
			roles[a.SchoolSubdomain] = map[string]bool{}
		}
		roles[a.SchoolSubdomain][a.Role] = true
	}
	for _, sub := range []string{"northwind", "lumen"} {
		if !roles[sub]["owner"] || !roles[sub]["student"] {
			t.Errorf("%s: printed roles %v, want at least an owner and a student", sub, roles[sub])
		}
	}
	var both int
	for _, s := range schools {
		if len(s) == 2 {
			both++
		}
	}
	if both == 0 {
		t.Error("no printed account holds roles at both schools")
	}
}

// A member in both files is one deployment-wide identity: both files must agree on it, or the
// second import would silently rename the member.
func TestSharedMembersAgree(t *testing.T) {
	fx := bySubdomain(t)
	nw := map[string]storage.MemberSeed{}
	for _, m := range fx["northwind"].Data.Members {
		nw[strings.ToLower(m.Email)] = m
	}
	shared := 0
	for _, m := range fx["lumen"].Data.Members {
		o, ok := nw[strings.ToLower(m.Email)]
		if !ok {
			continue
		}
		shared++
		if o.Name != m.Name || o.AvatarURL != m.AvatarURL || o.Password != m.Password || o.PasswordHash != m.PasswordHash {
			t.Errorf("%s differs between the fixtures", m.Email)
		}
	}
	if shared == 0 {
		t.Error("no member in both fixtures")
	}
}

// The data exercises what the Member API has to get right (the spec's Viewer, Course,
// Lecture, Consulting service and Payment tables and the payments rules).
func TestFixturesCoverTheSpec(t *testing.T) {
	for sub, f := range bySubdomain(t) {
		d := f.Data
		check := func(ok bool, what string) {
			t.Helper()
			if !ok {
				t.Errorf("%s lacks %s", sub, what)
			}
		}
		check(slices.ContainsFunc(d.Courses, func(c storage.CourseSeed) bool { return !c.Published }), "an unpublished course")
		for _, c := range d.Courses {
			check(len(c.Sections) >= 3 && len(c.Sections) <= 6, c.Slug+" with 3-6 sections")
			for _, s := range c.Sections {
				check(len(s.Lectures) >= 3 && len(s.Lectures) <= 8, c.Slug+" sections with 3-8 lectures")
			}
		}
		locked := false
		for _, c := range d.Courses {
			for _, s := range c.Sections {
				for _, l := range s.Lectures {
					locked = locked || l.IsLocked && l.UnlockAt != nil && l.UnlockAt.After(demo.Reference)
				}
			}
		}
		check(locked, "a locked lecture unlocking later")
		check(slices.ContainsFunc(d.Enrollments, func(e storage.EnrollmentSeed) bool { return e.ExpireDate != nil }), "an enrollment with expire_date")
		check(slices.ContainsFunc(d.Enrollments, func(e storage.EnrollmentSeed) bool { return e.LifetimeAccess }), "a lifetime enrollment")
		for _, st := range []storage.LectureState{storage.LectureUnread, storage.LectureRead, storage.LectureCompleted} {
			check(slices.ContainsFunc(d.Progress, func(p storage.ProgressSeed) bool { return p.State == st }), "progress in state "+string(st))
		}
		check(slices.ContainsFunc(d.Progress, func(p storage.ProgressSeed) bool {
			return p.State == storage.LectureRead && p.PositionSeconds > 0
		}), "a lecture watched part-way")
		check(len(d.ProductHoldings) > 0 && len(d.EventRegistrations) > 0 && len(d.Subscriptions) > 0, "holdings, registrations and subscriptions")
		meetingMembers := map[string]bool{}
		for _, s := range d.ConsultingServices {
			check(len(s.Courses) > 0 && len(s.Slots) > 0, s.Slug+" offered against a course, with slots")
			for _, m := range s.Meetings {
				meetingMembers[m.Member] = true
			}
		}
		check(len(meetingMembers) >= 3, "meetings reserved by several members")

		has := func(what string, fn func(p storage.PaymentSeed) bool) {
			t.Helper()
			check(slices.ContainsFunc(d.Payments, fn), what)
		}
		has("a paid card payment", func(p storage.PaymentSeed) bool { return p.PaymentState == "paid" && p.PaymentType == "credit_card" })
		has("a paid ATM transfer", func(p storage.PaymentSeed) bool { return p.PaymentState == "paid" && p.PaymentType == "atm" })
		has("an unpaid ATM transfer with instructions and a future deadline", func(p storage.PaymentSeed) bool {
			return p.PaymentState == "unpaid" && p.PaymentType == "atm" && p.BankCode != "" && p.BankName != "" && p.CodeNo != "" &&
				p.ExpiredAt != nil && p.ExpiredAt.After(demo.Reference.AddDate(0, 0, 7))
		})
		has("an expired convenience-store payment", func(p storage.PaymentSeed) bool {
			return p.PaymentState == "expired" && p.PaymentType == "cvs" && p.CodeNo != ""
		})
		has("a failed or expired attempt", func(p storage.PaymentSeed) bool {
			return p.PaymentState == "failed" || p.PaymentState == "expired" && p.PaymentType != ""
		})
		has("an unpaid attempt without a payment method", func(p storage.PaymentSeed) bool { return p.PaymentState == "unpaid" && p.PaymentType == "" })
		has("an expired attempt without a payment method", func(p storage.PaymentSeed) bool { return p.PaymentState == "expired" && p.PaymentType == "" })
		has("a refunded payment", func(p storage.PaymentSeed) bool { return p.PaymentState == "refunded" && p.RefundedAt != nil })
		has("a partially refunded payment", func(p storage.PaymentSeed) bool {
			return p.RefundingState == storage.RefundPartial && p.RefundedAmount > 0
		})
		has("an invoice", func(p storage.PaymentSeed) bool { return p.Invoice != nil })
		has("an installment", func(p storage.PaymentSeed) bool { return p.Installment != nil })
		for _, kind := range []string{"coupon", "promotion"} {
			has("a "+kind+" adjustment", func(p storage.PaymentSeed) bool {
				return slices.ContainsFunc(p.Adjustments, func(a storage.PaymentAdjustment) bool { return a.Kind == kind })
			})
		}
		for _, kind := range storage.ItemKinds {
			has("a "+kind+" line item", func(p storage.PaymentSeed) bool {
				return slices.ContainsFunc(p.LineItems, func(i storage.PaymentLineItem) bool { return i.Kind == kind })
			})
		}
		check(slices.ContainsFunc(d.Notifications, func(n storage.NotificationSeed) bool { return n.ReadAt == nil }), "an unread notification")
		check(slices.ContainsFunc(d.Notifications, func(n storage.NotificationSeed) bool { return n.ReadAt != nil }), "a read notification")
		check(len(d.NotificationSubscriptions) > 0 && len(d.Coupons) > 0 && len(d.Posts) > 0 && len(d.Comments) > 0 &&
			len(d.Lecturers) > 0 && len(d.Forms) > 0 && len(d.FormSubmissions) > 0 && len(d.Pages) > 0 && d.School != nil,
			"notification subscriptions, coupons, posts, comments, lecturers, forms, submissions, pages and settings")
	}
	fx := bySubdomain(t)
	if a, b := fx["northwind"].Data.School.Settings.Currency, fx["lumen"].Data.School.Settings.Currency; a == b {
		t.Errorf("both schools use %s", a)
	}
}

// Load keeps the demo's dates at the same distance from today: a deadline in the future stays
// in the future, a weekday stays that weekday.
func TestLoadMovesDatesByWeeks(t *testing.T) {
	for _, s := range demo.Schools("") {
		orig := load(t, s, demo.Reference)
		for _, days := range []int{-30, 0, 6, 7, 45, 400, 3000} {
			now := demo.Reference.AddDate(0, 0, days).Add(13 * time.Hour)
			f := load(t, s, now)
			if errs := f.Validate(); len(errs) > 0 {
				t.Fatalf("%s at %v:\n%v", s.FileName, now, errs)
			}
			o, g := orig.Data.Payments[0].CreatedAt, f.Data.Payments[0].CreatedAt
			shift := g.Sub(o)
			if shift < 0 || shift%(7*24*time.Hour) != 0 || o.Weekday() != g.Weekday() || (days >= 7 && shift == 0) {
				t.Errorf("%s at Reference%+dd: moved by %v", s.FileName, days, shift)
			}
			for _, p := range f.Data.Payments {
				if p.PaymentState == "unpaid" && p.PaymentType != "" && !p.ExpiredAt.After(now) {
					t.Errorf("%s at %v: %s's deadline %v has passed", s.FileName, now, p.TradeNo, p.ExpiredAt)
				}
			}
		}
	}
}

// TestAppearances: the two demo schools look different, one light and one dark, each with a
// colour that meets the operator API's rule and no logo (the demo fetches nothing from the
// internet).
func TestAppearances(t *testing.T) {
	var got []storage.Appearance
	for _, s := range demo.Schools("") {
		a := load(t, s, demo.Reference).Data.School.Appearance
		if a == nil {
			t.Fatalf("%s has no appearance", s.FileName)
		}
		if err := look.Check(*a); err != nil {
			t.Errorf("%s: %v", s.FileName, err)
		}
		if a.LogoURL != "" {
			t.Errorf("%s: logo %q", s.FileName, a.LogoURL)
		}
		got = append(got, *a)
	}
	if got[0].Theme != "light" || got[1].Theme != "dark" || got[0].PrimaryColor == got[1].PrimaryColor {
		t.Errorf("appearances %+v", got)
	}
}
