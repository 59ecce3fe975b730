package mcp

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/proctorhq/proctor/resource"
	"github.com/proctorhq/proctor/storage"
)

// The member tools read and write the token owner's own data at the school through the same
// store reads as the Member API (storage.MemberData), under the same rules: account:read for
// reads, account:write for the notification writes, payments as the spec's payment rules say.

type lastWatched struct {
	LectureID       int64     `json:"lecture_id"`
	LectureTitle    string    `json:"lecture_title"`
	PositionSeconds int       `json:"position_seconds" jsonschema:"Where the member stopped, in seconds from the start."`
	WatchedAt       time.Time `json:"watched_at" jsonschema:"RFC 3339, UTC."`
}

type myCourse struct {
	Slug              string       `json:"slug"`
	Title             string       `json:"title"`
	EnrolledAt        time.Time    `json:"enrolled_at" jsonschema:"RFC 3339, UTC."`
	ExpireDate        *time.Time   `json:"expire_date,omitempty" jsonschema:"When access ends (RFC 3339, UTC); absent with lifetime access or no expiry."`
	HasLifetimeAccess bool         `json:"has_lifetime_access"`
	AccessActive      bool         `json:"access_active" jsonschema:"Whether the member can open the course now."`
	Progress          progress     `json:"progress"`
	LastWatched       *lastWatched `json:"last_watched_lecture,omitempty" jsonschema:"The lecture the member touched last; absent before any progress."`
}

type myCoursesOut struct {
	Courses []myCourse `json:"courses" jsonschema:"The member's enrollments, oldest first, expired ones included."`
	nextPage
}

type curriculumIn struct {
	Slug string `json:"slug" jsonschema:"The slug of a course the member is enrolled in, as my_courses returns it."`
}

type memberLecture struct {
	ID              int64      `json:"id"`
	Position        int        `json:"position" jsonschema:"From 1, within the section."`
	Title           string     `json:"title"`
	DurationSeconds int        `json:"duration_seconds"`
	State           string     `json:"state" jsonschema:"The member's state: unread, read or completed."`
	PositionSeconds int        `json:"position_seconds" jsonschema:"Where the member stopped in this lecture."`
	IsLocked        bool       `json:"is_locked" jsonschema:"Whether the lecture is locked now."`
	UnlockAt        *time.Time `json:"unlock_at,omitempty" jsonschema:"When a locked lecture opens (RFC 3339, UTC)."`
}

type memberSection struct {
	Position int             `json:"position" jsonschema:"From 1."`
	Title    string          `json:"title"`
	Lectures []memberLecture `json:"lectures"`
}

type curriculumOut struct {
	myCourse
	Sections []memberSection `json:"sections"`
}

type myPaymentsIn struct {
	First int `json:"first,omitempty" jsonschema:"How many payments to return, 1 to 50 (default 20)."`
	pageAfter
}

type lineItem struct {
	Kind       string `json:"kind" jsonschema:"course, digital_product, consulting_service, event or membership_plan."`
	Ref        string `json:"ref" jsonschema:"The item's slug."`
	Title      string `json:"title"`
	Quantity   int    `json:"quantity"`
	UnitAmount int64  `json:"unit_amount" jsonschema:"In the payment's currency, minor unit."`
}

type adjustment struct {
	Kind   string `json:"kind" jsonschema:"coupon or promotion."`
	Code   string `json:"code,omitempty"`
	Title  string `json:"title"`
	Amount int64  `json:"amount" jsonschema:"Negative for a discount, minor unit."`
}

type invoice struct {
	Number    string     `json:"number"`
	Status    string     `json:"status"`
	IssuedAt  *time.Time `json:"issued_at,omitempty"`
	BuyerName string     `json:"buyer_name,omitempty"`
	TaxID     string     `json:"tax_id,omitempty"`
}

type installment struct {
	Periods      int    `json:"periods"`
	PeriodAmount int64  `json:"period_amount"`
	Bank         string `json:"bank,omitempty"`
}

// payment is one payment attempt (spec, "Payment node"); field names follow the Member API's
// in snake case.
type payment struct {
	TradeNo           string       `json:"trade_no" jsonschema:"Identifier of this payment attempt (not of a purchase)."`
	Amount            int64        `json:"amount" jsonschema:"Minor unit of currency."`
	Currency          string       `json:"currency"`
	PaymentType       string       `json:"payment_type,omitempty" jsonschema:"Payment method type; absent when none was chosen."`
	PaymentState      string       `json:"payment_state" jsonschema:"unpaid, paid, expired, failed or refunded (an unpaid payment past its deadline is expired)."`
	CreatedAt         time.Time    `json:"created_at"`
	PaidAt            *time.Time   `json:"paid_at,omitempty"`
	RefundingState    string       `json:"refunding_state" jsonschema:"none, requested, refunding, partially_refunded, refunded or rejected."`
	RefundedAmount    int64        `json:"refunded_amount"`
	RefundedAt        *time.Time   `json:"refunded_at,omitempty"`
	RefundRequestedAt *time.Time   `json:"refund_requested_at,omitempty"`
	BankCode          string       `json:"bank_code,omitempty" jsonschema:"ATM payment instructions, for unpaid and expired rows."`
	BankName          string       `json:"bank_name,omitempty"`
	CodeNo            string       `json:"code_no,omitempty" jsonschema:"Transfer account or convenience-store code, for unpaid and expired rows."`
	ExpiredAt         *time.Time   `json:"expired_at,omitempty" jsonschema:"Deadline of an unpaid payment."`
	LineItems         []lineItem   `json:"line_items"`
	Adjustments       []adjustment `json:"adjustments"`
	Invoice           *invoice     `json:"invoice,omitempty"`
	Installment       *installment `json:"installment,omitempty"`
}

type myPaymentsOut struct {
	Payments []payment `json:"payments" jsonschema:"Newest first. One entry is one payment attempt: a retried checkout is a separate entry, and nothing joins attempts into purchases."`
	nextPage
}

type myNotificationsIn struct {
	UnreadOnly bool `json:"unread_only,omitempty" jsonschema:"Leave out notifications already read."`
	First      int  `json:"first,omitempty" jsonschema:"How many notifications to return, 1 to 50 (default 20)."`
	pageAfter
}

type notification struct {
	ID        int64      `json:"id" jsonschema:"mark_notification_read takes it."`
	Kind      string     `json:"kind"`
	Title     string     `json:"title"`
	Body      string     `json:"body"`
	URL       string     `json:"url,omitempty"`
	CreatedAt time.Time  `json:"created_at"`
	ReadAt    *time.Time `json:"read_at,omitempty" jsonschema:"When the member read it; absent while unread."`
}

type myNotificationsOut struct {
	UnreadCount   int            `json:"unread_count"`
	Notifications []notification `json:"notifications" jsonschema:"Newest first."`
	nextPage
}

type subscription struct {
	Topic   string `json:"topic"`
	Channel string `json:"channel"`
	Enabled bool   `json:"enabled"`
}

type subscriptionsOut struct {
	Subscriptions []subscription `json:"subscriptions" jsonschema:"Every topic on every channel, off unless the member turned it on."`
}

type markReadIn struct {
	NotificationID int64 `json:"notification_id" jsonschema:"The id of one of the member's notifications, as my_notifications returns it."`
}

type markAllOut struct {
	Marked int `json:"marked" jsonschema:"How many unread notifications were marked read."`
}

type setSubscriptionIn struct {
	Topic   string `json:"topic"`
	Channel string `json:"channel"`
	Enabled bool   `json:"enabled"`
}

func memberTools() []toolDef {
	return []toolDef{
		define(spec{
			name:  "my_courses",
			title: "My courses",
			description: "Lists the courses the signed-in member is enrolled in, with access dates, progress and the lecture " +
				"watched last. Enrollments are entitlements: they carry no order, coupon, refund or invoice (see my_payments).",
			need:  memberRead,
			input: paging,
		}, myCourses),
		define(spec{
			name:  "my_course_curriculum",
			title: "My course curriculum",
			description: "Returns the whole curriculum of one course the member is enrolled in, every lecture with the " +
				"member's state (unread, read, completed), position, length and lock.",
			need:  memberRead,
			input: all(minLength(1, "slug"), maxLength(200, "slug")),
		}, myCurriculum),
		define(spec{
			name:  "my_payments",
			title: "My payments",
			description: "Lists the member's payments at this school, newest first. Each entry is one payment attempt: a " +
				"retried checkout is another entry with another trade_no, and attempts must not be joined into purchases. " +
				"Unpaid and expired entries are listed on purpose, with their payment instructions (bank_code, bank_name, " +
				"code_no, expired_at). Courses, products, consulting and events all appear here.",
			need:  memberRead,
			input: paging,
		}, myPayments),
		define(spec{
			name:        "my_notifications",
			title:       "My notifications",
			description: "Lists the member's notifications, newest first, with the number still unread.",
			need:        memberRead,
			input:       paging,
		}, myNotifications),
		define(spec{
			name:        "my_notification_subscriptions",
			title:       "My notification choices",
			description: "Returns which notification topics the member receives on which channel.",
			need:        memberRead,
		}, mySubscriptions),
		define(spec{
			name:        "mark_notification_read",
			title:       "Mark a notification read",
			description: "Marks one of the member's notifications read and returns it. A notification already read keeps its first read time.",
			need:        memberWrite,
			write:       true,
			input:       bounds(1, 1<<53, "notification_id"),
		}, markRead),
		define(spec{
			name:        "mark_all_notifications_read",
			title:       "Mark all notifications read",
			description: "Marks every unread notification of the member read and says how many that was.",
			need:        memberWrite,
			write:       true,
		}, markAllRead),
		define(spec{
			name:        "set_notification_subscription",
			title:       "Set a notification choice",
			description: "Turns one notification topic on or off on one channel for the member.",
			need:        memberWrite,
			write:       true,
			input:       all(enum("topic", storage.NotificationTopics...), enum("channel", storage.NotificationChannels...)),
		}, setSubscription),
	}
}

// progressByCourse reads the member's progress summed up per course, by course.
func progressByCourse(ctx context.Context, c *caller, courseIDs []int64) (map[int64]storage.CourseProgress, error) {
	list, err := c.store.GetCourseProgress(ctx, c.memberID(), courseIDs)
	if err != nil {
		return nil, err
	}
	return storage.CourseProgressByCourse(list), nil
}

func newMyCourse(ec storage.EnrolledCourse, p storage.CourseProgress, now time.Time) myCourse {
	e := ec.Enrollment
	out := myCourse{
		Slug: ec.Course.Slug, Title: ec.Course.Title, EnrolledAt: e.EnrolledAt,
		HasLifetimeAccess: e.LifetimeAccess, AccessActive: e.ActiveAt(now),
		// Lifetime access does not expire, whatever date the row keeps.
		ExpireDate: e.Expires(),
		Progress:   newProgress(p),
	}
	if l := p.LastWatched; l != nil {
		out.LastWatched = &lastWatched{LectureID: l.LectureID, LectureTitle: p.LastWatchedTitle, PositionSeconds: l.PositionSeconds, WatchedAt: l.UpdatedAt}
	}
	return out
}

func myCourses(ctx context.Context, c *caller, in coursePageIn) (myCoursesOut, error) {
	list, next, err := c.store.ListEnrolledCourses(ctx, c.memberID(), page(in.First, in.After))
	if err != nil {
		return myCoursesOut{}, err
	}
	ids := make([]int64, len(list))
	for i, ec := range list {
		ids[i] = ec.Course.ID
	}
	progress, err := progressByCourse(ctx, c, ids)
	if err != nil {
		return myCoursesOut{}, err
	}
	out := myCoursesOut{Courses: make([]myCourse, len(list)), nextPage: nextPage{next}}
	for i, ec := range list {
		out.Courses[i] = newMyCourse(ec, progress[ec.Course.ID], c.now)
	}
	return out, nil
}

func myCurriculum(ctx context.Context, c *caller, in curriculumIn) (curriculumOut, error) {
	notEnrolled := failf("You are not enrolled in a course with the slug %q; my_courses lists your courses.", in.Slug)
	co, err := c.store.GetCourseBySlug(ctx, in.Slug)
	if errors.Is(err, storage.ErrNotFound) {
		return curriculumOut{}, notEnrolled
	}
	if err != nil {
		return curriculumOut{}, err
	}
	enrollments, err := c.store.ListEnrollments(ctx, c.memberID())
	if err != nil {
		return curriculumOut{}, err
	}
	i := slices.IndexFunc(enrollments, func(e storage.Enrollment) bool { return e.CourseID == co.ID })
	if i < 0 {
		return curriculumOut{}, notEnrolled
	}
	ids := []int64{co.ID}
	progress, err := progressByCourse(ctx, c, ids)
	if err != nil {
		return curriculumOut{}, err
	}
	sections, lectures, err := c.store.GetCurricula(ctx, ids)
	if err != nil {
		return curriculumOut{}, err
	}
	rows, err := c.store.GetLectureProgress(ctx, c.memberID(), ids)
	if err != nil {
		return curriculumOut{}, err
	}
	byLecture := storage.LectureProgressByLecture(rows)

	out := curriculumOut{myCourse: newMyCourse(storage.EnrolledCourse{Enrollment: enrollments[i], Course: co}, progress[co.ID], c.now)}
	out.Sections = make([]memberSection, len(sections))
	for i, lectures := range lecturesBySection(sections, lectures) {
		s := memberSection{Position: sections[i].Position, Title: sections[i].Title, Lectures: make([]memberLecture, len(lectures))}
		for j, l := range lectures {
			row := byLecture[l.ID] // nil: never opened, unread at 0
			s.Lectures[j] = memberLecture{
				ID: l.ID, Position: l.Position, Title: l.Title, DurationSeconds: l.DurationSeconds,
				State:    string(row.StateShown()),
				IsLocked: l.LockedAt(c.now),
				UnlockAt: l.UnlockAt,
			}
			if row != nil {
				s.Lectures[j].PositionSeconds = row.PositionSeconds
			}
		}
		out.Sections[i] = s
	}
	return out, nil
}

func myPayments(ctx context.Context, c *caller, in myPaymentsIn) (myPaymentsOut, error) {
	// The store applies payments rules 2, 3 and 5 (which rows, in which order, seen now).
	list, next, err := c.store.ListPayments(ctx, c.memberID(), c.now, page(in.First, in.After))
	if err != nil {
		return myPaymentsOut{}, err
	}
	out := myPaymentsOut{Payments: make([]payment, len(list)), nextPage: nextPage{next}}
	for i, p := range list {
		out.Payments[i] = newPayment(p)
	}
	return out, nil
}

func newPayment(p storage.Payment) payment {
	out := payment{
		TradeNo: p.TradeNo, Amount: p.Amount, Currency: p.Currency, PaymentType: p.PaymentType,
		PaymentState: p.PaymentState, CreatedAt: p.CreatedAt, PaidAt: p.PaidAt,
		RefundingState: p.RefundingState, RefundedAmount: p.RefundedAmount, RefundedAt: p.RefundedAt,
		RefundRequestedAt: p.RefundRequestedAt, BankCode: p.BankCode, BankName: p.BankName, CodeNo: p.CodeNo,
		ExpiredAt: p.ExpiredAt, LineItems: []lineItem{}, Adjustments: []adjustment{},
	}
	for _, l := range p.LineItems {
		out.LineItems = append(out.LineItems, lineItem{Kind: l.Kind, Ref: l.Ref, Title: l.Title, Quantity: l.Quantity, UnitAmount: l.UnitAmount})
	}
	for _, a := range p.Adjustments {
		out.Adjustments = append(out.Adjustments, adjustment{Kind: a.Kind, Code: a.Code, Title: a.Title, Amount: a.Amount})
	}
	if v := p.Invoice; v != nil {
		out.Invoice = &invoice{Number: v.Number, Status: v.Status, IssuedAt: v.IssuedAt, BuyerName: v.BuyerName, TaxID: v.TaxID}
	}
	if v := p.Installment; v != nil {
		out.Installment = &installment{Periods: v.Periods, PeriodAmount: v.PeriodAmount, Bank: v.Bank}
	}
	return out
}

func newNotification(n storage.Notification) notification {
	return notification{ID: n.ID, Kind: n.Kind, Title: n.Title, Body: n.Body, URL: n.URL, CreatedAt: n.CreatedAt, ReadAt: n.ReadAt}
}

func myNotifications(ctx context.Context, c *caller, in myNotificationsIn) (myNotificationsOut, error) {
	list, next, err := c.store.ListNotifications(ctx, c.memberID(), in.UnreadOnly, page(in.First, in.After))
	if err != nil {
		return myNotificationsOut{}, err
	}
	unread, err := c.store.CountUnreadNotifications(ctx, c.memberID())
	if err != nil {
		return myNotificationsOut{}, err
	}
	out := myNotificationsOut{UnreadCount: unread, Notifications: make([]notification, len(list)), nextPage: nextPage{next}}
	for i, n := range list {
		out.Notifications[i] = newNotification(n)
	}
	return out, nil
}

// mySubscriptions answers the whole grid, as the Member API does (resource.SubscriptionGrid).
func mySubscriptions(ctx context.Context, c *caller, _ noInput) (subscriptionsOut, error) {
	stored, err := c.store.ListNotificationSubscriptions(ctx, c.memberID())
	if err != nil {
		return subscriptionsOut{}, err
	}
	grid := resource.SubscriptionGrid(stored)
	out := subscriptionsOut{Subscriptions: make([]subscription, len(grid))}
	for i, s := range grid {
		out.Subscriptions[i] = subscription{Topic: s.Topic, Channel: s.Channel, Enabled: s.Enabled}
	}
	return out, nil
}

func markRead(ctx context.Context, c *caller, in markReadIn) (notification, error) {
	n, err := c.store.MarkNotificationRead(ctx, c.memberID(), in.NotificationID, c.now)
	if errors.Is(err, storage.ErrNotFound) {
		return notification{}, failf("You have no notification with the id %d; my_notifications lists them.", in.NotificationID)
	}
	if err != nil {
		return notification{}, err
	}
	return newNotification(n), nil
}

func markAllRead(ctx context.Context, c *caller, _ noInput) (markAllOut, error) {
	n, err := c.store.MarkAllNotificationsRead(ctx, c.memberID(), c.now)
	if err != nil {
		return markAllOut{}, err
	}
	return markAllOut{Marked: n}, nil
}

func setSubscription(ctx context.Context, c *caller, in setSubscriptionIn) (subscription, error) {
	s, err := c.store.SetNotificationSubscription(ctx, c.memberID(), storage.NotificationSubscription{Topic: in.Topic, Channel: in.Channel, Enabled: in.Enabled})
	if errors.Is(err, storage.ErrInvalidArgument) {
		return subscription{}, failf("Unknown topic or channel.")
	}
	if err != nil {
		return subscription{}, err
	}
	return subscription{Topic: s.Topic, Channel: s.Channel, Enabled: s.Enabled}, nil
}
