package seed_test

import (
	"strings"
	"testing"
	"time"

	"github.com/proctorhq/proctor/seed"
	"github.com/proctorhq/proctor/storage"
)

// A fixture with problems on known lines: each is reported, at its line, in line order, and a
// missing field is reported at the line of the record that lacks it.
func TestValidateLines(t *testing.T) {
	src := `members:
  - email: ann@x.example
    name: Ann
    password: pw
    roles: [student]
  - email: not-an-email
    name: Bob
    password: pw
  - email: ANN@x.example
    name: Ann again
    password_hash: nope
    roles: [teacher]
courses:
  - slug: Go Basics
    title: Go
    price_amount: -5
    currency: usd
    sections:
      - title: S
        lectures:
          - {title: L1, duration_seconds: 60}
enrollments:
  - member: carl@x.example
    course: go-basics
    enrolled_at: 2026-01-01
progress:
  - member: ann@x.example
    lecture: {course: Go Basics, section: 1, lecture: 3}
    state: watching
    updated_at: 2026-01-01
payments:
  - trade_no: T1
    member: ann@x.example
    amount: 100
    currency: USD
    payment_state: paid
    created_at: 2026-01-01
    line_items:
      - {kind: course, ref: Go Basics, title: Go, quantity: 1, unit_amount: 100}
`
	f := loadString(t, src)
	match(t, f.Validate(), []want{
		{6, "members[1].email", `"not-an-email" is not an e-mail address`},
		{9, "members[2].email", "duplicate member e-mail: already defined by members[0].email (line 2)"},
		{11, "members[2].password_hash", "not a password hash Proctor reads"},
		{12, "members[2].roles[0]", `"teacher" is not a role`},
		{14, "courses[0].slug", `"Go Basics" is not a slug`},
		{16, "courses[0].price_amount", "must not be negative"},
		{17, "courses[0].currency", `"usd" is not a currency`},
		{23, "enrollments[0].member", `no member "carl@x.example" in this file's members`},
		{24, "enrollments[0].course", `no course "go-basics" in this file's courses`},
		{28, "progress[0].lecture.lecture", `section 1 of course "Go Basics" has 1 lectures`},
		{29, "progress[0].state", `"watching" is not one of unread, read, completed`},
		{32, "payments[0].paid_at", "required for a paid payment"},
		{32, "payments[0].payment_type", "required for a paid payment"},
	})
}

// Errors render as file:line: field: message, one per line.
func TestErrorsFormat(t *testing.T) {
	errs := seed.Errors{
		{File: "f.yaml", Line: 3, Field: "members[0].email", Msg: "required"},
		{File: "f.yaml", Msg: "the file is empty"},
	}
	want := "f.yaml:3: members[0].email: required\nf.yaml: the file is empty"
	if got := errs.Error(); got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func ptr[T any](v T) *T { return &v }

var day = time.Date(2026, 2, 1, 10, 0, 0, 0, time.UTC)

// paid is a consistent paid payment to bend into an inconsistent one.
func paid(tradeNo string) storage.PaymentSeed {
	return storage.PaymentSeed{
		TradeNo: tradeNo, Member: "owner@seed-test.example", Amount: 4900, Currency: "EUR",
		PaymentType: "credit_card", CreatedAt: day,
		PaymentStatus: storage.PaymentStatus{PaymentState: storage.PaymentPaid, PaidAt: ptr(day.Add(time.Minute))},
		LineItems:     []storage.PaymentLineItem{{Kind: "course", Ref: "go-basics", Title: "Go Basics", Quantity: 1, UnitAmount: 4900}},
	}
}

// addPayment appends a variant of paid as payments[1].
func addPayment(fn func(p *storage.PaymentSeed)) func(d *storage.SchoolData) {
	return func(d *storage.SchoolData) {
		p := paid("T-0002")
		fn(&p)
		d.Payments = append(d.Payments, p)
	}
}

// Each rule of docs/seed-format.md, broken once in an otherwise valid fixture: exactly that
// problem is reported.
func TestValidateRules(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(d *storage.SchoolData)
		field  string // "" means no problem at all
		msg    string
	}{
		{"valid as is", func(d *storage.SchoolData) {}, "", ""},

		// School.
		{"unknown time zone", func(d *storage.SchoolData) { d.School.Settings.Timezone = "Mars/Olympus" }, "school.settings.timezone", "not an IANA time zone"},
		{"Local is not a zone", func(d *storage.SchoolData) { d.School.Settings.Timezone = "Local" }, "school.settings.timezone", "not an IANA time zone"},
		{"school currency", func(d *storage.SchoolData) { d.School.Settings.Currency = "EURO" }, "school.settings.currency", "not a currency"},
		{"contact e-mail", func(d *storage.SchoolData) { d.School.Settings.ContactEmail = "office" }, "school.settings.contact_email", "not an e-mail"},
		{"colour", func(d *storage.SchoolData) { d.School.Appearance.PrimaryColor = "blue" }, "school.appearance.primary_color", "not a colour"},
		{"locale", func(d *storage.SchoolData) { d.School.Settings.Locale = "German" }, "school.settings.locale", "not a locale"},
		// The operator API's rule (storage.ValidLocale): BCP 47 tags are case-insensitive, and at
		// most 35 characters.
		{"locale with an underscore", func(d *storage.SchoolData) { d.School.Settings.Locale = "en_US" }, "school.settings.locale", "not a locale"},
		{"locale too long", func(d *storage.SchoolData) { d.School.Settings.Locale = "en" + strings.Repeat("-abcdefgh", 4) }, "school.settings.locale", "not a locale"},
		{"locale in capitals", func(d *storage.SchoolData) { d.School.Settings.Locale = "EN-US" }, "", ""},
		{"locale with a script", func(d *storage.SchoolData) { d.School.Settings.Locale = "zh-Hant-TW" }, "", ""},
		{"logo URL", func(d *storage.SchoolData) { d.School.Appearance.LogoURL = "ftp://x/logo" }, "school.appearance.logo_url", "not a URL"},
		{"three-digit colour", func(d *storage.SchoolData) { d.School.Appearance.PrimaryColor = "#fff" }, "school.appearance.primary_color", "not a colour"},
		{"colour unreadable on light pages", func(d *storage.SchoolData) { d.School.Appearance.PrimaryColor = "#ffcc00" }, "school.appearance.primary_color",
			"#ffcc00 has a contrast of 1.4:1 against the light page (#f6f7f9); WCAG AA needs 4.5:1 for text: choose a darker colour"},
		{"colour unreadable on dark pages", func(d *storage.SchoolData) { d.School.Appearance.Theme = "dark" }, "school.appearance.primary_color", "choose a lighter colour"},
		{"colour for dark pages", func(d *storage.SchoolData) {
			d.School.Appearance.PrimaryColor, d.School.Appearance.Theme = "#fb923c", "dark"
		}, "", ""},
		{"theme", func(d *storage.SchoolData) { d.School.Appearance.Theme = "sepia" }, "school.appearance.theme", "not a theme"},
		{"http logo URL", func(d *storage.SchoolData) { d.School.Appearance.LogoURL = "http://seed-test.example/logo.png" }, "school.appearance.logo_url", "not a URL"},

		// Members.
		{"password and hash", func(d *storage.SchoolData) { d.Members[0].PasswordHash = d.Members[1].PasswordHash }, "members[0].password", "either password or password_hash"},
		{"no password: invited later", func(d *storage.SchoolData) { d.Members[0].Password = "" }, "", ""},
		{"bcrypt hash from PHP", withHash("$2y$10$" + strings.Repeat("a", 53)), "", ""},
		{"bcrypt hash from Rails", withHash("$2a$12$" + strings.Repeat("Z", 53)), "", ""},
		{"bcrypt cost too high", withHash("$2b$17$" + strings.Repeat("a", 53)), "members[0].password_hash", "not a password hash Proctor reads"},
		{"Django PBKDF2 hash", withHash("pbkdf2_sha256$260000$Gq5nKVp3WxHbT8sYc2LmRe$duMneQcytWKSs3gxGJ0bbZwmOguUb4RjVowfSg39ljw="), "", ""},
		{"passlib PBKDF2 hash", withHash("$pbkdf2-sha256$29000$AAECAwQFBgcICQoLDA0ODw$m/kLywdyNwK9GV2kWntRGvZzmeiVsuqehNWlLst2eWY"), "", ""},
		{"PBKDF2 iterations too many", withHash("pbkdf2_sha256$9000000$Gq5nKVp3WxHbT8sYc2LmRe$duMneQcytWKSs3gxGJ0bbZwmOguUb4RjVowfSg39ljw="), "members[0].password_hash", "not a password hash Proctor reads"},
		{"unknown hash format", withHash("sha1$abc$0123456789abcdef0123456789abcdef01234567"), "members[0].password_hash", "not a password hash Proctor reads"},
		{"long password", func(d *storage.SchoolData) { d.Members[0].Password = strings.Repeat("x", 1025) }, "members[0].password", "longer than 1024 bytes"},
		{"role repeated", func(d *storage.SchoolData) { d.Members[0].Roles = []storage.Role{"owner", "owner"} }, "members[0].roles[1]", "repeated"},
		{"no name", func(d *storage.SchoolData) { d.Members[0].Name = " " }, "members[0].name", "required"},
		{"no e-mail", func(d *storage.SchoolData) {
			d.Members = append(d.Members, storage.MemberSeed{Name: "X", Password: "pw"})
		}, "members[2].email", "required"},
		{"e-mail with a display name", func(d *storage.SchoolData) {
			d.Members = append(d.Members, storage.MemberSeed{Email: "X <x@seed-test.example>", Name: "X", Password: "pw"})
		}, "members[2].email", "not an e-mail"},

		// Courses, enrollments, progress.
		{"duplicate course", func(d *storage.SchoolData) { d.Courses = append(d.Courses, d.Courses[0]) }, "courses[1].slug", "duplicate course slug: already defined by courses[0].slug (line 27)"},
		{"negative duration", func(d *storage.SchoolData) { d.Courses[0].Sections[0].Lectures[0].DurationSeconds = -1 }, "courses[0].sections[0].lectures[0].duration_seconds", "negative"},
		{"section without title", func(d *storage.SchoolData) { d.Courses[0].Sections[0].Title = "" }, "courses[0].sections[0].title", "required"},
		{"course price", func(d *storage.SchoolData) { d.Courses[0].Currency = "" }, "courses[0].currency", "required"},
		{"lifetime and expiry", func(d *storage.SchoolData) { d.Enrollments[1].ExpireDate = ptr(day) }, "enrollments[1].expire_date", "lifetime"},
		{"expires before enrolled", func(d *storage.SchoolData) { d.Enrollments[0].ExpireDate = ptr(day.AddDate(-1, 0, 0)) }, "enrollments[0].expire_date", "before enrolled_at"},
		{"duplicate enrollment", func(d *storage.SchoolData) { d.Enrollments = append(d.Enrollments, d.Enrollments[0]) }, "enrollments[2]", "duplicate enrollment"},
		{"duplicate enrollment, other case", func(d *storage.SchoolData) {
			e := d.Enrollments[0]
			e.Member = strings.ToUpper(e.Member)
			d.Enrollments = append(d.Enrollments, e)
		}, "enrollments[2]", "duplicate enrollment"},
		{"no enrolled_at", func(d *storage.SchoolData) { d.Enrollments[0].EnrolledAt = time.Time{} }, "enrollments[0].enrolled_at", "required"},
		{"position past the end", func(d *storage.SchoolData) { d.Progress[0].PositionSeconds = 301 }, "progress[0].position_seconds", "past the end of the lecture (300 seconds)"},
		{"unread with a position", func(d *storage.SchoolData) { d.Progress[0].State = storage.LectureUnread }, "progress[0].position_seconds", "unread lecture is at position 0"},
		{"section 0", func(d *storage.SchoolData) { d.Progress[0].Lecture.Section = 0 }, "progress[0].lecture.section", "from 1"},
		{"section out of range", func(d *storage.SchoolData) { d.Progress[0].Lecture.Section = 2 }, "progress[0].lecture.section", `course "go-basics" has 1 sections`},
		{"duplicate progress", func(d *storage.SchoolData) { d.Progress = append(d.Progress, d.Progress[0]) }, "progress[1]", "duplicate progress"},

		// Products, consulting, events.
		{"unknown product", func(d *storage.SchoolData) { d.ProductHoldings[0].Product = "ebook" }, "product_holdings[0].product", `no digital product "ebook" in this file`},
		{"weekday 7", func(d *storage.SchoolData) { d.ConsultingServices[0].Slots[0].Weekday = 7 }, "consulting_services[0].slots[0].weekday", "0 (Sunday) to 6"},
		{"start time 9:00", func(d *storage.SchoolData) { d.ConsultingServices[0].Slots[0].StartTime = "9:00" }, "consulting_services[0].slots[0].start_time", "HH:MM"},
		{"start time 24:00", func(d *storage.SchoolData) { d.ConsultingServices[0].Slots[0].StartTime = "24:00" }, "consulting_services[0].slots[0].start_time", "HH:MM"},
		{"slot zone", func(d *storage.SchoolData) { d.ConsultingServices[0].Slots[0].TimeZone = "CEST" }, "consulting_services[0].slots[0].time_zone", "not an IANA time zone"},
		{"slot without zone", func(d *storage.SchoolData) { d.ConsultingServices[0].Slots[0].TimeZone = "" }, "consulting_services[0].slots[0].time_zone", "required"},
		{"duplicate slot", func(d *storage.SchoolData) {
			s := &d.ConsultingServices[0]
			s.Slots = append(s.Slots, s.Slots[0])
		}, "consulting_services[0].slots[1]", "duplicate slot"},
		{"service duration", func(d *storage.SchoolData) { d.ConsultingServices[0].DurationMinutes = 0 }, "consulting_services[0].duration_minutes", "positive"},
		{"meeting ends first", func(d *storage.SchoolData) { d.ConsultingServices[0].Meetings[0].EndsAt = day.AddDate(-1, 0, 0) }, "consulting_services[0].meetings[0].ends_at", "after starts_at"},
		{"meeting member", func(d *storage.SchoolData) { d.ConsultingServices[0].Meetings[0].Member = "zed@x.example" }, "consulting_services[0].meetings[0].member", "no member"},
		{"service course", func(d *storage.SchoolData) { d.ConsultingServices[0].Courses = []string{"rust"} }, "consulting_services[0].courses[0]", `no course "rust"`},
		{"event ends first", func(d *storage.SchoolData) { d.Events[0].EndsAt = d.Events[0].StartsAt }, "events[0].ends_at", "after starts_at"},
		{"event capacity", func(d *storage.SchoolData) { d.Events[0].Capacity = -1 }, "events[0].capacity", "negative"},
		{"registration status", func(d *storage.SchoolData) { d.EventRegistrations[0].Status = "" }, "event_registrations[0].status", "required"},

		// Payments.
		{"a second paid payment", addPayment(func(p *storage.PaymentSeed) {}), "", ""},
		{"paid without paid_at", addPayment(func(p *storage.PaymentSeed) { p.PaidAt = nil }), "payments[1].paid_at", "required for a paid payment"},
		{"paid before created", addPayment(func(p *storage.PaymentSeed) { p.PaidAt = ptr(day.Add(-time.Hour)) }), "payments[1].paid_at", "before created_at"},
		{"unpaid with paid_at", addPayment(func(p *storage.PaymentSeed) { p.PaymentState = "unpaid" }), "payments[1].paid_at", "set on a unpaid payment"},
		{"expired without expired_at", addPayment(func(p *storage.PaymentSeed) {
			p.PaymentState, p.PaidAt = "expired", nil
		}), "payments[1].expired_at", "required for an expired payment"},
		{"unknown state", addPayment(func(p *storage.PaymentSeed) { p.PaymentState = "pending" }), "payments[1].payment_state", "not one of unpaid, paid, expired, failed, refunded"},
		{"abandoned unpaid attempt", addPayment(func(p *storage.PaymentSeed) {
			p.PaymentType, p.PaymentState, p.PaidAt = "", "unpaid", nil
		}), "", ""},
		{"failed without a method", addPayment(func(p *storage.PaymentSeed) {
			p.PaymentType, p.PaymentState, p.PaidAt = "", "failed", nil
		}), "payments[1].payment_type", "only an unpaid or expired attempt may lack one"},
		{"bank code without a method", addPayment(func(p *storage.PaymentSeed) {
			p.PaymentType, p.PaymentState, p.PaidAt, p.BankCode = "", "unpaid", nil, "012"
		}), "payments[1].bank_code", "without a payment_type"},
		{"refund more than paid", addPayment(func(p *storage.PaymentSeed) {
			p.RefundingState, p.RefundedAmount, p.RefundedAt = "refunded", 5000, ptr(day.AddDate(0, 0, 1))
			p.PaymentState = "refunded"
		}), "payments[1].refunded_amount", "more than the amount paid"},
		{"full refund", addPayment(func(p *storage.PaymentSeed) {
			p.RefundingState, p.RefundedAmount, p.RefundedAt = "refunded", 4900, ptr(day.AddDate(0, 0, 1))
			p.PaymentState = "refunded"
		}), "", ""},
		{"partial refund of everything", addPayment(func(p *storage.PaymentSeed) {
			p.RefundingState, p.RefundedAmount, p.RefundedAt = "partially_refunded", 4900, ptr(day.AddDate(0, 0, 1))
		}), "payments[1].refunded_amount", "less than the amount"},
		{"refunded payment without refund state", addPayment(func(p *storage.PaymentSeed) { p.PaymentState = "refunded" }), "payments[1].refunding_state", "has refunding_state refunded, not none"},
		{"refunded without refunded_at", addPayment(func(p *storage.PaymentSeed) {
			p.PaymentState, p.RefundingState, p.RefundedAmount = "refunded", "refunded", 4900
		}), "payments[1].refunded_at", "required when refunding_state is refunded"},
		{"refund requested without a time", addPayment(func(p *storage.PaymentSeed) { p.RefundingState = "requested" }), "payments[1].refund_requested_at", "required when refunding_state is requested"},
		{"refund requested of an unpaid payment", addPayment(func(p *storage.PaymentSeed) {
			p.PaymentState, p.PaidAt, p.RefundingState, p.RefundRequestedAt = "unpaid", nil, "requested", ptr(day.Add(time.Hour))
		}), "payments[1].refunding_state", "requested applies to a paid payment, not a unpaid one"},
		{"refund requested before payment", addPayment(func(p *storage.PaymentSeed) {
			p.RefundingState, p.RefundRequestedAt = "requested", ptr(day.Add(-time.Hour))
		}), "payments[1].refund_requested_at", "before paid_at"},
		{"refunded amount without a refund", addPayment(func(p *storage.PaymentSeed) { p.RefundedAmount = 100 }), "payments[1].refunded_amount", "set without a refund"},
		{"unknown refund state", addPayment(func(p *storage.PaymentSeed) { p.RefundingState = "pending" }), "payments[1].refunding_state", "not one of none, requested"},
		{"amount does not add up", addPayment(func(p *storage.PaymentSeed) { p.Amount = 5000 }), "payments[1].amount", "which come to 4900"},
		{"discount adds up", addPayment(func(p *storage.PaymentSeed) {
			p.Amount = 4400
			p.Adjustments = []storage.PaymentAdjustment{{Kind: "promotion", Title: "Spring sale", Amount: -500}}
		}), "", ""},
		{"line item kind", addPayment(func(p *storage.PaymentSeed) { p.LineItems[0].Kind = "ebook" }), "payments[1].line_items[0].kind", "not one of course, digital_product"},
		{"line item ref", addPayment(func(p *storage.PaymentSeed) {
			p.LineItems[0] = storage.PaymentLineItem{Kind: "membership_plan", Ref: "gold", Title: "Gold", Quantity: 1, UnitAmount: 4900}
		}), "payments[1].line_items[0].ref", `no membership plan "gold" in this file`},
		{"quantity 0", addPayment(func(p *storage.PaymentSeed) { p.LineItems[0].Quantity = 0 }), "payments[1].line_items[0].quantity", "1 or more"},
		{"no line items", addPayment(func(p *storage.PaymentSeed) { p.LineItems = nil }), "payments[1].line_items", "at least one"},
		{"coupon without code", addPayment(func(p *storage.PaymentSeed) {
			p.Amount = 4400
			p.Adjustments = []storage.PaymentAdjustment{{Kind: "coupon", Title: "Five off", Amount: -500}}
		}), "payments[1].adjustments[0].code", "required"},
		{"adjustment kind", addPayment(func(p *storage.PaymentSeed) {
			p.Adjustments = []storage.PaymentAdjustment{{Kind: "tax", Title: "VAT", Amount: 0}}
		}), "payments[1].adjustments[0].kind", "not one of coupon, promotion"},
		{"invoice of an unpaid payment", addPayment(func(p *storage.PaymentSeed) {
			p.PaymentState, p.PaidAt = "unpaid", nil
			p.Invoice = &storage.PaymentInvoice{Number: "INV-9", Status: "void"}
		}), "payments[1].invoice", "paid or refunded payment, not a unpaid one"},
		{"issued invoice without a date", addPayment(func(p *storage.PaymentSeed) {
			p.Invoice = &storage.PaymentInvoice{Number: "INV-9", Status: "issued"}
		}), "payments[1].invoice.issued_at", "required"},
		{"duplicate invoice number", addPayment(func(p *storage.PaymentSeed) {
			p.Invoice = &storage.PaymentInvoice{Number: "INV-2026-0001", Status: "void"}
		}), "payments[1].invoice.number", "duplicate invoice number"},
		{"one installment", addPayment(func(p *storage.PaymentSeed) {
			p.Installment = &storage.PaymentInstallment{Periods: 1, PeriodAmount: 4900}
		}), "payments[1].installment.periods", "2 or more"},
		{"duplicate trade_no", addPayment(func(p *storage.PaymentSeed) { p.TradeNo = "T-0001" }), "payments[1].trade_no", "duplicate trade_no"},
		{"lower-case currency", addPayment(func(p *storage.PaymentSeed) { p.Currency = "eur" }), "payments[1].currency", "not a currency"},
		{"negative amount", addPayment(func(p *storage.PaymentSeed) { p.Amount = -1 }), "payments[1].amount", "must not be negative"},

		// Coupons.
		{"percent and amount", func(d *storage.SchoolData) { d.Coupons[0].AmountOff = 100 }, "coupons[0]", "either percent_off or amount_off"},
		{"neither percent nor amount", func(d *storage.SchoolData) { d.Coupons[0].PercentOff = 0 }, "coupons[0]", "needs percent_off"},
		{"101 percent", func(d *storage.SchoolData) { d.Coupons[0].PercentOff = 101 }, "coupons[0].percent_off", "1 to 100"},
		{"amount without currency", func(d *storage.SchoolData) { d.Coupons[1].Currency = "" }, "coupons[1].currency", "required"},
		{"percent with currency", func(d *storage.SchoolData) { d.Coupons[0].Currency = "EUR" }, "coupons[0].currency", "only for an amount_off coupon"},
		{"code with a space", func(d *storage.SchoolData) { d.Coupons[0].Code = "WELCOME 10" }, "coupons[0].code", "has spaces"},
		{"duplicate code", func(d *storage.SchoolData) { d.Coupons[1].Code = "WELCOME10" }, "coupons[1].code", "duplicate coupon code"},

		// Posts, comments, lecturers.
		{"post course", func(d *storage.SchoolData) { d.Posts[0].Course = "rust" }, "posts[0].course", "no course"},
		{"post author", func(d *storage.SchoolData) { d.Posts[0].Author = "nobody@x.example" }, "posts[0].author", "no member"},
		{"comment on both", func(d *storage.SchoolData) { d.Comments[0].Lecture = d.Comments[1].Lecture }, "comments[0]", "either post or lecture"},
		{"comment on nothing", func(d *storage.SchoolData) { d.Comments[1].Lecture = nil }, "comments[1]", "needs a post or a lecture"},
		{"comment on unknown post", func(d *storage.SchoolData) { d.Comments[0].Post = "nope" }, "comments[0].post", `no post "nope"`},
		{"comment on unknown lecture", func(d *storage.SchoolData) { d.Comments[1].Lecture.Lecture = 3 }, "comments[1].lecture.lecture", "has 2 lectures"},
		{"lecturer course twice", func(d *storage.SchoolData) { d.Lecturers[0].Courses = []string{"go-basics", "go-basics"} }, "lecturers[0].courses[1]", "duplicate course"},

		// Notifications, plans, subscriptions.
		{"read before created", func(d *storage.SchoolData) { d.Notifications[0].ReadAt = ptr(day.AddDate(-1, 0, 0)) }, "notifications[0].read_at", "before created_at"},
		{"notification URL", func(d *storage.SchoolData) { d.Notifications[0].URL = "javascript:alert(1)" }, "notifications[0].url", "not a URL"},
		{"channel", func(d *storage.SchoolData) { d.NotificationSubscriptions[0].Channel = "sms" }, "notification_subscriptions[0].channel", "not one of email, in_app"},
		{"interval", func(d *storage.SchoolData) { d.MembershipPlans[0].Interval = "week" }, "membership_plans[0].interval", "not one of month, year"},
		{"subscription state", func(d *storage.SchoolData) { d.Subscriptions[0].State = "paused" }, "subscriptions[0].state", "not one of active, past_due, canceled"},
		{"period ends first", func(d *storage.SchoolData) { d.Subscriptions[0].CurrentPeriodEnd = d.Subscriptions[0].StartedAt }, "subscriptions[0].current_period_end", "after started_at"},
		{"unknown plan", func(d *storage.SchoolData) { d.Subscriptions[0].Plan = "gold" }, "subscriptions[0].plan", `no membership plan "gold"`},

		// Forms.
		{"field type", func(d *storage.SchoolData) { d.Forms[0].Fields[1].Type = "date" }, "forms[0].fields[1].type", "not one of text, email"},
		{"field name twice", func(d *storage.SchoolData) {
			d.Forms[0].Fields[1].Name = "email"
			delete(d.FormSubmissions[0].Data, "message")
		}, "forms[0].fields[1].name", "duplicate field name"},
		{"form without fields", func(d *storage.SchoolData) {
			d.Forms[0].Fields = nil
			d.FormSubmissions[0].Data = nil
		}, "forms[0].fields", "at least one field"},
		{"unknown form field", func(d *storage.SchoolData) { d.FormSubmissions[0].Data["phone"] = "123" }, "form_submissions[0].data", `form "contact" has no field "phone"`},
		{"missing required field", func(d *storage.SchoolData) { delete(d.FormSubmissions[0].Data, "email") }, "form_submissions[0].data", `required field "email"`},
		{"bad e-mail field", func(d *storage.SchoolData) { d.FormSubmissions[0].Data["email"] = "nope" }, "form_submissions[0].data", `field "email" (email) has "nope"`},
		{"unknown form", func(d *storage.SchoolData) { d.FormSubmissions[0].Form = "survey" }, "form_submissions[0].form", `no form "survey"`},
		{"anonymous submission", func(d *storage.SchoolData) { d.FormSubmissions[0].Member = "" }, "", ""},

		// Pages.
		{"page body", func(d *storage.SchoolData) { d.Pages[0].Body = "" }, "pages[0].body", "required"},
		{"page slug", func(d *storage.SchoolData) { d.Pages[0].Slug = "About Us" }, "pages[0].slug", "not a slug"},
		// The operator API's rule (storage.ValidSlug): no underscores, no doubled or trailing hyphens.
		{"page slug with an underscore", func(d *storage.SchoolData) { d.Pages[0].Slug = "about_us" }, "pages[0].slug", "not a slug"},
		{"page slug with a doubled hyphen", func(d *storage.SchoolData) { d.Pages[0].Slug = "about--us" }, "pages[0].slug", "not a slug"},
		{"page slug with a trailing hyphen", func(d *storage.SchoolData) { d.Pages[0].Slug = "about-" }, "pages[0].slug", "not a slug"},

		// References to kinds the file does not define are left to the store.
		{"no members in the file", func(d *storage.SchoolData) { d.Members = nil }, "", ""},
		{"no courses in the file", func(d *storage.SchoolData) {
			d.Courses = nil
			d.Enrollments[0].Course = "elsewhere"
			d.Progress[0].Lecture = storage.LectureRef{Course: "elsewhere", Section: 9, Lecture: 9}
		}, "", ""},
		{"but a malformed e-mail is still wrong", func(d *storage.SchoolData) {
			d.Members = nil
			d.Enrollments[0].Member = "student"
		}, "enrollments[0].member", "not an e-mail address"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := loadFile(t, "testdata/full.yaml")
			tc.mutate(&f.Data)
			errs := f.Validate()
			if tc.field == "" {
				if len(errs) > 0 {
					t.Fatalf("unexpected problems:\n%v", errs)
				}
				return
			}
			if len(errs) != 1 || errs[0].Field != tc.field || !strings.Contains(errs[0].Msg, tc.msg) {
				t.Fatalf("got:\n%v\nwant one problem: %s: ...%s...", errs, tc.field, tc.msg)
			}
		})
	}
}

// A Fixture built in code validates too; its problems carry no line.
func TestValidateWithoutFile(t *testing.T) {
	f := &seed.Fixture{File: "code", Data: storage.SchoolData{Pages: []storage.PageSeed{{Slug: "a", Title: "A"}}}}
	errs := f.Validate()
	if len(errs) != 1 || errs[0].Line != 0 || errs[0].Error() != "code: pages[0].body: required" {
		t.Fatalf("got %v", errs)
	}
}

// withHash gives the first member a password hash instead of a password.
func withHash(hash string) func(*storage.SchoolData) {
	return func(d *storage.SchoolData) { d.Members[0].Password, d.Members[0].PasswordHash = "", hash }
}
