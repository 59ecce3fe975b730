package storage

import (
	"context"
	"time"
)

// MemberData is what the Member API reads and writes: one member's own data at the context's
// school. Every method is school-scoped and names the member explicitly; none of them ever
// returns another member's rows (a consulting meeting is listed for everyone, but without saying
// whose it is).
//
// Lists are paged by storage.Page in a fixed order and cost a fixed number of statements, and the
// batch reads (GetCurricula, GetConsultingSchedules) take many parents at once, so that a Member
// API request costs the same number of statements whatever the member holds.
type MemberData interface {
	// ListEnrolledCourses pages through the member's enrollments with their courses, oldest
	// enrollment first (enrolled_at, then id). Expired enrollments are included: the entitlement
	// carries its expiry date.
	ListEnrolledCourses(ctx context.Context, memberID int64, page Page) (courses []EnrolledCourse, next string, err error)
	// GetCurricula returns the sections and lectures of several courses of the context's school
	// in a fixed number of statements, sections ordered by course and position and lectures by
	// course, section position and position. Unknown course ids (or another school's) contribute
	// nothing. The slices, and what their elements point to, belong to the caller: a backend that
	// keeps curricula in memory hands out copies.
	GetCurricula(ctx context.Context, courseIDs []int64) ([]Section, []Lecture, error)

	// ListHeldProducts pages through the digital products the member holds, oldest holding
	// first.
	ListHeldProducts(ctx context.Context, memberID int64, page Page) (products []HeldProduct, next string, err error)

	// ListOfferedConsultingServices pages through the consulting services offered against a
	// course the member has access to at `at` (lifetime access, no expiry, or an expiry after
	// `at`), ordered by id. It is not a list of purchases or bookings.
	ListOfferedConsultingServices(ctx context.Context, memberID int64, at time.Time, page Page) (services []ConsultingService, next string, err error)
	// GetConsultingSchedules returns the weekly slots of the given services (by service, weekday
	// and start time) and the meetings reserved on them, by anyone, that end after `from` (by
	// service and start time), in two statements. Meetings do not say who reserved them.
	GetConsultingSchedules(ctx context.Context, serviceIDs []int64, from time.Time) ([]ConsultingSlot, []ConsultingMeeting, error)

	// ListEventRegistrations pages through the member's event registrations with their events,
	// oldest registration first.
	ListEventRegistrations(ctx context.Context, memberID int64, page Page) (registrations []EventRegistration, next string, err error)

	// ListPayments pages through the member's payments, newest first (created_at, then id, both
	// descending). Seen at `at`: an unpaid payment whose ExpiredAt is at or before `at` is
	// returned as PaymentExpired, and an attempt abandoned before a payment method was chosen (no
	// PaymentType) is left out while it is unpaid and listed once it has expired (spec, payments
	// rules 2 and 3).
	ListPayments(ctx context.Context, memberID int64, at time.Time, page Page) (payments []Payment, next string, err error)

	// ListNotifications pages through the member's notifications, newest first; unreadOnly
	// leaves out those already read.
	ListNotifications(ctx context.Context, memberID int64, unreadOnly bool, page Page) (notifications []Notification, next string, err error)
	// CountUnreadNotifications counts the member's unread notifications.
	CountUnreadNotifications(ctx context.Context, memberID int64) (int, error)
	// MarkNotificationRead stamps one of the member's notifications read at `at` and returns it.
	// A notification already read keeps its first ReadAt. ErrNotFound if the notification is not
	// the member's at this school.
	MarkNotificationRead(ctx context.Context, memberID, notificationID int64, at time.Time) (Notification, error)
	// MarkAllNotificationsRead stamps every unread notification of the member read at `at` and
	// returns how many it stamped.
	MarkAllNotificationsRead(ctx context.Context, memberID int64, at time.Time) (int, error)

	// ListNotificationSubscriptions returns the member's stored subscription choices, by topic
	// and channel. A topic and channel with no row has never been chosen.
	ListNotificationSubscriptions(ctx context.Context, memberID int64) ([]NotificationSubscription, error)
	// SetNotificationSubscription stores the member's choice for one topic and channel, creating
	// or replacing it. ErrInvalidArgument for an unknown topic or channel, ErrNotFound for an
	// unknown member.
	SetNotificationSubscription(ctx context.Context, memberID int64, s NotificationSubscription) (NotificationSubscription, error)
}

// EnrolledCourse is one of a member's enrollments with its course.
type EnrolledCourse struct {
	Enrollment Enrollment
	Course     Course
}

// DigitalProduct is a digital product of the context's school.
type DigitalProduct struct {
	ID int64
	Offer
	Published bool
}

// HeldProduct is a digital product a member holds.
type HeldProduct struct {
	HoldingID int64
	Product   DigitalProduct
	GrantedAt time.Time
}

// ConsultingService is a consulting service of the context's school.
type ConsultingService struct {
	ID int64
	Offer
	DurationMinutes int
}

// ConsultingSlot is a recurring weekly availability of a consulting service.
type ConsultingSlot struct {
	ID              int64
	ServiceID       int64
	Weekday         int    // 0 = Sunday ... 6 = Saturday
	StartTime       string // "HH:MM" in TimeZone
	DurationMinutes int
	TimeZone        string // IANA name
}

// ConsultingMeeting is a meeting reserved on a consulting service. It deliberately has no
// member: whose meeting it is never leaves the store (spec, "Consulting service").
type ConsultingMeeting struct {
	ID        int64
	ServiceID int64
	StartsAt  time.Time
	EndsAt    time.Time
}

// Event is an event of the context's school.
type Event struct {
	ID int64
	Offer
	StartsAt  time.Time
	EndsAt    time.Time
	Location  string
	Capacity  int // 0: unlimited
	Published bool
}

// EventRegistration is a member's registration for an event.
type EventRegistration struct {
	ID           int64
	Event        Event
	Status       string // e.g. "registered", "cancelled", "attended"
	RegisteredAt time.Time
}

// Payment is one payment attempt of a member (spec, "Payment node"): a retried checkout is
// another Payment with another TradeNo, and nothing joins the two.
type Payment struct {
	ID          int64
	TradeNo     string
	MemberID    int64
	Amount      int64
	Currency    string
	PaymentType string // "": no method was chosen
	CreatedAt   time.Time
	PaymentStatus
	LineItems   []PaymentLineItem
	Adjustments []PaymentAdjustment
	Invoice     *PaymentInvoice
	Installment *PaymentInstallment
}

// Notification is one notification in a member's inbox.
type Notification struct {
	ID        int64
	Key       string
	MemberID  int64
	Kind      string
	Title     string
	Body      string
	URL       string
	CreatedAt time.Time
	ReadAt    *time.Time // nil: unread
}

// NotificationSubscription is a member's choice for one topic and channel.
type NotificationSubscription struct {
	Topic   string
	Channel string
	Enabled bool
}

// Notification topics and channels a member can choose (SetNotificationSubscription accepts only
// these; imported data may hold other topics, which are listed as stored).
const (
	TopicCourseUpdates = "course_updates"
	TopicPosts         = "posts"
	TopicPayments      = "payments"
	TopicEvents        = "events"

	ChannelEmail = "email"
	ChannelInApp = "in_app"
)

// NotificationTopics and NotificationChannels list the accepted values, in display order.
var (
	NotificationTopics   = []string{TopicCourseUpdates, TopicPosts, TopicPayments, TopicEvents}
	NotificationChannels = []string{ChannelEmail, ChannelInApp}
)
