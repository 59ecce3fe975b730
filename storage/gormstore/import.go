package gormstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"time"

	"gorm.io/gorm"

	"github.com/proctorhq/proctor/storage"
)

// Import strategy. Each SchoolData list is applied by apply: the school's rows with the natural
// keys the data names are read once, each record is built into a row, compared with the row of
// the same key, and inserted (in batches), updated (only when something differs) or left alone.
// So a second import of the same data writes nothing: same ids, same timestamps, same rows.
// Rows the data does not mention are never deleted, with one exception the format asks for: a
// member's roles at the school are replaced by the listed ones. References are resolved through
// lookups that see the rows written earlier in the same transaction, so a record may refer to
// one imported before it or to one already in the database.

// importLockKey is the PostgreSQL advisory lock that serialises imports: members are shared by
// every school, so two concurrent imports could otherwise race to insert the same e-mail.
const importLockKey = 0x70726f63746f73

// insertBatch is how many rows one INSERT carries: well below both databases' limits on bound
// parameters (the widest row, a payment, has 22 columns).
const insertBatch = 200

// inChunk bounds the values of one IN (...) list, for the same reason.
const inChunk = 500

// ImportSchoolData applies data to the context's school in one transaction.
func (s *Store) ImportSchoolData(ctx context.Context, data *storage.SchoolData, opts storage.ImportOptions) (storage.ImportStats, error) {
	sc, err := s.scoped(ctx)
	if err != nil {
		return nil, err
	}
	stats := storage.ImportStats{}
	if data == nil {
		return stats, nil
	}
	const op = "import school data"
	err = s.inTx(ctx, op, func(tx *gorm.DB) error {
		if s.driver == DriverPostgres {
			if err := tx.Exec("SELECT pg_advisory_xact_lock(?)", int64(importLockKey)).Error; err != nil {
				return wrap(op+": lock", err)
			}
		}
		im := &importer{
			tx:        tx,
			sc:        sc,
			now:       dbTime(s.now()),
			total:     data.Records(),
			progress:  opts.Progress,
			stats:     stats,
			memberIDs: map[string]int64{},
			ids:       map[string]map[string]int64{},
			lectures:  map[int64]map[[2]int]lectureIDs{},
		}
		if err := im.run(data); err != nil {
			var ie *storage.ImportError
			if errors.As(err, &ie) {
				return fmt.Errorf("gormstore: %s: %w", op, err)
			}
			return err
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return stats, nil
}

// importer carries one import's transaction, progress and lookup caches.
type importer struct {
	tx       *gorm.DB
	sc       scope
	now      time.Time
	done     int
	total    int
	progress func(done, total int)
	stats    storage.ImportStats

	memberIDs map[string]int64                // e-mail → id
	ids       map[string]map[string]int64     // table → natural key → id, loaded on first use
	lectures  map[int64]map[[2]int]lectureIDs // course id → (section, lecture position)
}

type lectureIDs struct{ id, courseID int64 }

func (im *importer) run(d *storage.SchoolData) error {
	var school schoolRow
	if err := im.tx.Where("id = ?", im.sc.schoolID).Take(&school).Error; err != nil {
		return wrap(fmt.Sprintf("import: school %d has no row (run SyncSchool first)", im.sc.schoolID), err)
	}
	steps := []func() error{
		func() error { return im.school(school, d.School) },
		func() error { return im.members(d.Members) },
		func() error { return im.courses(d.Courses) },
		func() error { return im.enrollments(d.Enrollments) },
		func() error { return im.lectureProgress(d.Progress) },
		func() error { return im.digitalProducts(d.DigitalProducts) },
		func() error { return im.productHoldings(d.ProductHoldings) },
		func() error { return im.consultingServices(d.ConsultingServices) },
		func() error { return im.events(d.Events) },
		func() error { return im.eventRegistrations(d.EventRegistrations) },
		func() error { return im.payments(d.Payments) },
		func() error { return im.notifications(d.Notifications) },
		func() error { return im.notificationSubscriptions(d.NotificationSubscriptions) },
		func() error { return im.membershipPlans(d.MembershipPlans) },
		func() error { return im.subscriptions(d.Subscriptions) },
		func() error { return im.coupons(d.Coupons) },
		func() error { return im.posts(d.Posts) },
		func() error { return im.comments(d.Comments) },
		func() error { return im.lecturers(d.Lecturers) },
		func() error { return im.forms(d.Forms) },
		func() error { return im.formSubmissions(d.FormSubmissions) },
		func() error { return im.pages(d.Pages) },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// tick reports n more applied records to the progress callback, one call per record.
func (im *importer) tick(n int) {
	for range n {
		im.done++
		if im.progress != nil {
			im.progress(im.done, im.total)
		}
	}
}

// counted records the number of records applied for a SchoolData key.
func (im *importer) counted(kind string, n int) {
	if n > 0 {
		im.stats[kind] += n
	}
}

func importErr(kind string, index int, err error) error {
	return &storage.ImportError{Kind: kind, Index: index, Err: err}
}

// rowSet says how one list of seeds S becomes rows R.
type rowSet[S, R any] struct {
	kind string // SchoolData key, for ImportError
	// key is the row's natural key, unique within the school (or the deployment, for members).
	key func(r *R) string
	// build fills r from the seed: r is the zero row or, for a record seen before, a copy of the
	// current row, and build sets only what the seed determines, so that fields the data does not
	// carry (ids, counters, store timestamps) keep their values. It runs twice for an existing
	// row and must give the same result each time.
	build func(s *S, r *R) error
	// index maps a seed's position to the SchoolData record it belongs to (a lecture reports its
	// course); nil when seeds are the records themselves.
	index func(i int) int
	// written, if set, is told the position of each seed whose row apply inserts or updates.
	written func(i int)
	// ticks says that each seed is a SchoolData record, reported to the progress callback.
	ticks bool
}

// apply inserts, updates or leaves alone the row of each seed and returns every row of current and
// seeds by natural key, ids filled in.
func apply[S, R any](im *importer, set rowSet[S, R], seeds []S, current []R) (map[string]*R, error) {
	index := set.index
	if index == nil {
		index = func(i int) int { return i }
	}
	byKey := make(map[string]*R, len(current)+len(seeds))
	for i := range current {
		byKey[set.key(&current[i])] = &current[i]
	}
	seen := make(map[string]int, len(seeds))
	var (
		pending   []*R
		pendingAt []int
		ticked    int
	)
	flush := func(upTo int) error {
		if len(pending) > 0 {
			if err := im.tx.CreateInBatches(pending, insertBatch).Error; err != nil {
				return importErr(set.kind, index(pendingAt[0]), wrap("insert", err))
			}
			pending, pendingAt = nil, nil
		}
		if set.ticks {
			im.tick(upTo - ticked)
			ticked = upTo
		}
		return nil
	}
	for i := range seeds {
		row := new(R)
		if err := set.build(&seeds[i], row); err != nil {
			return nil, importErr(set.kind, index(i), err)
		}
		k := set.key(row)
		if j, dup := seen[k]; dup {
			return nil, importErr(set.kind, index(i),
				fmt.Errorf("same key as record %d: %w", index(j), storage.ErrAlreadyExists))
		}
		seen[k] = i
		old, exists := byKey[k]
		if !exists {
			if set.written != nil {
				set.written(i)
			}
			im.own(row)
			if st, ok := any(row).(stamper); ok {
				st.stamp(im.now, true)
			}
			byKey[k] = row
			pending = append(pending, row)
			pendingAt = append(pendingAt, i)
			if len(pending) >= insertBatch {
				if err := flush(i + 1); err != nil {
					return nil, err
				}
			}
			continue
		}
		next := *old
		if err := set.build(&seeds[i], &next); err != nil {
			return nil, importErr(set.kind, index(i), err)
		}
		im.own(&next)
		if sameRow(old, &next) {
			continue
		}
		if st, ok := any(&next).(stamper); ok {
			st.stamp(im.now, false)
		}
		if err := im.update(&next); err != nil {
			return nil, importErr(set.kind, index(i), err)
		}
		if set.written != nil {
			set.written(i)
		}
		*old = next
	}
	if err := flush(len(seeds)); err != nil {
		return nil, err
	}
	return byKey, nil
}

// own sets a school-scoped row's school_id to the import's school: rows get it here, in one
// place, rather than from each build function.
func (im *importer) own(row any) {
	if f := schoolField(row); f.IsValid() {
		f.SetInt(im.sc.schoolID)
	}
}

func schoolField(row any) reflect.Value {
	return reflect.ValueOf(row).Elem().FieldByName("SchoolID")
}

// update writes every column of an existing row, found by its primary key (and its school).
func (im *importer) update(row any) error {
	q := im.tx
	if schoolField(row).IsValid() {
		q = im.sc.in(q)
	}
	res := q.Select("*").Updates(row)
	if res.Error != nil {
		return wrap("update", res.Error)
	}
	if res.RowsAffected != 1 {
		return fmt.Errorf("update matched %d rows: %w", res.RowsAffected, storage.ErrNotFound)
	}
	return nil
}

// sameRow reports whether two rows hold the same values, comparing times as instants (the
// database may hand them back in another zone).
func sameRow[R any](a, b *R) bool {
	return sameFields(reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem())
}

// sameFields is sameRow for two structs of one type; the fields of an embedded struct (a row's
// storage.Offer, storage.Lecture ...) are compared as the row's own.
func sameFields(va, vb reflect.Value) bool {
	for i := range va.NumField() {
		if va.Type().Field(i).Anonymous && va.Field(i).Kind() == reflect.Struct {
			if !sameFields(va.Field(i), vb.Field(i)) {
				return false
			}
			continue
		}
		fa, fb := va.Field(i).Interface(), vb.Field(i).Interface()
		switch x := fa.(type) {
		case time.Time:
			if !x.Equal(fb.(time.Time)) {
				return false
			}
		case *time.Time:
			y := fb.(*time.Time)
			if (x == nil) != (y == nil) || (x != nil && !x.Equal(*y)) {
				return false
			}
		default:
			if !reflect.DeepEqual(fa, fb) {
				return false
			}
		}
	}
	return true
}

// load returns the school's rows of R whose column is one of values.
func load[R any, V comparable](im *importer, column string, values []V) ([]R, error) {
	return loadChunked[R](values, "load current rows", func(chunk []V) *gorm.DB {
		return im.sc.in(im.tx).Where(column+" IN ?", chunk)
	})
}

// loadChunked reads the rows of R that the query where builds for a chunk of values matches,
// inChunk distinct values at a time; op names the read in its errors.
func loadChunked[R any, V comparable](values []V, op string, where func(chunk []V) *gorm.DB) ([]R, error) {
	var all []R
	for _, chunk := range chunks(dedupe(values), inChunk) {
		var rows []R
		if err := where(chunk).Find(&rows).Error; err != nil {
			return nil, wrap(op, err)
		}
		all = append(all, rows...)
	}
	return all, nil
}

// applyAt applies seeds over the school's current rows whose column holds one of values: the
// rows the seeds may update.
func applyAt[S, R any, V comparable](im *importer, column string, values []V, seeds []S, set rowSet[S, R]) (map[string]*R, error) {
	current, err := load[R](im, column, values)
	if err != nil {
		return nil, err
	}
	return apply(im, set, seeds, current)
}

// importByKey imports a SchoolData list whose records are one row each, found by a natural key
// (slug, key, code ...) in column: keyOf gives a seed's key.
func importByKey[S, R any](im *importer, column string, keyOf func(*S) string, seeds []S, set rowSet[S, R]) error {
	if len(seeds) == 0 {
		return nil
	}
	return importList(im, column, seedValues(seeds, keyOf), seeds, keyRequired(set, column, keyOf))
}

// keyRequired is set whose build first refuses a seed without its natural key (column, keyOf):
// a record found by key must have one.
func keyRequired[S, R any](set rowSet[S, R], column string, keyOf func(*S) string) rowSet[S, R] {
	build := set.build
	set.build = func(s *S, r *R) error {
		if err := required(column, keyOf(s)); err != nil {
			return err
		}
		return build(s, r)
	}
	return set
}

// importByMember imports a SchoolData list whose records are one row each of a member (an
// enrollment, a subscription ...): memberOf gives a seed's member e-mail, and the rows the list
// may update are those of the named members that exist.
func importByMember[S, R any](im *importer, memberOf func(*S) string, seeds []S, set rowSet[S, R]) error {
	if len(seeds) == 0 {
		return nil
	}
	members, err := im.knownMemberIDs(seedValues(seeds, memberOf))
	if err != nil {
		return err
	}
	return importList(im, "member_id", members, seeds, set)
}

// importOffers imports a list of things a school sells that no other list refers to by id
// (digital products, events, membership plans), found by slug (offerSet).
func importOffers[S interface{ Offer() storage.Offer }, R any, PR offerRow[R]](im *importer, kind string, seeds []S, fill func(*S, *R)) error {
	return importByKey(im, "slug", func(s *S) string { return (*s).Offer().Slug }, seeds, offerSet[S, R, PR](kind, fill))
}

// offerSet is the row set of a kind a school sells: a row is found by its slug, takes the
// seed's Offer as its offer columns, and fill copies the rest of the seed.
func offerSet[S interface{ Offer() storage.Offer }, R any, PR offerRow[R]](kind string, fill func(*S, *R)) rowSet[S, R] {
	return rowSet[S, R]{
		kind: kind,
		key:  func(r *R) string { return PR(r).offer().Slug },
		build: func(s *S, r *R) error {
			*PR(r).offer() = (*s).Offer()
			fill(s, r)
			return nil
		},
	}
}

// importMemberRecords imports a list of members' records of a school row found by slug (an
// enrollment in a course, a registration for an event ...), one row each, keyed by the two.
// ref gives a seed's member e-mail and the slug of its row in table (what names that row in
// errors); ids points at the row's member and row id columns; fill copies the rest of the seed.
func importMemberRecords[S, R any](im *importer, kind, table, what string, seeds []S, ref func(*S) (member, slug string), ids func(*R) (memberID, id *int64), fill func(*S, *R)) error {
	return importByMember(im, func(s *S) string { member, _ := ref(s); return member }, seeds, rowSet[S, R]{
		kind: kind,
		key: func(r *R) string {
			memberID, id := ids(r)
			return key2(*memberID, *id)
		},
		build: func(s *S, r *R) (err error) {
			memberID, id := ids(r)
			member, slug := ref(s)
			if *memberID, *id, err = im.memberAndSlug(member, table, what, slug); err != nil {
				return err
			}
			fill(s, r)
			return nil
		},
	})
}

// importList applies a list of one-row records, reports each to the progress callback and counts
// them. It then forgets the cached keys of the table the list is named for, for the lists after it
// that refer to its rows by key (courses, events, posts ...).
func importList[S, R any, V comparable](im *importer, column string, values []V, seeds []S, set rowSet[S, R]) error {
	set.ticks = true
	_, err := applyAt(im, column, values, seeds, set)
	im.imported(set.kind)
	im.counted(set.kind, len(seeds))
	return err
}

// importOwners applies a list of records found by slug that own rows of other tables (a course's
// sections, a lecturer's courses) and returns each seed's row id, in seed order, for those rows.
func importOwners[S, R any](im *importer, slugOf func(*S) string, idOf func(*R) int64, seeds []S, set rowSet[S, R]) ([]int64, error) {
	slugs := seedValues(seeds, slugOf)
	bySlug, err := applyAt(im, "slug", slugs, seeds, keyRequired(set, "slug", slugOf))
	if err != nil {
		return nil, err
	}
	im.imported(set.kind)
	ids := make([]int64, len(seeds))
	for i, slug := range slugs {
		ids[i] = idOf(bySlug[slug])
	}
	return ids, nil
}

// owned is one record of an owner's list (a course's sections, a consulting service's slots,
// its meetings) with the owner's index in its seeds, its row id, and the record's position in
// the list (from 1).
type owned[T any] struct {
	owner    int
	ownerID  int64
	position int
	seed     *T
}

// ownedBy flattens the lists that list gives of each owner (ids: their row ids, in seed order)
// into one, in seed order.
func ownedBy[O, T any](owners []O, ids []int64, list func(*O) []T) []owned[T] {
	var all []owned[T]
	for i := range owners {
		l := list(&owners[i])
		for j := range l {
			all = append(all, owned[T]{i, ids[i], j + 1, &l[j]})
		}
	}
	return all
}

// courseLink is one course, by slug, that an owner record lists (a lecturer teaches it, a
// consulting service is offered against it).
type courseLink struct {
	owner   int // index of the owner in its seeds
	ownerID int64
	slug    string
}

// applyCourseLinks writes the rows that link each owner (ids in seed order, rows found by column)
// to the courses its seed lists; link fills a row from the owner's id and the course's.
func applyCourseLinks[S, R any](im *importer, kind, column string, ownerIDs []int64, seeds []S, coursesOf func(*S) []string, key func(*R) string, link func(r *R, ownerID, courseID int64)) error {
	var links []courseLink
	for i := range seeds {
		for _, c := range coursesOf(&seeds[i]) {
			links = append(links, courseLink{i, ownerIDs[i], c})
		}
	}
	_, err := applyAt(im, column, ownerIDs, links, rowSet[courseLink, R]{
		kind:  kind,
		index: func(i int) int { return links[i].owner },
		key:   key,
		build: func(l *courseLink, r *R) error {
			courseID, err := im.idOf("courses", "slug", "course", l.slug)
			link(r, l.ownerID, courseID)
			return err
		},
	})
	return err
}

// seedValues lists value of each seed, in order: the keys or e-mails to load current rows by.
func seedValues[S any](seeds []S, value func(*S) string) []string {
	out := make([]string, len(seeds))
	for i := range seeds {
		out[i] = value(&seeds[i])
	}
	return out
}

func dedupe[V comparable](vs []V) []V {
	seen := make(map[V]bool, len(vs))
	out := vs[:0:0]
	for _, v := range vs {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

func chunks[V any](vs []V, n int) [][]V {
	var out [][]V
	for len(vs) > n {
		out = append(out, vs[:n])
		vs = vs[n:]
	}
	if len(vs) > 0 {
		out = append(out, vs)
	}
	return out
}

// memberID resolves a member's e-mail. Members are deployment-wide: the member may come from
// this import or from any earlier one, for any school.
func (im *importer) memberID(email string) (int64, error) {
	e := storage.NormaliseEmail(email)
	if e == "" {
		return 0, fmt.Errorf("member e-mail is empty: %w", storage.ErrInvalidArgument)
	}
	if id, ok := im.memberIDs[e]; ok {
		return id, nil
	}
	var row memberRow
	err := im.tx.Select("id").Where("email = ?", e).Take(&row).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return 0, fmt.Errorf("unknown member %q: %w", e, storage.ErrNotFound)
	}
	if err != nil {
		return 0, wrap("look up member", err)
	}
	im.memberIDs[e] = row.ID
	return row.ID, nil
}

// memberAndSlug resolves the two references of a member's record of a school row (the course of
// an enrollment, the event of a registration): the member's e-mail, and the row's slug in table.
func (im *importer) memberAndSlug(email, table, what, slug string) (memberID, id int64, err error) {
	if memberID, err = im.memberID(email); err != nil {
		return 0, 0, err
	}
	if id, err = im.idOf(table, "slug", what, slug); err != nil {
		return 0, 0, err
	}
	return memberID, id, nil
}

// optionalMemberID is memberID for optional references: "" is NULL.
func (im *importer) optionalMemberID(email string) (*int64, error) {
	if email == "" {
		return nil, nil
	}
	id, err := im.memberID(email)
	if err != nil {
		return nil, err
	}
	return &id, nil
}

// knownMemberIDs resolves the e-mails that name existing members, to narrow the loading of
// member-keyed rows; unknown ones are reported later by the record that uses them.
func (im *importer) knownMemberIDs(emails []string) ([]int64, error) {
	var ids []int64
	for _, e := range dedupe(emails) {
		id, err := im.memberID(e)
		switch {
		case err == nil:
			ids = append(ids, id)
		case errors.Is(err, storage.ErrNotFound) || storage.NormaliseEmail(e) == "":
		default:
			return nil, err
		}
	}
	return ids, nil
}

// idOf resolves a school row's natural key (a slug, a post key ...) in table to its id.
func (im *importer) idOf(table, column, what, value string) (int64, error) {
	if value == "" {
		return 0, fmt.Errorf("%s reference is empty: %w", what, storage.ErrInvalidArgument)
	}
	ids, ok := im.ids[table]
	if !ok {
		rows, err := im.sc.in(im.tx.Table(table)).Select("id, " + column).Rows()
		if err != nil {
			return 0, wrap("look up "+what, err)
		}
		ids = map[string]int64{}
		for rows.Next() {
			var (
				id  int64
				key string
			)
			if err := rows.Scan(&id, &key); err != nil {
				rows.Close()
				return 0, wrap("look up "+what, err)
			}
			ids[key] = id
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return 0, wrap("look up "+what, err)
		}
		im.ids[table] = ids
	}
	id, ok := ids[value]
	if !ok {
		return 0, fmt.Errorf("unknown %s %q: %w", what, value, storage.ErrNotFound)
	}
	return id, nil
}

// optionalIDOf is idOf for optional references: "" is NULL.
func (im *importer) optionalIDOf(table, column, what, value string) (*int64, error) {
	if value == "" {
		return nil, nil
	}
	id, err := im.idOf(table, column, what, value)
	if err != nil {
		return nil, err
	}
	return &id, nil
}

// imported forgets the cached keys of a table the import just wrote.
func (im *importer) imported(table string) { delete(im.ids, table) }

// lecture resolves a lecture reference (course slug, 1-based section and lecture positions).
func (im *importer) lecture(ref storage.LectureRef) (lectureIDs, error) {
	courseID, err := im.idOf("courses", "slug", "course", ref.Course)
	if err != nil {
		return lectureIDs{}, err
	}
	byPos, ok := im.lectures[courseID]
	if !ok {
		var sections []sectionRow
		if err := im.sc.in(im.tx).Where("course_id = ?", courseID).Find(&sections).Error; err != nil {
			return lectureIDs{}, wrap("look up lectures", err)
		}
		var lectures []lectureRow
		if err := im.sc.in(im.tx).Where("course_id = ?", courseID).Find(&lectures).Error; err != nil {
			return lectureIDs{}, wrap("look up lectures", err)
		}
		sectionPos := make(map[int64]int, len(sections))
		for _, s := range sections {
			sectionPos[s.ID] = s.Position
		}
		byPos = make(map[[2]int]lectureIDs, len(lectures))
		for _, l := range lectures {
			byPos[[2]int{sectionPos[l.SectionID], l.Position}] = lectureIDs{id: l.ID, courseID: courseID}
		}
		im.lectures[courseID] = byPos
	}
	l, ok := byPos[[2]int{ref.Section, ref.Lecture}]
	if !ok {
		return lectureIDs{}, fmt.Errorf("unknown lecture %d of section %d of course %q: %w",
			ref.Lecture, ref.Section, ref.Course, storage.ErrNotFound)
	}
	return l, nil
}

// required refuses an empty natural key.
func required(what, v string) error {
	if v == "" {
		return fmt.Errorf("%s is empty: %w", what, storage.ErrInvalidArgument)
	}
	return nil
}

// jsonText encodes a JSON column. Struct fields and map keys come out in a fixed order, so equal
// values give equal text and a re-import sees no change.
func jsonText(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

func optionalJSON[T any](v *T) (*string, error) {
	if v == nil {
		return nil, nil
	}
	s, err := jsonText(v)
	if err != nil {
		return nil, err
	}
	return &s, nil
}

func key2(a, b int64) string { return fmt.Sprintf("%d/%d", a, b) }
