package config

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var testSecret = base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32))

// writeFiles lays out a config tree under a temp dir and returns its root.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, p, body)
	}
	return root
}

// writeFile writes body to path, failing the test when the file cannot be written.
func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

// writeServer lays out files (the school files under schools/ and any file the server file
// names) and a server file with the schools directory, the test secret and the remaining keys
// body, and returns the server file's path.
func writeServer(t *testing.T, files map[string]string, body string) string {
	t.Helper()
	root := writeFiles(t, files)
	server := filepath.Join(root, "proctor.yaml")
	writeFile(t, server, fmt.Sprintf("schools_dir: %s\nsecret: %s\n%s", filepath.Join(root, "schools"), testSecret, body))
	return server
}

func TestLoadValid(t *testing.T) {
	root := writeFiles(t, map[string]string{
		"secret": testSecret + "\n",
		"schools/a.yaml": `school_id: 1
subdomain: north
name: North Academy
base_url: https://north.example/
features: {mcp_connections: true, id_tokens: true}
lifetimes: {refresh_token: 720h}
`,
		"schools/b.yml": `school_id: 2
subdomain: lumen
name: Lumen
base_url: http://127.0.0.1:8080
`,
		"schools/README.txt": "ignored",
	})
	server := filepath.Join(root, "proctor.yaml")
	writeFile(t, server, fmt.Sprintf(`public: {addr: "0.0.0.0:9000"}
database: {driver: postgres, dsn: "postgres://db/proctor", curriculum_cache_rows: 5000}
schools_dir: %s
secret_file: secret
trusted_proxies: [10.0.0.0/8, 192.0.2.7]
http: {write_timeout: 45s}
`, filepath.Join(root, "schools")))
	cfg, err := Load(server)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	s := cfg.Server
	if s.Public.Addr != "0.0.0.0:9000" || s.Internal.Addr != "127.0.0.1:8081" {
		t.Errorf("listeners = %+v %+v", s.Public, s.Internal)
	}
	if s.Database.Driver != "postgres" || s.Database.CurriculumCacheRows != 5000 || s.Database.StartupTimeout != time.Minute ||
		s.HTTP.WriteTimeout != 45*time.Second || s.HTTP.ReadTimeout != 15*time.Second {
		t.Errorf("database/http = %+v %+v", s.Database, s.HTTP)
	}
	if len(s.Secret) != 32 {
		t.Errorf("secret length = %d", len(s.Secret))
	}
	if prefixes, bad := ParseTrustedProxies(s.TrustedProxies); len(prefixes) != 2 || len(bad) != 0 ||
		!prefixes[1].Contains(netip.MustParseAddr("192.0.2.7")) || prefixes[1].Contains(netip.MustParseAddr("192.0.2.8")) {
		t.Errorf("trusted proxies = %v (bad %v)", prefixes, bad)
	}
	if len(cfg.Schools) != 2 {
		t.Fatalf("schools = %d", len(cfg.Schools))
	}
	a := cfg.Schools[0]
	if a.SchoolID != 1 || !a.Features.IDTokens || a.Lifetimes.RefreshToken != 720*time.Hour ||
		a.Lifetimes.AccessToken != 2*time.Hour || a.Lifetimes.AuthorizationCode != DefaultAuthorizationCodeLifetime ||
		a.Security.OperatorMFA != OperatorMFAOptional {
		t.Errorf("school a = %+v", a)
	}
}

// loadFromEnvironment loads a configuration with no server file: one school in the directory
// PROCTOR_SCHOOLS_DIR names, the secret in PROCTOR_SECRET, and env set in the environment.
func loadFromEnvironment(t *testing.T, env map[string]string) *Config {
	t.Helper()
	root := writeFiles(t, map[string]string{
		"schools/a.yaml": "school_id: 1\nsubdomain: a\nname: A\nbase_url: http://localhost:8080\n",
	})
	t.Setenv("PROCTOR_SCHOOLS_DIR", filepath.Join(root, "schools"))
	t.Setenv("PROCTOR_SECRET", testSecret)
	for k, v := range env {
		t.Setenv(k, v)
	}
	cfg, err := Load("")
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return cfg
}

func TestEnvironmentOverrides(t *testing.T) {
	cfg := loadFromEnvironment(t, map[string]string{
		"PROCTOR_DATABASE_DSN":             "elsewhere.db",
		"PROCTOR_PUBLIC_ADDR":              "127.0.0.1:9999",
		"PROCTOR_TRUSTED_PROXIES":          "10.0.0.0/8,172.16.0.0/12",
		"PROCTOR_HTTP_SHUTDOWN_GRACE":      "3s",
		"PROCTOR_DATABASE_STARTUP_TIMEOUT": "5m",
		"PROCTOR_MAIL_HOST":                "127.0.0.1",
		"PROCTOR_MAIL_PORT":                "2525",
		"PROCTOR_MAIL_TLS":                 "none",
		"PROCTOR_MAIL_FROM":                "noreply@localhost",
		"PROCTOR_MAIL_USERNAME":            "u",
		"PROCTOR_MAIL_PASSWORD":            "from-env",
		"PROCTOR_MAIL_TIMEOUT":             "5s",
	})
	s := cfg.Server
	if s.Database.DSN != "elsewhere.db" || s.Public.Addr != "127.0.0.1:9999" || s.HTTP.ShutdownGrace != 3*time.Second ||
		s.Database.StartupTimeout != 5*time.Minute {
		t.Errorf("overrides not applied: %+v", s)
	}
	if prefixes, _ := ParseTrustedProxies(s.TrustedProxies); len(prefixes) != 2 || !prefixes[1].Contains(netip.MustParseAddr("172.20.0.1")) {
		t.Errorf("trusted proxies = %v", s.TrustedProxies)
	}
	if m := s.Mail; m.Host != "127.0.0.1" || m.Port != 2525 || m.TLS != MailTLSNone || string(m.Password) != "from-env" || m.Timeout != 5*time.Second {
		t.Errorf("mail = %+v", m)
	}
}

// TestEveryProblemListed: one pass reports the problems of the server file and of every
// school file, each with its file and field.
func TestEveryProblemListed(t *testing.T) {
	root := writeFiles(t, map[string]string{
		"schools/a.yaml": `school_id: 0
subdomain: "Bad_Sub"
name: ""
base_url: http://school.example
lifetimes: {access_token: 10s, authorization_code: 1h}
security: {operator_mfa: sometimes}
`,
		"schools/b.yaml": "school_id: 5\nsubdomain: dup\nname: B\nbase_url: https://dup.example\n",
		"schools/c.yaml": "school_id: 5\nsubdomain: dup\nname: C\nbase_url: https://DUP.example:443/\n",
		"schools/d.yaml": "school_id: 9\nsubdomain: d\nname: D\nbase_url: https://d.example\ncolour: blue\n",
		"schools/e.yaml": "school_id: [\n",
	})
	server := filepath.Join(root, "proctor.yaml")
	writeFile(t, server, fmt.Sprintf(`database: {driver: mysql, dsn: "", startup_timeout: -1s}
log: {level: loud}
schools_dir: %s
secret: short
trusted_proxies: [not-a-range]
`, filepath.Join(root, "schools")))

	_, err := Load(server)
	var problems Errors
	if !errors.As(err, &problems) {
		t.Fatalf("Load error = %v, want Errors", err)
	}
	want := []struct{ file, field string }{
		{"proctor.yaml", "database.driver"},
		{"proctor.yaml", "database.dsn"},
		{"proctor.yaml", "database.startup_timeout"},
		{"proctor.yaml", "log.level"},
		{"proctor.yaml", "trusted_proxies[0]"},
		{"proctor.yaml", "secret"},
		{"a.yaml", "school_id"},
		{"a.yaml", "subdomain"},
		{"a.yaml", "name"},
		{"a.yaml", "base_url"},
		{"a.yaml", "lifetimes.access_token"},
		{"a.yaml", "lifetimes.authorization_code"},
		{"a.yaml", "security.operator_mfa"},
		{"c.yaml", "school_id"},
		{"c.yaml", "subdomain"},
		{"c.yaml", "base_url"},
		{"d.yaml", ""}, // unknown key
		{"e.yaml", ""}, // YAML syntax
	}
	for _, w := range want {
		found := false
		for _, p := range problems {
			if filepath.Base(p.File) == w.file && p.Field == w.field {
				found = true
			}
		}
		if !found {
			t.Errorf("no problem reported for %s %s; got:\n%v", w.file, w.field, err)
		}
	}
	if !strings.Contains(err.Error(), "colour") {
		t.Errorf("unknown key not named: %v", err)
	}
}

func TestSecretNeverPrints(t *testing.T) {
	s, err := DecodeSecret(testSecret)
	if err != nil {
		t.Fatal(err)
	}
	srv := Server{Secret: s}
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("x", "secret", s, "server", srv)
	for _, out := range []string{fmt.Sprint(s), fmt.Sprintf("%v %+v %#v %s", srv, srv, s, s), buf.String()} {
		if strings.Contains(out, testSecret) || strings.Contains(out, "7 7 7") || strings.Contains(out, "BwcH") {
			t.Errorf("secret leaked: %s", out)
		}
	}
}

func TestDecodeSecret(t *testing.T) {
	raw := bytes.Repeat([]byte{0xab}, 32)
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{base64.StdEncoding.EncodeToString(raw), true},
		{base64.RawURLEncoding.EncodeToString(raw), true},
		{fmt.Sprintf("%x", raw), true},
		{"  " + base64.StdEncoding.EncodeToString(raw) + "\n", true},
		{base64.StdEncoding.EncodeToString(raw[:31]), false},
		{"not a secret at all, just words!!", false},
		{"", false},
	} {
		_, err := DecodeSecret(tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("DecodeSecret(%q) err = %v, want ok=%v", tc.in, err, tc.ok)
		}
	}
}

func TestParseBaseURL(t *testing.T) {
	for _, tc := range []struct {
		in, origin string // origin "" means rejected
	}{
		{"https://school.example", "https://school.example"},
		{"https://School.Example/", "https://school.example"},
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080"},
		{"http://localhost:8080/", "http://localhost:8080"},
		{"http://[::1]:8080", "http://[::1]:8080"},
		{"http://school.example", ""},
		{"https://school.example/path", ""},
		{"https://school.example?x=1", ""},
		{"https://school.example#f", ""},
		{"https://user@school.example", ""},
		{"ftp://school.example", ""},
		{"https://school.example:99999", ""},
		{"https://", ""},
		{"school.example", ""},
	} {
		u, err := ParseBaseURL(tc.in)
		switch {
		case tc.origin == "" && err == nil:
			t.Errorf("ParseBaseURL(%q) accepted", tc.in)
		case tc.origin != "" && err != nil:
			t.Errorf("ParseBaseURL(%q) = %v", tc.in, err)
		case tc.origin != "" && u.Scheme+"://"+u.Host != tc.origin:
			t.Errorf("ParseBaseURL(%q) = %s, want %s", tc.in, u.Scheme+"://"+u.Host, tc.origin)
		}
	}
}

func FuzzParseBaseURL(f *testing.F) {
	for _, s := range []string{"https://a.example", "http://127.0.0.1:8080/", "http://[::1]", "https://a.example:0", "%zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := ParseBaseURL(s)
		if err != nil {
			return
		}
		// Whatever is accepted must be an origin that parses back to itself.
		origin := u.Scheme + "://" + u.Host
		again, err := ParseBaseURL(origin)
		if err != nil || again.Host != u.Host {
			t.Fatalf("accepted %q but its origin %q does not round-trip: %v", s, origin, err)
		}
	})
}

func TestSecretDerive(t *testing.T) {
	s := Secret(bytes.Repeat([]byte{1}, 32))
	a, b := s.Derive("token hmac"), s.Derive("client secrets")
	if len(a) != 32 || bytes.Equal(a, b) || !bytes.Equal(a, s.Derive("token hmac")) {
		t.Fatal("Derive must give distinct, stable 32-byte keys per purpose")
	}
	if bytes.Equal(a, Secret(bytes.Repeat([]byte{2}, 32)).Derive("token hmac")) {
		t.Fatal("Derive ignores the secret")
	}
}

func TestIntegrationsAndClientPolicies(t *testing.T) {
	server := writeServer(t, map[string]string{
		"schools/a.yaml": `school_id: 1
subdomain: a
name: A
base_url: https://a.example
registration: {integrations: [Copilot, Ghost]}
cimd: {allowed_hosts: [apps.example, "bad/host"], cache_min: 2h, cache_max: 1h}
`,
	}, `integrations:
  - {name: Copilot, client_id: copilot, scopes: [courses:read], redirect_uris: ["https://copilot.example/cb", "http://127.0.0.1/cb"]}
  - {name: copilot, client_id: "https://copilot.example/doc", redirect_uris: ["http://evil.example/cb"], application_type: tv}
`)
	_, err := Load(server)
	var problems Errors
	if !errors.As(err, &problems) {
		t.Fatalf("Load = %v", err)
	}
	for _, want := range []string{
		"integrations[1].name", "integrations[1].client_id", "integrations[1].redirect_uris[0]", "integrations[1].application_type",
		"registration.integrations[1]", "cimd.allowed_hosts[1]", "cimd.cache_max",
	} {
		found := false
		for _, p := range problems {
			found = found || p.Field == want
		}
		if !found {
			t.Errorf("no problem for %s in:\n%v", want, err)
		}
	}
}

// tenants_dir is the earlier name of schools_dir: still read from the file and the environment,
// refused beside the new name.
func TestLegacySchoolsDir(t *testing.T) {
	root := writeFiles(t, map[string]string{
		"sites/a.yaml": "school_id: 1\nsubdomain: a\nname: A\nbase_url: http://localhost:8080\n",
	})
	dir := filepath.Join(root, "sites")
	t.Setenv("PROCTOR_SECRET", testSecret)
	write := func(body string) string {
		server := filepath.Join(t.TempDir(), "proctor.yaml")
		writeFile(t, server, body)
		return server
	}

	cfg, err := Load(write("tenants_dir: " + dir + "\n"))
	if err != nil {
		t.Fatalf("tenants_dir in the file: %v", err)
	}
	if cfg.Server.SchoolsDir != dir || len(cfg.Schools) != 1 {
		t.Errorf("tenants_dir in the file: schools_dir = %q, %d schools", cfg.Server.SchoolsDir, len(cfg.Schools))
	}

	_, err = Load(write("tenants_dir: " + dir + "\nschools_dir: " + dir + "\n"))
	if err == nil || !strings.Contains(err.Error(), "not both") {
		t.Errorf("both names in the file: err = %v", err)
	}

	t.Setenv("PROCTOR_TENANTS_DIR", dir)
	cfg, err = Load("")
	if err != nil {
		t.Fatalf("PROCTOR_TENANTS_DIR: %v", err)
	}
	if cfg.Server.SchoolsDir != dir {
		t.Errorf("PROCTOR_TENANTS_DIR: schools_dir = %q", cfg.Server.SchoolsDir)
	}
	t.Setenv("PROCTOR_SCHOOLS_DIR", dir)
	if _, err = Load(""); err == nil || !strings.Contains(err.Error(), "not both") {
		t.Errorf("both names in the environment: err = %v", err)
	}
}

// loadSchoolFile loads a deployment of one school file, body, and a valid server file, and
// returns the problems found.
func loadSchoolFile(t *testing.T, body string) Errors {
	t.Helper()
	_, err := Load(writeServer(t, map[string]string{"schools/a.yaml": body}, ""))
	if err == nil {
		return nil
	}
	var problems Errors
	if !errors.As(err, &problems) {
		t.Fatalf("Load error = %v, want Errors", err)
	}
	return problems
}

const validSchool = "school_id: 1\nsubdomain: a\nname: A\nbase_url: http://localhost:8080\n"

// An unknown key is an error whatever its value, empty and null included, at any depth, and
// the message names the file and the key's path.
func TestUnknownKeysWhateverTheirValue(t *testing.T) {
	for _, tc := range []struct{ extra, key string }{
		{"featurez: {}\n", "featurez"},
		{"featurez:\n", "featurez"},
		{"featurez: []\n", "featurez"},
		{"nmae: A\n", "nmae"},
		{"features: {id_tokenz: true}\n", "features.id_tokenz"},
		{"features: {mcp: }\n", "features.mcp"},
	} {
		problems := loadSchoolFile(t, validSchool+tc.extra)
		want := fmt.Sprintf("a.yaml: unknown key %q", tc.key)
		if len(problems) != 1 || !strings.HasSuffix(problems[0].String(), want) {
			t.Errorf("%q: problems = %v, want one ending %q", tc.extra, problems, want)
		}
	}
	// Anchors, aliases and merge keys are read as the reader reads them.
	anchored := validSchool + "lifetimes: &l {access_token: 1h}\nx_common: &c {id_tokens: true}\nfeatures:\n  <<: *c\n  mcp_connections: true\n"
	if problems := loadSchoolFile(t, anchored); len(problems) != 1 || !strings.HasSuffix(problems[0].String(), `unknown key "x_common"`) {
		t.Errorf("anchors and merge keys: %v", problems)
	}
	merged := validSchool + "features:\n  <<: {id_tokenz: true}\n"
	if problems := loadSchoolFile(t, merged); len(problems) != 1 || !strings.HasSuffix(problems[0].String(), `unknown key "features.id_tokenz"`) {
		t.Errorf("a merged unknown key: %v", problems)
	}
	if problems := loadSchoolFile(t, validSchool+"Name: B\n"); len(problems) != 0 {
		t.Errorf("keys are read ignoring case, so their check must too: %v", problems)
	}
}

// One pass reports an unknown key, a value that does not decode and an invalid value of the
// same file, each once.
func TestAllProblemsOfAFileInOnePass(t *testing.T) {
	problems := loadSchoolFile(t, "school_id: -1\nsubdomain: a\nnmae: A\nbase_url: http://localhost:8080\nlifetimes: {access_token: soon}\n")
	var got []string
	for _, p := range problems {
		got = append(got, filepath.Base(p.File)+" "+p.Field)
	}
	want := []string{"a.yaml ", "a.yaml lifetimes.access_token", "a.yaml school_id", "a.yaml name"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("problems = %v\nwant %v", problems, want)
	}
	if !strings.Contains(problems.Error(), `unknown key "nmae"`) {
		t.Errorf("unknown key not named: %v", problems)
	}
}

// A server-file value that came from the environment is blamed on its variable, not the file.
func TestProblemNamesTheEnvironmentVariable(t *testing.T) {
	server := writeServer(t, map[string]string{"schools/a.yaml": validSchool}, "log: {level: info, format: xml}\nnmae: x\n")
	t.Setenv("PROCTOR_LOG_LEVEL", "loud")
	_, err := Load(server)
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{
		`PROCTOR_LOG_LEVEL (log.level): must be debug, info, warn or error, got "loud"`,
		server + `: log.format: must be json or text`,
		server + `: unknown key "nmae"`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("no %q in:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), server+": log.level") {
		t.Errorf("the environment's value is blamed on the file:\n%v", err)
	}

	t.Setenv("PROCTOR_SCHOOLS_DIR", filepath.Join(filepath.Dir(server), "nowhere"))
	if _, err := Load(server); err == nil || !strings.Contains(err.Error(), "PROCTOR_SCHOOLS_DIR (schools_dir): cannot read") {
		t.Errorf("a schools directory from the environment: %v", err)
	}
}

// The environment overrides the file for the same setting, and the inline and file forms of a
// secret are one setting: either from the environment replaces either from the file.
func TestEnvironmentSecretReplacesFileSecret(t *testing.T) {
	root := writeFiles(t, map[string]string{"schools/a.yaml": validSchool, "secret": "not base64 and too short"})
	server := filepath.Join(root, "proctor.yaml")
	smtp := filepath.Join(root, "smtp-password")
	writeFile(t, smtp, "from-the-file\n")
	writeFile(t, server, fmt.Sprintf("schools_dir: %s\nsecret_file: secret\nmail: {host: smtp.example.com, from: a@example.com, username: u, password_file: %s}\n",
		filepath.Join(root, "schools"), smtp))
	if _, err := Load(server); err == nil || !strings.Contains(err.Error(), "secret_file") {
		t.Fatalf("the file's unreadable secret: err = %v", err)
	}

	t.Setenv("PROCTOR_SECRET", testSecret)
	t.Setenv("PROCTOR_MAIL_PASSWORD", "from-the-environment")
	cfg, err := Load(server)
	if err != nil {
		t.Fatalf("PROCTOR_SECRET beside the file's secret_file: %v", err)
	}
	if want, _ := DecodeSecret(testSecret); string(cfg.Server.Secret) != string(want) {
		t.Error("the secret is not the environment's")
	}
	if string(cfg.Server.Mail.Password) != "from-the-environment" {
		t.Error("the mail password is not the environment's")
	}

	// Both forms in the environment are still two answers to one question.
	t.Setenv("PROCTOR_SECRET_FILE", filepath.Join(root, "secret"))
	if _, err := Load(server); err == nil || !strings.Contains(err.Error(), "PROCTOR_SECRET (secret): set either secret or secret_file, not both") {
		t.Errorf("both forms in the environment: err = %v", err)
	}
}

// A file that is not YAML is reported with the parser's reason and line, but without the text
// the parser quotes: an alias's anchor name or a repeated key can be a password.
func TestSyntaxProblemQuotesNoText(t *testing.T) {
	for _, body := range []string{
		"redis: {url: *0hunter2hunter20}\n",
		"a: 1\nhunter2hunter2: 1\nhunter2hunter2: 2\n",
		"redis: {url: \"redis://:hunter2hunter2@127.0.0.1/0\"\n",
	} {
		root := writeFiles(t, map[string]string{"proctor.yaml": body})
		t.Setenv("PROCTOR_SECRET", testSecret)
		_, err := Load(filepath.Join(root, "proctor.yaml"))
		if err == nil || !strings.Contains(err.Error(), "not valid YAML: ") {
			t.Fatalf("%q: want a syntax problem, got %v", body, err)
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%q: the problem quotes the file: %v", body, err)
		}
	}
	if got := syntaxProblem(errors.New("yaml: unmarshal errors:\n  line 3: mapping key \"x\" already defined at line 2")); got != "unmarshal errors:\n  line 3: mapping key … already defined at line 2" {
		t.Errorf("syntaxProblem = %q", got)
	}
}

// The count of problems reads as English for one problem too.
func TestErrorsCountProblems(t *testing.T) {
	one := Errors{{File: "a.yaml", Field: "name", Msg: "is required"}}
	if got := one.Error(); !strings.HasPrefix(got, "invalid configuration (1 problem):\n  a.yaml: name: is required") {
		t.Errorf("one problem: %q", got)
	}
	two := append(one, Problem{File: "a.yaml", Field: "subdomain", Msg: "is required"})
	if got := two.Error(); !strings.HasPrefix(got, "invalid configuration (2 problems):\n") {
		t.Errorf("two problems: %q", got)
	}
}

// An integration is named by its name whatever the case and the surrounding space, by nothing
// else.
func TestIntegrationNamed(t *testing.T) {
	in := Integration{Name: " Grade Sync "}
	for name, want := range map[string]bool{
		"Grade Sync": true, "grade sync": true, "  GRADE SYNC\t": true,
		"GradeSync": false, "Grade Sync 2": false, "": false,
	} {
		if got := in.Named(name); got != want {
			t.Errorf("Named(%q) = %v", name, got)
		}
	}
}
