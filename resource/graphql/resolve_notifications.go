package graphql

import (
	"context"
	"errors"
	"strconv"

	"github.com/proctorhq/proctor/resource"
	"github.com/proctorhq/proctor/storage"
)

// Notifications: unreadOnly has a default, so it is nil only when the client sent null, which
// reads as false.
func (v *viewer) Notifications(ctx context.Context, first *int32, after *string, unreadOnly *bool) (*notificationConnection, error) {
	return listPage("notifications", first, after, func(p storage.Page) ([]storage.Notification, string, error) {
		return v.req.store.ListNotifications(ctx, v.req.grant.MemberID, unreadOnly != nil && *unreadOnly, p)
	}, func(n storage.Notification) *notification { return &notification{n: n} })
}

func (v *viewer) UnreadNotificationCount(ctx context.Context) (int32, error) {
	n, err := v.req.store.CountUnreadNotifications(ctx, v.req.grant.MemberID)
	return int32(n), err
}

// NotificationSubscriptions answers the whole grid a settings page shows (resource.SubscriptionGrid).
func (v *viewer) NotificationSubscriptions(ctx context.Context) ([]*subscription, error) {
	stored, err := v.req.store.ListNotificationSubscriptions(ctx, v.req.grant.MemberID)
	if err != nil {
		return nil, err
	}
	return nodesOf(resource.SubscriptionGrid(stored), func(s storage.NotificationSubscription) *subscription {
		return &subscription{s: s}
	}), nil
}

type notification struct{ n storage.Notification }

func (n *notification) ID() string          { return id(n.n.ID) }
func (n *notification) Kind() string        { return n.n.Kind }
func (n *notification) Title() string       { return n.n.Title }
func (n *notification) Body() string        { return n.n.Body }
func (n *notification) URL() *string        { return optionalString(n.n.URL) }
func (n *notification) CreatedAt() dateTime { return newDateTime(n.n.CreatedAt) }
func (n *notification) ReadAt() *dateTime   { return optionalDateTime(n.n.ReadAt) }

type subscription struct {
	s storage.NotificationSubscription
}

func (s *subscription) Topic() string   { return s.s.Topic }
func (s *subscription) Channel() string { return s.s.Channel }
func (s *subscription) Enabled() bool   { return s.s.Enabled }

// ---- mutations: everything account:write grants (spec, Member API mutations) ----

func (mutation) MarkNotificationRead(ctx context.Context, notificationID string) (*notification, error) {
	req, err := requestWithScope(ctx, scopeWrite)
	if err != nil {
		return nil, err
	}
	notFound := newError(codeNotFound, "You have no notification with id %q.", notificationID)
	n, err := strconv.ParseInt(notificationID, 10, 64)
	if err != nil || n <= 0 {
		return nil, notFound
	}
	got, err := req.store.MarkNotificationRead(ctx, req.grant.MemberID, n, req.now)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, notFound
	}
	if err != nil {
		return nil, err
	}
	return &notification{n: got}, nil
}

func (mutation) MarkAllNotificationsRead(ctx context.Context) (*markAllPayload, error) {
	req, err := requestWithScope(ctx, scopeWrite)
	if err != nil {
		return nil, err
	}
	marked, err := req.store.MarkAllNotificationsRead(ctx, req.grant.MemberID, req.now)
	if err != nil {
		return nil, err
	}
	unread, err := req.store.CountUnreadNotifications(ctx, req.grant.MemberID)
	if err != nil {
		return nil, err
	}
	return &markAllPayload{marked: marked, unread: unread}, nil
}

type markAllPayload struct{ marked, unread int }

func (p *markAllPayload) MarkedCount() int32             { return int32(p.marked) }
func (p *markAllPayload) UnreadNotificationCount() int32 { return int32(p.unread) }

type subscriptionInput struct {
	Topic   string
	Channel string
	Enabled bool
}

func (mutation) UpdateNotificationSubscription(ctx context.Context, input subscriptionInput) (*subscription, error) {
	req, err := requestWithScope(ctx, scopeWrite)
	if err != nil {
		return nil, err
	}
	s, err := req.store.SetNotificationSubscription(ctx, req.grant.MemberID,
		storage.NotificationSubscription{Topic: input.Topic, Channel: input.Channel, Enabled: input.Enabled})
	if errors.Is(err, storage.ErrInvalidArgument) {
		// The enums allow only known values; this is a store that knows fewer.
		return nil, newError(codeBadUserInput, "Unknown topic or channel.")
	}
	if err != nil {
		return nil, err
	}
	return &subscription{s: s}, nil
}
