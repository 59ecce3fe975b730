package gormstore

import (
	"context"
	"fmt"
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
// lecture id. No course ids, no rows.
func (s *Store) GetLectureProgress(ctx context.Context, memberID int64, courseIDs []int64) ([]storage.LectureProgress, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return nil, err
	}
	out := []storage.LectureProgress{}
	if len(courseIDs) == 0 {
		return out, nil
	}
	var rows []progressRow
	err = sc.in(s.conn(ctx)).
		Where("member_id = ? AND course_id IN ?", memberID, courseIDs).
		Order("course_id, lecture_id").Find(&rows).Error
	if err != nil {
		return nil, wrap(fmt.Sprintf("get lecture progress of member %d", memberID), err)
	}
	for _, r := range rows {
		out = append(out, r.progress())
	}
	return out, nil
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
