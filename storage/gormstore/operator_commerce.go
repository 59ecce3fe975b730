package gormstore

import (
	"context"
	"fmt"
	"slices"

	"gorm.io/gorm"

	"github.com/proctorhq/proctor/storage"
)

func membershipPlanFromRow(r membershipPlanRow) storage.MembershipPlan {
	return storage.MembershipPlan{
		ID: r.ID, Slug: r.Slug, Title: r.Title, Description: r.Description, PriceAmount: r.PriceAmount,
		Currency: r.Currency, Interval: r.BillingInterval, Published: r.Published,
	}
}

// ListMembershipPlans pages through the school's membership plans by id.
func (s *Store) ListMembershipPlans(ctx context.Context, page storage.Page) ([]storage.MembershipPlan, string, error) {
	rows, next, err := pageByID(s, ctx, "list membership plans", page, nil, func(r membershipPlanRow) int64 { return r.ID })
	if err != nil {
		return nil, "", err
	}
	return convertRows(rows, membershipPlanFromRow), next, nil
}

// CreateMembershipPlan stores a new plan.
func (s *Store) CreateMembershipPlan(ctx context.Context, p storage.MembershipPlan) (storage.MembershipPlan, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return storage.MembershipPlan{}, err
	}
	op := fmt.Sprintf("create membership plan %q", p.Slug)
	if err := required("slug", p.Slug); err != nil {
		return storage.MembershipPlan{}, fmt.Errorf("gormstore: %s: %w", op, err)
	}
	if !slices.Contains(storage.PlanIntervals, p.Interval) {
		return storage.MembershipPlan{}, fmt.Errorf("gormstore: %s: unknown interval %q: %w", op, p.Interval, storage.ErrInvalidArgument)
	}
	row := membershipPlanRow{
		SchoolID: sc.schoolID, Slug: p.Slug, Title: p.Title, Description: p.Description,
		PriceAmount: p.PriceAmount, Currency: p.Currency, BillingInterval: p.Interval, Published: p.Published,
	}
	if err := s.conn(ctx).Create(&row).Error; err != nil {
		return storage.MembershipPlan{}, wrap(op, err)
	}
	return membershipPlanFromRow(row), nil
}

func subscriptionFromRow(r subscriptionRow) storage.Subscription {
	return storage.Subscription{
		ID: r.ID, MemberID: r.MemberID, PlanID: r.PlanID, State: r.State,
		StartedAt: utc(r.StartedAt), CurrentPeriodEnd: utc(r.CurrentPeriodEnd),
	}
}

// ListSubscriptions pages through the school's subscriptions by id.
func (s *Store) ListSubscriptions(ctx context.Context, state string, page storage.Page) ([]storage.Subscription, string, error) {
	var filter func(*gorm.DB) *gorm.DB
	if state != "" {
		filter = func(q *gorm.DB) *gorm.DB { return q.Where("state = ?", state) }
	}
	rows, next, err := pageByID(s, ctx, "list subscriptions", page, filter, func(r subscriptionRow) int64 { return r.ID })
	if err != nil {
		return nil, "", err
	}
	return convertRows(rows, subscriptionFromRow), next, nil
}

// UpdateSubscription applies fn to a subscription while its row is locked. fn must not call the
// store (see UpdateMember).
func (s *Store) UpdateSubscription(ctx context.Context, id int64, fn func(storage.Subscription) (storage.Subscription, error)) (storage.Subscription, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return storage.Subscription{}, err
	}
	op := fmt.Sprintf("update subscription %d", id)
	var out storage.Subscription
	err = s.inTx(ctx, op, func(tx *gorm.DB) error {
		var row subscriptionRow
		if err := forUpdate(sc.in(tx)).Where("id = ?", id).Take(&row).Error; err != nil {
			return wrap(op, err)
		}
		next, err := fn(subscriptionFromRow(row))
		if err != nil {
			return err
		}
		if !slices.Contains(storage.SubscriptionStates, next.State) {
			return fmt.Errorf("gormstore: %s: unknown state %q: %w", op, next.State, storage.ErrInvalidArgument)
		}
		row.State, row.CurrentPeriodEnd = next.State, dbTime(next.CurrentPeriodEnd)
		err = sc.in(tx.Model(&subscriptionRow{})).Where("id = ?", id).
			Updates(map[string]any{"state": row.State, "current_period_end": row.CurrentPeriodEnd}).Error
		if err != nil {
			return wrap(op, err)
		}
		out = subscriptionFromRow(row)
		return nil
	})
	return out, err
}

func couponFromRow(r couponRow) storage.Coupon {
	return storage.Coupon{
		ID: r.ID, Code: r.Code, Title: r.Title, PercentOff: r.PercentOff, AmountOff: r.AmountOff,
		Currency: r.Currency, ExpiresAt: utcPtr(r.ExpiresAt), MaxRedemptions: r.MaxRedemptions,
		RedeemedCount: r.RedeemedCount,
	}
}

// ListCoupons pages through the school's coupons by id.
func (s *Store) ListCoupons(ctx context.Context, page storage.Page) ([]storage.Coupon, string, error) {
	rows, next, err := pageByID(s, ctx, "list coupons", page, nil, func(r couponRow) int64 { return r.ID })
	if err != nil {
		return nil, "", err
	}
	return convertRows(rows, couponFromRow), next, nil
}

// CreateCoupon stores a new coupon.
func (s *Store) CreateCoupon(ctx context.Context, c storage.Coupon) (storage.Coupon, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return storage.Coupon{}, err
	}
	op := fmt.Sprintf("create coupon %q", c.Code)
	if err := required("code", c.Code); err != nil {
		return storage.Coupon{}, fmt.Errorf("gormstore: %s: %w", op, err)
	}
	switch {
	case (c.PercentOff > 0) == (c.AmountOff > 0), c.PercentOff < 0 || c.PercentOff > 100, c.AmountOff < 0:
		return storage.Coupon{}, fmt.Errorf("gormstore: %s: exactly one of a percentage (1 to 100) and a positive amount is set: %w", op, storage.ErrInvalidArgument)
	case c.AmountOff > 0 && c.Currency == "":
		return storage.Coupon{}, fmt.Errorf("gormstore: %s: an amount needs its currency: %w", op, storage.ErrInvalidArgument)
	}
	row := couponRow{
		SchoolID: sc.schoolID, Code: c.Code, Title: c.Title, PercentOff: c.PercentOff, AmountOff: c.AmountOff,
		Currency: c.Currency, ExpiresAt: dbTimePtr(c.ExpiresAt), MaxRedemptions: c.MaxRedemptions,
	}
	if err := s.conn(ctx).Create(&row).Error; err != nil {
		return storage.Coupon{}, wrap(op, err)
	}
	return couponFromRow(row), nil
}

func digitalProductFromRow(r digitalProductRow) storage.DigitalProduct {
	return storage.DigitalProduct{
		ID: r.ID, Slug: r.Slug, Title: r.Title, Description: r.Description,
		PriceAmount: r.PriceAmount, Currency: r.Currency, Published: r.Published,
	}
}

// ListDigitalProducts pages through the school's digital products by id.
func (s *Store) ListDigitalProducts(ctx context.Context, page storage.Page) ([]storage.DigitalProduct, string, error) {
	rows, next, err := pageByID(s, ctx, "list digital products", page, nil, func(r digitalProductRow) int64 { return r.ID })
	if err != nil {
		return nil, "", err
	}
	return convertRows(rows, digitalProductFromRow), next, nil
}

// CreateDigitalProduct stores a new digital product.
func (s *Store) CreateDigitalProduct(ctx context.Context, p storage.DigitalProduct) (storage.DigitalProduct, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return storage.DigitalProduct{}, err
	}
	op := fmt.Sprintf("create digital product %q", p.Slug)
	if err := required("slug", p.Slug); err != nil {
		return storage.DigitalProduct{}, fmt.Errorf("gormstore: %s: %w", op, err)
	}
	row := digitalProductRow{
		SchoolID: sc.schoolID, Slug: p.Slug, Title: p.Title, Description: p.Description,
		PriceAmount: p.PriceAmount, Currency: p.Currency, Published: p.Published,
	}
	if err := s.conn(ctx).Create(&row).Error; err != nil {
		return storage.DigitalProduct{}, wrap(op, err)
	}
	return digitalProductFromRow(row), nil
}
