package passkey

import (
	"strings"
	"testing"

	"github.com/proctorhq/proctor/server/servertest/schools"
)

// Every refusal of the JSON endpoints says, in English, what it said before its sentences came
// from the catalogue, and says something else in every other language.
func TestJSONErrorSentences(t *testing.T) {
	cat := schools.Catalogue(t)
	en := cat.Localizer("en", nil)
	for _, tc := range []struct {
		e    *jsonError
		code string
		want string
	}{
		{errExpired, "expired", "This page has expired. Reload it and try again."},
		{errSignedOut, "signed_out", "You are no longer signed in. Sign in again and retry."},
		{errUnavailable, "unavailable", "Passkeys cannot be used at this address."},
		{errRefused, "refused", "That passkey could not be used. Please try again."},
		{errLimited, "rate_limited", "Too many failed attempts. Please wait a few minutes and try again."},
		{errTooMany, "too_many", "You have 20 passkeys here, the most there can be. Remove one first."},
		{errRegistered, "registered", "This passkey is already registered here."},
		{errNotCompleted, "not_completed", "The passkey was not added. Please try again."},
		{errServer, "server_error", "Something went wrong. Please try again later."},
		{errStoreDown, "temporarily_unavailable", "Passkeys cannot be used right now. Please try again in a few minutes."},
	} {
		if tc.e.code != tc.code {
			t.Errorf("code %q, want %q", tc.e.code, tc.code)
		}
		if got := tc.e.message(en); got != tc.want {
			t.Errorf("%s in English: %q, want %q", tc.code, got, tc.want)
		}
		for _, lang := range []string{"ja", "zh-TW"} {
			got := tc.e.message(cat.Localizer(lang, nil))
			if got == "" || got == tc.want || strings.HasPrefix(got, "passkey.") {
				t.Errorf("%s in %s: %q", tc.code, lang, got)
			}
		}
	}
}
