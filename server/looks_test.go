package server_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"net"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/endpoint"
	"github.com/proctorhq/proctor/login"
	"github.com/proctorhq/proctor/server"
	"github.com/proctorhq/proctor/server/servertest"
	"github.com/proctorhq/proctor/server/servertest/schools"
	"github.com/proctorhq/proctor/storage/gormstore"
	"github.com/proctorhq/proctor/storage/gormstore/storetest"
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
	want := endpoint.Assets + "logo-" + hex.EncodeToString(sum[:])[:16]
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

// TestAppearanceChangeReachesEveryReplica: two replicas on one database (every backend) and one
// Redis, the second reusing a school's appearance for an hour. A change through replica A's operator API shows on
// replica B's next page (the new colour's stylesheet), which only the version A wrote to Redis
// can explain; B's page after that reuses its copy again (no SQL).
func TestAppearanceChangeReachesEveryReplica(t *testing.T) {
	redisURL := os.Getenv("PROCTOR_TEST_REDIS_URL")
	if redisURL == "" {
		t.Skip("PROCTOR_TEST_REDIS_URL is not set")
	}
	for _, backend := range storetest.Backends() {
		t.Run(backend, func(t *testing.T) { appearanceAcrossReplicas(t, backend, redisURL) })
	}
}

func appearanceAcrossReplicas(t *testing.T, backend, redisURL string) {
	_, prefix := schools.Redis(t, redisURL)
	e := servertest.New(t, servertest.Options{Backend: backend, Configure: func(c *config.Server) {
		c.Redis = config.Redis{URL: config.Secret(redisURL), KeyPrefix: prefix}
	}})
	b := newReplica(t, e, server.Deps{AppearanceCache: time.Hour})

	signIn := func(replica string) (stylesheet string) {
		t.Helper()
		req := e.Request(http.MethodGet, "http://"+replica+login.LoginPath, nil)
		req.Host = e.A.Host
		page := e.Do(e.Client(), req)
		if page.Status != http.StatusOK {
			t.Fatalf("sign-in page on %s: %d", replica, page.Status)
		}
		m := regexp.MustCompile(`<link rel="stylesheet" href="(` + regexp.QuoteMeta(endpoint.Assets+"look-") + `[^"]+)">`).FindStringSubmatch(page.Body)
		if m == nil {
			return ""
		}
		return m[1]
	}
	before := signIn(b)

	token := e.Tokens(e.A, e.A.Owner.Email, "appearance:write").AccessToken
	const colour = "#0f766e"
	if r := e.Bearer(http.MethodPatch, e.A.URL("/api/v1/school/appearance"), token, "application/json", `{"primary_color": "`+colour+`"}`); r.Status != http.StatusOK {
		t.Fatalf("update-appearance on A: %d %s", r.Status, r.Body)
	}

	counter := e.Store.CountStatements()
	after := signIn(b)
	if after == "" || after == before {
		t.Fatalf("replica B's next page kept its stylesheet %q (before the change %q)", after, before)
	}
	req := e.Request(http.MethodGet, "http://"+b+after, nil)
	req.Host = e.A.Host
	if css := e.Do(e.Client(), req); css.Status != http.StatusOK || !strings.Contains(css.Body, colour) {
		t.Errorf("replica B's stylesheet %s: %d, without %s:\n%s", after, css.Status, colour, css.Body)
	}
	if counter.Count() == 0 {
		t.Fatal("replica B drew the changed look without reading the database")
	}
	counter.Reset()
	if again := signIn(b); again != after {
		t.Errorf("replica B's next page: stylesheet %q, want %q", again, after)
	}
	if n := counter.Count(); n != 0 {
		t.Errorf("replica B read the database (%d statements) for an appearance that had not changed", n)
	}
}

// TestAppearanceWithoutRedis: a replica whose Redis does not answer still draws its pages with
// the school's look, reusing it for the cache's time, and says so once, not once per page.
func TestAppearanceWithoutRedis(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	// Nothing listens there any more: every call is refused at once.
	closed := "redis://" + ln.Addr().String() + "/0"
	ln.Close()
	e := servertest.New(t, servertest.Options{})
	log, logger := schools.NewLog()
	b := newReplica(t, e, server.Deps{AppearanceCache: time.Hour, Logger: logger}, func(c *config.Server) {
		c.Redis = config.Redis{URL: config.Secret(closed), KeyPrefix: config.DefaultRedisKeyPrefix}
	})

	token := e.Tokens(e.A, e.A.Owner.Email, "appearance:write").AccessToken
	if r := e.Bearer(http.MethodPatch, e.A.URL("/api/v1/school/appearance"), token, "application/json", `{"primary_color": "#0f766e"}`); r.Status != http.StatusOK {
		t.Fatalf("update-appearance: %d %s", r.Status, r.Body)
	}
	var counter *gormstore.StatementCounter
	for i := range 3 {
		if i == 1 {
			counter = e.Store.CountStatements()
		}
		req := e.Request(http.MethodGet, "http://"+b+login.LoginPath, nil)
		req.Host = e.A.Host
		page := e.Do(e.Client(), req)
		if page.Status != http.StatusOK || !strings.Contains(page.Body, endpoint.Assets+"look-") {
			t.Fatalf("page %d without the school's stylesheet: %d\n%s", i, page.Status, page.Body)
		}
	}
	if n := counter.Count(); n != 0 {
		t.Errorf("pages after the first read the database (%d statements) while Redis was down: want the cached copy", n)
	}
	if n := strings.Count(log.String(), "appearance versions: Redis does not answer"); n != 1 {
		t.Errorf("the outage was logged %d times, want once:\n%s", n, log.String())
	}
}

// newReplica starts another server on e's database and schools, with d's settings and e's
// server file changed by configure, and returns its public listener's host:port. Requests to it
// name a school's host in Host, as a load balancer passes it on.
func newReplica(t *testing.T, e *servertest.Env, d server.Deps, configure ...func(*config.Server)) string {
	t.Helper()
	d.Config, d.Schools, d.Store = e.Config, e.Registry, e.Store
	d.PurgeInterval = -1 // as e's: its statements would fall into the counts taken here
	for _, c := range configure {
		c(&d.Config)
	}
	srv, err := server.New(d)
	if err != nil {
		t.Fatal(err)
	}
	pub := servertest.Loopback(t)
	servertest.Serve(t, srv, pub, servertest.Loopback(t))
	return pub.Addr().String()
}
