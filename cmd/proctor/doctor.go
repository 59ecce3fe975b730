package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/spf13/cobra"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/keys"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
	"github.com/proctorhq/proctor/storage/gormstore"
)

func newDoctorCommand(g *globalFlags) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "doctor [--json]",
		Short: "Check the database's consistency (after a crash or a restore)",
		Long: `Check the configured database for what a crash, a restore from backups or a hand edit can
leave behind: pending or unknown migrations, schools of the school files without their row, rows
whose parent row is gone, OAuth grants left half-written or revoked with tokens still live, and
signing keys that are missing, too many, or do not open with the configured secret.

It only reads: it never migrates, repairs or deletes anything, and can run beside the servers.
Findings name rows by ids and counts, never by token signatures, hashes or secrets.
docs/doctor.md says what each finding means and what to do about it.

Exit status: 0 when nothing is found, 1 when something is (or the database cannot be read),
2 when the configuration is invalid.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			cfg, reg, err := loadSchools(g)
			if err != nil {
				return err
			}
			if err := databaseFileExists(cfg.Server.Database); err != nil {
				return err
			}
			// No slow-query warnings: the checks scan whole tables, so most of their statements
			// are slow by design, and the warnings would bury the findings.
			a, err := openStore(ctx, cfg, reg, slog.New(slog.DiscardHandler))
			if err != nil {
				return unreachable(cfg.Server.Database, err)
			}
			defer a.close()
			opts := storage.DoctorOptions{SchoolIDs: []int64{}, OpenKey: keyOpener(cfg.Server.Secret)}
			for _, t := range a.schools.All() {
				opts.SchoolIDs = append(opts.SchoolIDs, t.SchoolID)
			}
			findings, err := a.store.Check(ctx, opts)
			if err != nil {
				if errors.Is(err, storage.ErrUnavailable) {
					return unreachable(cfg.Server.Database, err)
				}
				return fmt.Errorf("the checks could not run: %w", err)
			}
			if err := printFindings(cmd.OutOrStdout(), findings, asJSON); err != nil {
				return err
			}
			if n := len(findings); n > 0 {
				return fmt.Errorf("%s (docs/doctor.md says what each means and what to do)", countOf(n, "finding"))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"findings": [...]} as JSON`)
	return cmd
}

// databaseFileExists refuses a SQLite path with no file behind it: opening it would create an
// empty database, and the doctor must not write (nor report an empty schema for a mistyped path).
func databaseFileExists(db config.Database) error {
	if db.Driver != gormstore.DriverSQLite || db.DSN == ":memory:" {
		return nil
	}
	path := strings.TrimPrefix(db.DSN, "file:")
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("cannot reach the database: the SQLite file %s does not exist (check database.dsn)", path)
		}
		return fmt.Errorf("cannot reach the database: %w", err)
	}
	return nil
}

// unreachable says plainly that the database could not be reached. The DSN is never repeated,
// not even with its password masked: it may hold a password in a form the driver does not
// recognise as one (a query parameter, a misspelt key). A DSN that does not parse is reported
// by the driver's reason alone.
func unreachable(db config.Database, err error) error {
	var unparsed *pgconn.ParseConfigError
	if errors.As(err, &unparsed) {
		// The driver's reason, without the connection string it quotes and without the error
		// under it, which may quote a piece of the string (a bad escape in a password).
		reason := strings.TrimPrefix(withoutQuoted.ReplaceAllString(unparsed.Error(), ""), ": ")
		if inner := unparsed.Unwrap(); inner != nil {
			reason = strings.TrimSuffix(reason, " ("+inner.Error()+")")
		}
		return fmt.Errorf("cannot reach the %s database: database.dsn does not parse (%s)", db.Driver, reason)
	}
	return fmt.Errorf("cannot reach the %s database (check database.driver and database.dsn, and that the database is up): %w", db.Driver, err)
}

// withoutQuoted matches the connection string the driver quotes in its parse errors.
var withoutQuoted = regexp.MustCompile("^cannot parse `[^`]*`")

func printFindings(w io.Writer, findings []storage.Finding, asJSON bool) error {
	if asJSON {
		if findings == nil {
			findings = []storage.Finding{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Findings []storage.Finding `json:"findings"`
		}{findings})
	}
	if len(findings) == 0 {
		_, err := fmt.Fprintln(w, "no findings: the database is consistent")
		return err
	}
	for _, f := range findings {
		fmt.Fprintf(w, "%s: %d: %s\n", f.Check, f.Count, f.Detail)
		if len(f.Examples) > 0 {
			more := ""
			if int64(len(f.Examples)) < f.Count {
				more = ", ..."
			}
			fmt.Fprintf(w, "    e.g. %s%s\n", strings.Join(f.Examples, "; "), more)
		}
	}
	return nil
}

// keyOpener checks a stored key through the keys package's own path: a Manager that sees only
// that key, as its school's one published key, loads it as it would to sign (decryption with
// the secret, the algorithm, the public half against the private one). The keys package opens
// keys only as a school's current key, hence the one-key view.
func keyOpener(secret config.Secret) func(context.Context, int64, storage.SigningKey) error {
	return func(ctx context.Context, schoolID int64, k storage.SigningKey) error {
		m := keys.NewManager(oneKey{k}, secret, keys.Options{})
		_, err := m.Current(school.NewContext(ctx, &school.School{SchoolID: schoolID}))
		switch {
		case err == nil:
			return nil
		case errors.Is(err, keys.ErrDecrypt):
			// The key's row is named by the finding; the cause is all this adds.
			return errors.New("does not decrypt with the configured secret")
		case ctx.Err() != nil:
			return ctx.Err()
		}
		return err
	}
}

// oneKey is a read-only storage.SigningKeys holding one key, unretired. Its writes fail, so the
// Manager can neither create a key (it only would for a school without one) nor retire one.
type oneKey struct{ k storage.SigningKey }

var errReadOnly = errors.New("doctor: the signing keys are read-only here")

func (o oneKey) ListSigningKeys(context.Context) ([]storage.SigningKey, error) {
	k := o.k
	k.RetiredAt = nil
	return []storage.SigningKey{k}, nil
}

func (oneKey) CreateSigningKey(context.Context, storage.SigningKey) error { return errReadOnly }

func (oneKey) RetireSigningKey(context.Context, string, time.Time) error { return errReadOnly }
