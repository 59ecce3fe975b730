package operator

import (
	"context"

	"github.com/proctorhq/proctor/resource"
	"github.com/proctorhq/proctor/storage"
)

// Store is the school's data the API reads and writes: its catalogue, students, commerce and
// content (storage.OperatorData), and the courses, curricula and progress it reports on.
type Store interface {
	storage.OperatorData
	ListCourses(ctx context.Context, publishedOnly bool, page storage.Page) (courses []storage.Course, next string, err error)
	GetCurriculum(ctx context.Context, courseID int64) ([]storage.Section, []storage.Lecture, error)
	GetLectureProgress(ctx context.Context, memberID int64, courseIDs []int64) ([]storage.LectureProgress, error)
}

// FileRows reads the record of an uploaded file back: the logo an appearance names is one. An
// id of another school's file is storage.ErrNotFound, like a missing one. It is beside
// storage.Store, not in it: the composition root asserts the backend to it.
type FileRows interface {
	GetStoredFile(ctx context.Context, id int64) (storage.StoredFile, error)
}

// Directory is the school and who belongs to it: its row, its members and their roles, read
// fresh on every request (resource.RoleReader). Its transactions hold a member's roles as read
// with the change the roles rule allowed on them (storage.InTx over the one store that is both
// Directory and Store), so that a concurrent change cannot come between.
type Directory interface {
	resource.RoleReader
	storage.Transactions
	GetSchool(ctx context.Context) (storage.School, error)
	GetMember(ctx context.Context, id int64) (storage.Member, error)
	ListSchoolMembers(ctx context.Context, page storage.Page) (members []storage.MemberRoles, next string, err error)
}

// stores is what the handler holds: the two together, each no wider than what it serves, with
// their methods promoted so that an operation calls either as h.store.
type stores struct {
	Store
	Directory
}
