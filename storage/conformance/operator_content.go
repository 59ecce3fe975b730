package conformance

import (
	"context"

	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
)

func testOperatorCommerce(f operatorFixture) {
	t, s := f.t, f.s

	plan, err := s.CreateMembershipPlan(f.a, storage.MembershipPlan{Offer: storage.Offer{Slug: "yearly", Title: "Yearly", PriceAmount: 9900, Currency: "USD"}, Interval: "year", Published: true})
	must(t, "CreateMembershipPlan", err)
	_, err = s.CreateMembershipPlan(f.a, storage.MembershipPlan{Offer: storage.Offer{Slug: "weekly", Title: "Weekly"}, Interval: "week"})
	wantErr(t, "CreateMembershipPlan with an unknown interval", err, storage.ErrInvalidArgument)
	_, err = s.CreateMembershipPlan(f.a, storage.MembershipPlan{Offer: storage.Offer{Slug: "yearly"}, Interval: "year"})
	wantErr(t, "CreateMembershipPlan with a taken slug", err, storage.ErrAlreadyExists)
	plans := walk(t, "ListMembershipPlans", 1, func(p storage.MembershipPlan) int64 { return p.ID },
		func(p storage.Page) ([]storage.MembershipPlan, string, error) { return s.ListMembershipPlans(f.a, p) })
	if len(plans) != 2 || plans[0].Slug != "monthly" || plans[0].Interval != "month" {
		t.Errorf("ListMembershipPlans: %+v", plans)
	}
	wantEqual(t, "created plan", plans[1], plan)

	subs, _, err := s.ListSubscriptions(f.a, "", storage.Page{})
	must(t, "ListSubscriptions", err)
	if len(subs) != 1 || subs[0].State != "active" || subs[0].MemberID != f.member("grace@example.test") || subs[0].PlanID != plans[0].ID {
		t.Fatalf("ListSubscriptions: %+v", subs)
	}
	if none, _, _ := s.ListSubscriptions(f.a, "canceled", storage.Page{}); len(none) != 0 {
		t.Errorf("canceled subscriptions before the change: %+v", none)
	}
	up, err := s.UpdateSubscription(f.a, subs[0].ID, func(v storage.Subscription) (storage.Subscription, error) {
		v.State, v.MemberID = "canceled", 12345
		return v, nil
	})
	must(t, "UpdateSubscription", err)
	if up.State != "canceled" || up.MemberID != subs[0].MemberID || !up.StartedAt.Equal(subs[0].StartedAt) {
		t.Errorf("UpdateSubscription: %+v", up)
	}
	canceled, _, err := s.ListSubscriptions(f.a, "canceled", storage.Page{})
	must(t, "ListSubscriptions canceled", err)
	wantEqual(t, "canceled subscriptions", canceled, []storage.Subscription{up})
	_, err = s.UpdateSubscription(f.a, subs[0].ID, func(v storage.Subscription) (storage.Subscription, error) {
		v.State = "paused"
		return v, nil
	})
	wantErr(t, "UpdateSubscription to an unknown state", err, storage.ErrInvalidArgument)
	_, err = s.UpdateSubscription(f.b, subs[0].ID, func(v storage.Subscription) (storage.Subscription, error) { return v, nil })
	wantErr(t, "UpdateSubscription at another school", err, storage.ErrNotFound)

	c, err := s.CreateCoupon(f.a, storage.Coupon{Code: "SUMMER", Title: "Summer", PercentOff: 20, ExpiresAt: ptr(at(30, 0)), MaxRedemptions: 5})
	must(t, "CreateCoupon", err)
	if c.ID == 0 || c.RedeemedCount != 0 || c.ExpiresAt == nil {
		t.Errorf("CreateCoupon: %+v", c)
	}
	for what, bad := range map[string]storage.Coupon{
		"both":              {Code: "BOTH", PercentOff: 5, AmountOff: 100, Currency: "USD"},
		"neither":           {Code: "NONE"},
		"amount, no money":  {Code: "NOCUR", AmountOff: 100},
		"over 100 percent":  {Code: "BIG", PercentOff: 150},
		"a negative amount": {Code: "NEG", AmountOff: -1, PercentOff: 5},
	} {
		_, err := s.CreateCoupon(f.a, bad)
		wantErr(t, "CreateCoupon "+what, err, storage.ErrInvalidArgument)
	}
	_, err = s.CreateCoupon(f.a, storage.Coupon{Code: "SPRING", PercentOff: 5})
	wantErr(t, "CreateCoupon with a taken code", err, storage.ErrAlreadyExists)
	coupons := walk(t, "ListCoupons", 2, func(c storage.Coupon) int64 { return c.ID },
		func(p storage.Page) ([]storage.Coupon, string, error) { return s.ListCoupons(f.a, p) })
	if len(coupons) != 3 || coupons[1].Code != "FLAT" || coupons[1].AmountOff != 300 {
		t.Errorf("ListCoupons: %+v", coupons)
	}
	wantEqual(t, "created coupon", coupons[2], c)

	p, err := s.CreateDigitalProduct(f.a, storage.DigitalProduct{Offer: storage.Offer{Slug: "ebook", Title: "E-book", PriceAmount: 1500, Currency: "USD"}})
	must(t, "CreateDigitalProduct", err)
	_, err = s.CreateDigitalProduct(f.a, storage.DigitalProduct{Offer: storage.Offer{Slug: "ebook"}})
	wantErr(t, "CreateDigitalProduct with a taken slug", err, storage.ErrAlreadyExists)
	products, _, err := s.ListDigitalProducts(f.a, storage.Page{})
	must(t, "ListDigitalProducts", err)
	if len(products) != 2 || products[0].Slug != "cheatsheet" {
		t.Errorf("ListDigitalProducts: %+v", products)
	}
	wantEqual(t, "created product", products[1], p)
	if bp, _, _ := s.ListDigitalProducts(f.b, storage.Page{}); len(bp) != 0 {
		t.Errorf("ListDigitalProducts at B: %+v", bp)
	}
}

func testOperatorPosts(f operatorFixture) {
	t, s := f.t, f.s
	goBasics := f.course(f.a, "go-basics")
	ada, linus, grace := f.member("ada@example.test"), f.member("linus@example.test"), f.member("grace@example.test")
	inbox := func(member int64) []storage.Notification {
		t.Helper()
		ns, _, err := s.ListNotifications(f.a, member, false, storage.Page{First: 100})
		must(t, "ListNotifications", err)
		return ns
	}
	before := map[int64]int{ada: len(inbox(ada)), linus: len(inbox(linus)), grace: len(inbox(grace))}

	// A course post reaches the course's students, except Ada, who turned in-app post
	// notifications off (FullSchoolData), and not Grace, who is not enrolled.
	p, n, err := s.CreatePost(f.a, storage.Post{Key: "exam", Title: "Exam on Friday", Body: "Bring a pen.", CourseID: &goBasics.ID, AuthorMemberID: &grace, PublishedAt: at(12, 0)}, true)
	must(t, "CreatePost", err)
	if n != 1 || p.ID == 0 || p.CourseID == nil || *p.CourseID != goBasics.ID {
		t.Fatalf("CreatePost: %+v, notified %d, want 1", p, n)
	}
	got := inbox(linus)
	if len(got) != before[linus]+1 || got[0].Title != "Exam on Friday" || got[0].Kind != "post" || got[0].ReadAt != nil || got[0].Body != "Bring a pen." {
		t.Errorf("Linus's inbox: %+v", got)
	}
	if len(inbox(ada)) != before[ada] || len(inbox(grace)) != before[grace] {
		t.Error("the course post reached a member it should not have")
	}

	// A school-wide post reaches everyone with a role (Ada still excluded).
	_, n, err = s.CreatePost(f.a, storage.Post{Key: "holiday", Title: "Holiday", Body: "Closed", PublishedAt: at(13, 0)}, true)
	must(t, "CreatePost school-wide", err)
	if n != 2 || len(inbox(grace)) != before[grace]+1 {
		t.Errorf("school-wide post notified %d, want 2", n)
	}
	_, n, err = s.CreatePost(f.a, storage.Post{Key: "quiet", Title: "Quiet", Body: "No notice", PublishedAt: at(14, 0)}, false)
	must(t, "CreatePost without notify", err)
	if n != 0 || len(inbox(grace)) != before[grace]+1 {
		t.Errorf("a post without notify notified %d", n)
	}

	// All or nothing: a post that fails creates no notification either.
	_, _, err = s.CreatePost(f.a, storage.Post{Key: "exam", Title: "Again", Body: "x"}, true)
	wantErr(t, "CreatePost with a taken key", err, storage.ErrAlreadyExists)
	bCourse := f.course(f.b, "b-only")
	_, _, err = s.CreatePost(f.a, storage.Post{Key: "b-post", Title: "B", Body: "x", CourseID: &bCourse.ID}, true)
	wantErr(t, "CreatePost for another school's course", err, storage.ErrNotFound)
	if len(inbox(linus)) != before[linus]+2 {
		t.Errorf("failed posts changed Linus's inbox: %d notifications", len(inbox(linus)))
	}

	posts := walk(t, "ListPosts", 2, func(p storage.Post) int64 { return p.ID },
		func(pg storage.Page) ([]storage.Post, string, error) { return s.ListPosts(f.a, pg) })
	keys := []string{}
	for _, p := range posts {
		keys = append(keys, p.Key)
	}
	wantEqual(t, "posts, newest first", keys, []string{"quiet", "holiday", "exam", "go-news", "hello"})
	wantEqual(t, "created post", posts[2], p)
	if bp, _, _ := s.ListPosts(f.b, storage.Page{}); len(bp) != 0 {
		t.Errorf("ListPosts at B: %+v", bp)
	}
}

func testOperatorComments(f operatorFixture) {
	t, s := f.t, f.s
	all, _, err := s.ListComments(f.a, storage.CommentFilter{}, storage.Page{})
	must(t, "ListComments", err)
	if len(all) != 2 || all[0].Key != "c2" || all[1].Key != "c1" || all[0].LectureID == nil || all[1].PostID == nil {
		t.Fatalf("ListComments, newest first: %+v", all)
	}
	onPost, _, err := s.ListComments(f.a, storage.CommentFilter{PostID: *all[1].PostID}, storage.Page{})
	must(t, "ListComments on a post", err)
	wantEqual(t, "comments on the post", onPost, all[1:])
	onLecture, _, err := s.ListComments(f.a, storage.CommentFilter{LectureID: *all[0].LectureID}, storage.Page{})
	must(t, "ListComments on a lecture", err)
	wantEqual(t, "comments on the lecture", onLecture, all[:1])
	byAda, _, err := s.ListComments(f.a, storage.CommentFilter{MemberID: f.member("ada@example.test")}, storage.Page{})
	must(t, "ListComments by a member", err)
	wantEqual(t, "Ada's comments", byAda, all[1:])
	paged := walk(t, "ListComments", 1, func(c storage.Comment) int64 { return c.ID },
		func(p storage.Page) ([]storage.Comment, string, error) {
			return s.ListComments(f.a, storage.CommentFilter{}, p)
		})
	wantEqual(t, "comments one per page", paged, all)
	if bc, _, _ := s.ListComments(f.b, storage.CommentFilter{}, storage.Page{}); len(bc) != 0 {
		t.Errorf("ListComments at B: %+v", bc)
	}
}

func testOperatorLecturers(f operatorFixture) {
	t, s := f.t, f.s
	goBasics, draft := f.course(f.a, "go-basics"), f.course(f.a, "draft")
	linus := f.member("linus@example.test")
	l, err := s.CreateLecturer(f.a, storage.Lecturer{Slug: "linus", Name: "Linus T.", MemberID: &linus, CourseIDs: []int64{draft.ID, goBasics.ID, draft.ID}})
	must(t, "CreateLecturer", err)
	lo, hi := min(goBasics.ID, draft.ID), max(goBasics.ID, draft.ID)
	wantEqual(t, "lecturer's courses", l.CourseIDs, []int64{lo, hi})
	lecturers := walk(t, "ListLecturers", 2, func(l storage.Lecturer) int64 { return l.ID },
		func(p storage.Page) ([]storage.Lecturer, string, error) { return s.ListLecturers(f.a, p) })
	if len(lecturers) != 3 || lecturers[0].Slug != "grace" || len(lecturers[0].CourseIDs) != 2 || len(lecturers[1].CourseIDs) != 0 || lecturers[1].CourseIDs == nil {
		t.Errorf("ListLecturers: %+v", lecturers)
	}
	wantEqual(t, "created lecturer", lecturers[2], l)

	_, err = s.CreateLecturer(f.a, storage.Lecturer{Slug: "ghost", Name: "Ghost", CourseIDs: []int64{goBasics.ID, f.course(f.b, "b-only").ID}})
	wantErr(t, "CreateLecturer teaching another school's course", err, storage.ErrNotFound)
	bea := memberID(t, s, f.b, "bea@example.test")
	_, err = s.CreateLecturer(f.a, storage.Lecturer{Slug: "bea", Name: "Bea", MemberID: &bea})
	wantErr(t, "CreateLecturer linked to a member of another school", err, storage.ErrNotFound)
	_, err = s.CreateLecturer(f.a, storage.Lecturer{Slug: "linus", Name: "Again"})
	wantErr(t, "CreateLecturer with a taken slug", err, storage.ErrAlreadyExists)
	if again, _, _ := s.ListLecturers(f.a, storage.Page{}); len(again) != 3 {
		t.Errorf("failed creations left lecturers behind: %d", len(again))
	}
}

func testOperatorContent(f operatorFixture) {
	t, s := f.t, f.s

	forms, _, err := s.ListForms(f.a, storage.Page{})
	must(t, "ListForms", err)
	if len(forms) != 1 || forms[0].Slug != "contact" || len(forms[0].Fields) != 2 || !forms[0].Fields[0].Required {
		t.Fatalf("ListForms: %+v", forms)
	}
	subs := walk(t, "ListFormSubmissions", 1, func(s storage.FormSubmission) int64 { return s.ID },
		func(p storage.Page) ([]storage.FormSubmission, string, error) {
			return s.ListFormSubmissions(f.a, forms[0].ID, p)
		})
	if len(subs) != 2 || subs[0].Key != "s2" || subs[0].MemberID != nil || subs[1].MemberID == nil || subs[1].Data["message"] != "Hi" {
		t.Errorf("ListFormSubmissions, newest first: %+v", subs)
	}
	_, _, err = s.ListFormSubmissions(f.b, forms[0].ID, storage.Page{})
	wantErr(t, "ListFormSubmissions at another school", err, storage.ErrNotFound)

	page, err := s.CreateContentPage(f.a, storage.ContentPage{Slug: "faq", Title: "FAQ", Body: "Q?"})
	must(t, "CreateContentPage", err)
	_, err = s.CreateContentPage(f.a, storage.ContentPage{Slug: "about"})
	wantErr(t, "CreateContentPage with a taken slug", err, storage.ErrAlreadyExists)
	up, err := s.UpdateContentPage(f.a, page.ID, func(p storage.ContentPage) (storage.ContentPage, error) {
		p.Published, p.Body, p.ID = true, "Q? A.", 999
		return p, nil
	})
	must(t, "UpdateContentPage", err)
	if up.ID != page.ID || !up.Published || up.Body != "Q? A." || up.Slug != "faq" {
		t.Errorf("UpdateContentPage: %+v", up)
	}
	wantUpdateRefusals(f, "UpdateContentPage", page.ID, s.UpdateContentPage, func(p *storage.ContentPage) { p.Slug = "about" })
	pages, _, err := s.ListContentPages(f.a, storage.Page{})
	must(t, "ListContentPages", err)
	if len(pages) != 2 || pages[0].Slug != "about" {
		t.Errorf("ListContentPages: %+v", pages)
	}
	wantEqual(t, "updated page", pages[1], up)

	uploader := f.member("ada@example.test")
	file, err := s.CreateStoredFile(f.a, storage.StoredFile{Name: "logo.png", ContentType: "image/png", SizeBytes: 42, SHA256: "ab", StoragePath: "1/x.png", UploadedBy: &uploader})
	must(t, "CreateStoredFile", err)
	if file.ID == 0 || file.CreatedAt.IsZero() || file.StoragePath != "1/x.png" || *file.UploadedBy != uploader {
		t.Errorf("CreateStoredFile: %+v", file)
	}
	_, err = s.CreateStoredFile(f.a, storage.StoredFile{Name: "nowhere"})
	wantErr(t, "CreateStoredFile without a path", err, storage.ErrInvalidArgument)

	// Reading a file back (the operator API's logo by upload) is a narrow interface of the
	// consumer's, beside storage.Store.
	files := narrow[interface {
		GetStoredFile(ctx context.Context, id int64) (storage.StoredFile, error)
	}](t, s)
	got, err := files.GetStoredFile(f.a, file.ID)
	must(t, "GetStoredFile", err)
	wantEqual(t, "GetStoredFile", got, file)
	_, err = files.GetStoredFile(f.b, file.ID)
	wantErr(t, "GetStoredFile of another school's file", err, storage.ErrNotFound)
	_, err = files.GetStoredFile(f.a, file.ID+1000)
	wantErr(t, "GetStoredFile of an unknown id", err, storage.ErrNotFound)
	_, err = files.GetStoredFile(context.Background(), file.ID)
	wantErr(t, "GetStoredFile without a school", err, school.ErrNoSchool)
}
