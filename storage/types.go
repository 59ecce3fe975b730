package storage

import "time"

// Role is what a member is at one school. Owners and admins are the school's operators.
type Role string

const (
	RoleOwner    Role = "owner"
	RoleAdmin    Role = "admin"
	RoleLecturer Role = "lecturer"
	RoleStudent  Role = "student"
)

// Roles lists every role, most powerful first.
var Roles = []Role{RoleOwner, RoleAdmin, RoleLecturer, RoleStudent}

// RoleNames is roles as plain strings, in the same order, for what speaks of roles outside
// storage: JSON bodies, event details (audit.RoleChange) and printed tables.
func RoleNames(roles []Role) []string {
	names := make([]string, len(roles))
	for i, r := range roles {
		names[i] = string(r)
	}
	return names
}

// Valid reports whether r is one of Roles.
func (r Role) Valid() bool {
	for _, v := range Roles {
		if r == v {
			return true
		}
	}
	return false
}

// IsOperator reports whether r may act for the school's operator (admin pages, operator scopes).
func (r Role) IsOperator() bool { return r == RoleOwner || r == RoleAdmin }

// School is one school's row. Its identity comes from the school file; settings and appearance
// are edited by the school's operators.
type School struct {
	ID         int64
	Subdomain  string
	Name       string
	Settings   SchoolSettings
	Appearance Appearance
	UpdatedAt  time.Time
}

// SchoolSettings are the operator-editable settings of a school.
type SchoolSettings struct {
	Description  string `yaml:"description" json:"description"`
	ContactEmail string `yaml:"contact_email" json:"contact_email"`
	Timezone     string `yaml:"timezone" json:"timezone"`
	Currency     string `yaml:"currency" json:"currency"`
	Locale       string `yaml:"locale" json:"locale"`
}

// Appearance is the operator-editable look of a school's pages.
//
// The logo is either an https URL (LogoURL, fetched and served from the school's origin) or a
// file the school's operators uploaded (LogoFileID, a StoredFile of the same school); the
// operator API keeps at most one of them set, and a page uses LogoFileID when both are.
// LogoFileID is not part of a seed file: a file's id only means something in the database
// that holds it.
type Appearance struct {
	PrimaryColor string `yaml:"primary_color" json:"primary_color"`
	LogoURL      string `yaml:"logo_url" json:"logo_url"`
	LogoFileID   int64  `yaml:"-" json:"logo_file_id,omitempty"`
	Theme        string `yaml:"theme" json:"theme"`
}

// Member is a person's deployment-wide identity. Email is unique across the deployment and
// stored lower-cased.
type Member struct {
	ID           int64
	Email        string
	Name         string
	AvatarURL    string
	PasswordHash string // argon2id in PHC string form; never leaves the server
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// MemberRoles is a member with their roles at the context's school.
type MemberRoles struct {
	Member Member
	Roles  []Role
}

// SchoolRoles is one school where a member holds roles (the Member API's viewer.schools).
type SchoolRoles struct {
	SchoolID  int64
	Subdomain string
	Name      string
	Roles     []Role
}

// Offer is what every kind a school sells has: a slug unique within its kind at the school, a
// title and description, and a price in the currency's minor unit. The catalogue types embed it,
// so that its fields read as their own.
type Offer struct {
	Slug        string
	Title       string
	Description string
	PriceAmount int64
	Currency    string
}

// Course is a course of the context's school.
type Course struct {
	ID int64
	Offer
	Published bool
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Section is one part of a course's curriculum; Position counts from 1.
type Section struct {
	ID       int64
	CourseID int64
	Position int
	Title    string
}

// Lecture is one lecture of a section; Position counts from 1 within its section.
type Lecture struct {
	ID              int64
	CourseID        int64
	SectionID       int64
	Position        int
	Title           string
	DurationSeconds int
	IsLocked        bool
	UnlockAt        *time.Time
}

// LectureState is a member's progress through one lecture.
type LectureState string

const (
	LectureUnread    LectureState = "unread"
	LectureRead      LectureState = "read"
	LectureCompleted LectureState = "completed"
)

// Valid reports whether s is one of the three lecture states.
func (s LectureState) Valid() bool {
	return s == LectureUnread || s == LectureRead || s == LectureCompleted
}

// LectureProgress is one member's progress on one lecture. A lecture without a row is unread at
// position 0. The course's last watched lecture is the row with the latest UpdatedAt.
type LectureProgress struct {
	MemberID        int64
	LectureID       int64
	CourseID        int64
	State           LectureState
	PositionSeconds int
	UpdatedAt       time.Time
}

// CourseProgress sums up one member's progress through one course.
type CourseProgress struct {
	CourseID          int64
	TotalLectures     int
	CompletedLectures int // progress rows in the completed state
	ReadLectures      int // opened but not completed
	// LastWatched is the member's progress row updated last in the course (docs/decisions.md),
	// on a tie the one of the higher lecture id, so that the answer does not depend on row
	// order; nil before any progress.
	LastWatched *LectureProgress
	// LastWatchedTitle is the title of LastWatched's lecture.
	LastWatchedTitle string
}

// LectureProgressByLecture indexes what GetLectureProgress returned by lecture id, pointing into
// rows. A lecture without an entry (nil) has never been opened: unread at position 0, as
// StateShown answers for nil.
func LectureProgressByLecture(rows []LectureProgress) map[int64]*LectureProgress {
	out := make(map[int64]*LectureProgress, len(rows))
	for i := range rows {
		out[rows[i].LectureID] = &rows[i]
	}
	return out
}

// CourseProgressByCourse indexes what GetCourseProgress returned by course id, as the Member
// API and the MCP tools look a course's figures up while listing a member's courses.
func CourseProgressByCourse(list []CourseProgress) map[int64]CourseProgress {
	out := make(map[int64]CourseProgress, len(list))
	for _, p := range list {
		out[p.CourseID] = p
	}
	return out
}

// Enrollment entitles a member to a course.
type Enrollment struct {
	ID             int64
	MemberID       int64
	CourseID       int64
	ExpireDate     *time.Time
	LifetimeAccess bool
	EnrolledAt     time.Time
}

// Page asks for one page of a list: at most First items after the opaque cursor After.
type Page struct {
	First int
	After string
}
