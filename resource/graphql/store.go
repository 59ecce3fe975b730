package graphql

import (
	"context"

	"github.com/proctorhq/proctor/storage"
)

// Store is what the Member API reads and writes: one member's data at the school, their
// progress, their row and the schools they belong to.
type Store interface {
	storage.MemberData
	GetCourseProgress(ctx context.Context, memberID int64, courseIDs []int64) ([]storage.CourseProgress, error)
	GetLectureProgress(ctx context.Context, memberID int64, courseIDs []int64) ([]storage.LectureProgress, error)
	GetMember(ctx context.Context, id int64) (storage.Member, error)
	ListMemberSchools(ctx context.Context, memberID int64) ([]storage.SchoolRoles, error)
}
