package endpoint

import (
	"regexp"
	"testing"
)

// TestAssetName: the name is the prefix, AssetHashLen hex digits of the content's hash and the
// suffix; the same content has the same name, another content another.
func TestAssetName(t *testing.T) {
	a := AssetName("look-", []byte("a{}"), ".css")
	if !regexp.MustCompile(`^look-[0-9a-f]{16}\.css$`).MatchString(a) || len(a) != len("look-.css")+AssetHashLen {
		t.Fatalf("AssetName = %q", a)
	}
	if again := AssetName("look-", []byte("a{}"), ".css"); again != a {
		t.Errorf("the same content named %q and %q", a, again)
	}
	if other := AssetName("look-", []byte("b{}"), ".css"); other == a {
		t.Errorf("two contents share the name %q", a)
	}
	// SHA-256 of the empty string starts e3b0c44298fc1c14.
	if got := AssetName("logo-", nil, ""); got != "logo-e3b0c44298fc1c14" {
		t.Errorf("AssetName of nothing = %q", got)
	}
}
