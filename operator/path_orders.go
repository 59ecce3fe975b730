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
	ID                int64                       `json:"id"`
	TradeNo           string                      `json:"trade_no"`
	MemberID          int64                       `json:"member_id"`
	Amount            int64                       `json:"amount"`
	Currency          string                      `json:"currency"`
	PaymentType       string                      `json:"payment_type,omitempty" doc:"Absent when the buyer never chose a method."`
	PaymentState      string                      `json:"payment_state" enum:"unpaid,paid,expired,failed,refunded"`
	CreatedAt         time.Time                   `json:"created_at"`
	PaidAt            *time.Time                  `json:"paid_at,omitempty"`
	ExpiredAt         *time.Time                  `json:"expired_at,omitempty"`
	RefundingState    string                      `json:"refunding_state" enum:"none,requested,refunding,partially_refunded,refunded,rejected"`
	RefundedAmount    int64                       `json:"refunded_amount"`
	RefundedAt        *time.Time                  `json:"refunded_at,omitempty"`
	RefundRequestedAt *time.Time                  `json:"refund_requested_at,omitempty"`
	BankCode          string                      `json:"bank_code,omitempty"`
	BankName          string                      `json:"bank_name,omitempty"`
	CodeNo            string                      `json:"code_no,omitempty"`
	LineItems         []storage.PaymentLineItem   `json:"line_items"`
	Adjustments       []storage.PaymentAdjustment `json:"adjustments"`
	Invoice           *storage.PaymentInvoice     `json:"invoice,omitempty"`
	Installment       *storage.PaymentInstallment `json:"installment,omitempty"`
}

// The line items, adjustments, invoice and installment are the store's own JSON documents
// (their json tags are the wire format already, docs/decisions.md), so they are passed through
// rather than copied into look-alike types.
func paymentOut(p storage.Payment) Payment {
	return Payment{
		ID: p.ID, TradeNo: p.TradeNo, MemberID: p.MemberID, Amount: p.Amount, Currency: p.Currency,
		PaymentType: p.PaymentType, PaymentState: p.PaymentState, CreatedAt: p.CreatedAt, PaidAt: p.PaidAt,
		ExpiredAt: p.ExpiredAt, RefundingState: p.RefundingState, RefundedAmount: p.RefundedAmount,
		RefundedAt: p.RefundedAt, RefundRequestedAt: p.RefundRequestedAt, BankCode: p.BankCode,
		BankName: p.BankName, CodeNo: p.CodeNo, LineItems: p.LineItems, Adjustments: p.Adjustments,
		Invoice: p.Invoice, Installment: p.Installment,
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
