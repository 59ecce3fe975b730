package operator

import (
	"context"
	"crypto/rand"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/proctorhq/proctor/storage"
)

// Post is an announcement, school-wide or for one course.
type Post struct {
	ID             int64     `json:"id"`
	Key            string    `json:"key"`
	Title          string    `json:"title"`
	Body           string    `json:"body"`
	CourseID       *int64    `json:"course_id,omitempty" doc:"Absent for a school-wide post."`
	AuthorMemberID *int64    `json:"author_member_id,omitempty"`
	PublishedAt    time.Time `json:"published_at"`
}

func postOut(p storage.Post) Post {
	return Post{ID: p.ID, Key: p.Key, Title: p.Title, Body: p.Body, CourseID: p.CourseID, AuthorMemberID: p.AuthorMemberID, PublishedAt: p.PublishedAt}
}

// NewPost publishes a post now.
type NewPost struct {
	Key      string `json:"key,omitempty" maxLength:"100" pattern:"^[a-z0-9]+(-[a-z0-9]+)*$" doc:"Unique key; generated when left out."`
	Title    string `json:"title" minLength:"1" maxLength:"200"`
	Body     string `json:"body" minLength:"1" maxLength:"50000"`
	CourseID *int64 `json:"course_id,omitempty" minimum:"1" doc:"The course the post is for; leave out for a school-wide post."`
	Notify   bool   `json:"notify,omitempty" doc:"Put a notification in the inbox of every student of the course (every member, for a school-wide post), except those who turned in-app post notifications off."`
}

// CreatedPost is a new post and how many members it notified.
type CreatedPost struct {
	Post
	Notified int `json:"notified"`
}

// Comment is a member's comment on a post or a lecture.
type Comment struct {
	ID        int64     `json:"id"`
	Key       string    `json:"key"`
	MemberID  int64     `json:"member_id"`
	PostID    *int64    `json:"post_id,omitempty"`
	LectureID *int64    `json:"lecture_id,omitempty"`
	Body      string    `json:"body"`
	CreatedAt time.Time `json:"created_at"`
}

func (h *Handler) registerPosts(api huma.API) {
	registerList(h, api, "list-posts", "post", stores.ListPosts, postOut)

	register(h, api, "create-post", func(ctx context.Context, in *struct{ Body NewPost }) (*struct{ Body CreatedPost }, error) {
		b := in.Body
		key := b.Key
		if key == "" {
			key = "post-" + strings.ToLower(rand.Text()[:16])
		}
		p, n, err := h.store.CreatePost(ctx, storage.Post{
			Key: key, Title: b.Title, Body: b.Body, CourseID: b.CourseID,
			AuthorMemberID: callerFrom(ctx).memberID(), PublishedAt: h.now(),
		}, b.Notify)
		if err != nil {
			return nil, h.problem(ctx, "post (or course)", err)
		}
		return &struct{ Body CreatedPost }{CreatedPost{Post: postOut(p), Notified: n}}, nil
	})
}

func (h *Handler) registerComments(api huma.API) {
	register(h, api, "list-comments", func(ctx context.Context, in *struct {
		PageParams
		PostID    int64 `query:"post_id" minimum:"1" doc:"Only comments on this post."`
		LectureID int64 `query:"lecture_id" minimum:"1" doc:"Only comments on this lecture."`
		MemberID  int64 `query:"member_id" minimum:"1" doc:"Only this member's comments."`
	}) (*ListOutput[Comment], error) {
		cs, next, err := h.store.ListComments(ctx, storage.CommentFilter{PostID: in.PostID, LectureID: in.LectureID, MemberID: in.MemberID}, in.page())
		return pageOf(ctx, h, "comment", cs, next, err, func(c storage.Comment) Comment {
			return Comment{ID: c.ID, Key: c.Key, MemberID: c.MemberID, PostID: c.PostID, LectureID: c.LectureID, Body: c.Body, CreatedAt: c.CreatedAt}
		})
	})
}
