package gormstore

import (
	"context"
	"fmt"
	"time"
	"unicode/utf8"

	"gorm.io/gorm"

	"github.com/proctorhq/proctor/storage"
)

func postFromRow(r postRow) storage.Post {
	p := r.Post
	p.PublishedAt = utc(p.PublishedAt)
	return p
}

// ListPosts pages through the school's posts, newest first.
func (s *Store) ListPosts(ctx context.Context, page storage.Page) ([]storage.Post, string, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return nil, "", err
	}
	rows, next, err := readTimeIDPage(sc.in(s.conn(ctx)), "published_at", "id", true, page, "list posts", func(r postRow) (time.Time, int64) { return r.PublishedAt, r.ID })
	if err != nil {
		return nil, "", err
	}
	return convertRows(rows, postFromRow), next, nil
}

// postNotificationKind is the kind of the notifications a post sends; postSummaryRunes bounds
// how much of the post's body they quote (an inbox shows a line, not an article).
const (
	postNotificationKind = "post"
	postSummaryRunes     = 280
)

// CreatePost stores a post and, with notify, its notifications, in one transaction. The
// notifications are inserted by one INSERT ... SELECT whatever the audience's size, and skip the
// members whose stored choice for the in-app "posts" topic is off.
func (s *Store) CreatePost(ctx context.Context, p storage.Post, notify bool) (storage.Post, int, error) {
	op := fmt.Sprintf("create post %q", p.Key)
	sc, err := s.scopedInput(ctx, op, invalid{p.Key == "", "key is empty"})
	if err != nil {
		return storage.Post{}, 0, err
	}
	publishedAt := s.orNow(p.PublishedAt)
	row := postRow{SchoolID: sc.schoolID, Post: p}
	row.ID, row.PublishedAt = 0, dbTime(publishedAt)
	var notified int
	err = s.inTx(ctx, op, func(tx *gorm.DB) error {
		if p.CourseID != nil {
			if err := requireRow(sc.in(tx.Model(&courseRow{})).Where("id = ?", *p.CourseID), op); err != nil {
				return err
			}
		}
		if err := tx.Create(&row).Error; err != nil {
			return wrap(op, err)
		}
		if !notify {
			return nil
		}
		audience := "SELECT DISTINCT member_id FROM member_roles WHERE school_id = ?"
		args := []any{sc.schoolID}
		if p.CourseID != nil {
			audience = "SELECT member_id FROM enrollments WHERE school_id = ? AND course_id = ?"
			args = append(args, *p.CourseID)
		}
		insert := `INSERT INTO notifications (school_id, key, member_id, kind, title, body, url, created_at)
SELECT ?, ? || CAST(a.member_id AS TEXT), a.member_id, ?, ?, ?, '', ?
FROM (` + audience + `) AS a
WHERE NOT EXISTS (
    SELECT 1 FROM notification_subscriptions AS ns
    WHERE ns.school_id = ? AND ns.member_id = a.member_id AND ns.topic = ? AND ns.channel = ? AND NOT ns.enabled
)`
		params := append([]any{sc.schoolID, "post:" + p.Key + ":", postNotificationKind, p.Title, summary(p.Body), row.PublishedAt}, args...)
		params = append(params, sc.schoolID, storage.TopicPosts, storage.ChannelInApp)
		res := tx.Exec(insert, params...)
		if res.Error != nil {
			return wrap(op+": notify", res.Error)
		}
		notified = int(res.RowsAffected)
		return nil
	})
	if err != nil {
		return storage.Post{}, 0, err
	}
	return postFromRow(row), notified, nil
}

// summary shortens a post's body for the notification that announces it; the post itself keeps
// the whole text.
func summary(body string) string {
	if utf8.RuneCountInString(body) <= postSummaryRunes {
		return body
	}
	r := []rune(body)
	return string(r[:postSummaryRunes-1]) + "…"
}

func commentFromRow(r commentRow) storage.Comment {
	return storage.Comment{
		ID: r.ID, Key: r.Key, MemberID: r.MemberID, PostID: r.PostID, LectureID: r.LectureID,
		Body: r.Body, CreatedAt: utc(r.CreatedAt),
	}
}

// ListComments pages through the school's comments, newest first.
func (s *Store) ListComments(ctx context.Context, filter storage.CommentFilter, page storage.Page) ([]storage.Comment, string, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return nil, "", err
	}
	q := sc.in(s.conn(ctx))
	if filter.PostID != 0 {
		q = q.Where("post_id = ?", filter.PostID)
	}
	if filter.LectureID != 0 {
		q = q.Where("lecture_id = ?", filter.LectureID)
	}
	if filter.MemberID != 0 {
		q = q.Where("member_id = ?", filter.MemberID)
	}
	rows, next, err := readTimeIDPage(q, "created_at", "id", true, page, "list comments", func(r commentRow) (time.Time, int64) { return r.CreatedAt, r.ID })
	if err != nil {
		return nil, "", err
	}
	return convertRows(rows, commentFromRow), next, nil
}
