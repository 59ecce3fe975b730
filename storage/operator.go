package storage

import (
	"context"
	"fmt"
	"time"
)

// OperatorData is what the operator REST API reads and writes: the school's catalogue,
// students, commerce and content, for the school's operators. Every method is school-scoped;
// an id of another school's row is ErrNotFound, like a missing one.
//
// Every write is one transaction, including its side effects (a post's notifications, a
// course's appended section), so a failed request leaves nothing half done. Lists are paged by
// storage.Page in a fixed order (ids ascending unless a method says otherwise); the cursor is
// opaque and a malformed one is ErrInvalidArgument.
type OperatorData interface {
	// GetCourse returns one course by id.
	GetCourse(ctx context.Context, id int64) (Course, error)
	// CreateCourse stores a new course; ErrAlreadyExists if its slug is taken. ID and times are
	// set by the store.
	CreateCourse(ctx context.Context, c Course) (Course, error)
	// UpdateCourse applies fn to the course while its row is locked. The ID and CreatedAt cannot
	// change; UpdatedAt is set by the store. fn's error is returned as is.
	UpdateCourse(ctx context.Context, id int64, fn func(Course) (Course, error)) (Course, error)
	// AppendSection adds a section after the course's last one (its Position is set by the
	// store). ErrNotFound for an unknown course.
	AppendSection(ctx context.Context, courseID int64, title string) (Section, error)
	// AppendLecture adds a lecture after the section's last one. l.CourseID and l.SectionID
	// name the section, which must belong to that course (ErrNotFound otherwise); Position and
	// ID are set by the store.
	AppendLecture(ctx context.Context, l Lecture) (Lecture, error)

	// ListCourseEnrollments pages through a course's enrollments with their members, oldest
	// enrollment first. ErrNotFound for an unknown course.
	ListCourseEnrollments(ctx context.Context, courseID int64, page Page) (enrollments []CourseEnrollment, next string, err error)
	// GetCourseEnrollment returns one member's enrollment in a course.
	GetCourseEnrollment(ctx context.Context, courseID, memberID int64) (CourseEnrollment, error)
	// Enroll entitles a member who holds a role at the school to a course. ErrNotFound for an
	// unknown course or a member without a role here; ErrAlreadyExists if already enrolled.
	// EnrolledAt is the store's clock when zero.
	Enroll(ctx context.Context, e Enrollment) (CourseEnrollment, error)
	// Unenroll removes a member's enrollment. The member's progress rows stay, so that
	// enrolling them again resumes where they were. ErrNotFound if there is no enrollment.
	Unenroll(ctx context.Context, courseID, memberID int64) error

	// SetSchoolRoles replaces the roles of a member who already holds one at the school (an
	// empty list removes them from it). ErrNotFound for a member without a role here,
	// ErrInvalidArgument for an unknown role, ErrLastOwner when the school would be left
	// without an owner.
	SetSchoolRoles(ctx context.Context, memberID int64, roles []Role) ([]Role, error)

	// ListCourseStats pages through the courses (by id) with their enrollment and completion
	// figures as seen at `at` (an enrollment is active at `at` when it has lifetime access, no
	// expiry, or an expiry after `at`).
	ListCourseStats(ctx context.Context, at time.Time, page Page) (stats []CourseStats, next string, err error)
	// RevenueByCurrency sums the payments paid in [from, to) (zero times leave that end open),
	// one row per currency in currency order. Refunded payments count as paid, with their
	// refunds subtracted in Net.
	RevenueByCurrency(ctx context.Context, from, to time.Time) ([]Revenue, error)

	// ListSchoolPayments pages through every payment of the school, newest first (created_at,
	// then id, both descending), seen at `at` as MemberData.ListPayments sees them (an unpaid
	// payment past its deadline is expired) but including abandoned attempts: operators see the
	// whole ledger.
	ListSchoolPayments(ctx context.Context, filter PaymentFilter, at time.Time, page Page) (payments []Payment, next string, err error)
	// GetSchoolPayment returns one payment, seen at `at`.
	GetSchoolPayment(ctx context.Context, id int64, at time.Time) (Payment, error)

	// UpdateSchool applies fn to the school's settings and appearance while its row is locked.
	// Only Settings and Appearance are written; UpdatedAt is set by the store.
	UpdateSchool(ctx context.Context, fn func(School) (School, error)) (School, error)

	// ListEvents pages through the school's events by id.
	ListEvents(ctx context.Context, page Page) (events []Event, next string, err error)
	// CreateEvent stores a new event; ErrAlreadyExists if its slug is taken.
	CreateEvent(ctx context.Context, e Event) (Event, error)
	// ListEventRegistrants pages through an event's registrations with their members, oldest
	// first. ErrNotFound for an unknown event.
	ListEventRegistrants(ctx context.Context, eventID int64, page Page) (registrants []EventRegistrant, next string, err error)

	// ListMembershipPlans pages through the school's membership plans by id.
	ListMembershipPlans(ctx context.Context, page Page) (plans []MembershipPlan, next string, err error)
	// CreateMembershipPlan stores a new plan; ErrAlreadyExists if its slug is taken.
	CreateMembershipPlan(ctx context.Context, p MembershipPlan) (MembershipPlan, error)

	// ListSubscriptions pages through the school's subscriptions by id; a non-empty state keeps
	// only those in it.
	ListSubscriptions(ctx context.Context, state string, page Page) (subscriptions []Subscription, next string, err error)
	// UpdateSubscription applies fn to a subscription while its row is locked. Only State and
	// CurrentPeriodEnd are written; ErrInvalidArgument for a state outside SubscriptionStates.
	UpdateSubscription(ctx context.Context, id int64, fn func(Subscription) (Subscription, error)) (Subscription, error)

	// ListCoupons pages through the school's coupons by id.
	ListCoupons(ctx context.Context, page Page) (coupons []Coupon, next string, err error)
	// CreateCoupon stores a new coupon; ErrAlreadyExists if its code is taken,
	// ErrInvalidArgument unless exactly one of PercentOff and AmountOff is set (AmountOff with
	// a currency). RedeemedCount starts at 0.
	CreateCoupon(ctx context.Context, c Coupon) (Coupon, error)

	// ListDigitalProducts pages through the school's digital products by id.
	ListDigitalProducts(ctx context.Context, page Page) (products []DigitalProduct, next string, err error)
	// CreateDigitalProduct stores a new product; ErrAlreadyExists if its slug is taken.
	CreateDigitalProduct(ctx context.Context, p DigitalProduct) (DigitalProduct, error)

	// ListPosts pages through the school's posts, newest first (published_at, then id).
	ListPosts(ctx context.Context, page Page) (posts []Post, next string, err error)
	// CreatePost stores a post; ErrAlreadyExists if its key is taken, ErrNotFound for an
	// unknown course. With notify, the same transaction puts a notification of kind "post"
	// into the inbox of every member enrolled in the post's course (every member holding a
	// role at the school for a school-wide post), except members who switched the in-app
	// "posts" topic off; it returns how many it created.
	CreatePost(ctx context.Context, p Post, notify bool) (Post, int, error)

	// ListComments pages through the school's comments, newest first (created_at, then id),
	// narrowed by the filter's non-zero fields.
	ListComments(ctx context.Context, filter CommentFilter, page Page) (comments []Comment, next string, err error)

	// ListLecturers pages through the school's lecturers by id, with the ids of their courses.
	ListLecturers(ctx context.Context, page Page) (lecturers []Lecturer, next string, err error)
	// CreateLecturer stores a lecturer and links their courses; ErrAlreadyExists if the slug
	// is taken, ErrNotFound for an unknown course or member.
	CreateLecturer(ctx context.Context, l Lecturer) (Lecturer, error)

	// CreateStoredFile records a file already written to the school's storage directory. ID
	// and CreatedAt are set by the store.
	CreateStoredFile(ctx context.Context, f StoredFile) (StoredFile, error)

	// ListForms pages through the school's forms by id.
	ListForms(ctx context.Context, page Page) (forms []Form, next string, err error)
	// ListFormSubmissions pages through a form's submissions, newest first (submitted_at, then
	// id). ErrNotFound for an unknown form.
	ListFormSubmissions(ctx context.Context, formID int64, page Page) (submissions []FormSubmission, next string, err error)

	// ListContentPages pages through the school's content pages by id.
	ListContentPages(ctx context.Context, page Page) (pages []ContentPage, next string, err error)
	// CreateContentPage stores a page; ErrAlreadyExists if its slug is taken.
	CreateContentPage(ctx context.Context, p ContentPage) (ContentPage, error)
	// UpdateContentPage applies fn to a page while its row is locked. The ID cannot change.
	UpdateContentPage(ctx context.Context, id int64, fn func(ContentPage) (ContentPage, error)) (ContentPage, error)
}

// ErrLastOwner refuses a role change that would leave the school without an owner: nobody
// could then manage its operators. It is an ErrInvalidArgument.
var ErrLastOwner = fmt.Errorf("storage: the school would be left without an owner: %w", ErrInvalidArgument)

// CourseEnrollment is an enrollment with its member.
type CourseEnrollment struct {
	Enrollment Enrollment
	Member     Member
}

// CourseStats are one course's enrollment and completion figures.
type CourseStats struct {
	Course            Course
	Enrollments       int // every enrollment, expired ones included
	ActiveEnrollments int // with access at the time asked about
	Lectures          int
	// CompletedStudents counts the enrolled members who completed every lecture of a course
	// that has at least one.
	CompletedStudents int
}

// Revenue is the paid total of one currency.
type Revenue struct {
	Currency string
	Payments int   // paid or refunded payments
	Gross    int64 // their amounts
	Refunded int64 // their refunded amounts
	Net      int64 // Gross - Refunded
}

// PaymentFilter narrows ListSchoolPayments; zero fields do not filter.
type PaymentFilter struct {
	MemberID int64
	// State is one of PaymentStates, judged as the payments are seen (an unpaid payment past
	// its deadline is "expired", not "unpaid").
	State string
}

// EventRegistrant is one registration for an event, with the member.
type EventRegistrant struct {
	ID           int64
	EventID      int64
	Member       Member
	Status       string
	RegisteredAt time.Time
}

// MembershipPlan is a recurring plan of the context's school.
type MembershipPlan struct {
	ID int64
	Offer
	Interval  string // one of PlanIntervals
	Published bool
}

// PlanIntervals are the billing intervals of a membership plan.
var PlanIntervals = []string{"month", "year"}

// Subscription is a member's subscription to a membership plan.
type Subscription struct {
	ID               int64
	MemberID         int64
	PlanID           int64
	State            string // one of SubscriptionStates
	StartedAt        time.Time
	CurrentPeriodEnd time.Time
}

// SubscriptionStates are the states a subscription may be in.
var SubscriptionStates = []string{"active", "past_due", "canceled"}

// Coupon is a discount code of the context's school. Exactly one of PercentOff and AmountOff
// is set.
type Coupon struct {
	ID             int64
	Code           string
	Title          string
	PercentOff     int
	AmountOff      int64
	Currency       string
	ExpiresAt      *time.Time
	MaxRedemptions int // 0: unlimited
	RedeemedCount  int
}

// Post is an announcement, school-wide (CourseID nil) or for one course.
type Post struct {
	ID             int64
	Key            string
	Title          string
	Body           string
	CourseID       *int64
	AuthorMemberID *int64
	PublishedAt    time.Time
}

// Comment is a member's comment on a post or on a lecture (exactly one of the two is set).
type Comment struct {
	ID        int64
	Key       string
	MemberID  int64
	PostID    *int64
	LectureID *int64
	Body      string
	CreatedAt time.Time
}

// CommentFilter narrows ListComments; zero fields do not filter.
type CommentFilter struct {
	PostID    int64
	LectureID int64
	MemberID  int64
}

// Lecturer is a teaching profile, optionally linked to a member.
type Lecturer struct {
	ID        int64
	Slug      string
	Name      string
	Bio       string
	AvatarURL string
	MemberID  *int64
	CourseIDs []int64 // ascending
}

// StoredFile is a file an operator uploaded to the school's storage. StoragePath is where the
// server keeps it (relative to the storage directory) and never leaves the server.
type StoredFile struct {
	ID          int64
	Name        string
	ContentType string
	SizeBytes   int64
	SHA256      string // hex
	StoragePath string
	UploadedBy  *int64
	CreatedAt   time.Time
}

// Form is a form of the context's school.
type Form struct {
	ID     int64
	Slug   string
	Title  string
	Fields []FormField
}

// FormSubmission is one submission of a form; MemberID is nil for an anonymous one.
type FormSubmission struct {
	ID          int64
	Key         string
	FormID      int64
	MemberID    *int64
	Data        map[string]string
	SubmittedAt time.Time
}

// ContentPage is a content page of the context's school (named so beside Page, the paging
// request).
type ContentPage struct {
	ID        int64
	Slug      string
	Title     string
	Body      string
	Published bool
}
