package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/proctorhq/proctor/childproc"
	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/seed/demo"
	"github.com/proctorhq/proctor/server"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/gormstore"
)

// runCmd runs one command line the way main does and returns its exit status and output.
func runCmd(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

// refused checks that a command line failed with status 1 and said want on stderr (anything,
// when want is empty), and returns what it said.
func refused(t *testing.T, want string, args ...string) string {
	t.Helper()
	code, _, stderr := runCmd(t, "", args...)
	if code != exitFailure || !strings.Contains(stderr, want) {
		t.Errorf("%v: exit %d, want %d and %q\n%s", args, code, exitFailure, want, stderr)
	}
	return stderr
}

// mustRun runs a command line that must succeed and returns what it printed on stdout.
func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	code, out, stderr := runCmd(t, "", args...)
	if code != 0 {
		t.Fatalf("%v: exit %d\n%s", args, code, stderr)
	}
	return out
}

// mustRunClient runs a clients command line with --json that must succeed and returns the client
// it printed.
func mustRunClient(t *testing.T, args ...string) clientOutput {
	t.Helper()
	out := mustRun(t, args...)
	var c clientOutput
	if err := json.Unmarshal([]byte(out), &c); err != nil || c.ClientID == "" {
		t.Fatalf("%v: no client in the output (%v)\n%s", args, err, out)
	}
	return c
}

// deploymentSecret is the system secret of the deployments the tests write, and
// deploymentSecretText is how their server files spell it.
var (
	deploymentSecret     = config.Secret(bytes.Repeat([]byte("s"), 32))
	deploymentSecretText = base64.StdEncoding.EncodeToString(deploymentSecret)
)

// deployment writes a server file and school files for an SQLite database in a temp dir and
// points PROCTOR_CONFIG at it.
func deployment(t *testing.T, schools map[string]string) string {
	t.Helper()
	root := t.TempDir()
	mustMkdir(t, filepath.Join(root, "schools"))
	for name, body := range schools {
		mustWriteFile(t, filepath.Join(root, "schools", name), []byte(body), 0o600)
	}
	useServerFile(t, filepath.Join(root, "proctor.yaml"), "sqlite", filepath.Join(root, "p.db"), filepath.Join(root, "schools"))
	return root
}

// useServerFile writes a server file at path for the database and the schools directory, with
// deploymentSecret, and points PROCTOR_CONFIG at it.
func useServerFile(t *testing.T, path, driver, dsn, schoolsDir string) {
	t.Helper()
	mustWriteFile(t, path, []byte(fmt.Sprintf("database: {driver: %s, dsn: %q}\nschools_dir: %s\nsecret: %s\nlog: {level: error}\n",
		driver, dsn, schoolsDir, deploymentSecretText)), 0o600)
	t.Setenv("PROCTOR_CONFIG", path)
}

// mustWriteFile writes data to path, failing the test when the file cannot be written.
func mustWriteFile(t *testing.T, path string, data []byte, perm os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, data, perm); err != nil {
		t.Fatal(err)
	}
}

// mustMkdir creates the directory dir and its parents, failing the test when it cannot.
func mustMkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

// migratedDeployment is a deployment whose database `proctor migrate` has brought up to date.
func migratedDeployment(t *testing.T, schools map[string]string) string {
	t.Helper()
	root := deployment(t, schools)
	mustRun(t, "migrate")
	return root
}

const schoolOne = "school_id: 1\nsubdomain: one\nname: One\nbase_url: http://127.0.0.1:18080\n"

func TestInvalidConfigurationExitsTwoListingEveryProblem(t *testing.T) {
	deployment(t, map[string]string{
		"a.yaml": "school_id: -1\nsubdomain: A\nname: A\nbase_url: http://a.example\n",
		"b.yaml": "school_id: 2\nsubdomain: b\nname: B\nbase_url: https://b.example\nunknown_key: 1\n",
	})
	for _, args := range [][]string{{"schools", "validate"}, {"serve"}, {"migrate"}} {
		code, _, stderr := runCmd(t, "", args...)
		if code != exitInvalidConfig {
			t.Fatalf("%v: exit %d, want 2; stderr:\n%s", args, code, stderr)
		}
		for _, want := range []string{"a.yaml: school_id", "a.yaml: subdomain", "a.yaml: base_url", "b.yaml", "unknown_key"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("%v: stderr does not mention %q:\n%s", args, want, stderr)
			}
		}
	}
	// Nothing was written: the database file was never created.
	if matches, _ := filepath.Glob(filepath.Join(filepath.Dir(os.Getenv("PROCTOR_CONFIG")), "p.db*")); len(matches) > 0 {
		t.Errorf("invalid configuration wrote %v", matches)
	}
}

func TestSchoolsListAndValidate(t *testing.T) {
	deployment(t, map[string]string{"one.yaml": schoolOne + "features: {id_tokens: true}\n"})
	code, out, stderr := runCmd(t, "", "schools", "validate")
	if code != 0 || !strings.Contains(out, "configuration is valid: 1 school\n") {
		t.Fatalf("validate: %d %s %s", code, out, stderr)
	}
	code, out, _ = runCmd(t, "", "schools", "list")
	if code != 0 || !strings.Contains(out, "http://127.0.0.1:18080") || !strings.Contains(out, "true") {
		t.Fatalf("list: %d %s", code, out)
	}
	// tenants is the command's earlier name.
	if code, again, _ := runCmd(t, "", "tenants", "list"); code != 0 || again != out {
		t.Fatalf("tenants list: %d %s", code, again)
	}
}

func TestMembersCommands(t *testing.T) {
	deployment(t, map[string]string{"one.yaml": schoolOne})
	// The schema must be current first.
	refused(t, "proctor migrate", "members", "list", "--school", "1")
	if out := mustRun(t, "migrate"); !strings.Contains(out, "applied") {
		t.Fatalf("migrate: %s", out)
	}
	if out := mustRun(t, "migrate"); !strings.Contains(out, "0 migrations applied") {
		t.Fatalf("second migrate: %s", out)
	}
	code, out, stderr := runCmd(t, "a long enough password\n", "members", "create", "--school", "1",
		"--email", "Ada@Example.com", "--name", "Ada", "--role", "admin", "--password-stdin")
	if code != 0 || !strings.Contains(out, "<ada@example.com>") || strings.Contains(out, "password:") {
		t.Fatalf("create: %d %q %q", code, out, stderr)
	}
	code, out, _ = runCmd(t, "", "members", "create", "--school", "1", "--email", "bo@example.com", "--name", "Bo")
	if code != 0 || !strings.Contains(out, "password: ") {
		t.Fatalf("create with generated password: %d %q", code, out)
	}
	refused(t, "already exists", "members", "create", "--school", "1", "--email", "ada@example.com", "--name", "Again")
	mustRun(t, "members", "set-role", "--school", "1", "--email", "bo@example.com", "--role", "lecturer,student")
	refused(t, "unknown role", "members", "set-role", "--school", "1", "--email", "bo@example.com", "--role", "wizard")
	refused(t, "no school with school_id 9", "members", "list", "--school", "9")
	code, out, _ = runCmd(t, "", "members", "list", "--school", "1")
	if code != 0 || !strings.Contains(out, "ada@example.com") || !strings.Contains(out, "admin") ||
		!strings.Contains(out, "lecturer,student") {
		t.Fatalf("list: %d\n%s", code, out)
	}
	// --tenant is the earlier name of --school.
	if code, again, stderr := runCmd(t, "", "members", "list", "--tenant", "1"); code != 0 || again != out {
		t.Fatalf("list --tenant: %d %s %s", code, again, stderr)
	}
}

func TestSeedCommand(t *testing.T) {
	root := migratedDeployment(t, map[string]string{"one.yaml": schoolOne})
	good := filepath.Join(root, "good.yaml")
	mustWriteFile(t, good, []byte(`members:
  - email: kim@example.com
    name: Kim
    password: kim-secret-pass
    roles: [student]
courses:
  - slug: go-basics
    title: Go Basics
    price_amount: 1999
    currency: USD
    published: true
    sections:
      - title: Start
        lectures:
          - {title: Hello, duration_seconds: 60}
enrollments:
  - {member: kim@example.com, course: go-basics, enrolled_at: 2025-01-02T03:04:05Z, lifetime_access: true}
`), 0o600)
	for i := 0; i < 2; i++ { // idempotent
		code, out, stderr := runCmd(t, "", "seed", "--school", "1", good)
		if code != 0 || !strings.Contains(out, "members: 1") || !strings.Contains(out, "enrollments: 1") {
			t.Fatalf("seed run %d: %d %s %s", i, code, out, stderr)
		}
	}
	bad := filepath.Join(root, "bad.yaml")
	mustWriteFile(t, bad, []byte("members:\n  - email: not-an-email\n    name: X\n    password: whatever-pass\n    roles: [wizard]\n"), 0o600)
	code, _, stderr := runCmd(t, "", "seed", "--school", "1", bad)
	if code != exitFailure || !strings.Contains(stderr, "bad.yaml:2") || !strings.Contains(stderr, "bad.yaml:5") {
		t.Fatalf("bad fixture: %d\n%s", code, stderr)
	}
}

func TestVersionAndHelp(t *testing.T) {
	code, out, _ := runCmd(t, "", "version")
	if code != 0 || !strings.HasPrefix(out, "proctor "+server.Version()+" (") {
		t.Fatalf("version: %d %q", code, out)
	}
	if code, flag, _ := runCmd(t, "", "--version"); code != 0 || flag != out {
		t.Errorf("--version: %d %q, want %q", code, flag, out)
	}
	for _, cmd := range []string{"serve", "migrate", "demo", "seed", "schools", "members", "version"} {
		if code, out, _ := runCmd(t, "", cmd, "--help"); code != 0 || !strings.Contains(out, "Usage:") {
			t.Errorf("%s --help: %d", cmd, code)
		}
	}
}

// loopbackPorts hands out the loopback addresses the tests' servers listen on: none twice in
// this test process, each held until its server is about to bind it (childproc.Ports).
var loopbackPorts = childproc.NewPorts("127.0.0.1")

// reservePorts holds n distinct loopback addresses (the demo's schools' URLs carry the port,
// so it cannot listen on port 0) until loopbackPorts.Release, just before the server binds
// them, or the test's end.
func reservePorts(t *testing.T, n int) []string {
	t.Helper()
	addrs, err := loopbackPorts.Hold(n)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { loopbackPorts.Release(addrs...) })
	return addrs
}

// startServing runs serve on fresh loopback ports until its ready URL answers, and returns the
// ports and the server running. A port another process took between being chosen and being
// listened on fails serve at once; that is retried with new ports, a few times. Any other early
// exit fails the test with serve's error, not a wait for an answer that cannot come.
func startServing(t *testing.T, n int, serve func(ports []string) error, ready func(ports []string) (url, host string)) ([]string, *serving) {
	t.Helper()
	for attempt := 1; ; attempt++ {
		// Released at once: serve binds them as it starts.
		ports := reservePorts(t, n)
		loopbackPorts.Release(ports...)
		s := startServe(func() error { return serve(ports) })
		url, host := ready(ports)
		if _, err := waitFor(t, url, host, s); err == nil {
			return ports, s
		} else if !errors.Is(err, syscall.EADDRINUSE) || attempt == 3 {
			t.Fatalf("the server stopped before it answered: %v", err)
		}
	}
}

// serving is a server a test runs in this process: exited is closed once serve has returned,
// with err.
type serving struct {
	exited chan struct{}
	err    error
}

func startServe(serve func() error) *serving {
	s := &serving{exited: make(chan struct{})}
	go func() {
		s.err = serve()
		close(s.exited)
	}()
	return s
}

// wait waits until serve has returned, and returns its error.
func (s *serving) wait() error {
	<-s.exited
	return s.err
}

// hangAfter is the deadline of every wait of these tests: it only stops a test that would
// otherwise hang, and a busy machine never reaches it.
const hangAfter = 3 * time.Minute

// poll calls cond every 50ms until it holds (nil) or exited is closed (childproc.ErrExited);
// after hangAfter it gives up (another error).
func poll(exited <-chan struct{}, cond func() bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), hangAfter)
	defer cancel()
	return childproc.Poll(ctx, 50*time.Millisecond, exited, cond)
}

// TestDemoServesAndKeepsItsData starts the demo, reads both schools' discovery, stops it,
// starts it again on the same data directory and finds the same data.
func TestDemoServesAndKeepsItsData(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the demo twice")
	}
	dataDir := t.TempDir()
	refused(t, "loopback", "demo", "--addr", "0.0.0.0:8080", "--data-dir", dataDir)
	var firstSecret []byte
	for round := 0; round < 2; round++ {
		ctx, cancel := context.WithCancel(context.Background())
		var out, logs bytes.Buffer
		ports, demoRun := startServing(t, 2, func(p []string) error {
			out.Reset()
			logs.Reset()
			return runDemo(ctx, p[0], p[1], dataDir, &out, &logs)
		}, func(p []string) (string, string) { return "http://" + p[1] + "/mail/messages.json", p[1] })
		addr, internal := ports[0], ports[1]
		port := addr[strings.LastIndex(addr, ":")+1:]
		for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port} {
			body := mustAnswer(t, "http://"+addr+"/.well-known/openid-configuration", host, demoRun)
			if !strings.Contains(body, `"issuer":"http://`+host+`"`) {
				t.Errorf("round %d: %s issuer: %s", round, host, body)
			}
		}
		if body := mustAnswer(t, "http://"+internal+"/mail/messages.json", internal, demoRun); !strings.Contains(body, `"messages"`) {
			t.Errorf("round %d: the demo mailbox: %s", round, body)
		}
		cancel()
		if err := demoRun.wait(); err != nil {
			t.Fatalf("round %d: demo: %v\n%s", round, err, logs.String())
		}
		if !strings.Contains(out.String(), "http://"+internal+"/mail") {
			t.Errorf("banner without the mailbox:\n%s", out.String())
		}
		if !strings.Contains(out.String(), "student-demo-pass") {
			t.Errorf("banner without accounts:\n%s", out.String())
		}
		secret, err := os.ReadFile(filepath.Join(dataDir, "demo-secret"))
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if round == 0 {
			firstSecret = secret
			// A visitor's change between the two runs must survive the restart.
			renameDemoStudent(t, dataDir, "Renamed During The Demo")
		} else if !bytes.Equal(secret, firstSecret) {
			t.Error("the demo secret changed across restarts")
		}
	}
	if got := renameDemoStudent(t, dataDir, ""); got != "Renamed During The Demo" {
		t.Errorf("after a restart the demo student is named %q: the demo re-seeded over its data", got)
	}
}

// renameDemoStudent opens the demo database, renames the first school's student when name is
// not empty, and returns the student's name.
func renameDemoStudent(t *testing.T, dataDir, name string) string {
	t.Helper()
	ctx := context.Background()
	st, err := gormstore.Open(ctx, gormstore.Config{Driver: "sqlite", DSN: filepath.Join(dataDir, "proctor.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var email string
	for _, acc := range demo.Accounts() {
		if acc.Role == "student" {
			email = acc.Email
			break
		}
	}
	m, err := st.GetMemberByEmail(ctx, email)
	if err != nil {
		t.Fatal(err)
	}
	if name != "" {
		m, err = st.UpdateMember(ctx, m.ID, func(m storage.Member) (storage.Member, error) {
			m.Name = name
			return m, nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return m.Name
}

// waitFor polls url with the given Host until it answers 200, and returns the body; or returns
// an error, serve's, if the server stops first.
func waitFor(t *testing.T, url, host string, s *serving) (string, error) {
	t.Helper()
	var body string
	switch err := poll(s.exited, func() bool {
		code, b, err := fetch(http.MethodGet, url, host, nil, "")
		body = b
		return err == nil && code == http.StatusOK
	}); {
	case errors.Is(err, childproc.ErrExited):
		return "", fmt.Errorf("stopped with %w", s.err)
	case err != nil:
		t.Fatalf("%s (Host %s) never answered", url, host)
	}
	return body, nil
}

// fetch sends a request for url, with the Host header host (the URL's own when empty), the
// header and the body, and returns the status and the body of the answer.
func fetch(method, url, host string, header http.Header, body string) (int, string, error) {
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	if host != "" {
		req.Host = host
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, err = b.ReadFrom(resp.Body)
	return resp.StatusCode, b.String(), err
}

// mustAnswer is waitFor for a server that has answered before: its stopping fails the test.
func mustAnswer(t *testing.T, url, host string, s *serving) string {
	t.Helper()
	body, err := waitFor(t, url, host, s)
	if err != nil {
		t.Fatalf("%s: the server %v", url, err)
	}
	return body
}

func TestClientsAndKeysCommands(t *testing.T) {
	migratedDeployment(t, map[string]string{"one.yaml": schoolOne + "features: {id_tokens: true}\n"})
	created := mustRunClient(t, "clients", "create", "--school", "1", "--name", "Study App",
		"--redirect-uri", "http://127.0.0.1/cb", "--confidential", "--json")
	if !strings.HasPrefix(created.ClientID, "pc_") || len(created.ClientSecret) < 40 ||
		created.TokenEndpointAuthMethod != "client_secret_post" || created.Scope != "openid profile email account:read account:write" {
		t.Fatalf("created %+v", created)
	}
	for _, bad := range [][]string{
		{"--redirect-uri", "http://app.example/cb"},                              // plain http off loopback
		{"--redirect-uri", "https://app.example/cb", "--scopes", "courses:read"}, // operator scope on a member client
		{"--redirect-uri", "https://app.example/cb", "--kind", "operator", "--scopes", "account:read"},
	} {
		refused(t, "", append([]string{"clients", "create", "--school", "1", "--name", "X"}, bad...)...)
	}
	if rotated := mustRunClient(t, "clients", "rotate-secret", "--school", "1", created.ClientID, "--json"); rotated.ClientSecret == "" || rotated.ClientSecret == created.ClientSecret {
		t.Fatalf("rotate-secret: %+v", rotated)
	}
	if code, out, _ := runCmd(t, "", "clients", "list", "--school", "1"); code != 0 || !strings.Contains(out, created.ClientID) {
		t.Fatalf("list: %d %s", code, out)
	}
	mustRun(t, "clients", "delete", "--school", "1", created.ClientID)
	if code, out, _ := runCmd(t, "", "clients", "list", "--school", "1"); code != 0 || strings.Contains(out, created.ClientID) {
		t.Fatalf("list after delete: %s", out)
	}

	code, first, _ := runCmd(t, "", "keys", "rotate", "--school", "1")
	code2, second, _ := runCmd(t, "", "keys", "rotate", "--school", "1")
	if code != 0 || code2 != 0 || strings.TrimSpace(first) == strings.TrimSpace(second) {
		t.Fatalf("rotate: %q %q", first, second)
	}
	if code, out, _ := runCmd(t, "", "keys", "list", "--school", "1"); code != 0 || !strings.Contains(out, strings.TrimSpace(second)) {
		t.Fatalf("keys list: %s", out)
	}
}

// TestE2EBuildsItsOwnBinary checks that e2e/run.sh builds the binary it runs somewhere other
// than bin/proctor, which is `make build`'s static release binary, and runs the one it built.
func TestE2EBuildsItsOwnBinary(t *testing.T) {
	script, err := os.ReadFile(filepath.Join("..", "..", "e2e", "run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	var built, runs string
	for _, line := range strings.Split(string(script), "\n") {
		f := strings.Fields(line)
		if len(f) > 3 && f[0] == "go" && f[1] == "build" {
			for i := range f[:len(f)-1] {
				if f[i] == "-o" {
					built = f[i+1]
				}
			}
		}
		if v, ok := strings.CutPrefix(line, "proctor="); ok {
			runs = strings.Trim(v, `"`)
		}
	}
	if built == "" || filepath.Clean(built) == filepath.Join("bin", "proctor") {
		t.Errorf("e2e/run.sh builds %q: it must leave bin/proctor alone", built)
	}
	if runs != "$root/"+built {
		t.Errorf("e2e/run.sh builds %q and runs %q", built, runs)
	}
}

// TestDeploySamples checks deploy/: `proctor schools validate` accepts the sample server file
// with the sample school file (installed where the server file says), and the systemd unit runs
// `proctor serve` on that server file, hands it the secret where the server file reads it, and
// keeps its hardening.
func TestDeploySamples(t *testing.T) {
	deploy := filepath.Join("..", "..", "deploy")
	server, err := os.ReadFile(filepath.Join(deploy, "proctor.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	unit, err := os.ReadFile(filepath.Join(deploy, "proctor.service"))
	if err != nil {
		t.Fatal(err)
	}
	var conf struct {
		SchoolsDir string `yaml:"schools_dir"`
		SecretFile string `yaml:"secret_file"`
	}
	if err := yaml.Unmarshal(server, &conf); err != nil {
		t.Fatal(err)
	}

	// The unit: one ExecStart, `proctor --config FILE serve`, FILE being where the sample server
	// file is installed, beside the schools directory it names.
	settings := map[string][]string{}
	for _, line := range strings.Split(string(unit), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			settings[k] = append(settings[k], v)
		}
	}
	start := settings["ExecStart"]
	if len(start) != 1 {
		t.Fatalf("the unit has %d ExecStart lines", len(start))
	}
	args := strings.Fields(start[0])
	if len(args) != 4 || filepath.Base(args[0]) != "proctor" || args[1] != "--config" || args[3] != "serve" {
		t.Fatalf("ExecStart=%s, want proctor --config FILE serve", start[0])
	}
	configPath := args[2]
	// systemctl reload sends SIGHUP, on which serve re-reads the school files.
	if r := settings["ExecReload"]; len(r) != 1 || r[0] != "/bin/kill -HUP $MAINPID" {
		t.Errorf("ExecReload=%v, want /bin/kill -HUP $MAINPID", r)
	}
	if filepath.Dir(configPath) != filepath.Dir(conf.SchoolsDir) || filepath.Base(conf.SchoolsDir) != "schools" {
		t.Errorf("the unit reads %s, the server file's schools are in %s: deploy/schools/ must go beside it", configPath, conf.SchoolsDir)
	}
	if !strings.Contains(string(server), configPath) {
		t.Errorf("the server file does not say it is installed as %s", configPath)
	}
	// The secret: the credential "secret" of the unit, which systemd puts in the credentials
	// directory of the unit's name.
	cred := settings["LoadCredential"]
	if len(cred) != 1 || conf.SecretFile != "/run/credentials/proctor.service/"+strings.Split(cred[0], ":")[0] {
		t.Errorf("LoadCredential=%v does not give the server file's secret_file %s", cred, conf.SecretFile)
	}
	for k, want := range map[string]string{
		"DynamicUser": "yes", "NoNewPrivileges": "yes", "ProtectSystem": "strict", "ProtectHome": "yes",
		"PrivateTmp": "yes", "PrivateDevices": "yes", "CapabilityBoundingSet": "", "RestrictSUIDSGID": "yes",
	} {
		if got := settings[k]; len(got) != 1 || got[0] != want {
			t.Errorf("the unit sets %s=%v, want %q", k, got, want)
		}
	}
	if _, err := exec.LookPath("systemd-analyze"); err == nil {
		// systemd's own parser: no unknown key, no value it cannot parse (it only warns).
		dir := t.TempDir()
		mustWriteFile(t, filepath.Join(dir, "proctor.service"), []byte(strings.ReplaceAll(string(unit), args[0], "/bin/true")), 0o644)
		out, err := exec.Command("systemd-analyze", "verify", "--man=no", filepath.Join(dir, "proctor.service")).CombinedOutput()
		if err != nil || len(bytes.TrimSpace(out)) > 0 {
			t.Errorf("systemd-analyze verify: %v\n%s", err, out)
		}
	}

	// The YAML files, through `proctor schools validate`: the sample as installed, with the
	// samples' schools directory and a secret in place of the ones on a server.
	secret := filepath.Join(t.TempDir(), "secret")
	mustWriteFile(t, secret, []byte(deploymentSecretText+"\n"), 0o600)
	t.Setenv("PROCTOR_SCHOOLS_DIR", filepath.Join(deploy, "schools"))
	t.Setenv("PROCTOR_SECRET_FILE", secret)
	code, out, stderr := runCmd(t, "", "--config", filepath.Join(deploy, "proctor.yaml"), "schools", "validate")
	if code != 0 || !strings.Contains(out, "configuration is valid: 1 school\n") {
		t.Errorf("schools validate: exit %d\n%s%s", code, out, stderr)
	}
}
