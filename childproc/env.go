package childproc

import "strings"

// proctorPrefix starts every environment variable the proctor binary reads its configuration
// from: config.EnvPrefix and its underscore. A test pins the two together; importing config
// here would make this leaf depend on the server's configuration.
const proctorPrefix = "PROCTOR_"

// Env returns env without its PROCTOR_* variables, in a new slice. A child is given a
// configuration file of its own, which must be the whole truth: a PROCTOR_SECRET or
// PROCTOR_DATABASE_DSN inherited from the shell or the CI job would override it.
func Env(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, proctorPrefix) {
			out = append(out, kv)
		}
	}
	return out
}
