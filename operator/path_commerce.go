package operator

import (
	"context"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/proctorhq/proctor/storage"
)

// MembershipPlan is a recurring plan members subscribe to.
type MembershipPlan struct {
	ID int64 `json:"id"`
	Offer
	Interval  string `json:"interval" enum:"month,year" doc:"How often the price is charged."`
	Published bool   `json:"published"`
}

func planOut(p storage.MembershipPlan) MembershipPlan {
	return MembershipPlan{ID: p.ID, Offer: Offer(p.Offer), Interval: p.Interval, Published: p.Published}
}

// NewMembershipPlan creates a membership plan.
type NewMembershipPlan struct {
	NewOffer
	Interval  string `json:"interval" enum:"month,year" doc:"How often the price is charged."`
	Published bool   `json:"published,omitempty"`
}

func (b NewMembershipPlan) row() (storage.MembershipPlan, error) {
	return storage.MembershipPlan{Offer: b.offer(), Interval: b.Interval, Published: b.Published}, nil
}

// Subscription is a member's subscription to a plan.
type Subscription struct {
	ID               int64     `json:"id"`
	MemberID         int64     `json:"member_id"`
	PlanID           int64     `json:"plan_id"`
	State            string    `json:"state" enum:"active,past_due,canceled"`
	StartedAt        time.Time `json:"started_at"`
	CurrentPeriodEnd time.Time `json:"current_period_end"`
}

func subscriptionOut(s storage.Subscription) Subscription {
	return Subscription{ID: s.ID, MemberID: s.MemberID, PlanID: s.PlanID, State: s.State, StartedAt: s.StartedAt, CurrentPeriodEnd: s.CurrentPeriodEnd}
}

// SubscriptionPatch changes a subscription's state or period. Billing itself happens
// elsewhere; this records what an operator decided (a manual cancellation, a grace period).
type SubscriptionPatch struct {
	State            *string    `json:"state,omitempty" enum:"active,past_due,canceled"`
	CurrentPeriodEnd *time.Time `json:"current_period_end,omitempty"`
}

// Coupon is a discount code.
type Coupon struct {
	ID             int64      `json:"id"`
	Code           string     `json:"code"`
	Title          string     `json:"title"`
	PercentOff     int        `json:"percent_off,omitempty"`
	AmountOff      int64      `json:"amount_off,omitempty" doc:"In the currency's minor unit."`
	Currency       string     `json:"currency,omitempty"`
	ExpiresAt      *time.Time `json:"expires_at,omitempty"`
	MaxRedemptions int        `json:"max_redemptions" doc:"0: unlimited."`
	RedeemedCount  int        `json:"redeemed_count"`
}

func couponOut(c storage.Coupon) Coupon {
	return Coupon{
		ID: c.ID, Code: c.Code, Title: c.Title, PercentOff: c.PercentOff, AmountOff: c.AmountOff, Currency: c.Currency,
		ExpiresAt: c.ExpiresAt, MaxRedemptions: c.MaxRedemptions, RedeemedCount: c.RedeemedCount,
	}
}

// NewCoupon creates a coupon: a percentage, or an amount in a currency, never both.
type NewCoupon struct {
	Code           string     `json:"code" minLength:"3" maxLength:"40" pattern:"^[A-Za-z0-9_-]+$"`
	Title          string     `json:"title" minLength:"1" maxLength:"200"`
	PercentOff     int        `json:"percent_off,omitempty" minimum:"1" maximum:"100"`
	AmountOff      int64      `json:"amount_off,omitempty" minimum:"1" maximum:"100000000000"`
	Currency       Currency   `json:"currency,omitempty" doc:"Required with amount_off."`
	ExpiresAt      *time.Time `json:"expires_at,omitempty"`
	MaxRedemptions int        `json:"max_redemptions,omitempty" minimum:"0" maximum:"10000000"`
}

// row refuses what the schema cannot: both kinds of discount or neither, and a currency
// without an amount or an amount without one.
func (b NewCoupon) row() (storage.Coupon, error) {
	switch {
	case (b.PercentOff > 0) == (b.AmountOff > 0):
		return storage.Coupon{}, invalid("body.percent_off", "set exactly one of percent_off and amount_off", b.PercentOff)
	case b.AmountOff > 0 && b.Currency == "":
		return storage.Coupon{}, invalid("body.currency", "an amount needs its currency", b.Currency)
	case b.PercentOff > 0 && b.Currency != "":
		return storage.Coupon{}, invalid("body.currency", "a percentage has no currency", b.Currency)
	}
	return storage.Coupon{
		Code: b.Code, Title: b.Title, PercentOff: b.PercentOff, AmountOff: b.AmountOff, Currency: string(b.Currency),
		ExpiresAt: b.ExpiresAt, MaxRedemptions: b.MaxRedemptions,
	}, nil
}

// DigitalProduct is a downloadable product.
type DigitalProduct struct {
	ID int64 `json:"id"`
	Offer
	Published bool `json:"published"`
}

func productOut(p storage.DigitalProduct) DigitalProduct {
	return DigitalProduct{ID: p.ID, Offer: Offer(p.Offer), Published: p.Published}
}

// NewDigitalProduct creates a digital product.
type NewDigitalProduct struct {
	NewOffer
	Published bool `json:"published,omitempty"`
}

func (b NewDigitalProduct) row() (storage.DigitalProduct, error) {
	return storage.DigitalProduct{Offer: b.offer(), Published: b.Published}, nil
}

func (h *Handler) registerMembershipPlans(api huma.API) {
	registerList(h, api, "list-membership-plans", "membership plan", stores.ListMembershipPlans, planOut)
	registerCreate(h, api, "create-membership-plan", "membership plan", NewMembershipPlan.row, stores.CreateMembershipPlan, planOut)
}

func (h *Handler) registerSubscriptions(api huma.API) {
	register(h, api, "list-subscriptions", func(ctx context.Context, in *struct {
		PageParams
		State string `query:"state" enum:"active,past_due,canceled" doc:"Only subscriptions in this state."`
	}) (*ListOutput[Subscription], error) {
		ss, next, err := h.store.ListSubscriptions(ctx, in.State, in.page())
		return pageOf(ctx, h, "subscription", ss, next, err, subscriptionOut)
	})

	register(h, api, "update-subscription", func(ctx context.Context, in *struct {
		SubscriptionID int64 `path:"subscription_id" minimum:"1"`
		Body           SubscriptionPatch
	}) (*struct{ Body Subscription }, error) {
		p := in.Body
		s, err := h.store.UpdateSubscription(ctx, in.SubscriptionID, func(s storage.Subscription) (storage.Subscription, error) {
			set(&s.State, p.State)
			set(&s.CurrentPeriodEnd, p.CurrentPeriodEnd)
			if s.CurrentPeriodEnd.Before(s.StartedAt) {
				return s, invalid("body.current_period_end", "the period ends after the subscription started", s.CurrentPeriodEnd)
			}
			return s, nil
		})
		// The period check inside the update answers as it is.
		return bodyOf(ctx, h, "subscription", s, err, subscriptionOut)
	})
}

func (h *Handler) registerCoupons(api huma.API) {
	registerList(h, api, "list-coupons", "coupon", stores.ListCoupons, couponOut)
	registerCreate(h, api, "create-coupon", "coupon", NewCoupon.row, stores.CreateCoupon, couponOut)
}

func (h *Handler) registerDigitalProducts(api huma.API) {
	registerList(h, api, "list-digital-products", "digital product", stores.ListDigitalProducts, productOut)
	registerCreate(h, api, "create-digital-product", "digital product", NewDigitalProduct.row, stores.CreateDigitalProduct, productOut)
}
