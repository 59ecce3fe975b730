package account

import (
	"testing"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/i18n"
	"github.com/proctorhq/proctor/server/servertest/schools"
)

// Every kind of event is named in every language, and the details the account's
// forms record in English (devices, how many were signed out) are written in the member's
// language; English shows them as recorded.
func TestEventWordsInLanguage(t *testing.T) {
	cat := schools.Catalogue(t)
	en, ja, zh := cat.Localizer("en", nil), cat.Localizer("ja", nil), cat.Localizer("zh-TW", nil)
	for _, k := range audit.Kinds {
		e := Event{Kind: k, SubjectID: 1}
		w := eventWords(en, e, 1)
		for _, loc := range []*i18n.Localizer{ja, zh} {
			if got := eventWords(loc, e, 1); got == w {
				t.Errorf("%s in %s is still %q", k, loc.Lang(), got)
			}
		}
	}
	for _, tc := range []struct {
		e          Event
		ja, zh, en string
	}{
		{Event{Kind: audit.KindSessionEnded, Detail: otherDevicesNote(1)}, "他の 1 台のデバイス", "其他 1 部裝置", "1 other device"},
		{Event{Kind: audit.KindSessionEnded, Detail: otherDevicesNote(3)}, "他の 3 台のデバイス", "其他 3 部裝置", "3 other devices"},
		{Event{Kind: audit.KindSessionEnded, Detail: deviceSummary("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36")},
			"macOS の Chrome", "macOS 上的 Chrome", "Chrome on macOS"},
		{Event{Kind: audit.KindSessionEnded, Detail: deviceSummary("")}, "不明なデバイス", "不明裝置", "Unknown device"},
		{Event{Kind: audit.KindGrantRevoked, Detail: "reuse_detected", ClientID: "study-buddy"},
			"study-buddy（リフレッシュトークンの 1 つが 2 回使用されました）", "study-buddy（其中一個更新權杖被重複使用）",
			"study-buddy (one of its refresh tokens was used twice)"},
		{Event{Kind: audit.KindPasswordChanged, Detail: signedOutNote(true)}, "すべてのアプリケーションからもログアウト", "同時登出所有應用程式",
			"signed out of all applications"},
		// A detail that is a name is shown as recorded.
		{Event{Kind: audit.KindGrantRevoked, Detail: "Study Buddy"}, "Study Buddy", "Study Buddy", "Study Buddy"},
		{Event{Kind: audit.KindSessionEnded, Detail: "Chrome on Plan 9"}, "Chrome on Plan 9", "Chrome on Plan 9", "Chrome on Plan 9"},
	} {
		if got := eventDetail(ja, tc.e); got != tc.ja {
			t.Errorf("ja %+v: %q, want %q", tc.e, got, tc.ja)
		}
		if got := eventDetail(zh, tc.e); got != tc.zh {
			t.Errorf("zh-TW %+v: %q, want %q", tc.e, got, tc.zh)
		}
		if got := eventDetail(en, tc.e); got != tc.en {
			t.Errorf("en %+v: %q, want %q", tc.e, got, tc.en)
		}
	}
}
