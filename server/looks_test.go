package server_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"regexp"
	"strconv"
	"testing"

	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/look"
	"github.com/proctorhq/proctor/server/servertest"
)

// TestUploadedLogo: an image uploaded through the operator API and named as the appearance's
// logo_file_id shows on the school's pages, served from the school's origin under the hash of
// its bytes with its type; the other school's pages keep their name.
func TestUploadedLogo(t *testing.T) {
	e := servertest.New(t, servertest.Options{})
	token := e.Tokens(e.A, e.A.Owner.Email, "storage:write", "appearance:write").AccessToken

	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	img.Set(2, 3, color.RGBA{0x0f, 0x76, 0x6e, 0xff})
	var logo bytes.Buffer
	if err := png.Encode(&logo, img); err != nil {
		t.Fatal(err)
	}
	r := e.Bearer(http.MethodPost, e.A.URL("/api/v1/files?name=logo.png"), token, "image/png", logo.String())
	var file struct {
		ID int64 `json:"id"`
	}
	if r.Status != http.StatusCreated || !r.JSON(&file) || file.ID == 0 {
		t.Fatalf("upload: %d %s", r.Status, r.Body)
	}
	patch, _ := json.Marshal(map[string]any{"logo_file_id": file.ID, "primary_color": "#0f766e"})
	if r := e.Bearer(http.MethodPatch, e.A.URL("/api/v1/school/appearance"), token, "application/json", string(patch)); r.Status != http.StatusOK {
		t.Fatalf("update-appearance: %d %s", r.Status, r.Body)
	}

	sum := sha256.Sum256(logo.Bytes())
	want := look.AssetPrefix + "logo-" + hex.EncodeToString(sum[:])[:16]
	page := e.Browser().Get(e.A.URL(login.LoginPath))
	if page.Status != http.StatusOK {
		t.Fatalf("sign-in page: %d", page.Status)
	}
	if !regexp.MustCompile(`<img class="logo" src="` + regexp.QuoteMeta(want) + `" alt="` + regexp.QuoteMeta(e.A.Name) + `">`).MatchString(page.Body) {
		t.Errorf("the sign-in page does not show the logo %s:\n%s", want, page.Body)
	}
	asset := e.Browser().Get(e.A.URL(want))
	if asset.Status != http.StatusOK || asset.Header.Get("Content-Type") != "image/png" ||
		asset.Header.Get("X-Content-Type-Options") != "nosniff" || asset.Body != logo.String() {
		t.Errorf("%s: %d %v (%d bytes)", want, asset.Status, asset.Header, len(asset.Body))
	}

	other := e.Browser().Get(e.B.URL(login.LoginPath))
	if other.Status != http.StatusOK || regexp.MustCompile(`<img class="logo"`).MatchString(other.Body) ||
		!regexp.MustCompile(`<p class="school">`+regexp.QuoteMeta(e.B.Name)+`</p>`).MatchString(other.Body) {
		t.Errorf("school B's sign-in page: %d\n%s", other.Status, other.Body)
	}

	// Another school's file id is refused, without telling it from a missing one.
	tokenB := e.Tokens(e.B, e.B.Owner.Email, "appearance:write").AccessToken
	body := `{"logo_file_id": ` + strconv.FormatInt(file.ID, 10) + `}`
	r = e.Bearer(http.MethodPatch, e.B.URL("/api/v1/school/appearance"), tokenB, "application/json", body)
	if r.Status != http.StatusUnprocessableEntity || !regexp.MustCompile(`no uploaded file of this school has this id`).MatchString(r.Body) {
		t.Errorf("school B naming school A's file: %d %s", r.Status, r.Body)
	}
}
