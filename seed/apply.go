package seed

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/proctorhq/proctor/password"
	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
)

// Options tune Apply.
type Options struct {
	// Params are the argon2id costs for hashing plain passwords; the zero value means
	// password.Default. Tests pass cheap ones.
	Params password.Params
	// Progress, if set, is called as the work advances: once per plain password hashed, then
	// once per record imported. total counts both, because on a file of many members the
	// hashing takes longer than the import.
	Progress func(done, total int)
}

// hashWorkers bounds the passwords hashed at once: each hash holds Params.MemoryKiB (64 MiB by
// default), so more workers would trade a little time for a lot of memory.
const hashWorkers = 4

// Apply writes the fixture to the school carried by ctx (school.NewContext): it validates the
// fixture again (returning Validate's Errors without writing anything), hashes plain
// passwords, and imports everything with st.ImportSchoolData in one transaction. A record the
// store refuses, such as a reference to a member that exists neither in the file nor in the
// database, fails the whole import with an Errors naming that record's line.
//
// The import is idempotent: records are upserted by natural key, and a plain password whose
// member already has a hash of it (made with the same Params) keeps that hash, so applying the
// same fixture twice changes nothing.
func (f *Fixture) Apply(ctx context.Context, st Store, opts Options) (storage.ImportStats, error) {
	if errs := f.Validate(); len(errs) > 0 {
		return nil, errs
	}
	// The import is school-scoped; finding out before hashing spares seconds of argon2.
	if _, err := school.FromContext(ctx); err != nil {
		return nil, err
	}
	params := opts.Params
	if params == (password.Params{}) {
		params = password.Default
	}
	data := f.Data
	plain := 0
	for _, m := range data.Members {
		if m.Password != "" {
			plain++
		}
	}
	total := plain + data.Records()
	var mu sync.Mutex
	done := 0
	tick := func() {
		if opts.Progress == nil {
			return
		}
		// Workers hash concurrently; the callback sees one call at a time, in order.
		mu.Lock()
		defer mu.Unlock()
		done++
		opts.Progress(done, total)
	}
	members, err := f.hashPasswords(ctx, st, params, tick)
	if err != nil {
		return nil, err
	}
	data.Members = members

	var iopts storage.ImportOptions
	if opts.Progress != nil {
		iopts.Progress = func(d, _ int) { opts.Progress(plain+d, total) }
	}
	stats, err := st.ImportSchoolData(ctx, &data, iopts)
	if err != nil {
		var ie *storage.ImportError
		if errors.As(err, &ie) {
			field := ie.Kind
			if ie.Kind != "school" {
				field = at(ie.Kind, ie.Index)
			}
			msg := err.Error()
			if ie.Err != nil {
				msg = ie.Err.Error()
			}
			return nil, Errors{f.errorAt(field, msg, err)}
		}
		return nil, fmt.Errorf("%s: %w", f.File, err)
	}
	return stats, nil
}

// hashPasswords returns a copy of the members with every plain password replaced by its hash,
// so that the Fixture itself is left as loaded and can be applied again.
func (f *Fixture) hashPasswords(ctx context.Context, st Store, p password.Params, tick func()) ([]storage.MemberSeed, error) {
	members := slices.Clone(f.Data.Members)
	jobs := make(chan int)
	errs := make([]error, len(members))
	var wg sync.WaitGroup
	for range min(hashWorkers, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for i := range jobs {
				errs[i] = hashMember(ctx, st, &members[i], p)
				tick()
			}
		})
	}
feed:
	for i := range members {
		if members[i].Password == "" {
			continue
		}
		select {
		case jobs <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out Errors
	for i, err := range errs {
		if err != nil {
			field := at("members", i) + ".password"
			out = append(out, f.errorAt(field, err.Error(), err))
		}
	}
	if len(out) > 0 {
		return nil, out
	}
	return members, nil
}

// hashMember replaces m.Password by a hash. If the member already exists with a hash of that
// password made with the same parameters, that hash is kept: re-applying a fixture then leaves
// the row untouched, and a changed Params still re-hashes.
func hashMember(ctx context.Context, st Store, m *storage.MemberSeed, p password.Params) error {
	existing, err := st.GetMemberByEmail(ctx, m.Email)
	switch {
	case err == nil && password.HashedWith(existing.PasswordHash, p) && password.Verify(m.Password, existing.PasswordHash) == nil:
		m.PasswordHash = existing.PasswordHash
	case err == nil || errors.Is(err, storage.ErrNotFound):
		h, err := password.Hash(m.Password, p)
		if err != nil {
			return err
		}
		m.PasswordHash = h
	default:
		return fmt.Errorf("looking up the member: %w", err)
	}
	m.Password = ""
	return nil
}

// ApplyFile loads, validates and applies the fixture at path: what `proctor seed` does, for
// callers that need no progress between the steps. Errors located in the file are Errors.
func ApplyFile(ctx context.Context, st Store, path string, opts Options) (storage.ImportStats, error) {
	r, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	f, err := Load(path, r)
	if err != nil {
		return nil, err
	}
	return f.Apply(ctx, st, opts)
}

// ProgressLine returns an Options.Progress that keeps one line on w up to date, such as
// "seeding: 1200/5000 (24%)", rewritten in place and ended when the work is done. Files of fewer
// than minSteps steps finish too fast for a progress line to help, so they print nothing.
func ProgressLine(w io.Writer, minSteps int) func(done, total int) {
	last := -1
	return func(done, total int) {
		if total < minSteps || total == 0 {
			return
		}
		pct := done * 100 / total
		if pct == last && done != total {
			return
		}
		last = pct
		fmt.Fprintf(w, "\rseeding: %d/%d (%d%%)", done, total, pct)
		if done == total {
			fmt.Fprintln(w)
		}
	}
}

// FormatStats renders import statistics one "key: count" line per kind, in the order the
// kinds appear in a fixture, leaving out kinds with no records.
func FormatStats(s storage.ImportStats) string {
	var b strings.Builder
	listed := map[string]bool{}
	t := reflect.TypeFor[storage.SchoolData]()
	for i := range t.NumField() {
		key, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		listed[key] = true
		if n := s[key]; n > 0 {
			fmt.Fprintf(&b, "%s: %d\n", key, n)
		}
	}
	// A store may count something the format has no key for; show it rather than drop it.
	var rest []string
	for k := range s {
		if !listed[k] && s[k] > 0 {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	for _, k := range rest {
		fmt.Fprintf(&b, "%s: %d\n", k, s[k])
	}
	return b.String()
}
