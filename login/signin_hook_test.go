package login

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/proctorhq/proctor/edge"
	"github.com/proctorhq/proctor/storage"
)

// signIns records OnSignIn's calls.
type signIns struct {
	mu    sync.Mutex
	calls []signIn
}

type signIn struct {
	member   storage.Member
	addr, ua string
}

func (s *signIns) record(ctx context.Context, r *http.Request, m storage.Member) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, signIn{member: m, addr: edge.FromContext(ctx).ClientAddr.String(), ua: r.UserAgent()})
}

func (s *signIns) all() []signIn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]signIn(nil), s.calls...)
}

func TestOnSignIn(t *testing.T) {
	var got signIns
	e := newEnv(t, func(d *Deps) { d.OnSignIn = got.record })
	b := e.browser(hostA, false)
	b.addr, b.ua = "198.51.100.7", "TestBrowser/1.0"

	// A failed sign-in calls nothing.
	if res := b.login(annEmail, "not the password", ""); res.StatusCode != http.StatusOK {
		t.Fatalf("failed sign-in: %d", res.StatusCode)
	}
	if res := b.login("nobody@example.com", annPassword, ""); res.StatusCode != http.StatusOK {
		t.Fatalf("failed sign-in of an unknown address: %d", res.StatusCode)
	}
	if calls := got.all(); len(calls) != 0 {
		t.Fatalf("OnSignIn called on failed sign-ins: %+v", calls)
	}

	b.mustLogin()
	calls := got.all()
	if len(calls) != 1 {
		t.Fatalf("OnSignIn called %d times after one sign-in, want once", len(calls))
	}
	c := calls[0]
	if c.member.ID != e.ann.ID || c.member.Email != e.ann.Email || c.member.PasswordHash != "" {
		t.Errorf("OnSignIn's member: %+v, want Ann without her password hash", c.member)
	}
	if c.addr != "198.51.100.7" || c.ua != "TestBrowser/1.0" {
		t.Errorf("OnSignIn's request: address %q, User-Agent %q", c.addr, c.ua)
	}
	// It is called once the session exists: the session it follows is stored with the
	// request's browser and address.
	ls, _, err := e.store.GetLoginSession(e.ctx(hostA), e.h.sessionID(b.cookies[SessionCookie].Value))
	if err != nil {
		t.Fatal(err)
	}
	if ls.UserAgent != "TestBrowser/1.0" || ls.ClientAddr != "198.51.100.7" {
		t.Errorf("stored session: User-Agent %q, address %q", ls.UserAgent, ls.ClientAddr)
	}
}
