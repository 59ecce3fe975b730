package mfa_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/proctorhq/proctor/mfa"
	"github.com/proctorhq/proctor/server/servertest"
	"github.com/proctorhq/proctor/server/servertest/schools"
)

// The second-factor pages are in the browser's language: the list of factors before and
// after, the enrolment page and its refusal of a wrong code, and the recovery codes; none of
// their English sentences remains.
func TestPagesInLanguage(t *testing.T) {
	want := map[string]map[string][]string{
		"ja": {
			"off":      {"2 段階目の認証", "オフです。", "認証アプリの設定", "件登録済み。"},
			"enrol":    {"認証アプリでこのコードをスキャンするか", "アプリに表示される 6 桁のコード", "オンにする", `alt="キーの QR コード"`},
			"wrong":    {"コードが正しくありません。"},
			"codes":    {"リカバリーコード", "保存しました。続行する"},
			"on":       {"オンです。ログイン時に、アプリに表示されるコードの入力が求められます。", "残りのリカバリーコード：10 個", "認証アプリをオフにする"},
			"no codes": {"認証アプリはオンになっていません。"},
		},
		"zh-TW": {
			"off":      {"第二重驗證", "已關閉。", "設定驗證器應用程式", "已註冊 0 個。"},
			"enrol":    {"請使用驗證器應用程式掃描此 QR 碼", "應用程式顯示的 6 位數驗證碼", "開啟", `alt="金鑰的 QR 碼"`},
			"wrong":    {"驗證碼不正確。"},
			"codes":    {"您的備用碼", "我已儲存，繼續"},
			"on":       {"已開啟。登入時會要求輸入應用程式中的驗證碼。", "剩餘備用碼：10 組", "關閉驗證器應用程式"},
			"no codes": {"驗證器應用程式尚未開啟。"},
		},
	}
	english := map[string][]string{
		"off":      {"Second factors", "Off.", "Set up an authenticator app", "registered.", "Manage your passkeys", "Back to your account"},
		"enrol":    {"Set up an authenticator app", "Scan this code", "The 6-digit code", "Turn on", "QR code of the key", "Cancel"},
		"wrong":    {"That code is not right."},
		"codes":    {"Your recovery codes", "Keep these codes", "I have saved them"},
		"on":       {"Signing in asks for a code", "Recovery codes left", "Make new recovery codes", "Turn off the authenticator app"},
		"no codes": {"The authenticator app is not on."},
	}
	for _, lang := range []string{"ja", "zh-TW"} {
		t.Run(lang, func(t *testing.T) {
			e := servertest.New(t, servertest.Options{})
			a := e.A
			b := e.Browser()
			b.SignIn(a, a.Student.Email)
			in := func(method, rawURL string, form map[string][]string) *servertest.Response {
				t.Helper()
				return b.Do(e.Request(method, rawURL, form, "Accept-Language", lang))
			}
			check := func(page string, res *servertest.Response) {
				t.Helper()
				schools.PageIn(t, page, res.Body, lang, want[lang][page], english[page])
			}
			check("off", in(http.MethodGet, a.URL(mfa.SecurityPath), nil))
			// Recovery codes without an authenticator app are refused, with a sentence.
			sec := in(http.MethodGet, a.URL("/account"), nil) // the session's token, from a page with a form
			check("no codes", in(http.MethodPost, a.URL(mfa.RecoveryCodesPath), map[string][]string{
				"csrf_token": {sec.CSRF(t)}, "current_password": {servertest.Password}}))

			page := in(http.MethodGet, a.URL(mfa.TOTPPath), nil)
			check("enrol", page)
			m := secretPattern.FindStringSubmatch(page.Body)
			f, ok := page.FormWith("code")
			if m == nil || !ok {
				t.Fatalf("no key or form on the enrolment page\n%s", page.Body)
			}
			f.Values.Set("code", wrongCode(totpAt(t, m[1], time.Now())))
			check("wrong", in(http.MethodPost, f.Action, f.Values))
			f.Values.Set("code", totpAt(t, m[1], time.Now()))
			check("codes", in(http.MethodPost, f.Action, f.Values))
			check("on", in(http.MethodGet, a.URL(mfa.SecurityPath), nil))
		})
	}
}
