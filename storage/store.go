package storage

import "context"

// Proctor keeps two kinds of state, and storage names each as a store of its own:
//
//   - IdentityStore is the identity provider's: who the members are and what they may do at a
//     school, the OAuth clients, the grants and token pairs issued to them, the signing keys and
//     the login sessions. The account state beside it (one-time links, security events, second
//     factors, rosters, the mail outbox) is declared by the leaf packages that use it
//     (account/accountstore, audit, factor, roster, mail) and implemented by the same backend;
//     storage cannot name it without importing them.
//   - SchoolDataStore is the school's own data: its row and settings, the catalogue and
//     curricula, members' progress, payments and notifications, the operators' content, and
//     the import that fills them.
//
// Both are composites for a backend to implement and for its conformance suite to check. A
// consumer never takes one whole: it declares the few methods it calls, in its own package, or
// takes one of the small named interfaces below (Members, Clients, Catalog ...). One backend
// implements both over one database, so that a transaction begun through one (BeginTx) carries
// the other's calls, and an import writes members and school data in one transaction.

// IdentityStore is the identity provider's state (see above). Its methods fail with
// ErrNotFound, ErrAlreadyExists or ErrUnavailable (wrapped) where those apply.
type IdentityStore interface {
	Members
	Clients
	Grants
	SigningKeys
	LoginSessions
	Transactions
	Purger
}

// SchoolDataStore is the school's own data (see above).
//
// Schools belongs here: the school row carries what operators edit (settings and appearance),
// while the identity provider knows a school only as the id in the context. The row must exist
// before either store writes for the school; the composition root syncs every configured
// school at start-up (SyncSchool) before anything is served.
type SchoolDataStore interface {
	Schools
	Courses
	Progress
	MemberData
	OperatorData
	Catalog
	Reports
	Importer
}

// Store is a whole backend: both stores over one database, with its lifecycle. Only the
// composition root (server, cmd/proctor), which builds every consumer from one backend, and the
// conformance suite hold it. Methods marked "school-scoped" act on the school carried by ctx and
// fail with school.ErrNoSchool without one; the others say what they act on. Every method
// returns ErrNotFound, ErrAlreadyExists or ErrUnavailable (wrapped) where those apply, and
// never a driver error a caller would have to recognise.
type Store interface {
	IdentityStore
	SchoolDataStore

	// Ping checks that the database answers (the internal listener's /readyz).
	Ping(ctx context.Context) error
	// Close releases the database.
	Close() error
}

// Schools keeps one row per configured school.
type Schools interface {
	// SyncSchool inserts the school row for id or updates its subdomain and name, leaving the
	// operator-edited settings alone. It runs at start-up for every school file, so it is not
	// school-scoped: the school is named explicitly.
	SyncSchool(ctx context.Context, id int64, subdomain, name string) error
	// GetSchool returns the context's school. School-scoped.
	GetSchool(ctx context.Context) (School, error)
}

// Members manages deployment-wide identities and their roles at schools.
type Members interface {
	// CreateMember stores a new member; ErrAlreadyExists if the e-mail is taken. ID, CreatedAt
	// and UpdatedAt are set by the store; the e-mail is lower-cased. Deployment-wide.
	CreateMember(ctx context.Context, m Member) (Member, error)
	// GetMember returns a member by id. Deployment-wide.
	GetMember(ctx context.Context, id int64) (Member, error)
	// GetMemberByEmail returns a member by e-mail, compared case-insensitively. Deployment-wide.
	GetMemberByEmail(ctx context.Context, email string) (Member, error)
	// UpdateMember applies fn to the member inside a transaction that holds the row, so two
	// concurrent updates cannot lose each other's changes. fn's error aborts the update and is
	// returned as is. The ID cannot change. Deployment-wide.
	UpdateMember(ctx context.Context, id int64, fn func(Member) (Member, error)) (Member, error)

	// SetRoles replaces the member's roles at the context's school; an empty list removes the
	// member from the school. School-scoped.
	SetRoles(ctx context.Context, memberID int64, roles []Role) error
	// GetRoles returns the member's roles at the context's school, most powerful first; an empty
	// list if none. Inside a transaction (InTx) it also holds them until the transaction ends: a
	// change of them elsewhere waits, so a decision made on what it read stands. School-scoped.
	GetRoles(ctx context.Context, memberID int64) ([]Role, error)
	// ListSchoolMembers lists the members holding a role at the context's school, ordered by
	// id, one page at a time; next is the cursor of the following page or "" at the end.
	// School-scoped.
	ListSchoolMembers(ctx context.Context, page Page) (members []MemberRoles, next string, err error)
	// ListMemberSchools returns every school where the member holds a role, by school id. It
	// crosses schools by design but only ever reads one member's own roles. Deployment-wide.
	ListMemberSchools(ctx context.Context, memberID int64) ([]SchoolRoles, error)
}

// Courses reads the course catalogue and curricula.
type Courses interface {
	// ListCourses lists the context school's courses ordered by id, one page at a time.
	// School-scoped.
	ListCourses(ctx context.Context, publishedOnly bool, page Page) (courses []Course, next string, err error)
	// GetCourseBySlug returns one course of the context's school. School-scoped.
	GetCourseBySlug(ctx context.Context, slug string) (Course, error)
	// GetCurriculum returns a course's sections and lectures, each ordered by position, in a
	// fixed number of queries whatever their count. School-scoped.
	GetCurriculum(ctx context.Context, courseID int64) ([]Section, []Lecture, error)
	// ListEnrollments returns a member's enrollments at the context's school. School-scoped.
	ListEnrollments(ctx context.Context, memberID int64) ([]Enrollment, error)
}

// Progress records members' progress through lectures.
type Progress interface {
	// GetLectureProgress returns a member's progress rows for the given courses, ordered by
	// course and lecture id. School-scoped.
	GetLectureProgress(ctx context.Context, memberID int64, courseIDs []int64) ([]LectureProgress, error)
	// GetCourseProgress sums up a member's progress through each of the given courses, in course
	// id order: what a list of courses shows without reading every progress row. Unknown course
	// ids (or another school's) contribute nothing; a course without progress has zero counts and
	// no LastWatched. It costs a fixed number of statements whatever the courses hold.
	// School-scoped.
	GetCourseProgress(ctx context.Context, memberID int64, courseIDs []int64) ([]CourseProgress, error)
	// UpdateLectureProgress applies fn to a member's progress on a lecture inside a transaction
	// that holds the row (creating it as unread at position 0 if absent), so concurrent updates
	// are serialised by the database. ErrNotFound if the lecture is not the context school's.
	// School-scoped.
	UpdateLectureProgress(ctx context.Context, memberID, lectureID int64, fn func(LectureProgress) (LectureProgress, error)) (LectureProgress, error)
}

// Importer applies seed data.
type Importer interface {
	// ImportSchoolData applies data to the context's school in one transaction: all of it or,
	// on any error, none of it. A record that cannot be applied (a reference to an unknown
	// member, course or lecture, a broken unique key ...) fails the import with an
	// *ImportError naming it. School-scoped.
	ImportSchoolData(ctx context.Context, data *SchoolData, opts ImportOptions) (ImportStats, error)
}
