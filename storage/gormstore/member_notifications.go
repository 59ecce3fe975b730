package gormstore

import (
	"context"
	"fmt"
	"slices"
	"time"

	"gorm.io/gorm/clause"

	"github.com/proctorhq/proctor/storage"
)

// notification is the row's notification, its times in UTC.
func (r notificationRow) notification() storage.Notification {
	n := r.Notification
	n.CreatedAt, n.ReadAt = utc(n.CreatedAt), utcPtr(n.ReadAt)
	return n
}

// ListNotifications pages through a member's notifications, newest first, in one statement.
func (s *Store) ListNotifications(ctx context.Context, memberID int64, unreadOnly bool, page storage.Page) ([]storage.Notification, string, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return nil, "", err
	}
	q := sc.in(s.conn(ctx)).Where("member_id = ?", memberID)
	if unreadOnly {
		q = q.Where("read_at IS NULL")
	}
	rows, next, err := readTimeIDPage(q, "created_at", "id", true, page, fmt.Sprintf("list notifications of member %d", memberID), func(r notificationRow) (time.Time, int64) { return r.CreatedAt, r.ID })
	if err != nil {
		return nil, "", err
	}
	return convertRows(rows, notificationRow.notification), next, nil
}

// CountUnreadNotifications counts a member's unread notifications.
func (s *Store) CountUnreadNotifications(ctx context.Context, memberID int64) (int, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return 0, err
	}
	var n int64
	err = sc.in(s.conn(ctx).Model(&notificationRow{})).Where("member_id = ? AND read_at IS NULL", memberID).Count(&n).Error
	if err != nil {
		return 0, wrap(fmt.Sprintf("count unread notifications of member %d", memberID), err)
	}
	return int(n), nil
}

// MarkNotificationRead stamps one notification read unless it already is, then reads it back.
// The conditional UPDATE makes the first stamp win whatever races it, so no transaction is
// needed.
func (s *Store) MarkNotificationRead(ctx context.Context, memberID, notificationID int64, at time.Time) (storage.Notification, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return storage.Notification{}, err
	}
	op := fmt.Sprintf("mark notification %d of member %d read", notificationID, memberID)
	db := s.conn(ctx)
	err = sc.in(db.Model(&notificationRow{})).
		Where("id = ? AND member_id = ? AND read_at IS NULL", notificationID, memberID).
		Update("read_at", dbTime(at)).Error
	if err != nil {
		return storage.Notification{}, wrap(op, err)
	}
	var row notificationRow
	if err := sc.in(db).Where("id = ? AND member_id = ?", notificationID, memberID).Take(&row).Error; err != nil {
		return storage.Notification{}, wrap(op, err)
	}
	return row.notification(), nil
}

// MarkAllNotificationsRead stamps every unread notification of a member read, in one statement.
func (s *Store) MarkAllNotificationsRead(ctx context.Context, memberID int64, at time.Time) (int, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return 0, err
	}
	res := sc.in(s.conn(ctx).Model(&notificationRow{})).
		Where("member_id = ? AND read_at IS NULL", memberID).
		Update("read_at", dbTime(at))
	if res.Error != nil {
		return 0, wrap(fmt.Sprintf("mark notifications of member %d read", memberID), res.Error)
	}
	return int(res.RowsAffected), nil
}

// ListNotificationSubscriptions returns a member's stored choices by topic and channel.
func (s *Store) ListNotificationSubscriptions(ctx context.Context, memberID int64) ([]storage.NotificationSubscription, error) {
	return listScoped(s, ctx, fmt.Sprintf("list notification subscriptions of member %d", memberID), "topic, channel",
		func(r notificationSubscriptionRow) storage.NotificationSubscription {
			return storage.NotificationSubscription{Topic: r.Topic, Channel: r.Channel, Enabled: r.Enabled}
		}, "member_id = ?", memberID)
}

// SetNotificationSubscription creates or replaces one choice in one statement (an upsert on the
// table's primary key).
func (s *Store) SetNotificationSubscription(ctx context.Context, memberID int64, sub storage.NotificationSubscription) (storage.NotificationSubscription, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return storage.NotificationSubscription{}, err
	}
	op := fmt.Sprintf("set notification subscription of member %d", memberID)
	if !slices.Contains(storage.NotificationTopics, sub.Topic) {
		return storage.NotificationSubscription{}, fmt.Errorf("gormstore: %s: unknown topic %q: %w", op, sub.Topic, storage.ErrInvalidArgument)
	}
	if !slices.Contains(storage.NotificationChannels, sub.Channel) {
		return storage.NotificationSubscription{}, fmt.Errorf("gormstore: %s: unknown channel %q: %w", op, sub.Channel, storage.ErrInvalidArgument)
	}
	row := notificationSubscriptionRow{SchoolID: sc.schoolID, MemberID: memberID, Topic: sub.Topic, Channel: sub.Channel, Enabled: sub.Enabled}
	err = s.conn(ctx).Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "school_id"}, {Name: "member_id"}, {Name: "topic"}, {Name: "channel"}},
		DoUpdates: clause.AssignmentColumns([]string{"enabled"}),
	}).Create(&row).Error
	if err != nil {
		// An unknown member fails on the foreign key, which wrap reports as ErrNotFound.
		return storage.NotificationSubscription{}, wrap(op, err)
	}
	return sub, nil
}
