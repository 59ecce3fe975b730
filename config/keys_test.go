package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// loadSchoolFile loads a deployment of one school file, body, and a valid server file, and
// returns the problems found.
func loadSchoolFile(t *testing.T, body string) Errors {
	t.Helper()
	root := writeFiles(t, map[string]string{"schools/a.yaml": body})
	server := filepath.Join(root, "proctor.yaml")
	if err := os.WriteFile(server, []byte(fmt.Sprintf("schools_dir: %s\nsecret: %s\n", filepath.Join(root, "schools"), testSecret)), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(server)
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
	root := writeFiles(t, map[string]string{"schools/a.yaml": validSchool})
	server := filepath.Join(root, "proctor.yaml")
	os.WriteFile(server, []byte(fmt.Sprintf("schools_dir: %s\nsecret: %s\nlog: {level: info, format: xml}\nnmae: x\n", filepath.Join(root, "schools"), testSecret)), 0o600)
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
}

// The environment overrides the file for the same setting, and the inline and file forms of a
// secret are one setting: either from the environment replaces either from the file.
func TestEnvironmentSecretReplacesFileSecret(t *testing.T) {
	root := writeFiles(t, map[string]string{"schools/a.yaml": validSchool, "secret": "not base64 and too short"})
	server := filepath.Join(root, "proctor.yaml")
	smtp := filepath.Join(root, "smtp-password")
	os.WriteFile(smtp, []byte("from-the-file\n"), 0o600)
	os.WriteFile(server, []byte(fmt.Sprintf("schools_dir: %s\nsecret_file: secret\nmail: {host: smtp.example.com, from: a@example.com, username: u, password_file: %s}\n",
		filepath.Join(root, "schools"), smtp)), 0o600)
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
