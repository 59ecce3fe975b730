package gormstore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/proctorhq/proctor/storage"
)

// ListPayments pages through a member's payments, newest first, in one statement that walks
// payments_member_idx.
func (s *Store) ListPayments(ctx context.Context, memberID int64, at time.Time, page storage.Page) ([]storage.Payment, string, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return nil, "", err
	}
	op := fmt.Sprintf("list payments of member %d", memberID)
	now := dbTime(at)
	// Spec, payments rule 2: an attempt abandoned before a method was chosen stays out while it
	// can still be paid, and is listed like any other row once its deadline has passed (or its
	// state says it expired). An open attempt without a deadline never expires by the clock.
	q := sc.in(s.conn(ctx)).Where("member_id = ?", memberID).
		Where("NOT ((payment_type IS NULL OR payment_type = '') AND payment_state = ? AND (expired_at IS NULL OR expired_at > ?))",
			storage.PaymentUnpaid, now)
	return readPaymentPage(q, page, op, now)
}

// payment converts a row as seen at `at`: an unpaid payment past its deadline is expired, even
// before anything has rewritten its state (spec, payments rule 3: clients render the payment
// instructions of unpaid and expired rows alike, and must not be told to pay a dead slip).
func (r paymentRow) payment(at time.Time) (storage.Payment, error) {
	p := storage.Payment{
		ID:            r.ID,
		TradeNo:       r.TradeNo,
		MemberID:      r.MemberID,
		Amount:        r.Amount,
		Currency:      r.Currency,
		CreatedAt:     utc(r.CreatedAt),
		PaymentStatus: paymentTimes(r.PaymentStatus, utcPtr),
		LineItems:     []storage.PaymentLineItem{},
		Adjustments:   []storage.PaymentAdjustment{},
	}
	if r.PaymentType != nil {
		p.PaymentType = *r.PaymentType
	}
	if p.PaymentState == storage.PaymentUnpaid && p.ExpiredAt != nil && !p.ExpiredAt.After(at) {
		p.PaymentState = storage.PaymentExpired
	}
	if err := json.Unmarshal([]byte(r.LineItems), &p.LineItems); err != nil {
		return storage.Payment{}, fmt.Errorf("line items: %w", err)
	}
	if err := json.Unmarshal([]byte(r.Adjustments), &p.Adjustments); err != nil {
		return storage.Payment{}, fmt.Errorf("adjustments: %w", err)
	}
	if r.Invoice != nil {
		p.Invoice = &storage.PaymentInvoice{}
		if err := json.Unmarshal([]byte(*r.Invoice), p.Invoice); err != nil {
			return storage.Payment{}, fmt.Errorf("invoice: %w", err)
		}
		p.Invoice.IssuedAt = utcPtr(p.Invoice.IssuedAt)
	}
	if r.Installment != nil {
		p.Installment = &storage.PaymentInstallment{}
		if err := json.Unmarshal([]byte(*r.Installment), p.Installment); err != nil {
			return storage.Payment{}, fmt.Errorf("installment: %w", err)
		}
	}
	return p, nil
}
