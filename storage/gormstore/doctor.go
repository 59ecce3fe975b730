package gormstore

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/proctorhq/proctor/storage"
)

// The consistency checks of `proctor doctor` (docs/doctor.md says what each finding means and
// what to do about it).
//
// What they look for. The schema's foreign keys keep most references whole while they are
// enforced, but SQLite enforces them only on connections that ask (a database edited with the
// sqlite3 shell does not), and a PostgreSQL data-only restore with --disable-triggers skips them.
// Other invariants have no constraint at all: they are kept by the transactions of
// oauth_grants.go (a code is used in the transaction that writes its grant's first pair, a first
// use revokes the pair it replaced, a revocation reaches every pair of the grant), and a crash
// cannot break those, but a restore of inconsistent backups or a hand edit can.
//
// How they run. Each check is one statement, answering at most storage.MaxDoctorExamples example
// ids and the total count (a window COUNT over the rows found), so that a finding of a million
// rows costs one round trip and a short line. Orphan checks scan the child table once and probe
// the parent's primary or unique key; grant checks probe oauth_token_pairs_request_idx. Nothing
// is written: on PostgreSQL the checks share one READ ONLY, REPEATABLE READ transaction, so they
// see one snapshot and the server itself refuses a write. SQLite gets no transaction, because
// its transactions here begin IMMEDIATE and would hold the write lock for the whole run; there
// each statement sees its own snapshot.

var _ storage.Doctor = (*Store)(nil)

// Check runs every consistency check and returns what they found, in the order of
// docs/doctor.md. With pending migrations it stops after the schema check: the other checks
// read tables and columns the pending migrations may create.
func (s *Store) Check(ctx context.Context, opts storage.DoctorOptions) ([]storage.Finding, error) {
	db := s.db.WithContext(ctx)
	if s.driver == DriverPostgres {
		tx := db.Begin(&sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
		if tx.Error != nil {
			return nil, wrap("doctor: begin", tx.Error)
		}
		defer tx.Rollback()
		db = tx
	}
	d := &doctor{db: db, now: dbTime(s.now())}

	pending, err := d.checkSchema()
	if err != nil {
		return nil, err
	}
	if pending {
		return d.findings, nil
	}
	if err := d.checkSchools(opts.SchoolIDs); err != nil {
		return nil, err
	}
	for _, r := range doctorRelations {
		if err := d.checkRelation(r); err != nil {
			return nil, err
		}
	}
	for _, c := range doctorQueries {
		if err := d.sample(c.check, c.detail, c.query, c.args(d)...); err != nil {
			return nil, err
		}
	}
	if opts.OpenKey != nil {
		if err := d.checkKeys(ctx, opts.OpenKey); err != nil {
			return nil, err
		}
	}
	return d.findings, nil
}

// doctor is one run of the checks.
type doctor struct {
	db       *gorm.DB
	now      time.Time // bound as a parameter where a check asks "not expired"
	findings []storage.Finding
}

func (d *doctor) add(check, detail string, count int64, examples []string) {
	d.findings = append(d.findings, storage.Finding{Check: check, Count: count, Detail: detail, Examples: examples})
}

// sample runs query, which selects the columns example (a text naming a row by its ids) and k
// (what examples are ordered by), and records a finding if it returns any row. The wrapping
// statement counts every row the query finds but returns only the first few.
func (d *doctor) sample(check, detail, query string, args ...any) error {
	var rows []struct {
		Example string
		Total   int64
	}
	q := fmt.Sprintf("SELECT example, COUNT(*) OVER () AS total FROM (%s) found ORDER BY k LIMIT %d", query, storage.MaxDoctorExamples)
	if err := d.db.Raw(q, args...).Scan(&rows).Error; err != nil {
		return wrap("doctor: "+check, err)
	}
	if len(rows) == 0 {
		return nil
	}
	examples := make([]string, len(rows))
	for i, r := range rows {
		examples[i] = r.Example
	}
	d.add(check, detail, rows[0].Total, examples)
	return nil
}

// checkSchema compares the ledger of applied migrations with the migrations this binary embeds,
// and reports whether any are pending.
func (d *doctor) checkSchema() (pending bool, err error) {
	known, err := loadMigrations(migrationFiles)
	if err != nil {
		return false, err
	}
	applied := map[string]string{}
	if d.db.Migrator().HasTable(&schemaMigrationRow{}) {
		var rows []schemaMigrationRow
		if err := d.db.Order("version").Find(&rows).Error; err != nil {
			return false, wrap("doctor: schema", err)
		}
		for _, r := range rows {
			applied[r.Version] = r.Name
		}
	}
	var missing []string
	for _, m := range known {
		if _, ok := applied[m.version]; ok {
			delete(applied, m.version)
			continue
		}
		missing = append(missing, m.String())
	}
	if len(missing) > 0 {
		d.add("schema.pending_migrations",
			"migrations this binary has that the database has not applied; the other checks need the current schema and were not run",
			int64(len(missing)), firstExamples(missing))
	}
	if len(applied) > 0 {
		// Left over: versions recorded by a newer binary.
		var unknown []string
		for v, name := range applied {
			unknown = append(unknown, v+"_"+name)
		}
		slices.Sort(unknown)
		d.add("schema.unknown_migrations",
			"migrations the database has applied that this binary does not know: it is older than the schema",
			int64(len(unknown)), firstExamples(unknown))
	}
	return len(missing) > 0, nil
}

// checkSchools reports school files whose school has no row (proctor serve and the school-scoped
// commands create it at start-up; everything of the school refers to it).
func (d *doctor) checkSchools(configured []int64) error {
	if len(configured) == 0 {
		return nil
	}
	var have []int64
	if err := d.db.Table("schools").Where("id IN ?", configured).Pluck("id", &have).Error; err != nil {
		return wrap("doctor: schools", err)
	}
	var missing []string
	for _, id := range slices.Sorted(slices.Values(configured)) {
		if !slices.Contains(have, id) {
			missing = append(missing, fmt.Sprintf("school %d", id))
		}
	}
	if len(missing) > 0 {
		d.add("schools.missing_row", "school files whose school has no row in the database",
			int64(len(missing)), firstExamples(missing))
	}
	return nil
}

func firstExamples(all []string) []string {
	return all[:min(len(all), storage.MaxDoctorExamples)]
}

// relation is a reference from child rows to a parent row: every foreign key of the schema.
// Columns are compared pairwise; a child whose referencing columns include a NULL refers to
// nothing (SQL's MATCH SIMPLE) and is not an orphan.
type relation struct {
	child  string
	cols   []string
	parent string
	pcols  []string
}

// check names the relation by its child and the column that says which parent, leaving out the
// school_id that leads the composite keys.
func (r relation) check() string {
	cols := r.cols
	if len(cols) > 1 && cols[0] == "school_id" {
		cols = cols[1:]
	}
	return "orphans." + r.child + "." + strings.Join(cols, "+")
}

func ref(child string, cols []string, parent string, pcols ...string) relation {
	return relation{child: child, cols: cols, parent: parent, pcols: pcols}
}

// bySchool is the common relation of a school-scoped table to its school.
func bySchool(child string) relation {
	return ref(child, []string{"school_id"}, "schools", "id")
}

// byMember is a plain reference to a deployment-wide member.
func byMember(child, col string) relation {
	return ref(child, []string{col}, "members", "id")
}

// inSchool is a composite reference (school_id, col) to a parent's UNIQUE (school_id, id).
func inSchool(child, col, parent string) relation {
	return ref(child, []string{"school_id", col}, parent, "school_id", "id")
}

// doctorRelations are the schema's foreign keys, child tables in migration order. A test
// compares them with the foreign keys SQLite reports for the migrated schema, so a migration
// that adds one without adding it here fails.
var doctorRelations = []relation{
	bySchool("member_roles"), byMember("member_roles", "member_id"),
	bySchool("courses"),
	bySchool("course_sections"), inSchool("course_sections", "course_id", "courses"),
	bySchool("lectures"), inSchool("lectures", "course_id", "courses"), inSchool("lectures", "section_id", "course_sections"),
	bySchool("enrollments"), byMember("enrollments", "member_id"), inSchool("enrollments", "course_id", "courses"),
	bySchool("lecture_progress"), byMember("lecture_progress", "member_id"),
	inSchool("lecture_progress", "lecture_id", "lectures"), inSchool("lecture_progress", "course_id", "courses"),
	bySchool("digital_products"),
	bySchool("product_holdings"), byMember("product_holdings", "member_id"), inSchool("product_holdings", "product_id", "digital_products"),
	bySchool("consulting_services"),
	bySchool("consulting_service_courses"), inSchool("consulting_service_courses", "service_id", "consulting_services"),
	inSchool("consulting_service_courses", "course_id", "courses"),
	bySchool("consulting_slots"), inSchool("consulting_slots", "service_id", "consulting_services"),
	bySchool("consulting_meetings"), inSchool("consulting_meetings", "service_id", "consulting_services"), byMember("consulting_meetings", "member_id"),
	bySchool("events"),
	bySchool("event_registrations"), inSchool("event_registrations", "event_id", "events"), byMember("event_registrations", "member_id"),
	bySchool("payments"), byMember("payments", "member_id"),
	bySchool("notifications"), byMember("notifications", "member_id"),
	bySchool("notification_subscriptions"), byMember("notification_subscriptions", "member_id"),
	bySchool("membership_plans"),
	bySchool("subscriptions"), byMember("subscriptions", "member_id"), inSchool("subscriptions", "plan_id", "membership_plans"),
	bySchool("coupons"),
	bySchool("posts"), inSchool("posts", "course_id", "courses"), byMember("posts", "author_member_id"),
	bySchool("comments"), byMember("comments", "member_id"), inSchool("comments", "post_id", "posts"), inSchool("comments", "lecture_id", "lectures"),
	bySchool("lecturers"), byMember("lecturers", "member_id"),
	bySchool("lecturer_courses"), inSchool("lecturer_courses", "lecturer_id", "lecturers"), inSchool("lecturer_courses", "course_id", "courses"),
	bySchool("forms"),
	bySchool("form_submissions"), inSchool("form_submissions", "form_id", "forms"), byMember("form_submissions", "member_id"),
	bySchool("pages"),
	bySchool("stored_files"), byMember("stored_files", "uploaded_by"),
	bySchool("oauth_clients"),
	bySchool("oauth_authorization_codes"), byMember("oauth_authorization_codes", "member_id"),
	bySchool("oauth_pkce_sessions"),
	bySchool("oauth_oidc_sessions"),
	bySchool("oauth_token_pairs"), byMember("oauth_token_pairs", "member_id"),
	ref("oauth_token_pairs", []string{"replaces_pair_id"}, "oauth_token_pairs", "id"),
	bySchool("signing_keys"),
	bySchool("login_sessions"), byMember("login_sessions", "member_id"),
	bySchool("account_links"), byMember("account_links", "member_id"),
	bySchool("security_events"),
	bySchool("member_totp"), byMember("member_totp", "member_id"),
	bySchool("member_recovery_codes"), byMember("member_recovery_codes", "member_id"),
	bySchool("member_passkeys"), byMember("member_passkeys", "member_id"),
	bySchool("passkey_challenges"), byMember("passkey_challenges", "member_id"),
}

// rowExamples says how a finding names a child row (the example column) and orders them (k).
// Tables not listed have a numeric id. The keys of codes, PKCE and OpenID Connect records, login
// sessions and one-time links are signatures or keyed hashes: those rows are named by their
// grant or member.
var rowExamples = map[string][2]string{
	"member_roles":               {"'school ' || CAST(c.school_id AS TEXT) || ' member ' || CAST(c.member_id AS TEXT)", "c.member_id"},
	"lecture_progress":           {"'member ' || CAST(c.member_id AS TEXT) || ' lecture ' || CAST(c.lecture_id AS TEXT)", "c.lecture_id"},
	"consulting_service_courses": {"'service ' || CAST(c.service_id AS TEXT) || ' course ' || CAST(c.course_id AS TEXT)", "c.service_id"},
	"notification_subscriptions": {"'school ' || CAST(c.school_id AS TEXT) || ' member ' || CAST(c.member_id AS TEXT)", "c.member_id"},
	"lecturer_courses":           {"'lecturer ' || CAST(c.lecturer_id AS TEXT) || ' course ' || CAST(c.course_id AS TEXT)", "c.lecturer_id"},
	"oauth_clients":              {"c.id", "c.id"},
	"oauth_authorization_codes":  {"'grant ' || c.request_id", "c.request_id"},
	"oauth_pkce_sessions":        {"'grant ' || c.request_id", "c.request_id"},
	"oauth_oidc_sessions":        {"'grant ' || c.request_id", "c.request_id"},
	"signing_keys":               {"'school ' || CAST(c.school_id AS TEXT) || ' key ' || c.kid", "c.kid"},
	"login_sessions":             {"'school ' || CAST(c.school_id AS TEXT) || ' member ' || CAST(c.member_id AS TEXT)", "c.member_id"},
	"account_links":              {"'school ' || CAST(c.school_id AS TEXT) || ' member ' || CAST(c.member_id AS TEXT)", "c.member_id"},
	"member_totp":                {"'school ' || CAST(c.school_id AS TEXT) || ' member ' || CAST(c.member_id AS TEXT)", "c.member_id"},
	"member_recovery_codes":      {"'school ' || CAST(c.school_id AS TEXT) || ' member ' || CAST(c.member_id AS TEXT)", "c.member_id"},
	"passkey_challenges":         {"'school ' || CAST(c.school_id AS TEXT) || ' ' || c.purpose || ' challenge'", "c.created_at"},
}

// checkRelation finds the child rows whose parent row is missing.
func (d *doctor) checkRelation(r relation) error {
	example, key := "CAST(c.id AS TEXT)", "c.id"
	if e, ok := rowExamples[r.child]; ok {
		example, key = e[0], e[1]
	}
	var where, match []string
	for i, col := range r.cols {
		where = append(where, "c."+col+" IS NOT NULL")
		match = append(match, "p."+r.pcols[i]+" = c."+col)
	}
	q := fmt.Sprintf("SELECT %s AS example, %s AS k FROM %s c WHERE %s AND NOT EXISTS (SELECT 1 FROM %s p WHERE %s)",
		example, key, r.child, strings.Join(where, " AND "), r.parent, strings.Join(match, " AND "))
	detail := fmt.Sprintf("%s rows whose %s row is missing (%s -> %s.%s)",
		r.child, r.parent, strings.Join(r.cols, ", "), r.parent, strings.Join(r.pcols, ", "))
	return d.sample(r.check(), detail, q)
}

// doctorQuery is a check of an invariant no constraint keeps. Each query selects example and k
// for sample.
type doctorQuery struct {
	check, detail, query string
	args                 func(d *doctor) []any
}

func noArgs(*doctor) []any { return nil }

// A pair is live when it is not revoked and its refresh token (or, without one, its access
// token) has not expired: only then can it still be used, and only such pairs matter to the
// checks that ask about live ones.
const livePair = "%[1]s.revoked_at IS NULL AND COALESCE(%[1]s.refresh_expires_at, %[1]s.access_expires_at) >= ?"

var doctorQueries = []doctorQuery{
	{
		check:  "curriculum.lecture_in_other_course",
		detail: "lectures whose section belongs to another course than the lecture (course_id and section_id disagree)",
		query: `SELECT CAST(l.id AS TEXT) AS example, l.id AS k FROM lectures l
JOIN course_sections s ON s.school_id = l.school_id AND s.id = l.section_id
WHERE s.course_id <> l.course_id`,
		args: noArgs,
	},
	{
		check:  "curriculum.progress_in_other_course",
		detail: "progress rows whose course is not their lecture's course",
		query: `SELECT 'member ' || CAST(p.member_id AS TEXT) || ' lecture ' || CAST(p.lecture_id AS TEXT) AS example, p.lecture_id AS k
FROM lecture_progress p JOIN lectures l ON l.school_id = p.school_id AND l.id = p.lecture_id
WHERE l.course_id <> p.course_id`,
		args: noArgs,
	},
	{
		// The code exchange marks the code used and writes the grant's first pair in one
		// transaction; a used code without any pair of its grant is half of that.
		check:  "oauth.used_code_without_pairs",
		detail: "authorization codes marked used whose grant has no token pair",
		query: `SELECT 'school ' || CAST(c.school_id AS TEXT) || ' grant ' || c.request_id AS example, c.request_id AS k
FROM oauth_authorization_codes c
WHERE c.active = ? AND NOT EXISTS (
  SELECT 1 FROM oauth_token_pairs p WHERE p.request_id = c.request_id AND p.school_id = c.school_id)`,
		args: func(*doctor) []any { return []any{false} },
	},
	{
		// The other half: pairs were written but the code still works, so it could be
		// exchanged again.
		check:  "oauth.active_code_with_pairs",
		detail: "authorization codes still usable although their grant already has token pairs",
		query: `SELECT 'school ' || CAST(c.school_id AS TEXT) || ' grant ' || c.request_id AS example, c.request_id AS k
FROM oauth_authorization_codes c
WHERE c.active = ? AND EXISTS (
  SELECT 1 FROM oauth_token_pairs p WHERE p.request_id = c.request_id AND p.school_id = c.school_id)`,
		args: func(*doctor) []any { return []any{true} },
	},
	{
		// A grant is revoked when one of its pairs is revoked without having been replaced
		// (a rotation revokes only pairs that a newer pair replaces). Revocation stamps every
		// pair of the grant in one statement, so no pair of it may be live. Revoked pairs past
		// their expiry are left out: the purge job may already have deleted the pair that
		// replaced them.
		check:  "oauth.live_pairs_in_revoked_grant",
		detail: "token pairs still live in a grant that was revoked",
		query: `SELECT CAST(p.id AS TEXT) AS example, p.id AS k FROM oauth_token_pairs p
WHERE ` + fmt.Sprintf(livePair, "p") + ` AND EXISTS (
  SELECT 1 FROM oauth_token_pairs r
  WHERE r.request_id = p.request_id AND r.school_id = p.school_id AND r.revoked_at IS NOT NULL
    AND COALESCE(r.refresh_expires_at, r.access_expires_at) >= ?
    AND NOT EXISTS (
      SELECT 1 FROM oauth_token_pairs n
      WHERE n.request_id = r.request_id AND n.school_id = r.school_id AND n.replaces_pair_id = r.id))`,
		args: func(d *doctor) []any { return []any{d.now, d.now} },
	},
	{
		// Several live pairs in one grant are normal (a refresh leaves the old pair working
		// until the new access token is first used; two concurrent refreshes both succeed).
		// What is never normal is a live pair whose replacement has been used: the first use
		// revokes it in the same transaction.
		check:  "oauth.replaced_pair_still_live",
		detail: "token pairs still live although a pair that replaced them has been used",
		query: `SELECT CAST(o.id AS TEXT) AS example, o.id AS k FROM oauth_token_pairs o
WHERE o.revoked_at IS NULL AND EXISTS (
  SELECT 1 FROM oauth_token_pairs n
  WHERE n.request_id = o.request_id AND n.school_id = o.school_id AND n.replaces_pair_id = o.id
    AND n.first_used_at IS NOT NULL)`,
		args: noArgs,
	},
	{
		check:  "oauth.replaces_pair_of_other_grant",
		detail: "token pairs that name a pair of another grant or school as the one they replace",
		query: `SELECT CAST(n.id AS TEXT) AS example, n.id AS k FROM oauth_token_pairs n
JOIN oauth_token_pairs o ON o.id = n.replaces_pair_id
WHERE o.request_id <> n.request_id OR o.school_id <> n.school_id`,
		args: noArgs,
	},
	{
		// Every pair of a grant comes from one authorization: one school, client and member.
		check:  "oauth.grant_mixed_identity",
		detail: "grants whose token pairs disagree on their school, client or member",
		query: `SELECT 'grant ' || request_id AS example, request_id AS k FROM oauth_token_pairs
GROUP BY request_id
HAVING COUNT(DISTINCT school_id) > 1 OR COUNT(DISTINCT client_id) > 1 OR COUNT(DISTINCT COALESCE(member_id, 0)) > 1`,
		args: noArgs,
	},
	{
		// Each signature is unique in its column by constraint; one that is also the other
		// half of some pair would let one token be looked up as the other kind. Same-column
		// duplicates are looked for too, for a database restored without its constraints.
		// Joins and grouped subqueries rather than ORs of EXISTS, which PostgreSQL could only
		// run as four probes per row.
		check:  "oauth.duplicate_signatures",
		detail: "token pairs sharing a token signature with another pair, or between their own access and refresh tokens",
		query: `SELECT CAST(d.id AS TEXT) AS example, d.id AS k FROM (
  SELECT p.id FROM oauth_token_pairs p JOIN (
    SELECT access_signature FROM oauth_token_pairs GROUP BY access_signature HAVING COUNT(*) > 1
  ) dup ON dup.access_signature = p.access_signature
  UNION
  SELECT p.id FROM oauth_token_pairs p JOIN (
    SELECT refresh_signature FROM oauth_token_pairs WHERE refresh_signature IS NOT NULL
    GROUP BY refresh_signature HAVING COUNT(*) > 1
  ) dup ON dup.refresh_signature = p.refresh_signature
  UNION
  SELECT p.id FROM oauth_token_pairs p JOIN oauth_token_pairs q ON q.refresh_signature = p.access_signature
  UNION
  SELECT q.id FROM oauth_token_pairs p JOIN oauth_token_pairs q ON q.refresh_signature = p.access_signature
) d`,
		args: noArgs,
	},
	{
		// Deleting a client revokes its pairs in the same transaction. Only ids Proctor
		// generates (pc_...) name stored clients; vendor platforms and metadata documents
		// have no row to lose.
		check:  "oauth.live_pairs_of_deleted_client",
		detail: "live token pairs of a client id that has no client row at its school",
		query: `SELECT CAST(p.id AS TEXT) AS example, p.id AS k FROM oauth_token_pairs p
WHERE ` + fmt.Sprintf(livePair, "p") + ` AND SUBSTR(p.client_id, 1, 3) = 'pc_' AND NOT EXISTS (
  SELECT 1 FROM oauth_clients c WHERE c.id = p.client_id AND c.school_id = p.school_id)`,
		args: func(d *doctor) []any { return []any{d.now} },
	},
	{
		// A rotation retires keys only after storing the new one, and never the newest.
		check:  "signing_keys.no_current_key",
		detail: "schools whose signing keys are all retired (the next ID token will create a key)",
		query: `SELECT 'school ' || CAST(school_id AS TEXT) AS example, school_id AS k FROM signing_keys
GROUP BY school_id HAVING SUM(CASE WHEN retired_at IS NULL THEN 1 ELSE 0 END) = 0`,
		args: noArgs,
	},
	{
		// The JWKS holds the current key and the one before it; more are left by a rotation
		// that stopped before retiring, or by two rotations at once.
		check:  "signing_keys.too_many_published",
		detail: "schools with more than two published (not retired) signing keys",
		query: `SELECT 'school ' || CAST(school_id AS TEXT) AS example, school_id AS k FROM signing_keys
GROUP BY school_id HAVING SUM(CASE WHEN retired_at IS NULL THEN 1 ELSE 0 END) > 2`,
		args: noArgs,
	},
}

// checkKeys tries every published key with open. Retired keys are left alone: nothing opens them
// again, and after a deliberate change of the system secret they are expected not to decrypt.
func (d *doctor) checkKeys(ctx context.Context, open func(context.Context, int64, storage.SigningKey) error) error {
	var rows []signingKeyRow
	if err := d.db.Where("retired_at IS NULL").Order("school_id, created_at DESC, kid DESC").Find(&rows).Error; err != nil {
		return wrap("doctor: signing keys", err)
	}
	var (
		bad      int64
		examples []string
	)
	for _, r := range rows {
		err := open(ctx, r.SchoolID, r.key())
		if err == nil {
			continue
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		bad++
		if len(examples) < storage.MaxDoctorExamples {
			examples = append(examples, fmt.Sprintf("school %d key %s: %v", r.SchoolID, r.KID, err))
		}
	}
	if bad > 0 {
		d.add("signing_keys.unusable", "published signing keys the servers could not sign with or publish (see each example)", bad, examples)
	}
	return nil
}
