package conformance

import (
	"testing"

	"github.com/proctorhq/proctor/storage"
)

// paymentRulesData holds one member's payments covering the spec's payments rules, plus rows of
// another member and another school that must never show. The clock for reading it is at(10, 0).
func paymentRulesData() *storage.SchoolData {
	item := []storage.PaymentLineItem{{Kind: storage.ItemCourse, Ref: "go-basics", Title: "Go basics", Quantity: 1, UnitAmount: 1000}}
	pay := func(tradeNo, member, typ, state string, created int) storage.PaymentSeed {
		return storage.PaymentSeed{TradeNo: tradeNo, Member: member, Amount: 1000, Currency: "USD", PaymentType: typ,
			CreatedAt: at(created, 0), PaymentStatus: storage.PaymentStatus{PaymentState: state}, LineItems: item}
	}
	paid := pay("P-PAID", "ada@example.test", "credit_card", storage.PaymentPaid, 1)
	paid.PaidAt = ptr(at(1, 1))
	atmOpen := pay("P-ATM-OPEN", "ada@example.test", "atm", storage.PaymentUnpaid, 2)
	atmOpen.ExpiredAt, atmOpen.BankCode, atmOpen.BankName, atmOpen.CodeNo = ptr(at(20, 0)), "812", "Taishin", "1111"
	atmLapsed := pay("P-ATM-LAPSED", "ada@example.test", "atm", storage.PaymentUnpaid, 3)
	atmLapsed.ExpiredAt, atmLapsed.BankCode, atmLapsed.BankName, atmLapsed.CodeNo = ptr(at(5, 0)), "812", "Taishin", "2222"
	cvsExpired := pay("P-CVS-EXPIRED", "ada@example.test", "cvs", storage.PaymentExpired, 4)
	cvsExpired.ExpiredAt, cvsExpired.CodeNo = ptr(at(6, 0)), "CVS-3333"
	// Abandoned before a method was chosen: hidden while it can still be paid ...
	abandonedOpen := pay("P-ABANDONED-OPEN", "ada@example.test", "", storage.PaymentUnpaid, 5)
	abandonedOpen.ExpiredAt = ptr(at(15, 0))
	abandonedNoDeadline := pay("P-ABANDONED-NO-DEADLINE", "ada@example.test", "", storage.PaymentUnpaid, 6)
	// ... and listed once it has expired, by its state or by the clock.
	abandonedExpired := pay("P-ABANDONED-EXPIRED", "ada@example.test", "", storage.PaymentExpired, 7)
	abandonedExpired.ExpiredAt = ptr(at(8, 0))
	abandonedLapsed := pay("P-ABANDONED-LAPSED", "ada@example.test", "", storage.PaymentUnpaid, 8)
	abandonedLapsed.ExpiredAt = ptr(at(9, 0))
	// A retry of the lapsed ATM slip: another payment, created the same instant as the failed
	// attempt below, so the id breaks the tie.
	retry := pay("P-RETRY", "ada@example.test", "credit_card", storage.PaymentPaid, 9)
	retry.PaidAt = ptr(at(9, 1))
	failed := pay("P-FAILED", "ada@example.test", "credit_card", storage.PaymentFailed, 9)
	refunded := pay("P-REFUNDED", "ada@example.test", "credit_card", storage.PaymentRefunded, 1)
	refunded.CreatedAt = at(1, 5)
	refunded.RefundingState, refunded.RefundedAmount = storage.RefundRefunded, 1000
	refunded.RefundRequestedAt, refunded.RefundedAt = ptr(at(2, 0)), ptr(at(3, 0))
	refunded.Adjustments = []storage.PaymentAdjustment{{Kind: "coupon", Code: "SPRING", Title: "Spring", Amount: -100}}
	refunded.Invoice = &storage.PaymentInvoice{Number: "INV-9", Status: "void", IssuedAt: ptr(at(1, 6)), BuyerName: "Ada"}
	refunded.Installment = &storage.PaymentInstallment{Periods: 3, PeriodAmount: 334, Bank: "Bank"}
	grace := pay("P-GRACE", "grace@example.test", "credit_card", storage.PaymentPaid, 9)

	d := FullSchoolData()
	d.Payments = []storage.PaymentSeed{paid, atmOpen, atmLapsed, cvsExpired, abandonedOpen, abandonedNoDeadline,
		abandonedExpired, abandonedLapsed, retry, failed, refunded, grace}
	return d
}

func testMemberPayments(t *testing.T, s storage.Store) {
	ctxA, ctxB := syncSchools(t, s)
	mustImport(t, s, ctxA, paymentRulesData())
	// Ada also paid at school B: never listed at A.
	mustImport(t, s, ctxB, &storage.SchoolData{
		Members: []storage.MemberSeed{{Email: "ada@example.test", Name: "Ada", Roles: []storage.Role{storage.RoleStudent}}},
		Payments: []storage.PaymentSeed{{TradeNo: "B-1", Member: "ada@example.test", Amount: 5, Currency: "USD", PaymentType: "atm",
			CreatedAt: at(9, 5), PaymentStatus: storage.PaymentStatus{PaymentState: storage.PaymentPaid}}},
	})
	ada := memberID(t, s, ctxA, "ada@example.test")
	clock := at(10, 0)

	for _, first := range []int{1, 3, 50} {
		got := walk(t, "ListPayments", first, func(p storage.Payment) int64 { return p.ID },
			func(p storage.Page) ([]storage.Payment, string, error) { return s.ListPayments(ctxA, ada, clock, p) })
		var trades, states []string
		for _, p := range got {
			trades = append(trades, p.TradeNo)
			states = append(states, p.PaymentState)
			if p.MemberID != ada {
				t.Errorf("payment %s of member %d listed for Ada", p.TradeNo, p.MemberID)
			}
		}
		// Rule 5: newest first (the failed attempt was stored after the retry, so it comes
		// first at the same instant). Rule 2: the two open abandoned attempts are missing.
		// Rule 1: the retry and the lapsed slip are separate rows.
		wantEqual(t, "trade numbers", trades, []string{"P-FAILED", "P-RETRY", "P-ABANDONED-LAPSED", "P-ABANDONED-EXPIRED",
			"P-CVS-EXPIRED", "P-ATM-LAPSED", "P-ATM-OPEN", "P-REFUNDED", "P-PAID"})
		// Rule 3: unpaid and expired rows are there; an unpaid row past its deadline reads as
		// expired.
		wantEqual(t, "states", states, []string{storage.PaymentFailed, storage.PaymentPaid, storage.PaymentExpired, storage.PaymentExpired,
			storage.PaymentExpired, storage.PaymentExpired, storage.PaymentUnpaid, storage.PaymentRefunded, storage.PaymentPaid})
	}

	page, _, err := s.ListPayments(ctxA, ada, clock, storage.Page{First: 50})
	must(t, "ListPayments", err)
	byTrade := map[string]storage.Payment{}
	for _, p := range page {
		byTrade[p.TradeNo] = p
	}
	open := byTrade["P-ATM-OPEN"]
	wantEqual(t, "open ATM payment", open, storage.Payment{
		ID: open.ID, TradeNo: "P-ATM-OPEN", MemberID: ada, Amount: 1000, Currency: "USD", PaymentType: "atm",
		CreatedAt: at(2, 0), PaymentStatus: storage.PaymentStatus{PaymentState: storage.PaymentUnpaid, ExpiredAt: ptr(at(20, 0)),
			RefundingState: storage.RefundNone, BankCode: "812", BankName: "Taishin", CodeNo: "1111"},
		LineItems:   []storage.PaymentLineItem{{Kind: storage.ItemCourse, Ref: "go-basics", Title: "Go basics", Quantity: 1, UnitAmount: 1000}},
		Adjustments: []storage.PaymentAdjustment{},
	})
	if p := byTrade["P-ABANDONED-LAPSED"]; p.PaymentType != "" {
		t.Errorf("abandoned attempt has a payment type %q", p.PaymentType)
	}
	refunded := byTrade["P-REFUNDED"]
	wantEqual(t, "refunded payment", refunded, storage.Payment{
		ID: refunded.ID, TradeNo: "P-REFUNDED", MemberID: ada, Amount: 1000, Currency: "USD", PaymentType: "credit_card",
		CreatedAt: at(1, 5), PaymentStatus: storage.PaymentStatus{PaymentState: storage.PaymentRefunded, RefundingState: storage.RefundRefunded,
			RefundedAmount: 1000, RefundRequestedAt: ptr(at(2, 0)), RefundedAt: ptr(at(3, 0))},
		LineItems:   []storage.PaymentLineItem{{Kind: storage.ItemCourse, Ref: "go-basics", Title: "Go basics", Quantity: 1, UnitAmount: 1000}},
		Adjustments: []storage.PaymentAdjustment{{Kind: "coupon", Code: "SPRING", Title: "Spring", Amount: -100}},
		Invoice:     &storage.PaymentInvoice{Number: "INV-9", Status: "void", IssuedAt: ptr(at(1, 6)), BuyerName: "Ada"},
		Installment: &storage.PaymentInstallment{Periods: 3, PeriodAmount: 334, Bank: "Bank"},
	})

	// Later, the open abandoned attempt has expired by the clock and joins the list; the one
	// without a deadline never does.
	later, _, err := s.ListPayments(ctxA, ada, at(16, 0), storage.Page{First: 50})
	must(t, "ListPayments later", err)
	found := map[string]string{}
	for _, p := range later {
		found[p.TradeNo] = p.PaymentState
	}
	if found["P-ABANDONED-OPEN"] != storage.PaymentExpired {
		t.Errorf("abandoned attempt past its deadline: state %q, want it listed as expired", found["P-ABANDONED-OPEN"])
	}
	if _, ok := found["P-ABANDONED-NO-DEADLINE"]; ok {
		t.Errorf("abandoned attempt without a deadline listed")
	}

	b, _, err := s.ListPayments(ctxB, ada, clock, storage.Page{})
	must(t, "ListPayments at B", err)
	if len(b) != 1 || b[0].TradeNo != "B-1" {
		t.Errorf("Ada's payments at B: %+v", b)
	}
	_, _, err = s.ListPayments(ctxA, ada, clock, storage.Page{After: "!"})
	wantErr(t, "ListPayments with a bad cursor", err, storage.ErrInvalidArgument)
}

func testMemberNotifications(t *testing.T, s storage.Store) {
	ctxA, ctxB := syncSchools(t, s)
	data := FullSchoolData()
	data.Notifications = append(data.Notifications,
		storage.NotificationSeed{Key: "n2", Member: "ada@example.test", Kind: "post", Title: "Post", CreatedAt: at(2, 8)},
		storage.NotificationSeed{Key: "n3", Member: "ada@example.test", Kind: "post", Title: "Another", URL: "/p", CreatedAt: at(3, 8)},
		storage.NotificationSeed{Key: "n-linus", Member: "linus@example.test", Kind: "post", Title: "Linus's", CreatedAt: at(3, 9)},
	)
	mustImport(t, s, ctxA, data)
	ada := memberID(t, s, ctxA, "ada@example.test")
	linus := memberID(t, s, ctxA, "linus@example.test")

	all := walk(t, "ListNotifications", 2, func(n storage.Notification) int64 { return n.ID },
		func(p storage.Page) ([]storage.Notification, string, error) {
			return s.ListNotifications(ctxA, ada, false, p)
		})
	if len(all) != 3 || all[0].Key != "n3" || all[1].Key != "n2" || all[2].Key != "welcome-ada" {
		t.Fatalf("Ada's notifications: %+v; want n3, n2, welcome-ada", all)
	}
	wantEqual(t, "notification n3", all[0], storage.Notification{ID: all[0].ID, Key: "n3", MemberID: ada, Kind: "post", Title: "Another", URL: "/p", CreatedAt: at(3, 8)})
	unread, _, err := s.ListNotifications(ctxA, ada, true, storage.Page{})
	must(t, "ListNotifications unread", err)
	if len(unread) != 2 {
		t.Errorf("unread: %+v", unread)
	}
	count := func(ctxName string, want int) {
		t.Helper()
		n, err := s.CountUnreadNotifications(ctxA, ada)
		must(t, "CountUnreadNotifications", err)
		if n != want {
			t.Errorf("%s: %d unread, want %d", ctxName, n, want)
		}
	}
	count("before", 2)

	// Marking read stamps once; a second mark keeps the first stamp.
	n, err := s.MarkNotificationRead(ctxA, ada, all[1].ID, at(11, 0))
	must(t, "MarkNotificationRead", err)
	if n.ReadAt == nil || !n.ReadAt.Equal(at(11, 0)) || n.Key != "n2" {
		t.Errorf("marked: %+v", n)
	}
	n, err = s.MarkNotificationRead(ctxA, ada, all[1].ID, at(12, 0))
	must(t, "MarkNotificationRead again", err)
	if n.ReadAt == nil || !n.ReadAt.Equal(at(11, 0)) {
		t.Errorf("marked twice: ReadAt %v, want the first stamp", n.ReadAt)
	}
	count("after one", 1)

	// Another member's notification, another school's, an unknown one: not found, untouched.
	linusList := func(unreadOnly bool) []storage.Notification {
		t.Helper()
		l, _, err := s.ListNotifications(ctxA, linus, unreadOnly, storage.Page{})
		must(t, "ListNotifications Linus", err)
		return l
	}
	linusN := linusList(false)[0].ID
	_, err = s.MarkNotificationRead(ctxA, ada, linusN, at(11, 0))
	wantErr(t, "MarkNotificationRead of Linus's notification", err, storage.ErrNotFound)
	_, err = s.MarkNotificationRead(ctxB, linus, linusN, at(11, 0))
	wantErr(t, "MarkNotificationRead at another school", err, storage.ErrNotFound)
	_, err = s.MarkNotificationRead(ctxA, ada, 1<<40, at(11, 0))
	wantErr(t, "MarkNotificationRead of an unknown notification", err, storage.ErrNotFound)
	if l := linusList(true); len(l) != 1 {
		t.Errorf("Linus's notification was marked read by others: %+v", l)
	}

	marked, err := s.MarkAllNotificationsRead(ctxA, ada, at(13, 0))
	must(t, "MarkAllNotificationsRead", err)
	if marked != 1 {
		t.Errorf("MarkAllNotificationsRead marked %d, want 1", marked)
	}
	count("after all", 0)
	marked, err = s.MarkAllNotificationsRead(ctxB, linus, at(13, 0))
	must(t, "MarkAllNotificationsRead at B", err)
	if marked != 0 {
		t.Errorf("MarkAllNotificationsRead at B marked %d of school A's", marked)
	}
	if l := linusList(true); len(l) != 1 {
		t.Errorf("Linus's notification was marked read: %+v", l)
	}
}

func testMemberNotificationSubscriptions(t *testing.T, s storage.Store) {
	ctxA, ctxB := syncSchools(t, s)
	mustImport(t, s, ctxA, FullSchoolData())
	ada := memberID(t, s, ctxA, "ada@example.test")

	subs, err := s.ListNotificationSubscriptions(ctxA, ada)
	must(t, "ListNotificationSubscriptions", err)
	wantEqual(t, "imported subscriptions", subs, []storage.NotificationSubscription{
		{Topic: "posts", Channel: "email", Enabled: true}, {Topic: "posts", Channel: "in_app", Enabled: false},
	})

	for _, sub := range []storage.NotificationSubscription{
		{Topic: storage.TopicPosts, Channel: storage.ChannelEmail, Enabled: false},   // replaces
		{Topic: storage.TopicEvents, Channel: storage.ChannelInApp, Enabled: true},   // creates
		{Topic: storage.TopicPayments, Channel: storage.ChannelEmail, Enabled: true}, // creates
	} {
		got, err := s.SetNotificationSubscription(ctxA, ada, sub)
		must(t, "SetNotificationSubscription", err)
		wantEqual(t, "SetNotificationSubscription's result", got, sub)
	}
	subs, err = s.ListNotificationSubscriptions(ctxA, ada)
	must(t, "ListNotificationSubscriptions", err)
	wantEqual(t, "subscriptions", subs, []storage.NotificationSubscription{
		{Topic: "events", Channel: "in_app", Enabled: true}, {Topic: "payments", Channel: "email", Enabled: true},
		{Topic: "posts", Channel: "email", Enabled: false}, {Topic: "posts", Channel: "in_app", Enabled: false},
	})

	_, err = s.SetNotificationSubscription(ctxA, ada, storage.NotificationSubscription{Topic: "gossip", Channel: storage.ChannelEmail})
	wantErr(t, "SetNotificationSubscription with an unknown topic", err, storage.ErrInvalidArgument)
	_, err = s.SetNotificationSubscription(ctxA, ada, storage.NotificationSubscription{Topic: storage.TopicPosts, Channel: "pigeon"})
	wantErr(t, "SetNotificationSubscription with an unknown channel", err, storage.ErrInvalidArgument)
	_, err = s.SetNotificationSubscription(ctxA, 1<<40, storage.NotificationSubscription{Topic: storage.TopicPosts, Channel: storage.ChannelEmail})
	wantErr(t, "SetNotificationSubscription for an unknown member", err, storage.ErrNotFound)

	// Choices are per school.
	b, err := s.ListNotificationSubscriptions(ctxB, ada)
	must(t, "ListNotificationSubscriptions at B", err)
	if len(b) != 0 {
		t.Errorf("school B lists school A's subscriptions: %+v", b)
	}
}
