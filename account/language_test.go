package account_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/proctorhq/proctor/account"
	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/storage"
)

// The account page, the confirmation of a new address, a refused form and a dead link are in
// the browser's language: the page's own words, the sentences the handlers write, the names
// of events and devices; none of the English ones remains.
func TestAccountPagesInLanguage(t *testing.T) {
	e := newEnv(t)
	ann := e.browserAs(chromeMac)
	ann.SignIn(e.a, annEmail)
	res := ann.submit(e.a, account.EmailPath, url.Values{"email": {"ann.new@example.com"}, "current_password": {memberPass}})
	if res.Status != http.StatusSeeOther {
		t.Fatalf("e-mail change: %d\n%s", res.Status, res.Body)
	}
	mails := e.deliver()
	if len(mails) != 1 {
		t.Fatalf("%d mails", len(mails))
	}
	link := linkToken.FindString(mails[0].Text)
	if link == "" {
		t.Fatalf("no link in:\n%s", mails[0].Text)
	}
	e.tokens = append(e.tokens, strings.TrimPrefix(link, account.EmailConfirmPath+"?token="))

	type page struct {
		name, method, path string
		form               url.Values
		status             int
		// want are sentences of the page in each language; english are sentences it must not
		// hold in either.
		want    map[string][]string
		english []string
	}
	pages := []page{
		{name: "account", method: http.MethodGet, path: account.AccountPath, status: http.StatusOK,
			want: map[string][]string{
				"ja":    {"Northwind のアカウント", "ログイン中のデバイス", "このデバイス", "macOS の Chrome", "ログインしました", "最近のアクティビティ"},
				"zh-TW": {"您在 Northwind 的帳號", "您已登入的位置", "此裝置", "macOS 上的 Chrome", "已登入", "近期活動"},
			},
			english: []string{"Your account", "Where you are signed in", "This device", "Chrome on macOS", "Signed in", "Recent activity", "Save profile", "Sign out"}},
		{name: "notice", method: http.MethodGet, path: account.AccountPath + "?done=email-sent", status: http.StatusOK,
			want: map[string][]string{
				"ja":    {"新しいアドレスに確認用のリンクをお送りしました。"},
				"zh-TW": {"我們已將確認連結寄到新地址。"},
			},
			english: []string{"We sent a confirmation link"}},
		{name: "refused form", method: http.MethodPost, path: account.ProfilePath, form: url.Values{"name": {""}}, status: http.StatusOK,
			want: map[string][]string{
				"ja":    {"名前を入力してください。"},
				"zh-TW": {"請輸入您的姓名。"},
			},
			english: []string{"Enter your name."}},
		{name: "confirm", method: http.MethodGet, path: link, status: http.StatusOK,
			want: map[string][]string{
				"ja":    {"新しいメールアドレスの確認", "としてログインしています。", "このアドレスを使用"},
				"zh-TW": {"確認您的新電子郵件地址", "您目前登入的身分是", "使用此地址"},
			},
			english: []string{"Confirm your new e-mail address", "You are signed in as", "Use this address", "Cancel"}},
		{name: "dead link", method: http.MethodGet, path: account.EmailConfirmPath + "?token=" + strings.Repeat("A", 43), status: http.StatusNotFound,
			want: map[string][]string{
				"ja":    {"このリンクは使用できません"},
				"zh-TW": {"此連結無法使用"},
			},
			english: []string{"This link does not work"}},
	}
	for _, p := range pages {
		for _, lang := range []string{"ja", "zh-TW"} {
			form := p.form
			if form != nil {
				form = url.Values{"csrf_token": {formWith(t, ann.page(e.a), account.ProfilePath).Get("csrf_token")}}
				for k, v := range p.form {
					form[k] = v
				}
			}
			res := ann.inLang(lang, p.method, e.url(e.a, p.path), form)
			if res.Status != p.status {
				t.Errorf("%s in %s: %d\n%s", p.name, lang, res.Status, res.Body)
				continue
			}
			schools.PageIn(t, p.name, res.Body, lang, p.want[lang], p.english)
		}
	}
}

// The account page writes its dates in the school's time zone: at a school in Asia/Tokyo a
// sign-in at 13:05 UTC was at 22:05.
func TestAccountPageDatesInSchoolTimeZone(t *testing.T) {
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Skip("no time zone database:", err)
	}
	e := newEnv(t)
	e.a.Location = tokyo // before any request: the registry shares the school
	e.clock.Set(time.Date(2026, 11, 26, 13, 5, 0, 0, time.UTC))
	ann := e.browserAs(chromeMac)
	ann.SignIn(e.a, annEmail)
	page := ann.page(e.a)
	if !strings.Contains(page, "26 Nov 2026, 22:05 JST") || strings.Contains(page, "13:05") {
		t.Errorf("the page does not write 13:05 UTC as 22:05 in Tokyo:\n%s", page)
	}
	if ja := ann.inLang("ja", http.MethodGet, e.url(e.a, account.AccountPath), nil).Body; !strings.Contains(ja, "2026年11月26日 22:05 JST") {
		t.Errorf("the ja page does not write the date in Japanese in Tokyo:\n%s", ja)
	}
	// School B has no time zone: UTC.
	schools.SetRoles(t, e.gs, e.b, e.ann.ID, storage.RoleStudent)
	annB := e.browserAs(chromeMac)
	annB.SignIn(e.b, annEmail)
	if page := annB.page(e.b); !strings.Contains(page, "26 Nov 2026, 13:05 UTC") {
		t.Errorf("school B does not write UTC:\n%s", page)
	}
}

// inLang sends one request with Accept-Language lang.
func (b *browser) inLang(lang, method, rawURL string, form url.Values) *response {
	b.Lang = lang
	defer func() { b.Lang = "" }()
	return b.Do(method, rawURL, form)
}
