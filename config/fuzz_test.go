package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoad feeds arbitrary server and school files through Load, the path every command reads
// its configuration by. Whatever the files hold, Load must not panic; what it accepts must pass
// Validate again (the checks do not depend on the order they ran in); and no problem it reports
// may quote the system secret, or the seeds' Redis password except where the fuzzer moved that
// text into another setting, whose problems rightly quote their own values.
func FuzzLoad(f *testing.F) {
	seeds := [][2]string{
		{"public: {addr: \"127.0.0.1:8080\"}\ndatabase: {driver: sqlite, dsn: proctor.db}\n",
			"school_id: 1\nsubdomain: north\nname: North\nbase_url: http://127.0.0.1:8080\n"},
		{"database: {driver: postgres, dsn: \"postgres://db/proctor\"}\ntrusted_proxies: [10.0.0.0/8]\nhttp: {write_timeout: 45s, max_body_bytes: 2048}\n",
			"school_id: 2\nsubdomain: lumen\nname: Lumen\nbase_url: https://lumen.example/\nfeatures: {mcp_connections: true, id_tokens: true}\nlifetimes: {access_token: 2h, refresh_token: 720h}\n"},
		{"redis: {url: \"redis://user:hunter2hunter2@127.0.0.1:6379/0\", key_prefix: \"p:\"}\n",
			"school_id: 3\nsubdomain: x\nbase_url: ftp://x\nclients: [{id: a, redirect_uris: [\"http://127.0.0.1/cb\"]}]\n"},
		{"integrations: [{name: Zapier, client_id: zap, redirect_uris: [\"http://127.0.0.1:9/cb\"]}]\n",
			"school_id: 4\nsubdomain: four\nname: Four\nbase_url: http://localhost:8080\nregistration: {integrations: [Zapier]}\ncimd: {open: true}\n"},
		{"http: {shutdown_grace: -1s}\nunknown_key: 1\n", "school_id: 0\n"},
		{"- a\n- b\n", "{{{"},
		{"", ""},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1])
	}
	dir := f.TempDir()
	schools := filepath.Join(dir, "schools")
	if err := os.MkdirAll(schools, 0o755); err != nil {
		f.Fatal(err)
	}
	// The environment names the schools directory and the secret, so that the fuzzed server
	// file cannot point Load at the rest of the file system.
	f.Setenv("PROCTOR_SCHOOLS_DIR", schools)
	f.Setenv("PROCTOR_SECRET", testSecret)
	serverFile := filepath.Join(dir, "proctor.yaml")
	schoolFile := filepath.Join(schools, "school.yaml")

	f.Fuzz(func(t *testing.T, server, school string) {
		writeFile(t, serverFile, server)
		writeFile(t, schoolFile, school)
		cfg, err := Load(serverFile)
		if err != nil {
			msg := err.Error()
			if strings.Contains(msg, testSecret) {
				t.Fatalf("a problem quotes the system secret: %s", msg)
			}
			if strings.Contains(server, "hunter2hunter2") {
				for _, line := range strings.Split(msg, "\n") {
					if strings.Contains(line, "hunter2hunter2") && !quotesOwnValue(line, serverFile) {
						t.Fatalf("a problem quotes the Redis password: %s", msg)
					}
				}
			}
			return
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("Load accepted a configuration that Validate refuses: %v", err)
		}
	})
}

// quotesOwnValue reports whether a problem line is one allowed to quote text of the server file:
// a setting other than redis.url showing its value, or an unknown key showing its name. A whole-
// file problem (the file is not YAML) and every redis.url problem must not quote the file.
func quotesOwnValue(line, serverFile string) bool {
	rest, ok := strings.CutPrefix(strings.TrimSpace(line), serverFile+": ")
	if !ok {
		return false
	}
	if strings.HasPrefix(rest, "unknown key ") {
		return true
	}
	field, _, ok := strings.Cut(rest, ": ")
	return ok && !strings.HasPrefix(field, "redis.url") && !strings.Contains(field, " ")
}
