package gormstore

import (
	"context"
	"fmt"
	"slices"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/proctorhq/proctor/storage"
)

func (r progressRow) progress() storage.LectureProgress {
	return storage.LectureProgress{
		MemberID:        r.MemberID,
		LectureID:       r.LectureID,
		CourseID:        r.CourseID,
		State:           storage.LectureState(r.State),
		PositionSeconds: r.PositionSeconds,
		UpdatedAt:       utc(r.UpdatedAt),
	}
}

// GetLectureProgress returns a member's progress rows for the given courses, ordered by course and
// lecture id. No course ids, no rows. A member may have thousands, so they are scanned straight
// from the driver, only the columns the result needs, rather than through gorm's reflection
// (BenchmarkGetLectureProgress).
func (s *Store) GetLectureProgress(ctx context.Context, memberID int64, courseIDs []int64) ([]storage.LectureProgress, error) {
	return readForIDs(s, ctx, courseIDs, func(sc scope) ([]storage.LectureProgress, error) {
		op := fmt.Sprintf("get lecture progress of member %d", memberID)
		rows, err := sc.in(s.conn(ctx).Model(&progressRow{})).
			Select("lecture_id, course_id, state, position_seconds, "+s.timeAsText("updated_at")).
			Where("member_id = ? AND course_id IN ?", memberID, courseIDs).
			Order("course_id, lecture_id").Rows()
		if err != nil {
			return nil, wrap(op, err)
		}
		defer rows.Close()
		// Scanned into the driver's own types (database/sql converts into others by reflection,
		// and into an int through a string), declared once: Scan's pointers make them escape.
		var (
			lecture, course, position int64
			state                     string
			updated                   textTime
		)
		out := []storage.LectureProgress{}
		for rows.Next() {
			if err := rows.Scan(&lecture, &course, &state, &position, &updated); err != nil {
				return nil, wrap(op, err)
			}
			out = append(out, storage.LectureProgress{
				MemberID: memberID, LectureID: lecture, CourseID: course, State: storage.LectureState(state),
				PositionSeconds: int(position), UpdatedAt: updated.Time,
			})
		}
		return out, wrap(op, rows.Err())
	})
}

// courseProgressSQL sums up a member's progress per course in one statement: the rows counted
// per course and state with the latest update of each group (g), the highest lecture id among
// the group's rows updated at that time (l), and that row's position (p). A course yields a row
// per state it has rows in; the last watched lecture is the latest of them. Every step is an
// index seek on conditions that name the index's leading columns (lecture_progress_member_idx,
// then the primary key), so the plan does not hang on table statistics, which a freshly loaded
// database lacks: without them both databases chose to scan all the member's rows once per
// course. "+ 0" is part of that: it keeps SQLite from answering MAX by walking the primary key
// (member_id, lecture_id) backwards, which matches one condition only.
const courseProgressSQL = `SELECT l.course_id, l.state, l.n, l.last, p.lecture_id, p.position_seconds
FROM (
    SELECT g.course_id, g.state, g.n, g.last, (
        SELECT MAX(q.lecture_id + 0) FROM lecture_progress AS q
        WHERE q.school_id = ? AND q.member_id = ? AND q.course_id = g.course_id AND q.state = g.state AND q.updated_at = g.last
    ) AS lecture_id
    FROM (
        SELECT course_id, state, COUNT(*) AS n, MAX(updated_at) AS last
        FROM lecture_progress
        WHERE school_id = ? AND member_id = ? AND course_id IN ?
        GROUP BY course_id, state
    ) AS g
) AS l
JOIN lecture_progress AS p ON p.member_id = ? AND p.lecture_id = l.lecture_id`

// GetCourseProgress sums up a member's progress through the given courses in two statements,
// three when their curricula are not cached: the curricula give the lectures (their number, and
// the title of the last watched), courseProgressSQL the rest.
func (s *Store) GetCourseProgress(ctx context.Context, memberID int64, courseIDs []int64) ([]storage.CourseProgress, error) {
	return readForIDs(s, ctx, courseIDs, func(sc scope) ([]storage.CourseProgress, error) {
		cs, err := s.curricula(ctx, sc, courseIDs)
		if err != nil || len(cs) == 0 {
			return []storage.CourseProgress{}, err
		}
		ids := make([]int64, len(cs))
		byCourse := make(map[int64]*storage.CourseProgress, len(cs))
		out := make([]storage.CourseProgress, len(cs))
		for i, c := range cs {
			ids[i] = c.courseID
			out[i] = storage.CourseProgress{CourseID: c.courseID, TotalLectures: len(c.lectures)}
			byCourse[c.courseID] = &out[i]
		}

		op := fmt.Sprintf("get course progress of member %d", memberID)
		rows, err := s.conn(ctx).Raw(courseProgressSQL, sc.schoolID, memberID, sc.schoolID, memberID, ids, memberID).Rows()
		if err != nil {
			return nil, wrap(op, err)
		}
		defer rows.Close()
		var (
			course, n, lecture, position int64
			state                        string
			last                         textTime
		)
		for rows.Next() {
			if err := rows.Scan(&course, &state, &n, &last, &lecture, &position); err != nil {
				return nil, wrap(op, err)
			}
			p := byCourse[course]
			switch storage.LectureState(state) {
			case storage.LectureCompleted:
				p.CompletedLectures = int(n)
			case storage.LectureRead:
				p.ReadLectures = int(n)
			}
			row := storage.LectureProgress{
				MemberID: memberID, LectureID: lecture, CourseID: course, State: storage.LectureState(state),
				PositionSeconds: int(position), UpdatedAt: last.Time,
			}
			if p.LastWatched == nil || row.WatchedAfter(*p.LastWatched) {
				p.LastWatched = &row
			}
		}
		if err := rows.Err(); err != nil {
			return nil, wrap(op, err)
		}
		for i, c := range cs {
			if l := out[i].LastWatched; l != nil {
				if j := slices.IndexFunc(c.lectures, func(x storage.Lecture) bool { return x.ID == l.LectureID }); j >= 0 {
					out[i].LastWatchedTitle = c.lectures[j].Title
				}
			}
		}
		return out, nil
	})
}

// UpdateLectureProgress applies fn to a member's progress on a lecture while its row is locked.
// A missing row is created first, inside the same transaction, so that two first updates of the
// same lecture also queue on one row instead of racing to insert it; fn then sees it unread at
// position 0 with a zero UpdatedAt, and if fn fails nothing remains. UpdatedAt is the store's
// clock: the latest row is the member's last watched lecture.
func (s *Store) UpdateLectureProgress(ctx context.Context, memberID, lectureID int64, fn func(storage.LectureProgress) (storage.LectureProgress, error)) (storage.LectureProgress, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return storage.LectureProgress{}, err
	}
	op := fmt.Sprintf("update progress of member %d on lecture %d", memberID, lectureID)
	var out storage.LectureProgress
	err = s.inTx(ctx, op, func(tx *gorm.DB) error {
		var lecture lectureRow
		if err := sc.in(tx).Select("id", "course_id").Where("id = ?", lectureID).Take(&lecture).Error; err != nil {
			return wrap(op, err)
		}
		now := dbTime(s.now())
		fresh := progressRow{
			SchoolID:  sc.schoolID,
			MemberID:  memberID,
			LectureID: lectureID,
			CourseID:  lecture.CourseID,
			State:     string(storage.LectureUnread),
			UpdatedAt: now,
		}
		// An unknown member fails here on the foreign key, which wrap reports as ErrNotFound.
		ins := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&fresh)
		if ins.Error != nil {
			return wrap(op, ins.Error)
		}
		created := ins.RowsAffected == 1

		var row progressRow
		err := forUpdate(sc.in(tx)).Where("member_id = ? AND lecture_id = ?", memberID, lectureID).Take(&row).Error
		if err != nil {
			return wrap(op, err)
		}
		cur := row.progress()
		if created {
			cur.UpdatedAt = time.Time{}
		}
		next, err := fn(cur)
		if err != nil {
			return err
		}
		if !next.State.Valid() {
			return fmt.Errorf("gormstore: %s: invalid lecture state %q: %w", op, next.State, storage.ErrInvalidArgument)
		}
		if next.PositionSeconds < 0 {
			return fmt.Errorf("gormstore: %s: negative position %d: %w", op, next.PositionSeconds, storage.ErrInvalidArgument)
		}
		row.State = string(next.State)
		row.PositionSeconds = next.PositionSeconds
		row.UpdatedAt = now
		err = sc.in(tx.Model(&progressRow{})).
			Where("member_id = ? AND lecture_id = ?", memberID, lectureID).
			Updates(map[string]any{"state": row.State, "position_seconds": row.PositionSeconds, "updated_at": row.UpdatedAt}).Error
		if err != nil {
			return wrap(op, err)
		}
		out = row.progress()
		return nil
	})
	return out, err
}
