package graphql

import (
	"context"

	"github.com/proctorhq/proctor/storage"
)

// Payments is the billing history (spec, "Payment node" and its rules): the store applies rules
// 2, 3 and 5 (which rows, in which order, seen at the request's time); each row is one node
// (rule 1), and nothing here joins rows into purchases.
func (v *viewer) Payments(ctx context.Context, first *int32, after *string) (*paymentConnection, error) {
	return listPage("payments", first, after, func(p storage.Page) ([]storage.Payment, string, error) {
		return v.req.store.ListPayments(ctx, v.req.grant.MemberID, v.req.now, p)
	}, func(p storage.Payment) *payment { return &payment{p: p} })
}

type payment struct{ p storage.Payment }

func (p *payment) TradeNo() string                { return p.p.TradeNo }
func (p *payment) Amount() (int32, error)         { return money(p.p.Amount) }
func (p *payment) Currency() string               { return p.p.Currency }
func (p *payment) PaymentType() *string           { return optionalString(p.p.PaymentType) }
func (p *payment) CreatedAt() dateTime            { return newDateTime(p.p.CreatedAt) }
func (p *payment) PaidAt() *dateTime              { return optionalDateTime(p.p.PaidAt) }
func (p *payment) PaymentState() string           { return p.p.PaymentState }
func (p *payment) RefundingState() string         { return p.p.RefundingState }
func (p *payment) RefundedAmount() (int32, error) { return money(p.p.RefundedAmount) }
func (p *payment) RefundedAt() *dateTime          { return optionalDateTime(p.p.RefundedAt) }
func (p *payment) RefundRequestedAt() *dateTime   { return optionalDateTime(p.p.RefundRequestedAt) }
func (p *payment) BankCode() *string              { return optionalString(p.p.BankCode) }
func (p *payment) BankName() *string              { return optionalString(p.p.BankName) }
func (p *payment) CodeNo() *string                { return optionalString(p.p.CodeNo) }
func (p *payment) ExpiredAt() *dateTime           { return optionalDateTime(p.p.ExpiredAt) }

func (p *payment) Adjustments() []*adjustment {
	return nodesOf(p.p.Adjustments, func(a storage.PaymentAdjustment) *adjustment { return &adjustment{a: a} })
}

func (p *payment) Lineitems() []*lineItem {
	return nodesOf(p.p.LineItems, func(l storage.PaymentLineItem) *lineItem { return &lineItem{l: l} })
}

func (p *payment) Invoice() *invoice {
	if p.p.Invoice == nil {
		return nil
	}
	return &invoice{i: *p.p.Invoice}
}

func (p *payment) Installment() *installment {
	if p.p.Installment == nil {
		return nil
	}
	return &installment{i: *p.p.Installment}
}

type adjustment struct{ a storage.PaymentAdjustment }

func (a *adjustment) Kind() string           { return a.a.Kind }
func (a *adjustment) Code() *string          { return optionalString(a.a.Code) }
func (a *adjustment) Title() string          { return a.a.Title }
func (a *adjustment) Amount() (int32, error) { return money(a.a.Amount) }

type lineItem struct{ l storage.PaymentLineItem }

func (l *lineItem) Kind() string               { return l.l.Kind }
func (l *lineItem) Ref() string                { return l.l.Ref }
func (l *lineItem) Title() string              { return l.l.Title }
func (l *lineItem) Quantity() int32            { return int32(l.l.Quantity) }
func (l *lineItem) UnitAmount() (int32, error) { return money(l.l.UnitAmount) }

type invoice struct{ i storage.PaymentInvoice }

func (i *invoice) Number() string      { return i.i.Number }
func (i *invoice) Status() string      { return i.i.Status }
func (i *invoice) IssuedAt() *dateTime { return optionalDateTime(i.i.IssuedAt) }
func (i *invoice) BuyerName() *string  { return optionalString(i.i.BuyerName) }
func (i *invoice) TaxID() *string      { return optionalString(i.i.TaxID) }

type installment struct{ i storage.PaymentInstallment }

func (i *installment) Periods() int32               { return int32(i.i.Periods) }
func (i *installment) PeriodAmount() (int32, error) { return money(i.i.PeriodAmount) }
func (i *installment) Bank() *string                { return optionalString(i.i.Bank) }
