package authz

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestSessionClonePairID: fosite's refresh handler clones the refresh token's session into the
// new request; the clone must still say which pair it was read from, or the new pair would
// replace none and its first use would retire nothing. The pair is never stored with the session.
func TestSessionClonePairID(t *testing.T) {
	s := newSession()
	s.SchoolID, s.pairID = 3, 42
	c, ok := s.Clone().(*Session)
	if !ok || c.SchoolID != 3 || replacedPair(c) != 42 {
		t.Fatalf("clone %+v", c)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "42") {
		t.Errorf("the pair id is stored with the session: %s", b)
	}
	if replacedPair(newSession()) != 0 {
		t.Error("a new session replaces a pair")
	}
}

// TestSessionDataReadsBack: what SessionData writes is read back as the stored request's
// session, the way a stored token pair is read.
func TestSessionDataReadsBack(t *testing.T) {
	data, err := SessionData(&Session{MemberID: 7, SchoolID: 3, Subdomain: "a", Resource: "https://a.example"})
	if err != nil {
		t.Fatal(err)
	}
	got := newSession()
	if err := json.Unmarshal(data, &storedRequest{Session: got}); err != nil {
		t.Fatal(err)
	}
	if got.MemberID != 7 || got.SchoolID != 3 || got.Subdomain != "a" || got.Resource != "https://a.example" {
		t.Errorf("read back %+v", got)
	}
}
