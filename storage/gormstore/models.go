package gormstore

import (
	"time"

	"github.com/proctorhq/proctor/storage"
)

// Row structs mirror the tables of migrations/*.sql one to one; TestModelsMatchSchema checks
// every field against the migrated schema. They never leave the package: methods convert them to
// storage's types.
//
// gorm would stamp any field named CreatedAt or UpdatedAt by itself; the tags turn that off
// because several of those times are data (a payment's creation, a seeded progress row) and the
// store sets its own stamps explicitly (stamp methods below).
//
// Where a table holds its domain type's fields and the school, and nothing else, the row embeds
// the domain type rather than repeat it field by field (sections, lectures, enrollments,
// consulting slots, notifications, subscriptions, coupons, posts, pages). Reads convert its times
// to UTC. A field added to one of those types needs its column (TestModelsMatchSchema says so),
// or the row stops embedding the type. An embedded type has no tags, so gorm would stamp a zero
// CreatedAt of it with the time of the insert; a notification's is required data (seed
// validation rejects a notification without one), written as given.

type schoolRow struct {
	ID         int64 `gorm:"primaryKey;autoIncrement:false"`
	Subdomain  string
	Name       string
	Settings   string    // JSON of storage.SchoolSettings
	Appearance string    // JSON of storage.Appearance
	CreatedAt  time.Time `gorm:"autoCreateTime:false"`
	UpdatedAt  time.Time `gorm:"autoUpdateTime:false"`
}

func (schoolRow) TableName() string { return "schools" }

type memberRow struct {
	ID           int64
	Email        string
	Name         string
	AvatarURL    string
	PasswordHash string
	CreatedAt    time.Time `gorm:"autoCreateTime:false"`
	UpdatedAt    time.Time `gorm:"autoUpdateTime:false"`
}

func (memberRow) TableName() string { return "members" }

type memberRoleRow struct {
	SchoolID  int64     `gorm:"primaryKey;autoIncrement:false"`
	MemberID  int64     `gorm:"primaryKey;autoIncrement:false"`
	Role      string    `gorm:"primaryKey"`
	CreatedAt time.Time `gorm:"autoCreateTime:false"`
}

func (memberRoleRow) TableName() string { return "member_roles" }

// offerRow is a pointer to a row of what a school offers for sale (courses, digital products,
// consulting services, membership plans, events): each embeds storage.Offer, whose fields gorm
// maps as the table's own.
type offerRow[R any] interface {
	*R
	offer() *storage.Offer
}

func (r *courseRow) offer() *storage.Offer            { return &r.Offer }
func (r *digitalProductRow) offer() *storage.Offer    { return &r.Offer }
func (r *consultingServiceRow) offer() *storage.Offer { return &r.Offer }
func (r *eventRow) offer() *storage.Offer             { return &r.Offer }
func (r *membershipPlanRow) offer() *storage.Offer    { return &r.Offer }

type courseRow struct {
	ID       int64
	SchoolID int64
	storage.Offer
	Published bool
	CreatedAt time.Time `gorm:"autoCreateTime:false"`
	UpdatedAt time.Time `gorm:"autoUpdateTime:false"`
	// CurriculumVersion is read-only to gorm: only touchCurricula changes it, by an increment
	// in SQL, so that no write of a whole row (UpdateCourse, the import) can set it back.
	CurriculumVersion int64 `gorm:"->"`
}

func (courseRow) TableName() string { return "courses" }

type sectionRow struct {
	SchoolID int64
	storage.Section
}

func (sectionRow) TableName() string { return "course_sections" }

type lectureRow struct {
	SchoolID int64
	storage.Lecture
}

func (lectureRow) TableName() string { return "lectures" }

// lecture is the row's lecture, its unlock time in UTC.
func (r lectureRow) lecture() storage.Lecture {
	l := r.Lecture
	l.UnlockAt = utcPtr(l.UnlockAt)
	return l
}

type enrollmentRow struct {
	SchoolID int64
	storage.Enrollment
}

func (enrollmentRow) TableName() string { return "enrollments" }

// utcEnrollment is e with its times in UTC.
func utcEnrollment(e storage.Enrollment) storage.Enrollment {
	e.ExpireDate, e.EnrolledAt = utcPtr(e.ExpireDate), utc(e.EnrolledAt)
	return e
}

type progressRow struct {
	SchoolID        int64
	MemberID        int64 `gorm:"primaryKey;autoIncrement:false"`
	LectureID       int64 `gorm:"primaryKey;autoIncrement:false"`
	CourseID        int64
	State           string
	PositionSeconds int
	UpdatedAt       time.Time `gorm:"autoUpdateTime:false"`
}

func (progressRow) TableName() string { return "lecture_progress" }

type digitalProductRow struct {
	ID       int64
	SchoolID int64
	storage.Offer
	Published bool
}

func (digitalProductRow) TableName() string { return "digital_products" }

type productHoldingRow struct {
	ID        int64
	SchoolID  int64
	MemberID  int64
	ProductID int64
	GrantedAt time.Time
}

func (productHoldingRow) TableName() string { return "product_holdings" }

type consultingServiceRow struct {
	ID       int64
	SchoolID int64
	storage.Offer
	DurationMinutes int
}

func (consultingServiceRow) TableName() string { return "consulting_services" }

type consultingServiceCourseRow struct {
	SchoolID  int64
	ServiceID int64 `gorm:"primaryKey;autoIncrement:false"`
	CourseID  int64 `gorm:"primaryKey;autoIncrement:false"`
}

func (consultingServiceCourseRow) TableName() string { return "consulting_service_courses" }

type consultingSlotRow struct {
	SchoolID int64
	storage.ConsultingSlot
}

func (consultingSlotRow) TableName() string { return "consulting_slots" }

type consultingMeetingRow struct {
	ID        int64
	SchoolID  int64
	ServiceID int64
	MemberID  int64
	StartsAt  time.Time
	EndsAt    time.Time
}

func (consultingMeetingRow) TableName() string { return "consulting_meetings" }

type eventRow struct {
	ID       int64
	SchoolID int64
	storage.Offer
	StartsAt  time.Time
	EndsAt    time.Time
	Location  string
	Capacity  int
	Published bool
}

func (eventRow) TableName() string { return "events" }

type eventRegistrationRow struct {
	ID           int64
	SchoolID     int64
	EventID      int64
	MemberID     int64
	Status       string
	RegisteredAt time.Time
}

func (eventRegistrationRow) TableName() string { return "event_registrations" }

type paymentRow struct {
	ID          int64
	SchoolID    int64
	TradeNo     string
	MemberID    int64
	Amount      int64
	Currency    string
	PaymentType *string   // NULL: the buyer never chose a method
	CreatedAt   time.Time `gorm:"autoCreateTime:false"`
	storage.PaymentStatus
	LineItems   string  // JSON array of storage.PaymentLineItem
	Adjustments string  // JSON array of storage.PaymentAdjustment
	Invoice     *string // JSON of storage.PaymentInvoice
	Installment *string // JSON of storage.PaymentInstallment
}

func (paymentRow) TableName() string { return "payments" }

// paymentTimes is st with each of its times passed through f: dbTimePtr on the way in, utcPtr
// on the way out.
func paymentTimes(st storage.PaymentStatus, f func(*time.Time) *time.Time) storage.PaymentStatus {
	st.PaidAt, st.ExpiredAt, st.RefundedAt, st.RefundRequestedAt = f(st.PaidAt), f(st.ExpiredAt), f(st.RefundedAt), f(st.RefundRequestedAt)
	return st
}

type notificationRow struct {
	SchoolID int64
	storage.Notification
}

func (notificationRow) TableName() string { return "notifications" }

type notificationSubscriptionRow struct {
	SchoolID int64  `gorm:"primaryKey;autoIncrement:false"`
	MemberID int64  `gorm:"primaryKey;autoIncrement:false"`
	Topic    string `gorm:"primaryKey"`
	Channel  string `gorm:"primaryKey"`
	Enabled  bool
}

func (notificationSubscriptionRow) TableName() string { return "notification_subscriptions" }

type membershipPlanRow struct {
	ID       int64
	SchoolID int64
	storage.Offer
	BillingInterval string
	Published       bool
}

func (membershipPlanRow) TableName() string { return "membership_plans" }

type subscriptionRow struct {
	SchoolID int64
	storage.Subscription
}

func (subscriptionRow) TableName() string { return "subscriptions" }

type couponRow struct {
	SchoolID       int64
	storage.Coupon // its RedeemedCount is counted by checkouts, never by imports
}

func (couponRow) TableName() string { return "coupons" }

type postRow struct {
	SchoolID int64
	storage.Post
}

func (postRow) TableName() string { return "posts" }

type commentRow struct {
	ID        int64
	SchoolID  int64
	Key       string
	MemberID  int64
	PostID    *int64
	LectureID *int64
	Body      string
	CreatedAt time.Time `gorm:"autoCreateTime:false"`
}

func (commentRow) TableName() string { return "comments" }

type lecturerRow struct {
	ID        int64
	SchoolID  int64
	Slug      string
	Name      string
	Bio       string
	AvatarURL string
	MemberID  *int64
}

func (lecturerRow) TableName() string { return "lecturers" }

type lecturerCourseRow struct {
	SchoolID   int64
	LecturerID int64 `gorm:"primaryKey;autoIncrement:false"`
	CourseID   int64 `gorm:"primaryKey;autoIncrement:false"`
}

func (lecturerCourseRow) TableName() string { return "lecturer_courses" }

type formRow struct {
	ID       int64
	SchoolID int64
	Slug     string
	Title    string
	Fields   string // JSON array of storage.FormField
}

func (formRow) TableName() string { return "forms" }

type formSubmissionRow struct {
	ID          int64
	SchoolID    int64
	Key         string
	FormID      int64
	MemberID    *int64
	Data        string // JSON object
	SubmittedAt time.Time
}

func (formSubmissionRow) TableName() string { return "form_submissions" }

type pageRow struct {
	SchoolID int64
	storage.ContentPage
}

func (pageRow) TableName() string { return "pages" }

// OAuth rows. Data columns hold the serialized request as text (it is JSON, owned by package
// authz); list columns hold JSON arrays, except a token pair's scopes, which are kept
// space-separated as OAuth itself writes them (RFC 6749 section 3.3). Optional text that must
// stay unique or absent (a public client's secret hash, a pair's refresh signature before it is
// stored) is NULL rather than "".

type oauthClientRow struct {
	ID                      string `gorm:"primaryKey"`
	SchoolID                int64
	Kind                    string
	Name                    string
	SecretHash              *string
	TokenEndpointAuthMethod string
	ApplicationType         string
	RedirectURIs            string    `gorm:"column:redirect_uris"` // JSON array
	Scopes                  string    // JSON array
	CreatedAt               time.Time `gorm:"autoCreateTime:false"`
	UpdatedAt               time.Time `gorm:"autoUpdateTime:false"`
}

func (oauthClientRow) TableName() string { return "oauth_clients" }

type authorizationCodeRow struct {
	Signature   string `gorm:"primaryKey"`
	RequestID   string
	SchoolID    int64
	ClientID    string
	MemberID    int64
	Active      bool
	Data        string
	RequestedAt time.Time
	ExpiresAt   time.Time
}

func (authorizationCodeRow) TableName() string { return "oauth_authorization_codes" }

// grantSessionRow is a PKCE or OpenID Connect record; the two tables have the same columns, and
// queries name the table (sessionScope). pkceSessionRow and oidcSessionRow exist for the schema
// check: being the same struct type, they cannot drift from grantSessionRow.
type grantSessionRow struct {
	Signature string `gorm:"primaryKey"`
	RequestID string
	SchoolID  int64
	Data      string
	ExpiresAt time.Time
}

type (
	pkceSessionRow grantSessionRow
	oidcSessionRow grantSessionRow
)

func (pkceSessionRow) TableName() string { return "oauth_pkce_sessions" }
func (oidcSessionRow) TableName() string { return "oauth_oidc_sessions" }

type tokenPairRow struct {
	ID               int64
	RequestID        string
	SchoolID         int64
	ClientID         string
	MemberID         *int64 // NULL: no resource owner
	AccessSignature  string
	RefreshSignature *string
	Resource         string
	Scopes           string // space-separated
	Data             string
	RequestedAt      time.Time
	AccessExpiresAt  time.Time
	RefreshExpiresAt *time.Time
	RevokedAt        *time.Time
	FirstUsedAt      *time.Time
	ReplacesPairID   *int64
	GrantSchoolID    int64  // storage.TokenPair.SchoolID; 0: none
	AMR              string `gorm:"column:amr"` // space-separated
}

func (tokenPairRow) TableName() string { return "oauth_token_pairs" }

type signingKeyRow struct {
	KID                 string `gorm:"column:kid;primaryKey"`
	SchoolID            int64
	Algorithm           string
	PublicJWK           string `gorm:"column:public_jwk"`
	PrivateKeyEncrypted []byte
	CreatedAt           time.Time `gorm:"autoCreateTime:false"`
	RetiredAt           *time.Time
}

func (signingKeyRow) TableName() string { return "signing_keys" }

type loginSessionRow struct {
	ID         string `gorm:"primaryKey"`
	SchoolID   int64
	MemberID   int64
	CreatedAt  time.Time `gorm:"autoCreateTime:false"`
	LastSeenAt time.Time
	ExpiresAt  time.Time
	UserAgent  string
	ClientAddr string
	AMR        string `gorm:"column:amr"`
	FactorAt   *time.Time
}

func (loginSessionRow) TableName() string { return "login_sessions" }

// Account rows (account.Store): one-time links.

type accountLinkRow struct {
	ID            string `gorm:"primaryKey"`
	SchoolID      int64
	MemberID      int64
	Purpose       string
	Email         string
	PasswordStamp string
	CreatedAt     time.Time `gorm:"autoCreateTime:false"`
	ExpiresAt     time.Time
	UsedAt        *time.Time
}

func (accountLinkRow) TableName() string { return "account_links" }

// stamper is implemented by rows whose timestamps the store keeps (rather than the data).
type stamper interface {
	stamp(now time.Time, created bool)
}

func (r *schoolRow) stamp(now time.Time, created bool) {
	if created {
		r.CreatedAt = now
	}
	r.UpdatedAt = now
}

func (r *memberRow) stamp(now time.Time, created bool) {
	if created {
		r.CreatedAt = now
	}
	r.UpdatedAt = now
}

func (r *courseRow) stamp(now time.Time, created bool) {
	if created {
		r.CreatedAt = now
	}
	r.UpdatedAt = now
}

func (r *memberRoleRow) stamp(now time.Time, created bool) {
	if created {
		r.CreatedAt = now
	}
}
