package gormstore

import (
	"context"
	"fmt"
	"slices"

	"gorm.io/gorm"

	"github.com/proctorhq/proctor/storage"
)

func membershipPlanFromRow(r membershipPlanRow) storage.MembershipPlan {
	return storage.MembershipPlan{ID: r.ID, Offer: r.Offer, Interval: r.BillingInterval, Published: r.Published}
}

// ListMembershipPlans pages through the school's membership plans by id.
func (s *Store) ListMembershipPlans(ctx context.Context, page storage.Page) ([]storage.MembershipPlan, string, error) {
	return listByID(s, ctx, "list membership plans", page, nil, func(r membershipPlanRow) int64 { return r.ID }, membershipPlanFromRow)
}

// CreateMembershipPlan stores a new plan.
func (s *Store) CreateMembershipPlan(ctx context.Context, p storage.MembershipPlan) (storage.MembershipPlan, error) {
	op := fmt.Sprintf("create membership plan %q", p.Slug)
	return createRow(s, ctx, op, "slug", p.Slug, func() error {
		if !slices.Contains(storage.PlanIntervals, p.Interval) {
			return fmt.Errorf("unknown interval %q: %w", p.Interval, storage.ErrInvalidArgument)
		}
		return nil
	}, func(schoolID int64) membershipPlanRow {
		return membershipPlanRow{SchoolID: schoolID, Offer: p.Offer, BillingInterval: p.Interval, Published: p.Published}
	}, membershipPlanFromRow)
}

func subscriptionFromRow(r subscriptionRow) storage.Subscription {
	sub := r.Subscription
	sub.StartedAt, sub.CurrentPeriodEnd = utc(sub.StartedAt), utc(sub.CurrentPeriodEnd)
	return sub
}

// ListSubscriptions pages through the school's subscriptions by id.
func (s *Store) ListSubscriptions(ctx context.Context, state string, page storage.Page) ([]storage.Subscription, string, error) {
	var filter func(*gorm.DB) *gorm.DB
	if state != "" {
		filter = func(q *gorm.DB) *gorm.DB { return q.Where("state = ?", state) }
	}
	return listByID(s, ctx, "list subscriptions", page, filter, func(r subscriptionRow) int64 { return r.ID }, subscriptionFromRow)
}

// UpdateSubscription applies fn to a subscription while its row is locked. fn must not call the
// store (see UpdateMember).
func (s *Store) UpdateSubscription(ctx context.Context, id int64, fn func(storage.Subscription) (storage.Subscription, error)) (storage.Subscription, error) {
	op := fmt.Sprintf("update subscription %d", id)
	return updateByID(s, ctx, op, id, infallible(subscriptionFromRow), fn, func(tx *gorm.DB, sc scope, row subscriptionRow, next storage.Subscription) (storage.Subscription, error) {
		if !slices.Contains(storage.SubscriptionStates, next.State) {
			return storage.Subscription{}, fmt.Errorf("gormstore: %s: unknown state %q: %w", op, next.State, storage.ErrInvalidArgument)
		}
		row.State, row.CurrentPeriodEnd = next.State, dbTime(next.CurrentPeriodEnd)
		err := sc.in(tx.Model(&subscriptionRow{})).Where("id = ?", id).
			Updates(map[string]any{"state": row.State, "current_period_end": row.CurrentPeriodEnd}).Error
		if err != nil {
			return storage.Subscription{}, wrap(op, err)
		}
		return subscriptionFromRow(row), nil
	})
}

func couponFromRow(r couponRow) storage.Coupon {
	c := r.Coupon
	c.ExpiresAt = utcPtr(c.ExpiresAt)
	return c
}

// ListCoupons pages through the school's coupons by id.
func (s *Store) ListCoupons(ctx context.Context, page storage.Page) ([]storage.Coupon, string, error) {
	return listByID(s, ctx, "list coupons", page, nil, func(r couponRow) int64 { return r.ID }, couponFromRow)
}

// CreateCoupon stores a new coupon.
func (s *Store) CreateCoupon(ctx context.Context, c storage.Coupon) (storage.Coupon, error) {
	op := fmt.Sprintf("create coupon %q", c.Code)
	return createRow(s, ctx, op, "code", c.Code, func() error {
		switch {
		case (c.PercentOff > 0) == (c.AmountOff > 0), c.PercentOff < 0 || c.PercentOff > 100, c.AmountOff < 0:
			return fmt.Errorf("exactly one of a percentage (1 to 100) and a positive amount is set: %w", storage.ErrInvalidArgument)
		case c.AmountOff > 0 && c.Currency == "":
			return fmt.Errorf("an amount needs its currency: %w", storage.ErrInvalidArgument)
		}
		return nil
	}, func(schoolID int64) couponRow {
		// A new coupon has been redeemed by nobody, whatever c says.
		row := couponRow{SchoolID: schoolID, Coupon: c}
		row.ID, row.RedeemedCount, row.ExpiresAt = 0, 0, dbTimePtr(c.ExpiresAt)
		return row
	}, couponFromRow)
}

func digitalProductFromRow(r digitalProductRow) storage.DigitalProduct {
	return storage.DigitalProduct{ID: r.ID, Offer: r.Offer, Published: r.Published}
}

// ListDigitalProducts pages through the school's digital products by id.
func (s *Store) ListDigitalProducts(ctx context.Context, page storage.Page) ([]storage.DigitalProduct, string, error) {
	return listByID(s, ctx, "list digital products", page, nil, func(r digitalProductRow) int64 { return r.ID }, digitalProductFromRow)
}

// CreateDigitalProduct stores a new digital product.
func (s *Store) CreateDigitalProduct(ctx context.Context, p storage.DigitalProduct) (storage.DigitalProduct, error) {
	op := fmt.Sprintf("create digital product %q", p.Slug)
	return createRow(s, ctx, op, "slug", p.Slug, nil, func(schoolID int64) digitalProductRow {
		return digitalProductRow{SchoolID: schoolID, Offer: p.Offer, Published: p.Published}
	}, digitalProductFromRow)
}
