package account_test

import (
	"strings"
	"testing"
	"time"

	"github.com/proctorhq/proctor/account"
	"github.com/proctorhq/proctor/i18n"
	"github.com/proctorhq/proctor/storage"
)

// The service writes its messages in the language of the context it is given (the page's
// request, or the command's school), the expiry in that context's time zone; a reset request
// keeps the language of the form that asked until the worker writes the message.
func TestMessagesInTheContextsLanguage(t *testing.T) {
	e := newEnv(t)
	cat, err := i18n.Load()
	if err != nil {
		t.Fatal(err)
	}
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
