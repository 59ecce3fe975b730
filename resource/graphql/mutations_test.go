package graphql_test

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestNotificationMutations(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		seeded(e)
		token := e.Token(e.A, sam, bothScopes)
		emmaToken := e.Token(e.A, emma, bothScopes)

		list := func(token string) (ids []string, unread int) {
			t.Helper()
			r := e.post(e.A, token, `{ viewer { notifications(unreadOnly: true) { nodes { id } } unreadNotificationCount } }`, nil)
			var out struct {
				Viewer struct {
					Notifications           struct{ Nodes []struct{ ID string } }
					UnreadNotificationCount int
				}
			}
			if err := json.Unmarshal(r.Data, &out); err != nil || len(r.Errors) != 0 {
				t.Fatalf("notifications: %s", r.raw)
			}
			for _, n := range out.Viewer.Notifications.Nodes {
				ids = append(ids, n.ID)
			}
			return ids, out.Viewer.UnreadNotificationCount
		}
		samUnread, n := list(token)
		emmaUnread, _ := list(emmaToken)
		if len(samUnread) != 2 || n != 2 || len(emmaUnread) != 1 {
			t.Fatalf("unread: Sam %v (%d), Emma %v", samUnread, n, emmaUnread)
		}

		mark := `mutation($id: ID!) { markNotificationRead(id: $id) { id readAt } }`
		r := e.post(e.A, token, mark, map[string]any{"id": samUnread[0]})
		if len(r.Errors) != 0 || !strings.Contains(string(r.Data), `"readAt":"`) {
			t.Errorf("markNotificationRead: %s", r.raw)
		}
		first := string(r.Data)
		if r = e.post(e.A, token, mark, map[string]any{"id": samUnread[0]}); string(r.Data) != first {
			t.Errorf("marking twice changed the answer: %s, then %s", first, r.Data)
		}
		// Emma's notification, an unknown one, a malformed id: not found, and Emma's stays unread.
		for _, id := range []string{emmaUnread[0], "999999", "abc"} {
			r := e.post(e.A, token, mark, map[string]any{"id": id})
			if r.code(0) != "NOT_FOUND" || !strings.Contains(string(r.Data), `"markNotificationRead":null`) {
				t.Errorf("markNotificationRead(%s): %s", id, r.raw)
			}
		}
		if still, _ := list(emmaToken); len(still) != 1 {
			t.Errorf("Emma's notification was marked read by Sam")
		}

		r = e.post(e.A, token, `mutation { markAllNotificationsRead { markedCount unreadNotificationCount } }`, nil)
		if string(r.Data) != `{"markAllNotificationsRead":{"markedCount":1,"unreadNotificationCount":0}}` {
			t.Errorf("markAllNotificationsRead: %s", r.raw)
		}
		if _, n := list(token); n != 0 {
			t.Errorf("unread after marking all: %d", n)
		}
		if still, _ := list(emmaToken); len(still) != 1 {
			t.Errorf("Emma's notification was marked read by Sam's markAll")
		}
	})
}

func TestUpdateNotificationSubscription(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		seeded(e)
		token := e.Token(e.A, sam, bothScopes)
		update := `mutation($input: UpdateNotificationSubscriptionInput!) { updateNotificationSubscription(input: $input) { topic channel enabled } }`
		for _, in := range []map[string]any{
			{"topic": "posts", "channel": "in_app", "enabled": true},
			{"topic": "payments", "channel": "email", "enabled": false},
		} {
			r := e.post(e.A, token, update, map[string]any{"input": in})
			want, _ := json.Marshal(map[string]any{"updateNotificationSubscription": map[string]any{"topic": in["topic"], "channel": in["channel"], "enabled": in["enabled"]}})
			if len(r.Errors) != 0 || !jsonEqual(r.Data, want) {
				t.Errorf("update %v: %s", in, r.raw)
			}
		}
		r := e.post(e.A, token, update, map[string]any{"input": map[string]any{"topic": "gossip", "channel": "email", "enabled": true}})
		if r.code(0) != "GRAPHQL_VALIDATION_FAILED" {
			t.Errorf("unknown topic: %s", r.raw)
		}

		r = e.post(e.A, token, `{ viewer { notificationSubscriptions { topic channel enabled } } }`, nil)
		for _, want := range []string{
			`{"topic":"posts","channel":"in_app","enabled":true}`,
			`{"topic":"payments","channel":"email","enabled":false}`,
			`{"topic":"posts","channel":"email","enabled":false}`,
		} {
			if !strings.Contains(string(r.Data), want) {
				t.Errorf("subscriptions lack %s: %s", want, r.Data)
			}
		}
		// Emma's choices are her own.
		r = e.post(e.A, e.Token(e.A, emma, readScope), `{ viewer { notificationSubscriptions { topic channel enabled } } }`, nil)
		if strings.Contains(string(r.Data), `"enabled":true`) {
			t.Errorf("Emma sees Sam's choices: %s", r.Data)
		}
	})
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}
