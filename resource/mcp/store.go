package mcp

import (
	"context"
	"time"

	"github.com/proctorhq/proctor/resource"
	"github.com/proctorhq/proctor/storage"
)

// Store is what /mcp reads and writes: the public catalogue, one member's data and progress,
// the operator tools' reports, and the member's roles (which tools a caller has).
type Store interface {
	storage.Catalog
	storage.Courses
	storage.Reports
	resource.RoleReader

	// One member's data.
	GetCurricula(ctx context.Context, courseIDs []int64) ([]storage.Section, []storage.Lecture, error)
	ListEnrolledCourses(ctx context.Context, memberID int64, page storage.Page) (courses []storage.EnrolledCourse, next string, err error)
	ListPayments(ctx context.Context, memberID int64, at time.Time, page storage.Page) (payments []storage.Payment, next string, err error)
	ListNotifications(ctx context.Context, memberID int64, unreadOnly bool, page storage.Page) (notifications []storage.Notification, next string, err error)
	CountUnreadNotifications(ctx context.Context, memberID int64) (int, error)
	MarkNotificationRead(ctx context.Context, memberID, notificationID int64, at time.Time) (storage.Notification, error)
	MarkAllNotificationsRead(ctx context.Context, memberID int64, at time.Time) (int, error)
	ListNotificationSubscriptions(ctx context.Context, memberID int64) ([]storage.NotificationSubscription, error)
	SetNotificationSubscription(ctx context.Context, memberID int64, s storage.NotificationSubscription) (storage.NotificationSubscription, error)
	GetCourseProgress(ctx context.Context, memberID int64, courseIDs []int64) ([]storage.CourseProgress, error)
	GetLectureProgress(ctx context.Context, memberID int64, courseIDs []int64) ([]storage.LectureProgress, error)
}
