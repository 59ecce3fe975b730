package gormstore

import (
	"context"
	"fmt"
	"slices"
	"time"

	"gorm.io/gorm"

	"github.com/proctorhq/proctor/storage"
)

// ListSchoolPayments pages through the school's payments, newest first, in one statement.
func (s *Store) ListSchoolPayments(ctx context.Context, filter storage.PaymentFilter, at time.Time, page storage.Page) ([]storage.Payment, string, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return nil, "", err
	}
	const op = "list school payments"
	q := sc.in(s.conn(ctx))
	if filter.MemberID != 0 {
		q = q.Where("member_id = ?", filter.MemberID)
	}
	// The state filter judges payments as they are returned: an unpaid payment past its
	// deadline is listed as expired, so it must be found under "expired" and not "unpaid".
	now := dbTime(at)
	switch filter.State {
	case "":
	case storage.PaymentUnpaid:
		q = q.Where("payment_state = ? AND (expired_at IS NULL OR expired_at > ?)", storage.PaymentUnpaid, now)
	case storage.PaymentExpired:
		q = q.Where("(payment_state = ? OR (payment_state = ? AND expired_at <= ?))", storage.PaymentExpired, storage.PaymentUnpaid, now)
	default:
		if !slices.Contains(storage.PaymentStates, filter.State) {
			return nil, "", fmt.Errorf("gormstore: %s: unknown payment state %q: %w", op, filter.State, storage.ErrInvalidArgument)
		}
		q = q.Where("payment_state = ?", filter.State)
	}
	return readPaymentPage(q, page, op, at)
}

// GetSchoolPayment returns one payment of the school.
func (s *Store) GetSchoolPayment(ctx context.Context, id int64, at time.Time) (storage.Payment, error) {
	op := fmt.Sprintf("get payment %d", id)
	row, err := takeScoped[paymentRow](s, ctx, op, "id = ?", id)
	if err != nil {
		return storage.Payment{}, err
	}
	p, err := row.payment(at)
	if err != nil {
		return storage.Payment{}, fmt.Errorf("gormstore: %s: %w", op, err)
	}
	return p, nil
}

// readPaymentPage reads one page of the payments q finds, newest first (created_at, then id,
// both descending), each converted as seen at `at`.
func readPaymentPage(q *gorm.DB, page storage.Page, op string, at time.Time) ([]storage.Payment, string, error) {
	rows, next, err := readTimeIDPage(q, "created_at", "id", true, page, op, func(r paymentRow) (time.Time, int64) { return r.CreatedAt, r.ID })
	if err != nil {
		return nil, "", err
	}
	out := make([]storage.Payment, len(rows))
	for i, r := range rows {
		if out[i], err = r.payment(at); err != nil {
			return nil, "", fmt.Errorf("gormstore: %s: payment %d (%s): %w", op, r.ID, r.TradeNo, err)
		}
	}
	return out, next, nil
}
