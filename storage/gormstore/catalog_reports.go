package gormstore

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/proctorhq/proctor/storage"
)

// studentEnrollmentRow is one row of the enrollments-courses join of ListStudents.
type studentEnrollmentRow struct {
	EnrollmentID   int64
	MemberID       int64
	CourseID       int64
	ExpireDate     *time.Time
	LifetimeAccess bool
	EnrolledAt     time.Time
	Slug           string
	Title          string
}

// ListStudents pages through the school's students in five statements, however many enrollments
// and progress rows they have: the members, their roles, their enrollments with courses, the
// lecture counts of those courses, and their progress counted per course and state.
func (s *Store) ListStudents(ctx context.Context, page storage.Page) ([]storage.StudentProgress, string, error) {
	const op = "list students"
	h, err := s.roleHolderPage(ctx, page, op, storage.RoleStudent)
	if err != nil {
		return nil, "", err
	}
	if len(h.members) == 0 {
		return []storage.StudentProgress{}, "", nil
	}
	db, sc, members, roles, next := s.conn(ctx), h.sc, h.members, h.roles, h.next
	ids := memberIDsOf(members)

	var enrollments []studentEnrollmentRow
	err = db.Table("enrollments AS e").
		Select("e.id AS enrollment_id, e.member_id, e.course_id, e.expire_date, e.lifetime_access, e.enrolled_at, c.slug, c.title").
		Joins("JOIN courses AS c ON c.school_id = e.school_id AND c.id = e.course_id").
		Where("e.school_id = ? AND e.member_id IN ?", sc.schoolID, ids).
		Order("e.member_id, e.enrolled_at, e.id").
		Scan(&enrollments).Error
	if err != nil {
		return nil, "", wrap(op, err)
	}
	var courseIDs []int64
	for _, e := range enrollments {
		if !slices.Contains(courseIDs, e.CourseID) {
			courseIDs = append(courseIDs, e.CourseID)
		}
	}

	totals := map[int64]int{}
	type progressKey struct{ member, course int64 }
	type progressCounts struct {
		completed, read int
		last            *time.Time
	}
	progress := map[progressKey]*progressCounts{}
	if len(courseIDs) > 0 {
		var lectureCounts []struct {
			CourseID int64
			N        int
		}
		err := sc.in(db.Model(&lectureRow{})).Select("course_id, COUNT(*) AS n").
			Where("course_id IN ?", courseIDs).Group("course_id").Scan(&lectureCounts).Error
		if err != nil {
			return nil, "", wrap(op, err)
		}
		for _, c := range lectureCounts {
			totals[c.CourseID] = c.N
		}

		var counts []struct {
			MemberID int64
			CourseID int64
			State    string
			N        int
			Last     textTime
		}
		err = sc.in(db.Model(&progressRow{})).
			Select("member_id, course_id, state, COUNT(*) AS n, MAX(updated_at) AS last").
			Where("member_id IN ? AND course_id IN ?", ids, courseIDs).
			Group("member_id, course_id, state").Scan(&counts).Error
		if err != nil {
			return nil, "", wrap(op, err)
		}
		for _, c := range counts {
			k := progressKey{c.MemberID, c.CourseID}
			p := progress[k]
			if p == nil {
				p = &progressCounts{}
				progress[k] = p
			}
			switch storage.LectureState(c.State) {
			case storage.LectureCompleted:
				p.completed += c.N
			case storage.LectureRead:
				p.read += c.N
			}
			if c.Last.Valid && (p.last == nil || c.Last.Time.After(*p.last)) {
				t := c.Last.Time
				p.last = &t
			}
		}
	}

	byMember := map[int64][]storage.EnrollmentProgress{}
	for _, e := range enrollments {
		ep := storage.EnrollmentProgress{
			Enrollment: storage.Enrollment{
				ID: e.EnrollmentID, MemberID: e.MemberID, CourseID: e.CourseID,
				ExpireDate: utcPtr(e.ExpireDate), LifetimeAccess: e.LifetimeAccess, EnrolledAt: utc(e.EnrolledAt),
			},
			CourseSlug:    e.Slug,
			CourseTitle:   e.Title,
			TotalLectures: totals[e.CourseID],
		}
		if p := progress[progressKey{e.MemberID, e.CourseID}]; p != nil {
			ep.CompletedLectures, ep.ReadLectures, ep.LastActivityAt = p.completed, p.read, p.last
		}
		byMember[e.MemberID] = append(byMember[e.MemberID], ep)
	}

	out := make([]storage.StudentProgress, len(members))
	for i, m := range members {
		out[i] = storage.StudentProgress{
			Member:      storage.Member{ID: m.ID, Email: m.Email, Name: m.Name, AvatarURL: m.AvatarURL},
			Roles:       sortRoles(roles[m.ID]),
			Enrollments: byMember[m.ID],
		}
		if out[i].Enrollments == nil {
			out[i].Enrollments = []storage.EnrollmentProgress{}
		}
	}
	return out, next, nil
}

// ListPaymentLedger pages through the school's payments, newest first, in two statements: the
// payments, then their buyers.
func (s *Store) ListPaymentLedger(ctx context.Context, at time.Time, page storage.Page) ([]storage.LedgerEntry, string, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return nil, "", err
	}
	const op = "list payment ledger"
	now := dbTime(at)
	db := s.conn(ctx)
	rows, next, err := readTimeIDPage(sc.in(db), "created_at", "id", true, page, op, func(r paymentRow) (time.Time, int64) { return r.CreatedAt, r.ID })
	if err != nil {
		return nil, "", err
	}
	if len(rows) == 0 {
		return []storage.LedgerEntry{}, "", nil
	}
	var buyerIDs []int64
	for _, r := range rows {
		if !slices.Contains(buyerIDs, r.MemberID) {
			buyerIDs = append(buyerIDs, r.MemberID)
		}
	}
	var buyers []memberRow
	if err := db.Select("id, email, name").Where("id IN ?", buyerIDs).Find(&buyers).Error; err != nil {
		return nil, "", wrap(op, err)
	}
	byID := make(map[int64]memberRow, len(buyers))
	for _, b := range buyers {
		byID[b.ID] = b
	}
	out := make([]storage.LedgerEntry, len(rows))
	for i, r := range rows {
		p, err := r.payment(now)
		if err != nil {
			return nil, "", fmt.Errorf("gormstore: %s: payment %s: %w", op, r.TradeNo, err)
		}
		b := byID[r.MemberID]
		out[i] = storage.LedgerEntry{Payment: p, BuyerEmail: b.Email, BuyerName: b.Name}
	}
	return out, next, nil
}

// GetSchoolStats counts in six aggregate statements, each over one table of the school.
func (s *Store) GetSchoolStats(ctx context.Context, at time.Time) (storage.SchoolStats, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return storage.SchoolStats{}, err
	}
	const op = "get school stats"
	now := dbTime(at)
	db := s.conn(ctx)
	stats := storage.SchoolStats{MembersByRole: map[storage.Role]int{}, PaymentsByState: map[string]int{}, Revenue: []storage.CurrencyRevenue{}}

	var roles []struct {
		Role string
		N    int
	}
	if err := sc.in(db.Model(&memberRoleRow{})).Select("role, COUNT(*) AS n").Group("role").Scan(&roles).Error; err != nil {
		return storage.SchoolStats{}, wrap(op, err)
	}
	for _, r := range roles {
		stats.MembersByRole[storage.Role(r.Role)] = r.N
	}

	var courses struct{ Total, Published int }
	err = sc.in(db.Model(&courseRow{})).
		Select("COUNT(*) AS total, CAST(COALESCE(SUM(CASE WHEN published THEN 1 ELSE 0 END), 0) AS BIGINT) AS published").
		Scan(&courses).Error
	if err != nil {
		return storage.SchoolStats{}, wrap(op, err)
	}
	stats.Courses, stats.PublishedCourses = courses.Total, courses.Published

	// Active as the Member API's consulting services judge it: lifetime access, no expiry, or an
	// expiry still ahead.
	var enrollments struct{ Total, Active int }
	err = sc.in(db.Model(&enrollmentRow{})).
		Select("COUNT(*) AS total, CAST(COALESCE(SUM(CASE WHEN lifetime_access OR expire_date IS NULL OR expire_date > ? THEN 1 ELSE 0 END), 0) AS BIGINT) AS active", now).
		Scan(&enrollments).Error
	if err != nil {
		return storage.SchoolStats{}, wrap(op, err)
	}
	stats.Enrollments, stats.ActiveEnrollments = enrollments.Total, enrollments.Active

	var completed int64
	err = sc.in(db.Model(&progressRow{})).Where("state = ?", string(storage.LectureCompleted)).Count(&completed).Error
	if err != nil {
		return storage.SchoolStats{}, wrap(op, err)
	}
	stats.CompletedLectures = int(completed)

	// The state as ListPayments reports it: an unpaid payment past its deadline has expired.
	var states []struct {
		State string
		N     int
	}
	seen := sc.in(db.Model(&paymentRow{})).
		Select("CASE WHEN payment_state = ? AND expired_at IS NOT NULL AND expired_at <= ? THEN ? ELSE payment_state END AS state",
			storage.PaymentUnpaid, now, storage.PaymentExpired)
	if err := db.Table("(?) AS p", seen).Select("state, COUNT(*) AS n").Group("state").Scan(&states).Error; err != nil {
		return storage.SchoolStats{}, wrap(op, err)
	}
	for _, st := range states {
		stats.PaymentsByState[st.State] = st.N
	}

	var revenue []struct {
		Currency       string
		Paid, Refunded int64
	}
	err = sc.in(db.Model(&paymentRow{})).
		Select("currency, "+
			"CAST(COALESCE(SUM(CASE WHEN payment_state IN ? THEN amount ELSE 0 END), 0) AS BIGINT) AS paid, "+
			"CAST(COALESCE(SUM(refunded_amount), 0) AS BIGINT) AS refunded",
			[]string{storage.PaymentPaid, storage.PaymentRefunded}).
		Group("currency").Order("currency").Scan(&revenue).Error
	if err != nil {
		return storage.SchoolStats{}, wrap(op, err)
	}
	for _, r := range revenue {
		stats.Revenue = append(stats.Revenue, storage.CurrencyRevenue{Currency: r.Currency, Paid: r.Paid, Refunded: r.Refunded})
	}
	return stats, nil
}
