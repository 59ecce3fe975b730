package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/school"
)

// eventLines reads `events list --json`: one object a line.
func eventLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not a JSON line: %q: %v", l, err)
		}
		lines = append(lines, m)
	}
	return lines
}

func lineKinds(lines []map[string]any) []string {
	var out []string
	for _, l := range lines {
		out = append(out, l["kind"].(string))
	}
	return out
}

// The commands that change clients, roles, keys and lockouts record what they did, as the
// command line (actor cli), and `events list` reads the log back.
func TestEventsList(t *testing.T) {
	root := migratedDeployment(t, map[string]string{"one.yaml": schoolOne + "features: {id_tokens: true}\n", "two.yaml": schoolTwo})
	mustRun(t, "members", "create", "--school", "1", "--email", "ada@example.com", "--name", "Ada", "--role", "student")
	mustRun(t, "members", "set-role", "--school", "1", "--email", "ada@example.com", "--role", "admin,student")
	created := mustRunClient(t, "clients", "create", "--school", "1", "--name", "App", "--redirect-uri", "http://127.0.0.1/cb", "--confidential", "--json")
	rot := mustRunClient(t, "clients", "rotate-secret", "--school", "1", created.ClientID, "--json")
	mustRun(t, "clients", "delete", "--school", "1", created.ClientID)
	kid := strings.TrimSpace(mustRun(t, "keys", "rotate", "--school", "1"))
	mustRun(t, "members", "unlock", "--email", "ada@example.com")

	lines := eventLines(t, mustRun(t, "events", "list", "--school", "1", "--json"))
	want := []string{"lockout_lifted", "signing_key_rotated", "client_deleted", "client_secret_rotated", "client_created", "role_changed"}
	if got := lineKinds(lines); !slices.Equal(got, want) {
		t.Fatalf("kinds %v, want %v", got, want)
	}
	// The field names are the format's, every one present on every line.
	fields := []string{"id", "school_id", "at", "kind", "result", "actor", "actor_id", "subject_id", "client_id", "scopes",
		"client_addr", "user_agent", "request_id", "detail"}
	for _, l := range lines {
		var keys []string
		for k := range l {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		sorted := slices.Sorted(slices.Values(fields))
		if !slices.Equal(keys, sorted) {
			t.Errorf("line fields %v, want %v", keys, sorted)
		}
		if l["actor"] != "cli" || l["actor_id"] != nil || l["result"] != "success" || l["school_id"] != float64(1) {
			t.Errorf("line %v", l)
		}
		if s, _ := json.Marshal(l); strings.Contains(string(s), created.ClientSecret) {
			t.Error("a line holds the client secret")
		}
	}
	byKind := map[string]map[string]any{}
	for _, l := range lines {
		byKind[l["kind"].(string)] = l
	}
	if l := byKind["role_changed"]; l["detail"] != "student -> admin, student" || l["subject_id"] == nil {
		t.Errorf("role_changed %v", l)
	}
	if l := byKind["client_created"]; l["client_id"] != created.ClientID || l["detail"] != "member, confidential" || len(l["scopes"].([]any)) == 0 {
		t.Errorf("client_created %v", l)
	}
	if l := byKind["signing_key_rotated"]; l["detail"] != "kid "+kid {
		t.Errorf("signing_key_rotated %v", l)
	}
	for _, l := range lines {
		if s, _ := json.Marshal(l); rot.ClientSecret != "" && strings.Contains(string(s), rot.ClientSecret) {
			t.Error("a line holds the rotated secret")
		}
	}

	// Filters.
	if got := lineKinds(eventLines(t, mustRun(t, "events", "list", "--school", "1", "--json", "--kind", "client_deleted"))); !slices.Equal(got, []string{"client_deleted"}) {
		t.Errorf("--kind: %v", got)
	}
	if got := lineKinds(eventLines(t, mustRun(t, "events", "list", "--school", "1", "--json", "--member", "Ada@Example.com"))); !slices.Equal(got, []string{"lockout_lifted", "role_changed"}) {
		t.Errorf("--member: %v", got)
	}
	if got := lineKinds(eventLines(t, mustRun(t, "events", "list", "--school", "1", "--json", "--limit", "2"))); !slices.Equal(got, want[:2]) {
		t.Errorf("--limit 2: %v", got)
	}
	if got := eventLines(t, mustRun(t, "events", "list", "--school", "1", "--json", "--since", "2999-01-01T00:00:00Z")); len(got) != 0 {
		t.Errorf("--since in the future: %v", got)
	}
	if got := lineKinds(eventLines(t, mustRun(t, "events", "list", "--school", "1", "--json", "--until", "2999-01-01T00:00:00Z", "--limit", "0"))); len(got) != len(want) {
		t.Errorf("--until, --limit 0: %v", got)
	}
	// The other school's log is its own.
	if got := eventLines(t, mustRun(t, "events", "list", "--school", "2", "--json")); len(got) != 0 {
		t.Errorf("school 2: %v", got)
	}

	// The table keeps what came from outside off the terminal's controls.
	s := openDeployment(t, root)
	ctx := school.NewContext(t.Context(), &school.School{SchoolID: 1})
	if err := s.AppendSecurityEvent(ctx, audit.Event{Kind: audit.KindSignIn, Result: audit.ResultFailure, Actor: audit.ActorMember,
		UserAgent: "evil\x1b[2J", Detail: "line\nbreak\ttab\x1b]0;title\x07"}); err != nil {
		t.Fatal(err)
	}
	table := mustRun(t, "events", "list", "--school", "1")
	if !strings.HasPrefix(table, "ID") || !strings.Contains(table, "role_changed") || !strings.Contains(table, "line?break?tab?]0;title?") {
		t.Errorf("table:\n%s", table)
	}
	if strings.ContainsAny(table, "\x1b\x07\t") {
		t.Errorf("the table passes control characters through:\n%q", table)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--kind", "nonsense"}, "is not a kind of event"},
		{[]string{"--since", "yesterday"}, "RFC 3339"},
		{[]string{"--limit", "-1"}, "must not be negative"},
		{[]string{"--member", "nobody@example.com"}, "no member with e-mail nobody@example.com"},
		{[]string{"--member", "not an address"}, "is not an e-mail address"},
	} {
		refused(t, c.want, append([]string{"events", "list", "--school", "1"}, c.args...)...)
	}
}
