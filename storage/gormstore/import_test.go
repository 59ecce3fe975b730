package gormstore

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/schema"

	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/conformance"
)

// The conformance suite reads imports back through the Store interface, which has no reads yet
// for most SchoolData lists; these tests read the tables themselves.

func backends() map[string]func(testing.TB) *Store {
	return map[string]func(testing.TB) *Store{"sqlite": newSQLiteStore, "postgres": newPostgresStore}
}

func importInto(t *testing.T, s *Store, id int64, data *storage.SchoolData) {
	t.Helper()
	sub := fmt.Sprintf("s%d", id)
	if err := s.SyncSchool(t.Context(), id, sub, sub); err != nil {
		t.Fatal(err)
	}
	ctx := school.NewContext(t.Context(), &school.School{SchoolID: id, Subdomain: sub})
	if _, err := s.ImportSchoolData(ctx, data, storage.ImportOptions{}); err != nil {
		t.Fatalf("import into school %d: %v", id, err)
	}
}

// TestImportRoundTrip imports the conformance fixture and exports it back from the tables: every
// field of every list must survive.
func TestImportRoundTrip(t *testing.T) {
	for name, open := range backends() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := open(t)
			importInto(t, s, 1, conformance.FullSchoolData())
			// A second school with the same data must not leak into the first's export.
			importInto(t, s, 2, conformance.FullSchoolData())

			got := exportSchoolData(t, s, 1)
			want := normalised(conformance.FullSchoolData())
			g, _ := json.MarshalIndent(got, "", "  ")
			w, _ := json.MarshalIndent(want, "", "  ")
			if string(g) != string(w) {
				t.Errorf("round trip differs:\n%s", lineDiff(string(g), string(w)))
			}
		})
	}
}

// TestImportTwiceChangesNothing dumps every table after one import and after a second import of
// the same data (to two schools), and wants them identical: same ids, same rows, same stamps.
func TestImportTwiceChangesNothing(t *testing.T) {
	for name, open := range backends() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := open(t)
			for id := int64(1); id <= 2; id++ {
				importInto(t, s, id, conformance.FullSchoolData())
			}
			before := dumpTables(t, s)
			// A later clock: any stamp rewritten would differ.
			s.now = func() time.Time { return time.Now().Add(time.Hour) }
			for id := int64(1); id <= 2; id++ {
				importInto(t, s, id, conformance.FullSchoolData())
			}
			after := dumpTables(t, s)
			for table, rows := range before {
				if !reflect.DeepEqual(rows, after[table]) {
					t.Errorf("table %s changed by a second import:\nbefore %v\nafter  %v", table, rows, after[table])
				}
			}
		})
	}
}

// TestImportKeepsCouponRedemptions checks that a re-import leaves columns the data does not carry.
func TestImportKeepsCouponRedemptions(t *testing.T) {
	s := newSQLiteStore(t)
	importInto(t, s, 1, conformance.FullSchoolData())
	if err := s.db.Model(&couponRow{}).Where("code = ?", "SPRING").Update("redeemed_count", 7).Error; err != nil {
		t.Fatal(err)
	}
	data := conformance.FullSchoolData()
	data.Coupons[0].Title = "Spring sale"
	importInto(t, s, 1, data)
	var c couponRow
	if err := s.db.Where("code = ?", "SPRING").Take(&c).Error; err != nil {
		t.Fatal(err)
	}
	if c.RedeemedCount != 7 || c.Title != "Spring sale" {
		t.Errorf("coupon after re-import: %+v", c)
	}
}

// dumpTables reads every row of every modelled table, ordered by primary key.
func dumpTables(t *testing.T, s *Store) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, model := range allModels {
		sch, err := schema.Parse(model, &sync.Map{}, s.db.NamingStrategy)
		if err != nil {
			t.Fatal(err)
		}
		rows := reflect.New(reflect.SliceOf(reflect.TypeOf(model).Elem()))
		if err := s.db.Order(strings.Join(sch.PrimaryFieldDBNames, ", ")).Find(rows.Interface()).Error; err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(rows.Interface())
		if err != nil {
			t.Fatal(err)
		}
		out[sch.Table] = string(b)
	}
	return out
}

// normalised is seed data as the store gives it back: e-mails lower-cased, roles most powerful
// first, times in UTC, defaults filled in, plain passwords gone.
func normalised(d *storage.SchoolData) *storage.SchoolData {
	for i := range d.Members {
		m := &d.Members[i]
		m.Email = strings.ToLower(m.Email)
		m.Password = ""
		slices.SortFunc(m.Roles, func(a, b storage.Role) int {
			return slices.Index(storage.Roles, a) - slices.Index(storage.Roles, b)
		})
	}
	lower := func(s *string) { *s = strings.ToLower(*s) }
	for i := range d.Enrollments {
		lower(&d.Enrollments[i].Member)
	}
	for i := range d.Progress {
		lower(&d.Progress[i].Member)
	}
	for i := range d.Payments {
		if d.Payments[i].RefundingState == "" {
			d.Payments[i].RefundingState = storage.RefundNone
		}
		if d.Payments[i].Adjustments == nil {
			d.Payments[i].Adjustments = []storage.PaymentAdjustment{}
		}
	}
	return d
}

// exportSchoolData reads school id's rows back into SchoolData, in insertion (id) order.
func exportSchoolData(t *testing.T, s *Store, id int64) *storage.SchoolData {
	t.Helper()
	db := s.db.Where("school_id = ?", id)
	find := func(dest any, order string) {
		t.Helper()
		if err := db.Session(&gorm.Session{}).Order(order).Find(dest).Error; err != nil {
			t.Fatal(err)
		}
	}
	var (
		school   schoolRow
		members  []memberRow
		roles    []memberRoleRow
		courses  []courseRow
		sections []sectionRow
		lectures []lectureRow
	)
	if err := s.db.Where("id = ?", id).Take(&school).Error; err != nil {
		t.Fatal(err)
	}
	d := &storage.SchoolData{School: &storage.SchoolSeed{Settings: &storage.SchoolSettings{}, Appearance: &storage.Appearance{}}}
	mustJSON(t, school.Settings, d.School.Settings)
	mustJSON(t, school.Appearance, d.School.Appearance)

	find(&roles, "member_id, role")
	if err := s.db.Order("id").Where("id IN (?)", s.db.Model(&memberRoleRow{}).Select("member_id").Where("school_id = ?", id)).Find(&members).Error; err != nil {
		t.Fatal(err)
	}
	email := map[int64]string{}
	for _, m := range members {
		email[m.ID] = m.Email
		var names []string
		for _, r := range roles {
			if r.MemberID == m.ID {
				names = append(names, r.Role)
			}
		}
		d.Members = append(d.Members, storage.MemberSeed{Email: m.Email, Name: m.Name, AvatarURL: m.AvatarURL, PasswordHash: m.PasswordHash, Roles: sortRoles(names)})
	}
	emailOf := func(id *int64) string {
		if id == nil {
			return ""
		}
		return email[*id]
	}

	find(&courses, "id")
	find(&sections, "course_id, position")
	find(&lectures, "section_id, position")
	slug := map[int64]string{}
	type pos struct{ section, lecture int }
	lecturePos := map[int64]pos{}
	sectionPos := map[int64]int{}
	for _, c := range courses {
		slug[c.ID] = c.Slug
		cs := storage.CourseSeed{OfferSeed: storage.OfferSeed(c.Offer), Published: c.Published}
		for _, sec := range sections {
			if sec.CourseID != c.ID {
				continue
			}
			sectionPos[sec.ID] = sec.Position
			ss := storage.SectionSeed{Title: sec.Title}
			for _, l := range lectures {
				if l.SectionID == sec.ID {
					lecturePos[l.ID] = pos{sec.Position, l.Position}
					ss.Lectures = append(ss.Lectures, storage.LectureSeed{Title: l.Title, DurationSeconds: l.DurationSeconds, IsLocked: l.IsLocked, UnlockAt: utcPtr(l.UnlockAt)})
				}
			}
			cs.Sections = append(cs.Sections, ss)
		}
		d.Courses = append(d.Courses, cs)
	}
	lectureRefOf := func(id int64) storage.LectureRef {
		for _, l := range lectures {
			if l.ID == id {
				p := lecturePos[id]
				return storage.LectureRef{Course: slug[l.CourseID], Section: p.section, Lecture: p.lecture}
			}
		}
		t.Fatalf("lecture %d not found", id)
		return storage.LectureRef{}
	}

	var enrollments []enrollmentRow
	find(&enrollments, "id")
	for _, e := range enrollments {
		d.Enrollments = append(d.Enrollments, storage.EnrollmentSeed{Member: email[e.MemberID], Course: slug[e.CourseID], ExpireDate: utcPtr(e.ExpireDate), LifetimeAccess: e.LifetimeAccess, EnrolledAt: utc(e.EnrolledAt)})
	}
	var progress []progressRow
	find(&progress, "member_id, lecture_id")
	for _, p := range progress {
		d.Progress = append(d.Progress, storage.ProgressSeed{Member: email[p.MemberID], Lecture: lectureRefOf(p.LectureID), State: storage.LectureState(p.State), PositionSeconds: p.PositionSeconds, UpdatedAt: utc(p.UpdatedAt)})
	}

	products, productSlug := keyed(find, func(r digitalProductRow) (int64, string) { return r.ID, r.Slug })
	for _, p := range products {
		d.DigitalProducts = append(d.DigitalProducts, storage.DigitalProductSeed{OfferSeed: storage.OfferSeed(p.Offer), Published: p.Published})
	}
	var holdings []productHoldingRow
	find(&holdings, "id")
	for _, h := range holdings {
		d.ProductHoldings = append(d.ProductHoldings, storage.ProductHoldingSeed{Member: email[h.MemberID], Product: productSlug[h.ProductID], GrantedAt: utc(h.GrantedAt)})
	}

	var (
		services       []consultingServiceRow
		serviceCourses []consultingServiceCourseRow
		slots          []consultingSlotRow
		meetings       []consultingMeetingRow
	)
	find(&services, "id")
	find(&serviceCourses, "service_id, course_id")
	find(&slots, "id")
	find(&meetings, "id")
	for _, sv := range services {
		seed := storage.ConsultingServiceSeed{OfferSeed: storage.OfferSeed(sv.Offer), DurationMinutes: sv.DurationMinutes}
		seed.Courses = linkedSlugs(serviceCourses, sv.ID, slug, func(c consultingServiceCourseRow) (int64, int64) { return c.ServiceID, c.CourseID })
		for _, sl := range slots {
			if sl.ServiceID == sv.ID {
				seed.Slots = append(seed.Slots, storage.SlotSeed{Weekday: sl.Weekday, StartTime: sl.StartTime, DurationMinutes: sl.DurationMinutes, TimeZone: sl.TimeZone})
			}
		}
		for _, m := range meetings {
			if m.ServiceID == sv.ID {
				seed.Meetings = append(seed.Meetings, storage.MeetingSeed{Member: email[m.MemberID], StartsAt: utc(m.StartsAt), EndsAt: utc(m.EndsAt)})
			}
		}
		d.ConsultingServices = append(d.ConsultingServices, seed)
	}

	events, eventSlug := keyed(find, func(r eventRow) (int64, string) { return r.ID, r.Slug })
	for _, e := range events {
		d.Events = append(d.Events, storage.EventSeed{OfferSeed: storage.OfferSeed(e.Offer), StartsAt: utc(e.StartsAt), EndsAt: utc(e.EndsAt), Location: e.Location, Capacity: e.Capacity, Published: e.Published})
	}
	var registrations []eventRegistrationRow
	find(&registrations, "id")
	for _, r := range registrations {
		d.EventRegistrations = append(d.EventRegistrations, storage.EventRegistrationSeed{Member: email[r.MemberID], Event: eventSlug[r.EventID], Status: r.Status, RegisteredAt: utc(r.RegisteredAt)})
	}

	var payments []paymentRow
	find(&payments, "id")
	for _, p := range payments {
		seed := storage.PaymentSeed{
			TradeNo: p.TradeNo, Member: email[p.MemberID], Amount: p.Amount, Currency: p.Currency,
			CreatedAt: utc(p.CreatedAt), PaymentStatus: paymentTimes(p.PaymentStatus, utcPtr),
		}
		if p.PaymentType != nil {
			seed.PaymentType = *p.PaymentType
		}
		mustJSON(t, p.LineItems, &seed.LineItems)
		mustJSON(t, p.Adjustments, &seed.Adjustments)
		if p.Invoice != nil {
			seed.Invoice = &storage.PaymentInvoice{}
			mustJSON(t, *p.Invoice, seed.Invoice)
		}
		if p.Installment != nil {
			seed.Installment = &storage.PaymentInstallment{}
			mustJSON(t, *p.Installment, seed.Installment)
		}
		d.Payments = append(d.Payments, seed)
	}

	var notifications []notificationRow
	find(&notifications, "id")
	for _, n := range notifications {
		d.Notifications = append(d.Notifications, storage.NotificationSeed{Key: n.Key, Member: email[n.MemberID], Kind: n.Kind, Title: n.Title, Body: n.Body, URL: n.URL, CreatedAt: utc(n.CreatedAt), ReadAt: utcPtr(n.ReadAt)})
	}
	var subs []notificationSubscriptionRow
	find(&subs, "member_id, topic, channel")
	for _, n := range subs {
		d.NotificationSubscriptions = append(d.NotificationSubscriptions, storage.NotificationSubscriptionSeed{Member: email[n.MemberID], Topic: n.Topic, Channel: n.Channel, Enabled: n.Enabled})
	}

	plans, planSlug := keyed(find, func(r membershipPlanRow) (int64, string) { return r.ID, r.Slug })
	for _, p := range plans {
		d.MembershipPlans = append(d.MembershipPlans, storage.MembershipPlanSeed{OfferSeed: storage.OfferSeed(p.Offer), Interval: p.BillingInterval, Published: p.Published})
	}
	var subscriptions []subscriptionRow
	find(&subscriptions, "id")
	for _, sub := range subscriptions {
		d.Subscriptions = append(d.Subscriptions, storage.SubscriptionSeed{Member: email[sub.MemberID], Plan: planSlug[sub.PlanID], State: sub.State, StartedAt: utc(sub.StartedAt), CurrentPeriodEnd: utc(sub.CurrentPeriodEnd)})
	}
	var coupons []couponRow
	find(&coupons, "id")
	for _, c := range coupons {
		d.Coupons = append(d.Coupons, storage.CouponSeed{Code: c.Code, Title: c.Title, PercentOff: c.PercentOff, AmountOff: c.AmountOff, Currency: c.Currency, ExpiresAt: utcPtr(c.ExpiresAt), MaxRedemptions: c.MaxRedemptions})
	}

	posts, postKey := keyed(find, func(r postRow) (int64, string) { return r.ID, r.Key })
	for _, p := range posts {
		seed := storage.PostSeed{Key: p.Key, Title: p.Title, Body: p.Body, Author: emailOf(p.AuthorMemberID), PublishedAt: utc(p.PublishedAt)}
		if p.CourseID != nil {
			seed.Course = slug[*p.CourseID]
		}
		d.Posts = append(d.Posts, seed)
	}
	var comments []commentRow
	find(&comments, "id")
	for _, c := range comments {
		seed := storage.CommentSeed{Key: c.Key, Member: email[c.MemberID], Body: c.Body, CreatedAt: utc(c.CreatedAt)}
		if c.PostID != nil {
			seed.Post = postKey[*c.PostID]
		}
		if c.LectureID != nil {
			ref := lectureRefOf(*c.LectureID)
			seed.Lecture = &ref
		}
		d.Comments = append(d.Comments, seed)
	}

	var (
		lecturers       []lecturerRow
		lecturerCourses []lecturerCourseRow
	)
	find(&lecturers, "id")
	find(&lecturerCourses, "lecturer_id, course_id")
	for _, l := range lecturers {
		seed := storage.LecturerSeed{Slug: l.Slug, Name: l.Name, Bio: l.Bio, AvatarURL: l.AvatarURL, Member: emailOf(l.MemberID)}
		seed.Courses = linkedSlugs(lecturerCourses, l.ID, slug, func(c lecturerCourseRow) (int64, int64) { return c.LecturerID, c.CourseID })
		d.Lecturers = append(d.Lecturers, seed)
	}

	forms, formSlug := keyed(find, func(r formRow) (int64, string) { return r.ID, r.Slug })
	for _, f := range forms {
		seed := storage.FormSeed{Slug: f.Slug, Title: f.Title}
		mustJSON(t, f.Fields, &seed.Fields)
		d.Forms = append(d.Forms, seed)
	}
	var submissions []formSubmissionRow
	find(&submissions, "id")
	for _, f := range submissions {
		seed := storage.FormSubmissionSeed{Key: f.Key, Form: formSlug[f.FormID], Member: emailOf(f.MemberID), SubmittedAt: utc(f.SubmittedAt)}
		mustJSON(t, f.Data, &seed.Data)
		d.FormSubmissions = append(d.FormSubmissions, seed)
	}
	var pages []pageRow
	find(&pages, "id")
	for _, p := range pages {
		d.Pages = append(d.Pages, storage.PageSeed{Slug: p.Slug, Title: p.Title, Body: p.Body, Published: p.Published})
	}
	return d
}

// keyed reads a table's rows of the school with find, by id, and maps each id to the key that
// key gives.
func keyed[R any](find func(dest any, order string), key func(R) (int64, string)) ([]R, map[int64]string) {
	var rows []R
	find(&rows, "id")
	keys := make(map[int64]string, len(rows))
	for _, r := range rows {
		id, k := key(r)
		keys[id] = k
	}
	return rows, keys
}

// linkedSlugs lists, in the links' order, the slugs of the courses that links tie to owner; ends
// gives a link's owner and course.
func linkedSlugs[L any](links []L, owner int64, slug map[int64]string, ends func(L) (owner, course int64)) []string {
	var out []string
	for _, l := range links {
		if o, c := ends(l); o == owner {
			out = append(out, slug[c])
		}
	}
	return out
}

func mustJSON(t *testing.T, text string, dest any) {
	t.Helper()
	if err := json.Unmarshal([]byte(text), dest); err != nil {
		t.Fatalf("decode %q: %v", text, err)
	}
}

// lineDiff shows the lines where got and want part.
func lineDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	var b strings.Builder
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			fmt.Fprintf(&b, "line %d\n  got:  %s\n  want: %s\n", i+1, gl, wl)
		}
	}
	return b.String()
}

// BenchmarkImportLarge imports 20 courses of 200 lectures with progress on every lecture into a
// fresh SQLite database (the first import) and again (the no-op re-import).
func BenchmarkImportLarge(b *testing.B) {
	data := conformance.LargeSchoolData(20, 4, 50)
	for _, round := range []string{"first", "again"} {
		b.Run(round, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				s := newSQLiteStore(b)
				ctx := inSchoolA(b, s, nil)
				if round == "again" {
					if _, err := s.ImportSchoolData(ctx, data, storage.ImportOptions{}); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				if _, err := s.ImportSchoolData(ctx, data, storage.ImportOptions{}); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				_ = s.Close()
				b.StartTimer()
			}
		})
	}
}
