package seed

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	// Slot time zones are checked with time.LoadLocation; the embedded database makes the
	// answer the same on a host without /usr/share/zoneinfo (a scratch container) as on a
	// laptop, so a fixture that validates in CI validates in production.
	_ "time/tzdata"

	"github.com/proctorhq/proctor/look"
	"github.com/proctorhq/proctor/password"
	"github.com/proctorhq/proctor/storage"
)

// Validate checks every record of the fixture and returns every problem, in line order; nil
// means the fixture may be applied. The rules are those of docs/seed-format.md: required
// fields, formats, value lists, natural keys unique within the file, payments consistent with
// their state, and references resolved against the file wherever it holds records of the kind
// referred to.
func (f *Fixture) Validate() Errors {
	v := &validator{f: f, invoices: map[string]string{}}
	v.index(&f.Data)
	d := &f.Data
	v.school(d.School)
	eachRow("members", d.Members, v.member)
	eachRow("courses", d.Courses, v.course)
	eachRow("enrollments", d.Enrollments, v.enrollment)
	eachRow("progress", d.Progress, v.progressRow)
	eachRow("digital_products", d.DigitalProducts, v.digitalProduct)
	eachRow("product_holdings", d.ProductHoldings, v.productHolding)
	eachRow("consulting_services", d.ConsultingServices, v.consultingService)
	eachRow("events", d.Events, v.event)
	eachRow("event_registrations", d.EventRegistrations, v.eventRegistration)
	eachRow("payments", d.Payments, v.payment)
	eachRow("notifications", d.Notifications, v.notification)
	eachRow("notification_subscriptions", d.NotificationSubscriptions, v.notificationSubscription)
	eachRow("membership_plans", d.MembershipPlans, v.membershipPlan)
	eachRow("subscriptions", d.Subscriptions, v.subscription)
	eachRow("coupons", d.Coupons, v.coupon)
	eachRow("posts", d.Posts, v.post)
	eachRow("comments", d.Comments, v.comment)
	eachRow("lecturers", d.Lecturers, v.lecturer)
	eachRow("forms", d.Forms, v.form)
	eachRow("form_submissions", d.FormSubmissions, v.formSubmission)
	eachRow("pages", d.Pages, v.page)
	slices.SortStableFunc(v.errs, byLine)
	return v.errs
}

// keys is the set of natural keys of one kind defined in the file. A nil set means the file
// defines none of that kind, so references to it are left to the store.
type keys map[string]bool

type validator struct {
	f    *Fixture
	errs Errors

	memberKeys, productKeys, serviceKeys, eventKeys, planKeys, postKeys, courseKeys, formKeys keys

	courseBySlug map[string]*storage.CourseSeed
	formBySlug   map[string]*storage.FormSeed
	// invoices are the invoice numbers of the payments checked so far: unique in the file.
	invoices map[string]string
}

// eachRow checks every row of the section kind with check, which gets the row's field path
// ("kind[i]") and the natural keys of the section's rows before it, for its uniqueness rules.
func eachRow[T any](kind string, rows []T, check func(f string, seen map[string]string, row *T)) {
	seen := map[string]string{}
	for i := range rows {
		check(at(kind, i), seen, &rows[i])
	}
}

func (v *validator) add(field, format string, args ...any) {
	v.errs = append(v.errs, v.f.errorAt(field, fmt.Sprintf(format, args...), nil))
}

// index collects the natural keys the file defines, before any record is checked, so that a
// reference may point at a record further down the file.
func (v *validator) index(d *storage.SchoolData) {
	collect := func(n int, key func(int) string) keys {
		if n == 0 {
			return nil
		}
		s := make(keys, n)
		for i := range n {
			s[key(i)] = true
		}
		return s
	}
	v.memberKeys = collect(len(d.Members), func(i int) string { return memberKey(d.Members[i].Email) })
	v.productKeys = collect(len(d.DigitalProducts), func(i int) string { return d.DigitalProducts[i].Slug })
	v.serviceKeys = collect(len(d.ConsultingServices), func(i int) string { return d.ConsultingServices[i].Slug })
	v.eventKeys = collect(len(d.Events), func(i int) string { return d.Events[i].Slug })
	v.planKeys = collect(len(d.MembershipPlans), func(i int) string { return d.MembershipPlans[i].Slug })
	v.postKeys = collect(len(d.Posts), func(i int) string { return d.Posts[i].Key })
	v.courseKeys = collect(len(d.Courses), func(i int) string { return d.Courses[i].Slug })
	v.formKeys = collect(len(d.Forms), func(i int) string { return d.Forms[i].Slug })
	v.courseBySlug = firstByKey(d.Courses, func(c *storage.CourseSeed) string { return c.Slug })
	v.formBySlug = firstByKey(d.Forms, func(f *storage.FormSeed) string { return f.Slug })
}

// firstByKey maps each key of rows to its row. The first record of a duplicated key is the one
// references see; the duplicate itself is reported by the kind's check.
func firstByKey[T any](rows []T, key func(*T) string) map[string]*T {
	m := make(map[string]*T, len(rows))
	for i := range rows {
		if k := key(&rows[i]); m[k] == nil {
			m[k] = &rows[i]
		}
	}
	return m
}

// memberKey is the natural key of a member: the e-mail address as the store keeps it
// (storage.NormaliseEmail), whose case does not matter.
func memberKey(email string) string { return storage.NormaliseEmail(email) }

// unique reports a natural key seen before in the same list. seen maps a key to the field of
// its first record.
func (v *validator) unique(seen map[string]string, key, field, what string) {
	if first, ok := seen[key]; ok {
		v.add(field, "duplicate %s: already defined by %s (line %d)", what, first, v.f.line(first))
		return
	}
	seen[key] = field
}

// Field checks. Each reports at most one problem for its field and returns whether the value
// passed, so that dependent checks can be skipped rather than pile up.

// check reports the problem format for field unless ok, and returns ok.
func (v *validator) check(field string, ok bool, format string, args ...any) bool {
	if !ok {
		v.add(field, format, args...)
	}
	return ok
}

func (v *validator) required(field, s string) bool {
	return v.check(field, strings.TrimSpace(s) != "", "required")
}

func (v *validator) requiredTime(field string, t time.Time) bool {
	return v.check(field, !t.IsZero(), "required")
}

// slug holds s to storage.ValidSlug, the operator API's rule too.
func (v *validator) slug(field, s string) bool {
	return v.required(field, s) &&
		v.check(field, storage.ValidSlug(s), "%s is not a slug: lower-case letters and digits in words joined by single hyphens (go-basics), at most %d", quote(s), storage.MaxSlugLen)
}

// key checks a free-form natural key (post, notification, comment and submission keys).
func (v *validator) key(field, s string) bool {
	return v.required(field, s) &&
		v.check(field, len(s) <= 200 && strings.TrimSpace(s) == s, "%s is not a key: at most 200 characters, no surrounding spaces", quote(s))
}

func (v *validator) email(field, s string) bool {
	return v.required(field, s) && v.check(field, storage.ValidEmail(s), "%s is not an e-mail address", quote(s))
}

func (v *validator) currency(field, s string) {
	if v.required(field, s) && !storage.ValidCurrency(s) {
		v.add(field, "%s is not a currency: want an ISO 4217 code such as USD or JPY", quote(s))
	}
}

func (v *validator) nonNegative(field string, n int64) {
	if n < 0 {
		v.add(field, "must not be negative (money is in minor units: 1999 is 19.99 USD)")
	}
}

// price checks the price_amount and currency pair every product-like record carries.
func (v *validator) price(field string, amount int64, currency string) {
	v.nonNegative(field+".price_amount", amount)
	v.currency(field+".currency", currency)
}

func (v *validator) oneOf(field, s string, allowed ...string) bool {
	if !v.required(field, s) {
		return false
	}
	if !slices.Contains(allowed, s) {
		v.add(field, "%s is not one of %s", quote(s), strings.Join(allowed, ", "))
		return false
	}
	return true
}

// after reports end before start; both must be set for the check to mean anything.
func (v *validator) after(field string, end time.Time, startField string, start time.Time) {
	if !end.IsZero() && !start.IsZero() && end.Before(start) {
		v.add(field, "%s is before %s (%s)", end.Format(time.RFC3339), startField, start.Format(time.RFC3339))
	}
}

// link checks an optional URL: absolute http(s), or a path on the school's own origin.
func (v *validator) link(field, s string) {
	if s == "" {
		return
	}
	u, err := url.Parse(s)
	ok := err == nil && ((u.Scheme == "https" || u.Scheme == "http") && u.Host != "" || u.Scheme == "" && u.Host == "" && strings.HasPrefix(s, "/"))
	if !ok {
		v.add(field, "%s is not a URL: want https://... or a path starting with /", quote(s))
	}
}

// References. Each is checked against the file when the file defines that kind (the set is
// not nil) and otherwise left to the store.

// given reports a missing reference that is required, and returns whether there is one to
// check.
func (v *validator) given(field, ref string, required bool) bool {
	if ref == "" && required {
		v.add(field, "required")
	}
	return ref != ""
}

func (v *validator) memberRef(field, email string, required bool) {
	if !v.given(field, email, required) {
		return
	}
	if !storage.ValidEmail(email) {
		v.add(field, "%s is not an e-mail address", quote(email))
		return
	}
	if v.memberKeys != nil && !v.memberKeys[memberKey(email)] {
		v.add(field, "no member %s in this file's members", quote(email))
	}
}

func (v *validator) ref(field, s string, required bool, set keys, what string) {
	if !v.given(field, s, required) {
		return
	}
	if set != nil && !set[s] {
		v.add(field, "no %s %s in this file", what, quote(s))
	}
}

func (v *validator) courseRef(field, slug string, required bool) {
	if !v.given(field, slug, required) {
		return
	}
	if v.courseKeys != nil && !v.courseKeys[slug] {
		v.add(field, "no course %s in this file's courses", quote(slug))
	}
}

// lectureRef checks a lecture reference and returns the lecture when the file holds its
// course, for checks that need its duration.
func (v *validator) lectureRef(field string, r storage.LectureRef) *storage.LectureSeed {
	v.courseRef(field+".course", r.Course, true)
	if r.Section < 1 {
		v.add(field+".section", "want a section position from 1")
		return nil
	}
	if r.Lecture < 1 {
		v.add(field+".lecture", "want a lecture position from 1")
		return nil
	}
	c := v.courseBySlug[r.Course]
	if c == nil {
		return nil
	}
	if r.Section > len(c.Sections) {
		v.add(field+".section", "course %s has %d sections", quote(r.Course), len(c.Sections))
		return nil
	}
	s := c.Sections[r.Section-1]
	if r.Lecture > len(s.Lectures) {
		v.add(field+".lecture", "section %d of course %s has %d lectures", r.Section, quote(r.Course), len(s.Lectures))
		return nil
	}
	return &s.Lectures[r.Lecture-1]
}

// Checks that several lists share.

// uniqueSlug checks the slug of record f, which must be unique in its list (seen): what names the
// kind of record in the message ("event").
func (v *validator) uniqueSlug(seen map[string]string, f, slug, what string) {
	if v.slug(f+".slug", slug) {
		v.unique(seen, slug, f+".slug", what+" slug")
	}
}

// uniqueKey checks a free-form natural key at field, which must be unique in its list (seen).
func (v *validator) uniqueKey(seen map[string]string, field, key, what string) {
	if v.key(field, key) {
		v.unique(seen, key, field, what)
	}
}

// uniquePair checks that record f is the only one of its list (seen) for its member and the
// record it refers to (one enrollment of a member in a course ...); an empty reference is
// reported by the reference's own check.
func (v *validator) uniquePair(seen map[string]string, f, member, ref, what string) {
	if member != "" && ref != "" {
		v.unique(seen, memberKey(member)+"\x00"+ref, f, what)
	}
}

// offer checks what every record offered for sale (a course, a product, a service, an event, a
// plan) has: a unique slug, a title and a price.
func (v *validator) offer(seen map[string]string, f string, o storage.OfferSeed, what string) {
	v.uniqueSlug(seen, f, o.Slug, what)
	v.required(f+".title", o.Title)
	v.price(f, o.PriceAmount, o.Currency)
}

// courseList checks the courses a record lists by slug (a lecturer's, a service's): each is
// known and listed once.
func (v *validator) courseList(f string, slugs []string) {
	courses := map[string]string{}
	for j, c := range slugs {
		cf := at(f+".courses", j)
		v.courseRef(cf, c, true)
		v.unique(courses, c, cf, "course")
	}
}

// endsAfter checks a required end time at field that must be after the start time.
func (v *validator) endsAfter(field string, end time.Time, startName string, start time.Time) {
	if v.requiredTime(field, end) && !end.After(start) {
		v.add(field, "must be after %s", startName)
	}
}

// quote quotes a value for a message, cut short so that a megabyte of garbage in a field does
// not become a megabyte of error output.
func quote(s string) string {
	const limit = 60
	if len(s) > limit {
		return strconv.Quote(s[:limit]) + "..."
	}
	return strconv.Quote(s)
}

// at is the field path of item i of the list at path list: "members[3]",
// "payments[0].line_items[1]".
func at(list string, i int) string { return fmt.Sprintf("%s[%d]", list, i) }

// The records, one function per top-level key.

func (v *validator) school(s *storage.SchoolSeed) {
	if s == nil {
		return
	}
	if st := s.Settings; st != nil {
		if st.ContactEmail != "" {
			v.email("school.settings.contact_email", st.ContactEmail)
		}
		if st.Timezone != "" {
			v.timeZone("school.settings.timezone", st.Timezone)
		}
		if st.Currency != "" {
			v.currency("school.settings.currency", st.Currency)
		}
		// The operator API's rule (storage.ValidLocale), so a seeded locale can be set again there.
		if st.Locale != "" && !storage.ValidLocale(st.Locale) {
			v.add("school.settings.locale", "%s is not a locale: want a BCP 47 tag such as en-US or ja-JP", quote(st.Locale))
		}
	}
	if a := s.Appearance; a != nil {
		// The operator API's rule (look.Check): #rrggbb, readable on the theme's pages, a theme
		// the pages know, an https logo.
		var fe *look.FieldError
		if err := look.Check(*a); errors.As(err, &fe) {
			v.add("school.appearance."+fe.Field, "%s", fe.Reason)
		}
	}
}

func (v *validator) timeZone(field, name string) {
	if !v.required(field, name) {
		return
	}
	// "Local" would mean the server's zone, which differs between machines.
	if _, err := time.LoadLocation(name); err != nil || name == "Local" {
		v.add(field, "%s is not an IANA time zone such as Europe/London or Asia/Tokyo", quote(name))
	}
}

func (v *validator) member(f string, seen map[string]string, m *storage.MemberSeed) {
	if v.email(f+".email", m.Email) {
		v.unique(seen, memberKey(m.Email), f+".email", "member e-mail")
	}
	v.required(f+".name", m.Name)
	v.link(f+".avatar_url", m.AvatarURL)
	switch {
	case m.Password != "" && m.PasswordHash != "":
		v.add(f+".password", "set either password or password_hash, not both")
	case len(m.Password) > password.MaxLength:
		v.add(f+".password", "longer than %d bytes", password.MaxLength)
	case m.PasswordHash != "" && !password.IsHash(m.PasswordHash):
		v.add(f+".password_hash", "not a password hash Proctor reads: argon2id ($argon2id$v=19$m=...), bcrypt ($2a$, $2b$, $2y$, cost 4 to 16) or PBKDF2-SHA256 (pbkdf2_sha256$... from Django, $pbkdf2-sha256$... from passlib)")
	}
	roles := map[storage.Role]bool{}
	for j, r := range m.Roles {
		rf := at(f+".roles", j)
		switch {
		case !r.Valid():
			v.add(rf, "%s is not a role: want owner, admin, lecturer or student", quote(string(r)))
		case roles[r]:
			v.add(rf, "role %s repeated", r)
		}
		roles[r] = true
	}
}

func (v *validator) course(f string, seen map[string]string, c *storage.CourseSeed) {
	v.offer(seen, f, c.OfferSeed, "course")
	for j, s := range c.Sections {
		sf := at(f+".sections", j)
		v.required(sf+".title", s.Title)
		for k, l := range s.Lectures {
			lf := at(sf+".lectures", k)
			v.required(lf+".title", l.Title)
			if l.DurationSeconds < 0 {
				v.add(lf+".duration_seconds", "must not be negative")
			}
		}
	}
}

func (v *validator) enrollment(f string, seen map[string]string, e *storage.EnrollmentSeed) {
	v.memberRef(f+".member", e.Member, true)
	v.courseRef(f+".course", e.Course, true)
	v.uniquePair(seen, f, e.Member, e.Course, "enrollment of this member in this course")
	v.requiredTime(f+".enrolled_at", e.EnrolledAt)
	if e.ExpireDate != nil {
		if e.LifetimeAccess {
			v.add(f+".expire_date", "set on a lifetime enrollment: use either expire_date or lifetime_access")
		}
		v.after(f+".expire_date", *e.ExpireDate, "enrolled_at", e.EnrolledAt)
	}
}

func (v *validator) progressRow(f string, seen map[string]string, p *storage.ProgressSeed) {
	v.memberRef(f+".member", p.Member, true)
	l := v.lectureRef(f+".lecture", p.Lecture)
	if p.Member != "" {
		r := p.Lecture
		v.unique(seen, fmt.Sprintf("%s\x00%s\x00%d\x00%d", memberKey(p.Member), r.Course, r.Section, r.Lecture), f, "progress of this member on this lecture")
	}
	if v.oneOf(f+".state", string(p.State), string(storage.LectureUnread), string(storage.LectureRead), string(storage.LectureCompleted)) {
		if p.State == storage.LectureUnread && p.PositionSeconds != 0 {
			v.add(f+".position_seconds", "an unread lecture is at position 0")
		}
	}
	switch {
	case p.PositionSeconds < 0:
		v.add(f+".position_seconds", "must not be negative")
	case l != nil && l.DurationSeconds > 0 && p.PositionSeconds > l.DurationSeconds:
		v.add(f+".position_seconds", "%d is past the end of the lecture (%d seconds)", p.PositionSeconds, l.DurationSeconds)
	}
	v.requiredTime(f+".updated_at", p.UpdatedAt)
}

func (v *validator) digitalProduct(f string, seen map[string]string, p *storage.DigitalProductSeed) {
	v.offer(seen, f, p.OfferSeed, "digital product")
}

func (v *validator) productHolding(f string, seen map[string]string, h *storage.ProductHoldingSeed) {
	v.memberRef(f+".member", h.Member, true)
	v.ref(f+".product", h.Product, true, v.productKeys, "digital product")
	v.uniquePair(seen, f, h.Member, h.Product, "holding of this product by this member")
	v.requiredTime(f+".granted_at", h.GrantedAt)
}

var clockPattern = regexp.MustCompile(`^([01][0-9]|2[0-3]):[0-5][0-9]$`)

func (v *validator) consultingService(f string, seen map[string]string, s *storage.ConsultingServiceSeed) {
	v.offer(seen, f, s.OfferSeed, "consulting service")
	if s.DurationMinutes <= 0 {
		v.add(f+".duration_minutes", "want a positive number of minutes")
	}
	v.courseList(f, s.Courses)
	slots := map[string]string{}
	for j, sl := range s.Slots {
		sf := at(f+".slots", j)
		if sl.Weekday < 0 || sl.Weekday > 6 {
			v.add(sf+".weekday", "want 0 (Sunday) to 6 (Saturday)")
		}
		if v.required(sf+".start_time", sl.StartTime) && !clockPattern.MatchString(sl.StartTime) {
			v.add(sf+".start_time", "%s is not a time of day: want HH:MM, 00:00 to 23:59", quote(sl.StartTime))
		}
		if sl.DurationMinutes <= 0 {
			v.add(sf+".duration_minutes", "want a positive number of minutes")
		}
		v.timeZone(sf+".time_zone", sl.TimeZone)
		v.unique(slots, fmt.Sprintf("%d %s", sl.Weekday, sl.StartTime), sf, "slot (same weekday and start_time)")
	}
	meetings := map[string]string{}
	for j, m := range s.Meetings {
		mf := at(f+".meetings", j)
		v.memberRef(mf+".member", m.Member, true)
		if v.requiredTime(mf+".starts_at", m.StartsAt) {
			v.unique(meetings, m.StartsAt.Format(time.RFC3339Nano), mf, "meeting (same starts_at)")
		}
		v.endsAfter(mf+".ends_at", m.EndsAt, "starts_at", m.StartsAt)
	}
}

func (v *validator) event(f string, seen map[string]string, e *storage.EventSeed) {
	v.offer(seen, f, e.OfferSeed, "event")
	v.requiredTime(f+".starts_at", e.StartsAt)
	v.endsAfter(f+".ends_at", e.EndsAt, "starts_at", e.StartsAt)
	if e.Capacity < 0 {
		v.add(f+".capacity", "must not be negative (0 means unlimited)")
	}
}

func (v *validator) eventRegistration(f string, seen map[string]string, r *storage.EventRegistrationSeed) {
	v.memberRef(f+".member", r.Member, true)
	v.ref(f+".event", r.Event, true, v.eventKeys, "event")
	v.uniquePair(seen, f, r.Member, r.Event, "registration of this member for this event")
	v.required(f+".status", r.Status)
	v.requiredTime(f+".registered_at", r.RegisteredAt)
}

// itemKeys is the set of in-file keys a line item of each kind refers to.
func (v *validator) itemKeys(kind string) (keys, string) {
	switch kind {
	case storage.ItemCourse:
		return v.courseKeys, "course"
	case storage.ItemDigitalProduct:
		return v.productKeys, "digital product"
	case storage.ItemConsultingService:
		return v.serviceKeys, "consulting service"
	case storage.ItemEvent:
		return v.eventKeys, "event"
	case storage.ItemMembershipPlan:
		return v.planKeys, "membership plan"
	}
	return nil, ""
}

func (v *validator) payment(f string, seen map[string]string, p *storage.PaymentSeed) {
	v.uniqueKey(seen, f+".trade_no", p.TradeNo, "trade_no")
	v.memberRef(f+".member", p.Member, true)
	v.nonNegative(f+".amount", p.Amount)
	v.currency(f+".currency", p.Currency)
	v.requiredTime(f+".created_at", p.CreatedAt)
	stateOK := v.oneOf(f+".payment_state", p.PaymentState, storage.PaymentStates...)
	refund := p.RefundingState
	if refund == "" {
		refund = storage.RefundNone
	}
	refundOK := v.oneOf(f+".refunding_state", refund, storage.RefundStates...)
	if stateOK {
		v.paymentState(f, p)
	}
	if stateOK && refundOK {
		v.refund(f, p, refund)
	}
	v.lineItems(f, p)
	if p.Invoice != nil {
		inf := f + ".invoice"
		if v.required(inf+".number", p.Invoice.Number) {
			v.unique(v.invoices, p.Invoice.Number, inf+".number", "invoice number")
		}
		if v.oneOf(inf+".status", p.Invoice.Status, "issued", "void") && p.Invoice.Status == "issued" && p.Invoice.IssuedAt == nil {
			v.add(inf+".issued_at", "required for an issued invoice")
		}
		if stateOK && p.PaymentState != storage.PaymentPaid && p.PaymentState != storage.PaymentRefunded {
			v.add(inf, "an invoice belongs to a paid or refunded payment, not a %s one", p.PaymentState)
		}
	}
	if in := p.Installment; in != nil {
		if in.Periods < 2 {
			v.add(f+".installment.periods", "want 2 or more periods")
		}
		if in.PeriodAmount <= 0 {
			v.add(f+".installment.period_amount", "want a positive amount")
		}
	}
}

// paymentState checks the fields that each payment state requires or excludes.
func (v *validator) paymentState(f string, p *storage.PaymentSeed) {
	paid := p.PaymentState == storage.PaymentPaid || p.PaymentState == storage.PaymentRefunded
	switch {
	case paid && p.PaidAt == nil:
		v.add(f+".paid_at", "required for a %s payment", p.PaymentState)
	case !paid && p.PaidAt != nil:
		v.add(f+".paid_at", "set on a %s payment", p.PaymentState)
	case p.PaidAt != nil:
		v.after(f+".paid_at", *p.PaidAt, "created_at", p.CreatedAt)
	}
	if p.PaymentState == storage.PaymentExpired && p.ExpiredAt == nil {
		v.add(f+".expired_at", "required for an expired payment")
	}
	if p.ExpiredAt != nil {
		v.after(f+".expired_at", *p.ExpiredAt, "created_at", p.CreatedAt)
	}
	if p.PaymentType == "" {
		// The buyer never chose a method: nothing can have been paid or declined, and there
		// are no transfer instructions to show.
		if p.PaymentState != storage.PaymentUnpaid && p.PaymentState != storage.PaymentExpired {
			v.add(f+".payment_type", "required for a %s payment (only an unpaid or expired attempt may lack one)", p.PaymentState)
		}
		for _, b := range []struct{ name, value string }{{"bank_code", p.BankCode}, {"bank_name", p.BankName}, {"code_no", p.CodeNo}} {
			if b.value != "" {
				v.add(f+"."+b.name, "set on a payment without a payment_type")
			}
		}
		if p.Installment != nil {
			v.add(f+".installment", "set on a payment without a payment_type")
		}
	}
}

// refund checks the refund fields against the refund state and the payment state.
func (v *validator) refund(f string, p *storage.PaymentSeed, refund string) {
	field := f + ".refunding_state"
	if p.RefundedAmount < 0 {
		v.add(f+".refunded_amount", "must not be negative")
	} else if p.Amount >= 0 && p.RefundedAmount > p.Amount {
		v.add(f+".refunded_amount", "%d is more than the amount paid (%d)", p.RefundedAmount, p.Amount)
	}
	if p.PaymentState == storage.PaymentRefunded && refund != storage.RefundRefunded {
		v.add(field, "a refunded payment has refunding_state refunded, not %s", refund)
		return
	}
	switch refund {
	case storage.RefundNone:
		if p.RefundedAmount != 0 {
			v.add(f+".refunded_amount", "set without a refund: set refunding_state")
		}
		if p.RefundedAt != nil {
			v.add(f+".refunded_at", "set without a refund: set refunding_state")
		}
		if p.RefundRequestedAt != nil {
			v.add(f+".refund_requested_at", "set without a refund: set refunding_state")
		}
		return
	case storage.RefundRequested, storage.RefundRefunding, storage.RefundRejected:
		if p.PaymentState != storage.PaymentPaid {
			v.add(field, "%s applies to a paid payment, not a %s one", refund, p.PaymentState)
		}
		if p.RefundRequestedAt == nil {
			v.add(f+".refund_requested_at", "required when refunding_state is %s", refund)
		}
		if p.RefundedAmount != 0 {
			v.add(f+".refunded_amount", "nothing is refunded yet when refunding_state is %s", refund)
		}
		if p.RefundedAt != nil {
			v.add(f+".refunded_at", "nothing is refunded yet when refunding_state is %s", refund)
		}
	case storage.RefundPartial:
		if p.PaymentState != storage.PaymentPaid {
			v.add(field, "a partial refund leaves the payment paid, not %s", p.PaymentState)
		}
		if p.RefundedAmount <= 0 || p.RefundedAmount >= p.Amount {
			v.add(f+".refunded_amount", "a partial refund is more than 0 and less than the amount (%d)", p.Amount)
		}
		if p.RefundedAt == nil {
			v.add(f+".refunded_at", "required when refunding_state is %s", refund)
		}
	case storage.RefundRefunded:
		if p.RefundedAmount <= 0 && p.Amount > 0 {
			v.add(f+".refunded_amount", "required when refunding_state is refunded")
		}
		if p.RefundedAt == nil {
			v.add(f+".refunded_at", "required when refunding_state is refunded")
		}
	}
	if p.PaidAt != nil && p.RefundRequestedAt != nil {
		v.after(f+".refund_requested_at", *p.RefundRequestedAt, "paid_at", *p.PaidAt)
	}
	if p.RefundedAt != nil {
		switch {
		case p.RefundRequestedAt != nil:
			v.after(f+".refunded_at", *p.RefundedAt, "refund_requested_at", *p.RefundRequestedAt)
		case p.PaidAt != nil:
			v.after(f+".refunded_at", *p.RefundedAt, "paid_at", *p.PaidAt)
		}
	}
}

// lineItems checks the items and adjustments and that they add up to the amount, so that a
// billing history built from the fixture is internally consistent.
func (v *validator) lineItems(f string, p *storage.PaymentSeed) {
	if len(p.LineItems) == 0 {
		v.add(f+".line_items", "required: at least one item paid for")
		return
	}
	total, ok := int64(0), true
	for j, it := range p.LineItems {
		lf := at(f+".line_items", j)
		if v.oneOf(lf+".kind", it.Kind, storage.ItemKinds...) {
			set, what := v.itemKeys(it.Kind)
			v.ref(lf+".ref", it.Ref, true, set, what)
		} else {
			v.required(lf+".ref", it.Ref)
		}
		v.required(lf+".title", it.Title)
		if it.Quantity < 1 {
			v.add(lf+".quantity", "want 1 or more")
			ok = false
		}
		if it.UnitAmount < 0 {
			v.add(lf+".unit_amount", "must not be negative")
			ok = false
		}
		total += int64(it.Quantity) * it.UnitAmount
	}
	for j, a := range p.Adjustments {
		af := at(f+".adjustments", j)
		if v.oneOf(af+".kind", a.Kind, "coupon", "promotion") && a.Kind == "coupon" {
			v.required(af+".code", a.Code)
		}
		v.required(af+".title", a.Title)
		total += a.Amount
	}
	// A negative amount is reported already; comparing it with the items would only repeat it.
	if ok && p.Amount >= 0 && total != p.Amount {
		v.add(f+".amount", "%d does not match the line items and adjustments, which come to %d", p.Amount, total)
	}
}

func (v *validator) notification(f string, seen map[string]string, n *storage.NotificationSeed) {
	v.uniqueKey(seen, f+".key", n.Key, "notification key")
	v.memberRef(f+".member", n.Member, true)
	v.required(f+".kind", n.Kind)
	v.required(f+".title", n.Title)
	v.link(f+".url", n.URL)
	v.requiredTime(f+".created_at", n.CreatedAt)
	if n.ReadAt != nil {
		v.after(f+".read_at", *n.ReadAt, "created_at", n.CreatedAt)
	}
}

func (v *validator) notificationSubscription(f string, seen map[string]string, s *storage.NotificationSubscriptionSeed) {
	v.memberRef(f+".member", s.Member, true)
	v.required(f+".topic", s.Topic)
	v.oneOf(f+".channel", s.Channel, "email", "in_app")
	if s.Member != "" {
		v.unique(seen, memberKey(s.Member)+"\x00"+s.Topic+"\x00"+s.Channel, f, "subscription of this member to this topic and channel")
	}
}

func (v *validator) membershipPlan(f string, seen map[string]string, p *storage.MembershipPlanSeed) {
	v.offer(seen, f, p.OfferSeed, "membership plan")
	v.oneOf(f+".interval", p.Interval, "month", "year")
}

func (v *validator) subscription(f string, seen map[string]string, s *storage.SubscriptionSeed) {
	v.memberRef(f+".member", s.Member, true)
	v.ref(f+".plan", s.Plan, true, v.planKeys, "membership plan")
	v.uniquePair(seen, f, s.Member, s.Plan, "subscription of this member to this plan")
	v.oneOf(f+".state", s.State, "active", "past_due", "canceled")
	v.requiredTime(f+".started_at", s.StartedAt)
	v.endsAfter(f+".current_period_end", s.CurrentPeriodEnd, "started_at", s.StartedAt)
}

func (v *validator) coupon(f string, seen map[string]string, c *storage.CouponSeed) {
	if v.key(f+".code", c.Code) {
		if strings.ContainsAny(c.Code, " \t") {
			v.add(f+".code", "%s has spaces: buyers type it in", quote(c.Code))
		}
		v.unique(seen, c.Code, f+".code", "coupon code")
	}
	v.required(f+".title", c.Title)
	switch {
	case c.PercentOff != 0 && c.AmountOff != 0:
		v.add(f, "set either percent_off or amount_off, not both")
	case c.PercentOff == 0 && c.AmountOff == 0:
		v.add(f, "needs percent_off (1-100) or amount_off")
	case c.PercentOff != 0:
		if c.PercentOff < 1 || c.PercentOff > 100 {
			v.add(f+".percent_off", "want 1 to 100")
		}
		if c.Currency != "" {
			v.add(f+".currency", "only for an amount_off coupon")
		}
	default:
		if c.AmountOff < 0 {
			v.add(f+".amount_off", "must be positive")
		}
		v.currency(f+".currency", c.Currency)
	}
	if c.MaxRedemptions < 0 {
		v.add(f+".max_redemptions", "must not be negative (0 means unlimited)")
	}
}

func (v *validator) post(f string, seen map[string]string, p *storage.PostSeed) {
	v.uniqueKey(seen, f+".key", p.Key, "post key")
	v.required(f+".title", p.Title)
	v.required(f+".body", p.Body)
	v.courseRef(f+".course", p.Course, false)
	v.memberRef(f+".author", p.Author, false)
	v.requiredTime(f+".published_at", p.PublishedAt)
}

func (v *validator) comment(f string, seen map[string]string, c *storage.CommentSeed) {
	v.uniqueKey(seen, f+".key", c.Key, "comment key")
	v.memberRef(f+".member", c.Member, true)
	switch {
	case c.Post != "" && c.Lecture != nil:
		v.add(f, "set either post or lecture, not both")
	case c.Post == "" && c.Lecture == nil:
		v.add(f, "needs a post or a lecture to comment on")
	case c.Post != "":
		v.ref(f+".post", c.Post, true, v.postKeys, "post")
	default:
		v.lectureRef(f+".lecture", *c.Lecture)
	}
	v.required(f+".body", c.Body)
	v.requiredTime(f+".created_at", c.CreatedAt)
}

func (v *validator) lecturer(f string, seen map[string]string, l *storage.LecturerSeed) {
	v.uniqueSlug(seen, f, l.Slug, "lecturer")
	v.required(f+".name", l.Name)
	v.link(f+".avatar_url", l.AvatarURL)
	v.memberRef(f+".member", l.Member, false)
	v.courseList(f, l.Courses)
}

var fieldTypes = []string{"text", "email", "textarea", "number", "checkbox"}

func (v *validator) form(f string, seen map[string]string, fm *storage.FormSeed) {
	v.uniqueSlug(seen, f, fm.Slug, "form")
	v.required(f+".title", fm.Title)
	if len(fm.Fields) == 0 {
		v.add(f+".fields", "required: at least one field")
	}
	names := map[string]string{}
	for j, fd := range fm.Fields {
		ff := at(f+".fields", j)
		if v.required(ff+".name", fd.Name) {
			v.unique(names, fd.Name, ff+".name", "field name")
		}
		v.required(ff+".label", fd.Label)
		v.oneOf(ff+".type", fd.Type, fieldTypes...)
	}
}

func (v *validator) formSubmission(f string, seen map[string]string, s *storage.FormSubmissionSeed) {
	v.uniqueKey(seen, f+".key", s.Key, "form submission key")
	v.ref(f+".form", s.Form, true, v.formKeys, "form")
	v.memberRef(f+".member", s.Member, false)
	v.requiredTime(f+".submitted_at", s.SubmittedAt)
	if fm := v.formBySlug[s.Form]; fm != nil {
		v.submissionData(f+".data", fm, s.Data)
	}
}

// submissionData checks a submission against its form when the file holds the form.
func (v *validator) submissionData(f string, fm *storage.FormSeed, data map[string]string) {
	byName := make(map[string]storage.FormField, len(fm.Fields))
	for _, fd := range fm.Fields {
		byName[fd.Name] = fd
		if fd.Required && strings.TrimSpace(data[fd.Name]) == "" {
			v.add(f, "required field %s of form %s is missing", quote(fd.Name), quote(fm.Slug))
		}
	}
	names := make([]string, 0, len(data))
	for name := range data {
		names = append(names, name)
	}
	slices.Sort(names) // a stable order of messages
	for _, name := range names {
		val := data[name]
		fd, ok := byName[name]
		if !ok {
			v.add(f, "form %s has no field %s", quote(fm.Slug), quote(name))
			continue
		}
		if val == "" {
			continue
		}
		var bad bool
		switch fd.Type {
		case "email":
			bad = !storage.ValidEmail(val)
		case "number":
			_, err := strconv.ParseFloat(val, 64)
			bad = err != nil
		case "checkbox":
			bad = val != "true" && val != "false"
		}
		if bad {
			v.add(f, "field %s (%s) has %s", quote(name), fd.Type, quote(val))
		}
	}
}

func (v *validator) page(f string, seen map[string]string, p *storage.PageSeed) {
	v.uniqueSlug(seen, f, p.Slug, "page")
	v.required(f+".title", p.Title)
	v.required(f+".body", p.Body)
}
