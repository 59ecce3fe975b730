package storage

import "time"

// SchoolData is everything a seed fixture can hold for one school. It is also the fixture file
// format (docs/seed-format.md): the yaml tags are the file's keys. Records refer to each other by
// natural keys (member e-mail, course slug, section and lecture positions, trade number, key),
// never by database ids, so a file can be written by hand and applied to any database.
//
// Store.ImportSchoolData applies it in one transaction and is idempotent: every record is
// inserted or updated by its natural key, so importing the same data twice changes nothing.
// Rows the data does not mention are left alone.
type SchoolData struct {
	School                    *SchoolSeed                    `yaml:"school,omitempty"`
	Members                   []MemberSeed                   `yaml:"members,omitempty"`
	Courses                   []CourseSeed                   `yaml:"courses,omitempty"`
	Enrollments               []EnrollmentSeed               `yaml:"enrollments,omitempty"`
	Progress                  []ProgressSeed                 `yaml:"progress,omitempty"`
	DigitalProducts           []DigitalProductSeed           `yaml:"digital_products,omitempty"`
	ProductHoldings           []ProductHoldingSeed           `yaml:"product_holdings,omitempty"`
	ConsultingServices        []ConsultingServiceSeed        `yaml:"consulting_services,omitempty"`
	Events                    []EventSeed                    `yaml:"events,omitempty"`
	EventRegistrations        []EventRegistrationSeed        `yaml:"event_registrations,omitempty"`
	Payments                  []PaymentSeed                  `yaml:"payments,omitempty"`
	Notifications             []NotificationSeed             `yaml:"notifications,omitempty"`
	NotificationSubscriptions []NotificationSubscriptionSeed `yaml:"notification_subscriptions,omitempty"`
	MembershipPlans           []MembershipPlanSeed           `yaml:"membership_plans,omitempty"`
	Subscriptions             []SubscriptionSeed             `yaml:"subscriptions,omitempty"`
	Coupons                   []CouponSeed                   `yaml:"coupons,omitempty"`
	Posts                     []PostSeed                     `yaml:"posts,omitempty"`
	Comments                  []CommentSeed                  `yaml:"comments,omitempty"`
	Lecturers                 []LecturerSeed                 `yaml:"lecturers,omitempty"`
	Forms                     []FormSeed                     `yaml:"forms,omitempty"`
	FormSubmissions           []FormSubmissionSeed           `yaml:"form_submissions,omitempty"`
	Pages                     []PageSeed                     `yaml:"pages,omitempty"`
}

// Records counts the records the import will apply (for progress reporting).
func (d *SchoolData) Records() int {
	n := len(d.Members) + len(d.Courses) + len(d.Enrollments) + len(d.Progress) +
		len(d.DigitalProducts) + len(d.ProductHoldings) + len(d.ConsultingServices) +
		len(d.Events) + len(d.EventRegistrations) + len(d.Payments) + len(d.Notifications) +
		len(d.NotificationSubscriptions) + len(d.MembershipPlans) + len(d.Subscriptions) +
		len(d.Coupons) + len(d.Posts) + len(d.Comments) + len(d.Lecturers) + len(d.Forms) +
		len(d.FormSubmissions) + len(d.Pages)
	if d.School != nil {
		n++
	}
	return n
}

// ImportStats says how many records an import applied, by SchoolData key.
type ImportStats map[string]int

// ImportOptions tune ImportSchoolData.
type ImportOptions struct {
	// Progress, if set, is called after each applied record with the running count and the
	// total from SchoolData.Records.
	Progress func(done, total int)
}

// SchoolSeed sets the school's operator-editable settings.
type SchoolSeed struct {
	Settings   *SchoolSettings `yaml:"settings,omitempty"`
	Appearance *Appearance     `yaml:"appearance,omitempty"`
}

// MemberSeed is a member (keyed by e-mail, deployment-wide) and their roles at this school.
// PasswordHash must be an argon2id PHC string; the seed command hashes a fixture's plain
// `password` into it before the import, and Password never reaches storage.
type MemberSeed struct {
	Email        string `yaml:"email"`
	Name         string `yaml:"name"`
	AvatarURL    string `yaml:"avatar_url,omitempty"`
	Password     string `yaml:"password,omitempty"`
	PasswordHash string `yaml:"password_hash,omitempty"`
	Roles        []Role `yaml:"roles,omitempty"`
}

// OfferSeed is the part every seed of something a school sells shares (a course, a digital
// product, a consulting service, an event, a membership plan): the seeds embed it inline, so
// that its keys sit in the record beside the seed's own. It is not Offer with yaml tags because
// the catalogue types embed Offer too and the file's rules (description may be left out) are not
// theirs. Its fields are Offer's, in the same order, so that one converts to the other: a field
// added to Offer fails the build here until it is added too.
type OfferSeed struct {
	Slug        string `yaml:"slug"`
	Title       string `yaml:"title"`
	Description string `yaml:"description,omitempty"`
	PriceAmount int64  `yaml:"price_amount"`
	Currency    string `yaml:"currency"`
}

// Offer returns the seed's offer fields, as the catalogue types hold them.
func (s OfferSeed) Offer() Offer { return Offer(s) }

// CourseSeed is a course (keyed by slug) with its whole curriculum. Sections and lectures are
// keyed by their position in the lists (from 1).
type CourseSeed struct {
	OfferSeed `yaml:",inline"`
	Published bool          `yaml:"published"`
	Sections  []SectionSeed `yaml:"sections,omitempty"`
}

// SectionSeed is one section of a CourseSeed.
type SectionSeed struct {
	Title    string        `yaml:"title"`
	Lectures []LectureSeed `yaml:"lectures,omitempty"`
}

// LectureSeed is one lecture of a SectionSeed.
type LectureSeed struct {
	Title           string     `yaml:"title"`
	DurationSeconds int        `yaml:"duration_seconds"`
	IsLocked        bool       `yaml:"is_locked,omitempty"`
	UnlockAt        *time.Time `yaml:"unlock_at,omitempty"`
}

// LectureRef names a lecture by course slug and 1-based section and lecture positions.
type LectureRef struct {
	Course  string `yaml:"course"`
	Section int    `yaml:"section"`
	Lecture int    `yaml:"lecture"`
}

// EnrollmentSeed entitles a member to a course (keyed by member and course).
type EnrollmentSeed struct {
	Member         string     `yaml:"member"` // e-mail
	Course         string     `yaml:"course"` // slug
	ExpireDate     *time.Time `yaml:"expire_date,omitempty"`
	LifetimeAccess bool       `yaml:"lifetime_access,omitempty"`
	EnrolledAt     time.Time  `yaml:"enrolled_at"`
}

// ProgressSeed is a member's progress on one lecture (keyed by member and lecture).
type ProgressSeed struct {
	Member          string       `yaml:"member"`
	Lecture         LectureRef   `yaml:"lecture"`
	State           LectureState `yaml:"state"`
	PositionSeconds int          `yaml:"position_seconds,omitempty"`
	UpdatedAt       time.Time    `yaml:"updated_at"`
}

// DigitalProductSeed is a digital product for sale (keyed by slug).
type DigitalProductSeed struct {
	OfferSeed `yaml:",inline"`
	Published bool `yaml:"published"`
}

// ProductHoldingSeed entitles a member to a digital product (keyed by member and product).
type ProductHoldingSeed struct {
	Member    string    `yaml:"member"`
	Product   string    `yaml:"product"` // slug
	GrantedAt time.Time `yaml:"granted_at"`
}

// ConsultingServiceSeed is a consulting service (keyed by slug) offered against the listed
// courses: a member delivered one of those courses sees the service. Slots are keyed by weekday
// and start time, meetings by start time.
type ConsultingServiceSeed struct {
	OfferSeed       `yaml:",inline"`
	DurationMinutes int           `yaml:"duration_minutes"`
	Courses         []string      `yaml:"courses,omitempty"` // slugs
	Slots           []SlotSeed    `yaml:"slots,omitempty"`
	Meetings        []MeetingSeed `yaml:"meetings,omitempty"`
}

// SlotSeed is a recurring weekly availability of a consulting service.
type SlotSeed struct {
	Weekday         int    `yaml:"weekday"`    // 0 = Sunday ... 6 = Saturday
	StartTime       string `yaml:"start_time"` // "HH:MM", in TimeZone
	DurationMinutes int    `yaml:"duration_minutes"`
	TimeZone        string `yaml:"time_zone"` // IANA name
}

// MeetingSeed is a meeting reserved on a consulting service by some member.
type MeetingSeed struct {
	Member   string    `yaml:"member"`
	StartsAt time.Time `yaml:"starts_at"`
	EndsAt   time.Time `yaml:"ends_at"`
}

// EventSeed is an event (keyed by slug).
type EventSeed struct {
	OfferSeed `yaml:",inline"`
	StartsAt  time.Time `yaml:"starts_at"`
	EndsAt    time.Time `yaml:"ends_at"`
	Location  string    `yaml:"location,omitempty"`
	Capacity  int       `yaml:"capacity,omitempty"` // 0: unlimited
	Published bool      `yaml:"published"`
}

// EventRegistrationSeed registers a member for an event (keyed by member and event).
type EventRegistrationSeed struct {
	Member       string    `yaml:"member"`
	Event        string    `yaml:"event"` // slug
	Status       string    `yaml:"status"`
	RegisteredAt time.Time `yaml:"registered_at"`
}

// Payment states and refund states (their values are ours: docs/decisions.md).
const (
	PaymentUnpaid   = "unpaid"
	PaymentPaid     = "paid"
	PaymentExpired  = "expired"
	PaymentFailed   = "failed"
	PaymentRefunded = "refunded"

	RefundNone      = "none"
	RefundRequested = "requested"
	RefundRefunding = "refunding"
	RefundPartial   = "partially_refunded"
	RefundRefunded  = "refunded"
	RefundRejected  = "rejected"
)

// PaymentStates and RefundStates list the accepted values.
var (
	PaymentStates = []string{PaymentUnpaid, PaymentPaid, PaymentExpired, PaymentFailed, PaymentRefunded}
	RefundStates  = []string{RefundNone, RefundRequested, RefundRefunding, RefundPartial, RefundRefunded, RefundRejected}
)

// PaymentStatus is where a payment attempt stands: its state and when it was paid or lapsed, its
// refund, and the instructions an ATM transfer or a convenience-store payment is made with.
// PaymentState is one of PaymentStates and RefundingState one of RefundStates (a seed may leave
// it empty for "none"). Payment, PaymentSeed, the payment row and the operator API's payment
// embed it, so it carries the seed file's keys (yaml) and the operator API's (json, with the
// values its document lists).
type PaymentStatus struct {
	PaymentState      string     `yaml:"payment_state" json:"payment_state" enum:"unpaid,paid,expired,failed,refunded"`
	PaidAt            *time.Time `yaml:"paid_at,omitempty" json:"paid_at,omitempty"`
	ExpiredAt         *time.Time `yaml:"expired_at,omitempty" json:"expired_at,omitempty"`
	RefundingState    string     `yaml:"refunding_state,omitempty" json:"refunding_state" enum:"none,requested,refunding,partially_refunded,refunded,rejected"`
	RefundedAmount    int64      `yaml:"refunded_amount,omitempty" json:"refunded_amount"`
	RefundedAt        *time.Time `yaml:"refunded_at,omitempty" json:"refunded_at,omitempty"`
	RefundRequestedAt *time.Time `yaml:"refund_requested_at,omitempty" json:"refund_requested_at,omitempty"`
	BankCode          string     `yaml:"bank_code,omitempty" json:"bank_code,omitempty"`
	BankName          string     `yaml:"bank_name,omitempty" json:"bank_name,omitempty"`
	CodeNo            string     `yaml:"code_no,omitempty" json:"code_no,omitempty"`
}

// PaymentSeed is one payment attempt (keyed by trade number within the school). A retried
// checkout is another PaymentSeed with another trade number; nothing joins the two. An empty
// PaymentType means the buyer never chose a method.
type PaymentSeed struct {
	TradeNo       string    `yaml:"trade_no"`
	Member        string    `yaml:"member"`
	Amount        int64     `yaml:"amount"`
	Currency      string    `yaml:"currency"`
	PaymentType   string    `yaml:"payment_type,omitempty"`
	CreatedAt     time.Time `yaml:"created_at"`
	PaymentStatus `yaml:",inline"`
	LineItems     []PaymentLineItem   `yaml:"line_items"`
	Adjustments   []PaymentAdjustment `yaml:"adjustments,omitempty"`
	Invoice       *PaymentInvoice     `yaml:"invoice,omitempty"`
	Installment   *PaymentInstallment `yaml:"installment,omitempty"`
}

// Line item kinds: the four kinds of purchase, and membership plans.
const (
	ItemCourse            = "course"
	ItemDigitalProduct    = "digital_product"
	ItemConsultingService = "consulting_service"
	ItemEvent             = "event"
	ItemMembershipPlan    = "membership_plan"
)

// ItemKinds lists the accepted line item kinds.
var ItemKinds = []string{ItemCourse, ItemDigitalProduct, ItemConsultingService, ItemEvent, ItemMembershipPlan}

// PaymentLineItem is one item paid for. Ref is the item's slug.
type PaymentLineItem struct {
	Kind       string `yaml:"kind" json:"kind"`
	Ref        string `yaml:"ref" json:"ref"`
	Title      string `yaml:"title" json:"title"`
	Quantity   int    `yaml:"quantity" json:"quantity"`
	UnitAmount int64  `yaml:"unit_amount" json:"unit_amount"`
}

// PaymentAdjustment is a coupon or promotion line; Amount is negative for a discount.
type PaymentAdjustment struct {
	Kind   string `yaml:"kind" json:"kind"` // "coupon" or "promotion"
	Code   string `yaml:"code,omitempty" json:"code,omitempty"`
	Title  string `yaml:"title" json:"title"`
	Amount int64  `yaml:"amount" json:"amount"`
}

// PaymentInvoice is the invoice issued for a payment.
type PaymentInvoice struct {
	Number    string     `yaml:"number" json:"number"`
	Status    string     `yaml:"status" json:"status"` // "issued", "void"
	IssuedAt  *time.Time `yaml:"issued_at,omitempty" json:"issued_at,omitempty"`
	BuyerName string     `yaml:"buyer_name,omitempty" json:"buyer_name,omitempty"`
	TaxID     string     `yaml:"tax_id,omitempty" json:"tax_id,omitempty"`
}

// PaymentInstallment describes a payment split into periods.
type PaymentInstallment struct {
	Periods      int    `yaml:"periods" json:"periods"`
	PeriodAmount int64  `yaml:"period_amount" json:"period_amount"`
	Bank         string `yaml:"bank,omitempty" json:"bank,omitempty"`
}

// NotificationSeed is one notification in a member's inbox (keyed by Key within the school).
type NotificationSeed struct {
	Key       string     `yaml:"key"`
	Member    string     `yaml:"member"`
	Kind      string     `yaml:"kind"`
	Title     string     `yaml:"title"`
	Body      string     `yaml:"body,omitempty"`
	URL       string     `yaml:"url,omitempty"`
	CreatedAt time.Time  `yaml:"created_at"`
	ReadAt    *time.Time `yaml:"read_at,omitempty"`
}

// NotificationSubscriptionSeed is a member's choice for one topic and channel.
type NotificationSubscriptionSeed struct {
	Member  string `yaml:"member"`
	Topic   string `yaml:"topic"`   // e.g. "course_updates", "posts", "payments", "events"
	Channel string `yaml:"channel"` // "email" or "in_app"
	Enabled bool   `yaml:"enabled"`
}

// MembershipPlanSeed is a membership plan for sale (keyed by slug).
type MembershipPlanSeed struct {
	OfferSeed `yaml:",inline"`
	Interval  string `yaml:"interval"` // "month" or "year"
	Published bool   `yaml:"published"`
}

// SubscriptionSeed subscribes a member to a membership plan (keyed by member and plan).
type SubscriptionSeed struct {
	Member           string    `yaml:"member"`
	Plan             string    `yaml:"plan"`  // slug
	State            string    `yaml:"state"` // "active", "past_due", "canceled"
	StartedAt        time.Time `yaml:"started_at"`
	CurrentPeriodEnd time.Time `yaml:"current_period_end"`
}

// CouponSeed is a coupon (keyed by code). Exactly one of PercentOff and AmountOff is set.
type CouponSeed struct {
	Code           string     `yaml:"code"`
	Title          string     `yaml:"title"`
	PercentOff     int        `yaml:"percent_off,omitempty"`
	AmountOff      int64      `yaml:"amount_off,omitempty"`
	Currency       string     `yaml:"currency,omitempty"`
	ExpiresAt      *time.Time `yaml:"expires_at,omitempty"`
	MaxRedemptions int        `yaml:"max_redemptions,omitempty"` // 0: unlimited
}

// PostSeed is an announcement (keyed by Key), school-wide or for one course.
type PostSeed struct {
	Key         string    `yaml:"key"`
	Title       string    `yaml:"title"`
	Body        string    `yaml:"body"`
	Course      string    `yaml:"course,omitempty"` // slug
	Author      string    `yaml:"author,omitempty"` // e-mail
	PublishedAt time.Time `yaml:"published_at"`
}

// CommentSeed is a member's comment (keyed by Key) on a post or on a lecture; exactly one of
// Post and Lecture is set.
type CommentSeed struct {
	Key       string      `yaml:"key"`
	Member    string      `yaml:"member"`
	Post      string      `yaml:"post,omitempty"` // post key
	Lecture   *LectureRef `yaml:"lecture,omitempty"`
	Body      string      `yaml:"body"`
	CreatedAt time.Time   `yaml:"created_at"`
}

// LecturerSeed is a lecturer profile (keyed by slug), optionally linked to a member, teaching
// the listed courses.
type LecturerSeed struct {
	Slug      string   `yaml:"slug"`
	Name      string   `yaml:"name"`
	Bio       string   `yaml:"bio,omitempty"`
	AvatarURL string   `yaml:"avatar_url,omitempty"`
	Member    string   `yaml:"member,omitempty"`  // e-mail
	Courses   []string `yaml:"courses,omitempty"` // slugs
}

// FormSeed is a form (keyed by slug) with its fields.
type FormSeed struct {
	Slug   string      `yaml:"slug"`
	Title  string      `yaml:"title"`
	Fields []FormField `yaml:"fields"`
}

// FormField is one input of a form.
type FormField struct {
	Name     string `yaml:"name" json:"name"`
	Label    string `yaml:"label" json:"label"`
	Type     string `yaml:"type" json:"type"` // "text", "email", "textarea", "number", "checkbox"
	Required bool   `yaml:"required,omitempty" json:"required,omitempty"`
}

// FormSubmissionSeed is one submission of a form (keyed by Key).
type FormSubmissionSeed struct {
	Key         string            `yaml:"key"`
	Form        string            `yaml:"form"`             // slug
	Member      string            `yaml:"member,omitempty"` // e-mail; empty for anonymous
	Data        map[string]string `yaml:"data"`
	SubmittedAt time.Time         `yaml:"submitted_at"`
}

// PageSeed is a content page (keyed by slug).
type PageSeed struct {
	Slug      string `yaml:"slug"`
	Title     string `yaml:"title"`
	Body      string `yaml:"body"`
	Published bool   `yaml:"published"`
}
