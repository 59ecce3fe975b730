package account

import (
	"strings"
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
	other := eventWords(en, Event{Kind: "a kind of a later build"}, 1)
	if other != en.Text("account.event.other") {
		t.Errorf("an unknown kind is %q", other)
	}
	var events []Event
	for _, k := range audit.Kinds {
		events = append(events, Event{Kind: k, SubjectID: 1}, Event{Kind: k, SubjectID: 2}, Event{Kind: k, SubjectID: 1, Result: audit.ResultFailure})
	}
	for _, e := range events {
		w := eventWords(en, e, 1)
		if w == other || strings.HasPrefix(w, "account.event.") {
			t.Errorf("%+v has no words of its own: %q", e, w)
		}
		for _, loc := range []*i18n.Localizer{ja, zh} {
			if got := eventWords(loc, e, 1); got == w {
				t.Errorf("%+v in %s is still %q", e, loc.Lang(), got)
			}
		}
	}
	for _, tc := range []struct {
		e    Event
		want string
	}{
		{Event{Kind: audit.KindSignIn, SubjectID: 1, Result: audit.ResultThrottled}, "Sign-in refused"},
		{Event{Kind: audit.KindFactorUsed, SubjectID: 1, Result: audit.ResultFailure}, "Second factor refused"},
		{Event{Kind: audit.KindFactorUsed, SubjectID: 1}, "Second factor used"},
		{Event{Kind: audit.KindFactorEnrolled, SubjectID: 1, Detail: "recovery_code"}, "New recovery codes made"},
		{Event{Kind: audit.KindInvitationSent, SubjectID: 2}, "Invited a member"},
		{Event{Kind: audit.KindInvitationSent, SubjectID: 1}, "Invited to the school"},
		{Event{Kind: audit.KindRoleChanged, SubjectID: 2}, "Changed a member's role"},
		{Event{Kind: audit.KindGrantRevoked, SubjectID: 1, Actor: audit.ActorMember}, "Removed an application's access"},
		{Event{Kind: audit.KindGrantRevoked, SubjectID: 1, Actor: audit.ActorSystem}, "An application's access was revoked"},
		{Event{Kind: audit.KindSigningKeyRotated, SubjectID: 2}, "Rotated a signing key"},
	} {
		if got := eventWords(en, tc.e, 1); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.e, got, tc.want)
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
