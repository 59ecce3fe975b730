package config

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/viper"
)

// Config is the whole validated configuration.
type Config struct {
	Server  Server
	Schools []School
}

// EnvPrefix prefixes every environment override.
const EnvPrefix = "PROCTOR"

// Load reads the server file (serverFile may be "": defaults and environment only), the school
// files it points to and the secret, and validates all of it. On any problem it returns Errors
// listing every problem found; the returned Config is then nil.
func Load(serverFile string) (*Config, error) {
	srv, problems := loadServer(serverFile)
	var schools []School
	if srv != nil {
		// A problem with the directory itself is the server file's, or its variable's.
		schools = loadSchools(collector{file: serverFile, problems: &problems, env: true}, srv.SchoolsDir, srv.Integrations)
	}
	if len(problems) > 0 {
		return nil, problems
	}
	return &Config{Server: *srv, Schools: schools}, nil
}

// loadServer reads and validates the server file and the system secret. It returns the server
// whenever the file could be decoded, even with problems, so that the school files it names are
// checked in the same pass.
func loadServer(file string) (*Server, Errors) {
	var problems Errors
	c := collector{file: file, problems: &problems, env: true}
	v := viper.New()
	v.SetEnvPrefix(EnvPrefix)
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	v.AutomaticEnv()
	setDefaults(v, "", DefaultServer())
	// secret and secret_file have no default but must be known keys for env overrides.
	v.SetDefault("secret", "")
	v.SetDefault("secret_file", "")
	if file != "" && !readYAML(c, v, file, reflect.TypeOf(Server{})) {
		return nil, problems
	}
	useLegacySchoolsDir(v, c)
	environmentReplacesFileSecrets(v)
	var s Server
	c.undecoded = decodeProblems(c, v.Unmarshal(&s, viper.DecodeHook(decodeHook())))
	s.File = file
	s.validate(c)
	s.Secret = loadSecret(c, file, s.Secret, s.SecretFile)
	loadMailPassword(c, file, &s.Mail)
	return &s, problems
}

// readYAML reads file into v and reports every key of it that names no field of t. It reports
// false when the file cannot be read or parsed at all.
func readYAML(c collector, v *viper.Viper, file string, t reflect.Type) bool {
	data, err := os.ReadFile(file)
	if err != nil {
		c.add("", "cannot read: %v", err)
		return false
	}
	v.SetConfigType("yaml")
	if err := v.ReadConfig(bytes.NewReader(data)); err != nil {
		c.add("", "not valid YAML: %s", syntaxProblem(err))
		return false
	}
	checkKeys(c, data, t)
	return true
}

// quotedText matches from the first quotation mark of a message to its last, across lines.
var quotedText = regexp.MustCompile("(?s)['\"`].*['\"`]")

// syntaxProblem describes why a file is not YAML without quoting the file. The parser's messages
// quote the text they stopped at (an alias's anchor name, a repeated key, a value), and that text
// can be a password; what it wraps in quotation marks is left out, the line numbers stay.
func syntaxProblem(err error) string {
	msg := strings.TrimPrefix(err.Error(), "While parsing config: ")
	msg = strings.TrimPrefix(msg, "yaml: ")
	return quotedText.ReplaceAllString(msg, "…")
}

// secretSettings are the settings given either inline or by a file: each pair is one setting.
var secretSettings = [][2]string{{"secret", "secret_file"}, {"mail.password", "mail.password_file"}}

// environmentReplacesFileSecrets applies the one override rule to the settings given two ways:
// the environment overrides the file, so either form from the environment (PROCTOR_SECRET,
// PROCTOR_SECRET_FILE) replaces whichever form the file gives. Both forms from the same source
// stay an error (loadSecret, loadMailPassword).
func environmentReplacesFileSecrets(v *viper.Viper) {
	for _, pair := range secretSettings {
		inline, file := os.Getenv(envName(pair[0])) != "", os.Getenv(envName(pair[1])) != ""
		switch {
		case inline && !file:
			v.Set(pair[1], "")
		case file && !inline:
			v.Set(pair[0], "")
		}
	}
}

// useLegacySchoolsDir moves tenants_dir, the earlier name of schools_dir, to schools_dir. A
// server that sets both, in the file or the environment, is refused rather than guessed at.
func useLegacySchoolsDir(v *viper.Viper, c collector) {
	legacy := v.GetString("tenants_dir")
	if legacy == "" {
		return
	}
	if v.InConfig("schools_dir") || os.Getenv(EnvPrefix+"_SCHOOLS_DIR") != "" {
		c.add("schools_dir", "set schools_dir or its earlier name tenants_dir, not both")
		return
	}
	v.Set("schools_dir", legacy)
	v.Set("tenants_dir", "")
}

// loadSecret decodes the inline secret or reads the secret file; exactly one must be given.
func loadSecret(c collector, serverFile string, inline Secret, file string) Secret {
	switch {
	case len(inline) > 0 && file != "":
		c.add("secret", "set either secret or secret_file, not both (from the environment, PROCTOR_SECRET or PROCTOR_SECRET_FILE replaces both of the file's)")
		return nil
	case len(inline) > 0:
		s, err := DecodeSecret(string(inline))
		if err != nil {
			c.add("secret", "%v", err)
		}
		return s
	case file != "":
		b, ok := readBesideServerFile(c, "secret_file", serverFile, file)
		if !ok {
			return nil
		}
		s, err := DecodeSecret(string(b))
		if err != nil {
			c.add("secret_file", "%v", err)
		}
		return s
	default:
		c.add("secret", "is required: set PROCTOR_SECRET or secret_file (base64 of at least 32 random bytes)")
		return nil
	}
}

// readBesideServerFile reads file, named by the server file's setting key (or its variable): a
// relative path is taken from the server file's directory (the working directory without one).
// A file that cannot be read is a problem of key, and ok is false.
func readBesideServerFile(c collector, key, serverFile, file string) (b []byte, ok bool) {
	if !filepath.IsAbs(file) && serverFile != "" {
		file = filepath.Join(filepath.Dir(serverFile), file)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		c.add(key, "cannot read: %v", err)
		return nil, false
	}
	return b, true
}

// loadSchools reads every *.yaml and *.yml file of dir, in name order, and validates each file
// and the set: school ids, subdomains and hosts must be unique. Problems go to server's list; a
// problem with dir itself is reported as the server file's (or its variable's).
func loadSchools(server collector, dir string, integrations []Integration) []School {
	problems := server.problems
	entries, err := os.ReadDir(dir)
	if err != nil {
		server.add("schools_dir", "cannot read %s: %v", dir, err)
		return nil
	}
	var schools []School
	before := len(*problems)
	for _, e := range entries {
		name := e.Name()
		ext := filepath.Ext(name)
		if e.IsDir() || strings.HasPrefix(name, ".") || (ext != ".yaml" && ext != ".yml") {
			continue
		}
		t, ok := loadSchool(filepath.Join(dir, name), integrations, problems)
		if ok {
			schools = append(schools, t)
		}
	}
	if len(schools) == 0 && len(*problems) == before {
		server.add("schools_dir", "%s holds no school file (*.yaml)", dir)
	}
	*problems = append(*problems, CheckSchoolSet(schools)...)
	return schools
}

func loadSchool(path string, integrations []Integration, problems *Errors) (School, bool) {
	c := collector{file: path, problems: problems}
	before := len(*problems)
	v := viper.New()
	if !readYAML(c, v, path, reflect.TypeOf(School{})) {
		return School{}, false
	}
	t := DefaultSchool()
	c.undecoded = decodeProblems(c, v.Unmarshal(&t, viper.DecodeHook(decodeHook())))
	t.File = path
	t.validate(c)
	t.validateClients(c, integrations)
	return t, len(*problems) == before
}

// setDefaults registers every field of v's struct under prefix as a viper default, so that
// AutomaticEnv can override keys the file does not mention.
func setDefaults(v *viper.Viper, prefix string, s any) {
	rv := reflect.ValueOf(s)
	rt := rv.Type()
	for i := 0; i < rt.NumField(); i++ {
		f := rt.Field(i)
		key := f.Tag.Get("mapstructure")
		if key == "" || key == "-" || !f.IsExported() {
			continue
		}
		if prefix != "" {
			key = prefix + "." + key
		}
		fv := rv.Field(i)
		if f.Type.Kind() == reflect.Struct {
			setDefaults(v, key, fv.Interface())
			continue
		}
		v.SetDefault(key, fv.Interface())
	}
}

// decodeHook turns strings into durations, comma-separated lists and secrets (the secret is
// decoded and checked later, so that its problem is reported like any other).
func decodeHook() mapstructure.DecodeHookFunc {
	secretType := reflect.TypeOf(Secret(nil))
	return mapstructure.ComposeDecodeHookFunc(
		func(from, to reflect.Type, data any) (any, error) {
			if to == secretType && from.Kind() == reflect.String {
				return Secret(data.(string)), nil
			}
			return data, nil
		},
		mapstructure.StringToTimeDurationHookFunc(),
		mapstructure.StringToSliceHookFunc(","),
	)
}

func fieldIndex(field string, i int) string { return field + "[" + strconv.Itoa(i) + "]" }

// Validate checks a configuration built in code (the demo) the way Load checks files.
func (cfg *Config) Validate() error {
	var problems Errors
	c := collector{file: cfg.Server.File, problems: &problems}
	cfg.Server.validate(c)
	if len(cfg.Server.Secret) < MinSecretBytes {
		c.add("secret", "must be at least %d bytes", MinSecretBytes)
	}
	for i := range cfg.Schools {
		tc := collector{file: cfg.Schools[i].File, problems: &problems}
		cfg.Schools[i].validate(tc)
		cfg.Schools[i].validateClients(tc, cfg.Server.Integrations)
	}
	problems = append(problems, CheckSchoolSet(cfg.Schools)...)
	if len(problems) > 0 {
		return problems
	}
	return nil
}
