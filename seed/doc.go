// Package seed loads, checks and applies seed fixtures: YAML (or JSON) files holding one
// school's data in the shape of storage.SchoolData, whose yaml tags are the file's keys. The
// format is described in docs/seed-format.md.
//
// The three steps are separate so that a command can stop between them:
//
//	f, err := seed.Load(name, r)      // syntax, unknown keys, types, times: every problem at once
//	errs := f.Validate()              // records, natural keys, references: every problem at once
//	stats, err := f.Apply(ctx, st, o) // hash passwords, import in one transaction
//
// Every problem is an *Error naming the file, the line and the field ("members[3].email"), so
// a fixture of thousands of records can be fixed from the messages alone. Nothing is written
// unless the whole file loads and validates; Apply validates again rather than trust its
// caller, and the store applies the data in one transaction, so a failing record leaves the
// database as it was.
//
// ApplyFile does the three steps for a path; ProgressLine and FormatStats render Apply's
// progress and result for a terminal.
//
// References between records use natural keys (e-mails, slugs, positions, keys). A reference
// is resolved against the file when the file itself holds records of the referenced kind, so a
// typo is reported with every other problem before anything is written; otherwise it is left
// to the store, which resolves it against existing rows and fails the import with an
// *storage.ImportError that Apply turns back into the record's line.
package seed
