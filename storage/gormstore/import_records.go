package gormstore

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"gorm.io/gorm"

	"github.com/proctorhq/proctor/storage"
)

// One method per SchoolData list, in the order the lists may refer to each other.

func (im *importer) school(row schoolRow, seed *storage.SchoolSeed) error {
	if seed == nil {
		return nil
	}
	next := row
	if seed.Settings != nil {
		s, err := jsonText(seed.Settings)
		if err != nil {
			return importErr("school", 0, err)
		}
		next.Settings = s
	}
	if seed.Appearance != nil {
		s, err := jsonText(seed.Appearance)
		if err != nil {
			return importErr("school", 0, err)
		}
		next.Appearance = s
	}
	if next.Settings != row.Settings || next.Appearance != row.Appearance {
		next.stamp(im.now, false)
		if err := im.update(&next); err != nil {
			return importErr("school", 0, err)
		}
	}
	im.counted("school", 1)
	im.tick(1)
	return nil
}

func (im *importer) members(seeds []storage.MemberSeed) error {
	if len(seeds) == 0 {
		return nil
	}
	const kind = "members"
	emails := make([]string, len(seeds))
	for i, s := range seeds {
		emails[i] = storage.NormaliseEmail(s.Email)
		if emails[i] == "" {
			return importErr(kind, i, fmt.Errorf("e-mail is empty: %w", storage.ErrInvalidArgument))
		}
		if s.Password != "" && s.PasswordHash == "" {
			// Hashing is the caller's: storage keeps only argon2id PHC strings.
			return importErr(kind, i, fmt.Errorf("member %q has a plain password: hash it into password_hash before the import: %w", emails[i], storage.ErrInvalidArgument))
		}
		if err := knownRoles(s.Roles); err != nil {
			return importErr(kind, i, err)
		}
	}
	// Members are deployment-wide: they are found by e-mail, not within the school.
	current, err := loadChunked[memberRow](emails, "import members", func(chunk []string) *gorm.DB {
		return im.tx.Where("email IN ?", chunk)
	})
	if err != nil {
		return err
	}
	byEmail, err := apply(im, rowSet[storage.MemberSeed, memberRow]{
		kind: kind,
		key:  func(r *memberRow) string { return r.Email },
		build: func(s *storage.MemberSeed, r *memberRow) error {
			r.Email = storage.NormaliseEmail(s.Email)
			r.Name = s.Name
			r.AvatarURL = s.AvatarURL
			// An empty hash leaves the member's password alone: the member may be shared with
			// a school whose data set one.
			if s.PasswordHash != "" {
				r.PasswordHash = s.PasswordHash
			}
			return nil
		},
	}, seeds, current)
	if err != nil {
		return err
	}
	ids := make([]int64, len(seeds))
	for i, e := range emails {
		ids[i] = byEmail[e].ID
		im.memberIDs[e] = ids[i]
	}

	// Roles: replace each member's roles at this school with the listed ones.
	have, err := load[memberRoleRow](im, "member_id", ids)
	if err != nil {
		return err
	}
	byMember := map[int64]map[string]bool{}
	for _, r := range have {
		if byMember[r.MemberID] == nil {
			byMember[r.MemberID] = map[string]bool{}
		}
		byMember[r.MemberID][r.Role] = true
	}
	var add []memberRoleRow
	for i, s := range seeds {
		want := map[string]bool{}
		for _, r := range s.Roles {
			want[string(r)] = true
		}
		var drop []string
		for r := range byMember[ids[i]] {
			if !want[r] {
				drop = append(drop, r)
			}
		}
		if len(drop) > 0 {
			err := im.sc.in(im.tx).Where("member_id = ? AND role IN ?", ids[i], drop).Delete(&memberRoleRow{}).Error
			if err != nil {
				return importErr(kind, i, wrap("remove roles", err))
			}
		}
		for _, r := range storage.Roles {
			if want[string(r)] && !byMember[ids[i]][string(r)] {
				add = append(add, memberRoleRow{SchoolID: im.sc.schoolID, MemberID: ids[i], Role: string(r), CreatedAt: im.now})
			}
		}
	}
	if len(add) > 0 {
		if err := im.tx.CreateInBatches(add, insertBatch).Error; err != nil {
			return importErr(kind, 0, wrap("add roles", err))
		}
	}
	im.counted(kind, len(seeds))
	im.tick(len(seeds))
	return nil
}

func (im *importer) courses(seeds []storage.CourseSeed) error {
	if len(seeds) == 0 {
		return nil
	}
	const kind = "courses"
	courseIDs, err := importOwners(im, func(s *storage.CourseSeed) string { return s.Slug }, func(r *courseRow) int64 { return r.ID }, seeds,
		offerSet(kind, func(s *storage.CourseSeed, r *courseRow) { r.Published = s.Published }))
	if err != nil {
		return err
	}

	// Sections, keyed by course and position.
	sections := ownedBy(seeds, courseIDs, func(s *storage.CourseSeed) []storage.SectionSeed { return s.Sections })
	// The courses whose sections or lectures the import writes get their curriculum version
	// bumped (touchCurricula) once both are written; an import that changes nothing bumps none.
	changed := map[int64]bool{}
	sectionByKey, err := applyAt(im, "course_id", courseIDs, sections, rowSet[owned[storage.SectionSeed], sectionRow]{
		kind:    kind,
		index:   func(i int) int { return sections[i].owner },
		written: func(i int) { changed[sections[i].ownerID] = true },
		key:     func(r *sectionRow) string { return key2(r.CourseID, int64(r.Position)) },
		build: func(it *owned[storage.SectionSeed], r *sectionRow) error {
			r.CourseID = it.ownerID
			r.Position = it.position
			r.Title = it.seed.Title
			return nil
		},
	})
	if err != nil {
		return err
	}

	// Lectures, keyed by section and position.
	type lectureItem struct {
		course            int
		courseID, section int64
		position          int
		seed              *storage.LectureSeed
	}
	var lectures []lectureItem
	for _, sec := range sections {
		sectionID := sectionByKey[key2(sec.ownerID, int64(sec.position))].ID
		for j := range sec.seed.Lectures {
			lectures = append(lectures, lectureItem{sec.owner, sec.ownerID, sectionID, j + 1, &sec.seed.Lectures[j]})
		}
	}
	_, err = applyAt(im, "course_id", courseIDs, lectures, rowSet[lectureItem, lectureRow]{
		kind:    kind,
		index:   func(i int) int { return lectures[i].course },
		written: func(i int) { changed[lectures[i].courseID] = true },
		key:     func(r *lectureRow) string { return key2(r.SectionID, int64(r.Position)) },
		build: func(it *lectureItem, r *lectureRow) error {
			r.CourseID = it.courseID
			r.SectionID = it.section
			r.Position = it.position
			r.Title = it.seed.Title
			r.DurationSeconds = it.seed.DurationSeconds
			r.IsLocked = it.seed.IsLocked
			r.UnlockAt = dbTimePtr(it.seed.UnlockAt)
			return nil
		},
	})
	if err != nil {
		return err
	}
	if len(changed) > 0 {
		if err := touchCurricula(im.tx, im.sc, slices.Sorted(maps.Keys(changed))...); err != nil {
			return wrap("import: bump curriculum versions", err)
		}
	}
	for _, id := range courseIDs {
		delete(im.lectures, id)
	}
	im.counted(kind, len(seeds))
	im.tick(len(seeds))
	return nil
}

func (im *importer) enrollments(seeds []storage.EnrollmentSeed) error {
	return importMemberRecords(im, "enrollments", "courses", "course", seeds,
		func(s *storage.EnrollmentSeed) (string, string) { return s.Member, s.Course },
		func(r *enrollmentRow) (*int64, *int64) { return &r.MemberID, &r.CourseID },
		func(s *storage.EnrollmentSeed, r *enrollmentRow) {
			r.ExpireDate = dbTimePtr(s.ExpireDate)
			r.LifetimeAccess = s.LifetimeAccess
			r.EnrolledAt = dbTime(s.EnrolledAt)
		})
}

func (im *importer) lectureProgress(seeds []storage.ProgressSeed) error {
	return importByMember(im, func(s *storage.ProgressSeed) string { return s.Member }, seeds, rowSet[storage.ProgressSeed, progressRow]{
		kind: "progress",
		key:  func(r *progressRow) string { return key2(r.MemberID, r.LectureID) },
		build: func(s *storage.ProgressSeed, r *progressRow) (err error) {
			if r.MemberID, err = im.memberID(s.Member); err != nil {
				return err
			}
			l, err := im.lecture(s.Lecture)
			if err != nil {
				return err
			}
			r.LectureID, r.CourseID = l.id, l.courseID
			r.State = string(s.State)
			r.PositionSeconds = s.PositionSeconds
			r.UpdatedAt = dbTime(s.UpdatedAt)
			return nil
		},
	})
}

func (im *importer) digitalProducts(seeds []storage.DigitalProductSeed) error {
	return importOffers(im, "digital_products", seeds,
		func(s *storage.DigitalProductSeed, r *digitalProductRow) {
			r.Published = s.Published
		})
}

func (im *importer) productHoldings(seeds []storage.ProductHoldingSeed) error {
	return importMemberRecords(im, "product_holdings", "digital_products", "digital product", seeds,
		func(s *storage.ProductHoldingSeed) (string, string) { return s.Member, s.Product },
		func(r *productHoldingRow) (*int64, *int64) { return &r.MemberID, &r.ProductID },
		func(s *storage.ProductHoldingSeed, r *productHoldingRow) {
			r.GrantedAt = dbTime(s.GrantedAt)
		})
}

func (im *importer) consultingServices(seeds []storage.ConsultingServiceSeed) error {
	if len(seeds) == 0 {
		return nil
	}
	const kind = "consulting_services"
	serviceIDs, err := importOwners(im, func(s *storage.ConsultingServiceSeed) string { return s.Slug }, func(r *consultingServiceRow) int64 { return r.ID }, seeds,
		offerSet(kind, func(s *storage.ConsultingServiceSeed, r *consultingServiceRow) { r.DurationMinutes = s.DurationMinutes }))
	if err != nil {
		return err
	}

	// The courses a service is offered against.
	err = applyCourseLinks(im, kind, "service_id", serviceIDs, seeds,
		func(s *storage.ConsultingServiceSeed) []string { return s.Courses },
		func(r *consultingServiceCourseRow) string { return key2(r.ServiceID, r.CourseID) },
		func(r *consultingServiceCourseRow, serviceID, courseID int64) {
			r.ServiceID, r.CourseID = serviceID, courseID
		})
	if err != nil {
		return err
	}

	// Weekly slots, keyed by weekday and start time.
	slots := ownedBy(seeds, serviceIDs, func(s *storage.ConsultingServiceSeed) []storage.SlotSeed { return s.Slots })
	_, err = applyAt(im, "service_id", serviceIDs, slots, rowSet[owned[storage.SlotSeed], consultingSlotRow]{
		kind:  kind,
		index: func(i int) int { return slots[i].owner },
		key: func(r *consultingSlotRow) string {
			return fmt.Sprintf("%d/%d/%s", r.ServiceID, r.Weekday, r.StartTime)
		},
		build: func(it *owned[storage.SlotSeed], r *consultingSlotRow) error {
			r.ServiceID = it.ownerID
			r.Weekday = it.seed.Weekday
			r.StartTime = it.seed.StartTime
			r.DurationMinutes = it.seed.DurationMinutes
			r.TimeZone = it.seed.TimeZone
			return required("slot start_time", it.seed.StartTime)
		},
	})
	if err != nil {
		return err
	}

	// Meetings, keyed by start time.
	meetings := ownedBy(seeds, serviceIDs, func(s *storage.ConsultingServiceSeed) []storage.MeetingSeed { return s.Meetings })
	_, err = applyAt(im, "service_id", serviceIDs, meetings, rowSet[owned[storage.MeetingSeed], consultingMeetingRow]{
		kind:  kind,
		index: func(i int) int { return meetings[i].owner },
		key: func(r *consultingMeetingRow) string {
			return key2(r.ServiceID, r.StartsAt.UnixMicro())
		},
		build: func(it *owned[storage.MeetingSeed], r *consultingMeetingRow) (err error) {
			r.ServiceID = it.ownerID
			if r.MemberID, err = im.memberID(it.seed.Member); err != nil {
				return err
			}
			r.StartsAt = dbTime(it.seed.StartsAt)
			r.EndsAt = dbTime(it.seed.EndsAt)
			return nil
		},
	})
	if err != nil {
		return err
	}
	im.counted(kind, len(seeds))
	im.tick(len(seeds))
	return nil
}

func (im *importer) events(seeds []storage.EventSeed) error {
	return importOffers(im, "events", seeds,
		func(s *storage.EventSeed, r *eventRow) {
			r.StartsAt = dbTime(s.StartsAt)
			r.EndsAt = dbTime(s.EndsAt)
			r.Location = s.Location
			r.Capacity = s.Capacity
			r.Published = s.Published
		})
}

func (im *importer) eventRegistrations(seeds []storage.EventRegistrationSeed) error {
	return importMemberRecords(im, "event_registrations", "events", "event", seeds,
		func(s *storage.EventRegistrationSeed) (string, string) { return s.Member, s.Event },
		func(r *eventRegistrationRow) (*int64, *int64) { return &r.MemberID, &r.EventID },
		func(s *storage.EventRegistrationSeed, r *eventRegistrationRow) {
			r.Status = s.Status
			r.RegisteredAt = dbTime(s.RegisteredAt)
		})
}

func (im *importer) payments(seeds []storage.PaymentSeed) error {
	return importByKey(im, "trade_no", func(s *storage.PaymentSeed) string { return s.TradeNo }, seeds, rowSet[storage.PaymentSeed, paymentRow]{
		kind: "payments",
		key:  func(r *paymentRow) string { return r.TradeNo },
		build: func(s *storage.PaymentSeed, r *paymentRow) (err error) {
			r.TradeNo = s.TradeNo
			if r.MemberID, err = im.memberID(s.Member); err != nil {
				return err
			}
			r.Amount = s.Amount
			r.Currency = s.Currency
			r.PaymentType = nil
			if s.PaymentType != "" {
				t := s.PaymentType
				r.PaymentType = &t
			}
			r.CreatedAt = dbTime(s.CreatedAt)
			r.PaymentStatus = paymentTimes(s.PaymentStatus, dbTimePtr)
			if r.RefundingState == "" {
				r.RefundingState = storage.RefundNone
			}
			lineItems := s.LineItems
			if lineItems == nil {
				lineItems = []storage.PaymentLineItem{}
			}
			if r.LineItems, err = jsonText(lineItems); err != nil {
				return err
			}
			adjustments := s.Adjustments
			if adjustments == nil {
				adjustments = []storage.PaymentAdjustment{}
			}
			if r.Adjustments, err = jsonText(adjustments); err != nil {
				return err
			}
			invoice := s.Invoice
			if invoice != nil {
				inv := *invoice
				inv.IssuedAt = dbTimePtr(inv.IssuedAt)
				invoice = &inv
			}
			if r.Invoice, err = optionalJSON(invoice); err != nil {
				return err
			}
			r.Installment, err = optionalJSON(s.Installment)
			return err
		},
	})
}

func (im *importer) notifications(seeds []storage.NotificationSeed) error {
	return importByKey(im, "key", func(s *storage.NotificationSeed) string { return s.Key }, seeds, rowSet[storage.NotificationSeed, notificationRow]{
		kind: "notifications",
		key:  func(r *notificationRow) string { return r.Key },
		build: func(s *storage.NotificationSeed, r *notificationRow) (err error) {
			r.Key = s.Key
			if r.MemberID, err = im.memberID(s.Member); err != nil {
				return err
			}
			r.Kind = s.Kind
			r.Title = s.Title
			r.Body = s.Body
			r.URL = s.URL
			r.CreatedAt = dbTime(s.CreatedAt)
			r.ReadAt = dbTimePtr(s.ReadAt)
			return nil
		},
	})
}

func (im *importer) notificationSubscriptions(seeds []storage.NotificationSubscriptionSeed) error {
	return importByMember(im, func(s *storage.NotificationSubscriptionSeed) string { return s.Member }, seeds, rowSet[storage.NotificationSubscriptionSeed, notificationSubscriptionRow]{
		kind: "notification_subscriptions",
		key: func(r *notificationSubscriptionRow) string {
			// Topics and channels are plain words; a newline cannot occur in either.
			return fmt.Sprintf("%d\n%s\n%s", r.MemberID, r.Topic, r.Channel)
		},
		build: func(s *storage.NotificationSubscriptionSeed, r *notificationSubscriptionRow) (err error) {
			if r.MemberID, err = im.memberID(s.Member); err != nil {
				return err
			}
			if err := required("topic", s.Topic); err != nil {
				return err
			}
			if err := required("channel", s.Channel); err != nil {
				return err
			}
			if strings.ContainsRune(s.Topic+s.Channel, '\n') {
				return fmt.Errorf("topic and channel must be single words: %w", storage.ErrInvalidArgument)
			}
			r.Topic = s.Topic
			r.Channel = s.Channel
			r.Enabled = s.Enabled
			return nil
		},
	})
}

func (im *importer) membershipPlans(seeds []storage.MembershipPlanSeed) error {
	return importOffers(im, "membership_plans", seeds,
		func(s *storage.MembershipPlanSeed, r *membershipPlanRow) {
			r.BillingInterval = s.Interval
			r.Published = s.Published
		})
}

func (im *importer) subscriptions(seeds []storage.SubscriptionSeed) error {
	return importMemberRecords(im, "subscriptions", "membership_plans", "membership plan", seeds,
		func(s *storage.SubscriptionSeed) (string, string) { return s.Member, s.Plan },
		func(r *subscriptionRow) (*int64, *int64) { return &r.MemberID, &r.PlanID },
		func(s *storage.SubscriptionSeed, r *subscriptionRow) {
			r.State = s.State
			r.StartedAt = dbTime(s.StartedAt)
			r.CurrentPeriodEnd = dbTime(s.CurrentPeriodEnd)
		})
}

func (im *importer) coupons(seeds []storage.CouponSeed) error {
	return importByKey(im, "code", func(s *storage.CouponSeed) string { return s.Code }, seeds, rowSet[storage.CouponSeed, couponRow]{
		kind: "coupons",
		key:  func(r *couponRow) string { return r.Code },
		build: func(s *storage.CouponSeed, r *couponRow) error {
			r.Code = s.Code
			r.Title = s.Title
			r.PercentOff = s.PercentOff
			r.AmountOff = s.AmountOff
			r.Currency = s.Currency
			r.ExpiresAt = dbTimePtr(s.ExpiresAt)
			r.MaxRedemptions = s.MaxRedemptions
			return nil
		},
	})
}

func (im *importer) posts(seeds []storage.PostSeed) error {
	return importByKey(im, "key", func(s *storage.PostSeed) string { return s.Key }, seeds, rowSet[storage.PostSeed, postRow]{
		kind: "posts",
		key:  func(r *postRow) string { return r.Key },
		build: func(s *storage.PostSeed, r *postRow) (err error) {
			r.Key = s.Key
			r.Title = s.Title
			r.Body = s.Body
			if r.CourseID, err = im.optionalIDOf("courses", "slug", "course", s.Course); err != nil {
				return err
			}
			if r.AuthorMemberID, err = im.optionalMemberID(s.Author); err != nil {
				return err
			}
			r.PublishedAt = dbTime(s.PublishedAt)
			return nil
		},
	})
}

func (im *importer) comments(seeds []storage.CommentSeed) error {
	return importByKey(im, "key", func(s *storage.CommentSeed) string { return s.Key }, seeds, rowSet[storage.CommentSeed, commentRow]{
		kind: "comments",
		key:  func(r *commentRow) string { return r.Key },
		build: func(s *storage.CommentSeed, r *commentRow) (err error) {
			r.Key = s.Key
			if r.MemberID, err = im.memberID(s.Member); err != nil {
				return err
			}
			if (s.Post == "") == (s.Lecture == nil) {
				return fmt.Errorf("a comment is on exactly one of a post and a lecture: %w", storage.ErrInvalidArgument)
			}
			r.PostID, r.LectureID = nil, nil
			if s.Post != "" {
				id, err := im.idOf("posts", "key", "post", s.Post)
				if err != nil {
					return err
				}
				r.PostID = &id
			} else {
				l, err := im.lecture(*s.Lecture)
				if err != nil {
					return err
				}
				r.LectureID = &l.id
			}
			r.Body = s.Body
			r.CreatedAt = dbTime(s.CreatedAt)
			return nil
		},
	})
}

func (im *importer) lecturers(seeds []storage.LecturerSeed) error {
	if len(seeds) == 0 {
		return nil
	}
	const kind = "lecturers"
	lecturerIDs, err := importOwners(im, func(s *storage.LecturerSeed) string { return s.Slug }, func(r *lecturerRow) int64 { return r.ID }, seeds, rowSet[storage.LecturerSeed, lecturerRow]{
		kind: kind,
		key:  func(r *lecturerRow) string { return r.Slug },
		build: func(s *storage.LecturerSeed, r *lecturerRow) (err error) {
			r.Slug = s.Slug
			r.Name = s.Name
			r.Bio = s.Bio
			r.AvatarURL = s.AvatarURL
			if r.MemberID, err = im.optionalMemberID(s.Member); err != nil {
				return err
			}
			return nil
		},
	})
	if err != nil {
		return err
	}
	err = applyCourseLinks(im, kind, "lecturer_id", lecturerIDs, seeds,
		func(s *storage.LecturerSeed) []string { return s.Courses },
		func(r *lecturerCourseRow) string { return key2(r.LecturerID, r.CourseID) },
		func(r *lecturerCourseRow, lecturerID, courseID int64) {
			r.LecturerID, r.CourseID = lecturerID, courseID
		})
	if err != nil {
		return err
	}
	im.counted(kind, len(seeds))
	im.tick(len(seeds))
	return nil
}

func (im *importer) forms(seeds []storage.FormSeed) error {
	return importByKey(im, "slug", func(s *storage.FormSeed) string { return s.Slug }, seeds, rowSet[storage.FormSeed, formRow]{
		kind: "forms",
		key:  func(r *formRow) string { return r.Slug },
		build: func(s *storage.FormSeed, r *formRow) (err error) {
			r.Slug = s.Slug
			r.Title = s.Title
			fields := s.Fields
			if fields == nil {
				fields = []storage.FormField{}
			}
			if r.Fields, err = jsonText(fields); err != nil {
				return err
			}
			return nil
		},
	})
}

func (im *importer) formSubmissions(seeds []storage.FormSubmissionSeed) error {
	return importByKey(im, "key", func(s *storage.FormSubmissionSeed) string { return s.Key }, seeds, rowSet[storage.FormSubmissionSeed, formSubmissionRow]{
		kind: "form_submissions",
		key:  func(r *formSubmissionRow) string { return r.Key },
		build: func(s *storage.FormSubmissionSeed, r *formSubmissionRow) (err error) {
			r.Key = s.Key
			if r.FormID, err = im.idOf("forms", "slug", "form", s.Form); err != nil {
				return err
			}
			if r.MemberID, err = im.optionalMemberID(s.Member); err != nil {
				return err
			}
			data := s.Data
			if data == nil {
				data = map[string]string{}
			}
			if r.Data, err = jsonText(data); err != nil {
				return err
			}
			r.SubmittedAt = dbTime(s.SubmittedAt)
			return nil
		},
	})
}

func (im *importer) pages(seeds []storage.PageSeed) error {
	return importByKey(im, "slug", func(s *storage.PageSeed) string { return s.Slug }, seeds, rowSet[storage.PageSeed, pageRow]{
		kind: "pages",
		key:  func(r *pageRow) string { return r.Slug },
		build: func(s *storage.PageSeed, r *pageRow) error {
			r.Slug = s.Slug
			r.Title = s.Title
			r.Body = s.Body
			r.Published = s.Published
			return nil
		},
	})
}
