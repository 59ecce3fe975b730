package operator

import (
	"context"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/proctorhq/proctor/storage"
)

// Payment is one payment attempt (spec, "Payment node"): a retried checkout is another payment
// with another trade number, and nothing joins the two.
type Payment struct {
	ID          int64     `json:"id"`
	TradeNo     string    `json:"trade_no"`
	MemberID    int64     `json:"member_id"`
	Amount      int64     `json:"amount"`
	Currency    string    `json:"currency"`
	PaymentType string    `json:"payment_type,omitempty" doc:"Absent when the buyer never chose a method."`
	CreatedAt   time.Time `json:"created_at"`
	storage.PaymentStatus
	LineItems   []storage.PaymentLineItem   `json:"line_items"`
	Adjustments []storage.PaymentAdjustment `json:"adjustments"`
	Invoice     *storage.PaymentInvoice     `json:"invoice,omitempty"`
	Installment *storage.PaymentInstallment `json:"installment,omitempty"`
}

// The status is the store's storage.PaymentStatus, and the line items, adjustments, invoice and
// installment are the store's own JSON documents (docs/decisions.md): their json tags are the wire
// format already, so they are passed through rather than copied into look-alike types.
func paymentOut(p storage.Payment) Payment {
	return Payment{
		ID: p.ID, TradeNo: p.TradeNo, MemberID: p.MemberID, Amount: p.Amount, Currency: p.Currency,
		PaymentType: p.PaymentType, CreatedAt: p.CreatedAt, PaymentStatus: p.PaymentStatus,
		LineItems: p.LineItems, Adjustments: p.Adjustments, Invoice: p.Invoice, Installment: p.Installment,
	}
}

func (h *Handler) registerOrders(api huma.API) {
	register(h, api, "list-payments", func(ctx context.Context, in *struct {
		PageParams
		State    string `query:"state" enum:"unpaid,paid,expired,failed,refunded" doc:"Only payments in this state."`
		MemberID int64  `query:"member_id" minimum:"1" doc:"Only this member's payments."`
	}) (*ListOutput[Payment], error) {
		ps, next, err := h.store.ListSchoolPayments(ctx, storage.PaymentFilter{MemberID: in.MemberID, State: in.State}, h.now(), in.page())
		return pageOf(ctx, h, "payment", ps, next, err, paymentOut)
	})

	register(h, api, "get-payment", func(ctx context.Context, in *struct {
		PaymentID int64 `path:"payment_id" minimum:"1"`
	}) (*struct{ Body Payment }, error) {
		p, err := h.store.GetSchoolPayment(ctx, in.PaymentID, h.now())
		return bodyOf(ctx, h, "payment", p, err, paymentOut)
	})
}
