package account_test

import (
	"strings"
	"testing"
	"time"

	"github.com/proctorhq/proctor/account"
	"github.com/proctorhq/proctor/i18n"
	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/templates"
)

// The service writes its messages in the language of the context it is given (the page's
// request, or the command's school), the expiry in that context's time zone; a reset request
// keeps the language of the form that asked until the worker writes the message.
func TestMessagesInTheContextsLanguage(t *testing.T) {
	e := newEnv(t)
	cat := schools.Catalogue(t)
	taipei := time.FixedZone("CST", 8*3600)

	ctx := i18n.NewContext(e.ctx(e.a), cat.Localizer("ja", taipei))
	if _, err := e.svc.Invite(ctx, account.Invitation{Email: "nora@example.com", Name: "Nora", Roles: []storage.Role{storage.RoleStudent}}); err != nil {
		t.Fatal(err)
	}
	expires := e.clock.Now().Add(account.DefaultInvitationTTL).In(taipei).Format("2006年1月2日 15:04 MST")
	msgs := e.deliver()
	if len(msgs) != 1 || msgs[0].Subject != "Northwind への招待" || !strings.Contains(msgs[0].HTML, `<html lang="ja">`) {
		t.Fatalf("invitation %+v", msgs)
	}
	for part, body := range map[string]string{"text": msgs[0].Text, "html": msgs[0].HTML} {
		if !strings.Contains(body, "7 日後（"+expires+"）") || strings.Contains(body, "expires") {
			t.Errorf("invitation %s part, want the expiry %s in Japanese:\n%s", part, expires, body)
		}
	}
	e.linkIn(msgs[0])

	ctx = i18n.NewContext(e.ctx(e.a), cat.Localizer("zh-TW", taipei))
	if err := e.svc.RequestReset(ctx, annEmail); err != nil {
		t.Fatal(err)
	}
	msgs = e.deliver()
	if len(msgs) != 1 || msgs[0].Subject != "重設您在 Northwind 的密碼" || !strings.Contains(msgs[0].HTML, `<html lang="zh-TW">`) {
		t.Fatalf("reset %+v", msgs)
	}
	// The worker writes the expiry in the school's time zone (UTC here), in the form's language.
	resetExpires := e.clock.Now().Add(account.DefaultResetTTL).UTC().Format("2006年1月2日 15:04 MST")
	for part, body := range map[string]string{"text": msgs[0].Text, "html": msgs[0].HTML} {
		if !strings.Contains(body, "30 分鐘後（"+resetExpires+"）") || strings.Contains(body, "expires") {
			t.Errorf("reset %s part, want the expiry %s in Chinese:\n%s", part, resetExpires, body)
		}
	}
	e.linkIn(msgs[0])
}

// The messages wear the school's look: written during a page's request, the request's; written
// later by the mail worker (a reset request), the one the service is given for the school.
func TestMessagesWearTheSchoolsLook(t *testing.T) {
	e := newEnv(t)
	if err := e.svc.RequestReset(e.ctx(e.a), annEmail); err != nil {
		t.Fatal(err)
	}
	msgs := e.deliver()
	if len(msgs) != 1 {
		t.Fatalf("%d messages", len(msgs))
	}
	html := msgs[0].HTML
	if !strings.Contains(html, "a { color: #0f766e; }") || !strings.Contains(html, `<img src="`+e.a.URL("/assets/logo-0123456789abcdef")+`" alt="`+e.a.Name+`"`) {
		t.Errorf("the worker's reset message lacks the school's colour or logo:\n%s", html)
	}

	look := templates.Look{Color: "#7a1fa2"}
	ctx := templates.NewLookContext(e.ctx(e.a), func() templates.Look { return look })
	if _, err := e.svc.Invite(ctx, account.Invitation{Email: "nora@example.com", Name: "Nora", Roles: []storage.Role{storage.RoleStudent}}); err != nil {
		t.Fatal(err)
	}
	msgs = e.deliver()
	if len(msgs) != 1 || !strings.Contains(msgs[0].HTML, "a { color: #7a1fa2; }") || strings.Contains(msgs[0].HTML, "<img") {
		t.Fatalf("the invitation does not wear the request's look: %+v", msgs)
	}
	if !strings.Contains(msgs[0].HTML, `color: #7a1fa2;">`+e.a.Name+`</p>`) {
		t.Errorf("without a logo the school's name is not shown in its colour:\n%s", msgs[0].HTML)
	}
}
