package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/storage"
)

func TestDoctorExitStatuses(t *testing.T) {
	root := deployment(t, map[string]string{"one.yaml": schoolOne + "features: {id_tokens: true}\n"})
	db := filepath.Join(root, "p.db")

	// No database file: a clear message, status 1, and no file created.
	code, _, stderr := runCmd(t, "", "doctor")
	if code != exitFailure || !strings.Contains(stderr, "cannot reach the database") || !strings.Contains(stderr, "does not exist") {
		t.Fatalf("doctor without a database: %d %s", code, stderr)
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Fatalf("doctor created the database file: %v", err)
	}

	// Migrated, the school synced and given keys by a rotation: nothing to report.
	mustRun(t, "migrate")
	for range 2 {
		mustRun(t, "keys", "rotate", "--school", "1")
	}
	code, out, stderr := runCmd(t, "", "doctor")
	if code != 0 || !strings.Contains(out, "no findings") {
		t.Fatalf("doctor on a consistent database: %d %q %q", code, out, stderr)
	}
	code, out, _ = runCmd(t, "", "doctor", "--json")
	if code != 0 || strings.TrimSpace(out) != "{\n  \"findings\": []\n}" {
		t.Fatalf("doctor --json on a consistent database: %d %q", code, out)
	}

	// A school file whose school has no row yet, and a server file whose secret is not the one
	// the keys were sealed with: both are found, and the exit status is 1.
	mustWriteFile(t, filepath.Join(root, "schools", "two.yaml"),
		[]byte("school_id: 2\nsubdomain: two\nname: Two\nbase_url: http://127.0.0.1:18081\n"), 0o600)
	otherSecret := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte("t"), 32))
	server := os.Getenv("PROCTOR_CONFIG")
	body, err := os.ReadFile(server)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(body), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "secret: ") {
			lines[i] = "secret: " + otherSecret
		}
	}
	mustWriteFile(t, server, []byte(strings.Join(lines, "\n")), 0o600)

	code, out, stderr = runCmd(t, "", "doctor", "--json")
	if code != exitFailure || !strings.Contains(stderr, "2 findings") {
		t.Fatalf("doctor --json with findings: %d %q %q", code, out, stderr)
	}
	var got struct {
		Findings []storage.Finding `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	checks := map[string]storage.Finding{}
	for _, f := range got.Findings {
		checks[f.Check] = f
	}
	if f := checks["schools.missing_row"]; f.Count != 1 || len(f.Examples) != 1 || f.Examples[0] != "school 2" {
		t.Errorf("schools.missing_row: %+v", f)
	}
	// Both published keys (the current one and the one before it) are sealed under the old
	// secret.
	if f := checks["signing_keys.unusable"]; f.Count != 2 || !strings.Contains(strings.Join(f.Examples, " "), "does not decrypt with the configured secret") {
		t.Errorf("signing_keys.unusable: %+v", f)
	}
	for _, secret := range []string{otherSecret, deploymentSecretText} {
		if strings.Contains(out, secret) || strings.Contains(stderr, secret) {
			t.Error("the output shows a secret")
		}
	}
	code, out, _ = runCmd(t, "", "doctor")
	if code != exitFailure || !strings.Contains(out, "schools.missing_row: 1: ") || !strings.Contains(out, "    e.g. school 2") {
		t.Errorf("doctor with findings: %d\n%s", code, out)
	}

	// Invalid configuration: status 2, as for every command.
	mustWriteFile(t, filepath.Join(root, "schools", "bad.yaml"), []byte("school_id: -1\n"), 0o600)
	if code, _, stderr := runCmd(t, "", "doctor"); code != exitInvalidConfig || !strings.Contains(stderr, "bad.yaml") {
		t.Fatalf("doctor with an invalid school file: %d %s", code, stderr)
	}
}

// postgresDeployment writes a deployment of one school and returns a function that points
// PROCTOR_CONFIG at a server file for PostgreSQL at dsn.
func postgresDeployment(t *testing.T) func(dsn string) {
	root := deployment(t, map[string]string{"one.yaml": schoolOne})
	return func(dsn string) {
		useServerFile(t, filepath.Join(root, "pg.yaml"), "postgres", dsn, filepath.Join(root, "schools"))
	}
}

// TestDoctorUnreachablePostgres: a server that does not answer is reported as such (status 1),
// without the DSN, which may hold a password.
func TestDoctorUnreachablePostgres(t *testing.T) {
	usePostgres := postgresDeployment(t)
	usePostgres("postgres://proctor:hunter2-password@127.0.0.1:1/proctor?connect_timeout=2&sslmode=disable")
	if stderr := refused(t, "cannot reach the postgres database", "doctor"); strings.Contains(stderr, "hunter2") {
		t.Errorf("the message shows the password: %s", stderr)
	}
}

// TestDoctorNeverRepeatsTheDSN: a DSN that does not parse is reported by the reason alone, not
// quoted, not even with its password masked.
func TestDoctorNeverRepeatsTheDSN(t *testing.T) {
	usePostgres := postgresDeployment(t)
	for _, dsn := range []string{
		"postgres://proctor:hunter2-password@db.internal:notaport/proctor",
		"host=db.internal port=abc password=hunter2-password",
		"postgres://proctor:hunter2-password@db.internal:5432/proctor?sslmode=bogus",
		"postgres://proctor:hunter2%zz@db.internal:5432/proctor",
	} {
		usePostgres(dsn)
		stderr := refused(t, "database.dsn does not parse", "doctor")
		for _, part := range []string{"hunter2", "%zz", "abc", "notaport", "db.internal", "xxxxx", "proctor@", "`"} {
			if strings.Contains(stderr, part) {
				t.Errorf("%s: the message repeats the DSN (%q): %s", dsn, part, stderr)
			}
		}
	}
}
