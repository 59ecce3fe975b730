package passkey_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/passkey"
	"github.com/proctorhq/proctor/server/servertest"
	"github.com/proctorhq/proctor/server/servertest/schools"
)

// in sends one request with Accept-Language lang.
func (b *browser) in(lang, method, rawURL string, form url.Values) *response {
	b.Lang = lang
	defer func() { b.Lang = "" }()
	return b.Do(method, rawURL, form)
}

// The passkeys page is in the browser's language: its own words, the kind and dates of a
// passkey, the sentences of a finished or refused form, and the page of a school that cannot
// have passkeys; none of its English sentences remains.
func TestPasskeysPageInLanguage(t *testing.T) {
	e := newEnv(t)
	br, _, _ := e.annWithKey()
	page := br.Get(e.a.URL(passkey.AccountPath)).Body
	id := attr(t, page, `name="id" value`)
	csrf := attr(t, page, "data-csrf")
	if _, err := strconv.ParseInt(id, 10, 64); err != nil {
		t.Fatalf("passkey id %q", id)
	}
	c := e.browser()
	c.SignIn(e.c, e.ann.Email)

	type check struct {
		name, method, url string
		form              url.Values
		want              map[string][]string
		english           []string
	}
	checks := []check{
		{"list", http.MethodGet, e.a.URL(passkey.AccountPath), nil, map[string][]string{
			"ja":    {"パスキーを使うと", "パスキーを追加", "あなたのパスキー", "追加日時", "最終使用", "なし", "名前を変更", `placeholder="ノートパソコン"`, "年"},
			"zh-TW": {"密碼金鑰可讓您", "新增密碼金鑰", "您的密碼金鑰", "新增時間", "上次使用", "從未", "重新命名", `placeholder="筆記型電腦"`, "年"},
		}, []string{"A passkey lets you", "Add a passkey", "Your passkeys", "Added", "Last used", "never", "Rename", "Remove", "Laptop", "Current password", "Your account", "On this device only", "Synced"}},
		{"notice", http.MethodGet, e.a.URL(passkey.AccountPath + "?done=renamed"), nil, map[string][]string{
			"ja":    {"パスキーの名前を変更しました。"},
			"zh-TW": {"已重新命名密碼金鑰。"},
		}, []string{"The passkey was renamed."}},
		{"empty name", http.MethodPost, e.a.URL(passkey.RenamePath), url.Values{"csrf_token": {csrf}, "id": {id}, "name": {" "}}, map[string][]string{
			"ja":    {"パスキーに名前を付けてください。"},
			"zh-TW": {"請為密碼金鑰命名。"},
		}, []string{"Give the passkey a name."}},
		{"wrong password", http.MethodPost, e.a.URL(passkey.RemovePath), url.Values{"csrf_token": {csrf}, "id": {id}, "current_password": {"not it"}}, map[string][]string{
			"ja":    {"現在のパスワードが正しくありません。"},
			"zh-TW": {"您目前的密碼不正確。"},
		}, []string{"Your current password is not right."}},
	}
	for _, ck := range checks {
		for _, lang := range []string{"ja", "zh-TW"} {
			res := br.in(lang, ck.method, ck.url, ck.form)
			schools.PageIn(t, ck.name, res.Body, lang, ck.want[lang], ck.english)
		}
	}
	for lang, want := range map[string]string{"ja": "ここではパスキーを追加できません。", "zh-TW": "無法在此新增。"} {
		res := c.in(lang, http.MethodGet, e.c.URL(passkey.AccountPath), nil)
		if servertest.HTMLLang(res.Body) != lang || !strings.Contains(res.Body, want) || strings.Contains(res.Body, "they cannot be added here") {
			t.Errorf("numeric school in %s: %d\n%s", lang, res.Status, res.Body)
		}
	}
}
