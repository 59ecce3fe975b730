package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/proctorhq/proctor/audit"
	"github.com/proctorhq/proctor/storage"
)

func newEventsCommand(g *globalFlags) *cobra.Command {
	return commandGroup("events", "Read a school's security event log", "", newEventsListCommand(g))
}

// eventsDefaultLimit is how many events `events list` prints without --limit.
const eventsDefaultLimit = 100

func newEventsListCommand(g *globalFlags) *cobra.Command {
	var (
		schoolID     int64
		asJSON       bool
		member, kind string
		since, until string
		limit        int
	)
	cmd := &cobra.Command{
		Use:   "list --school ID [--json] [--member EMAIL] [--kind K] [--since RFC3339] [--until RFC3339] [--limit N]",
		Short: "List a school's security events, newest first",
		Long: `List a school's security events (sign-ins, password resets, invitations, consents, revocations,
client and role changes, key rotations), newest first.

With --json each event is one line of JSON, for a SIEM or a log shipper; the fields are stable
and documented in docs/security.md ("Security event log"). Without it, a table for people.
--limit 0 lists every event the filter selects.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			f := audit.Filter{}
			var err error
			if kind != "" {
				if !audit.KnownKind(audit.Kind(kind)) {
					return fmt.Errorf("--kind %q is not a kind of event (one of: %s)", kind, kindList())
				}
				f.Kinds = []audit.Kind{audit.Kind(kind)}
			}
			if f.Since, err = parseEventTime("--since", since); err != nil {
				return err
			}
			if f.Until, err = parseEventTime("--until", until); err != nil {
				return err
			}
			if limit < 0 {
				return errors.New("--limit must not be negative (0 lists every event)")
			}
			email := storage.NormaliseEmail(member)
			if member != "" && !storage.ValidEmail(email) {
				return notAnAddress(member)
			}
			return withSchool(cmd, g, schoolID, func(ctx context.Context, a *app) error {
				if email != "" {
					m, err := memberByEmail(ctx, a, email, fmt.Errorf("no member with e-mail %s", email))
					if err != nil {
						return err
					}
					f.MemberID = m.ID
				}
				out := cmd.OutOrStdout()
				if asJSON {
					enc := json.NewEncoder(out)
					return eachEvent(ctx, a.store, f, limit, func(e audit.Event) error { return enc.Encode(eventLineOf(e)) })
				}
				return printTable(out, "ID\tAT\tKIND\tRESULT\tACTOR\tSUBJECT\tCLIENT\tSCOPES\tADDRESS\tREQUEST\tDETAIL", func(w io.Writer) error {
					return eachEvent(ctx, a.store, f, limit, func(e audit.Event) error {
						_, err := fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.ID, e.At.UTC().Format(time.RFC3339),
							e.Kind, e.Result, actorText(e), idText(e.SubjectID), cell(e.ClientID), cell(strings.Join(e.Scopes, " ")),
							cell(e.ClientAddr), cell(e.RequestID), cell(e.Detail))
						return err
					})
				})
			})
		},
	}
	schoolFlag(cmd, &schoolID)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object a line")
	cmd.Flags().StringVar(&member, "member", "", "only events whose actor or subject is the member with this e-mail address")
	cmd.Flags().StringVar(&kind, "kind", "", "only events of this kind (sign_in, role_changed ...)")
	cmd.Flags().StringVar(&since, "since", "", "only events at or after this time (RFC 3339, e.g. 2026-01-31T00:00:00Z)")
	cmd.Flags().StringVar(&until, "until", "", "only events before this time (RFC 3339)")
	cmd.Flags().IntVar(&limit, "limit", eventsDefaultLimit, "at most this many events (0: all)")
	return cmd
}

// eventLine is one line of `events list --json`. Its field names are part of the interface
// (docs/security.md): add fields, never rename or remove one.
type eventLine struct {
	ID         int64    `json:"id"`
	SchoolID   int64    `json:"school_id"`
	At         string   `json:"at"` // RFC 3339 in UTC, with the fraction of a second
	Kind       string   `json:"kind"`
	Result     string   `json:"result"`
	Actor      string   `json:"actor"`
	ActorID    *int64   `json:"actor_id"`   // null when no member acted
	SubjectID  *int64   `json:"subject_id"` // null when no member was acted upon
	ClientID   string   `json:"client_id"`
	Scopes     []string `json:"scopes"` // [] when none
	ClientAddr string   `json:"client_addr"`
	UserAgent  string   `json:"user_agent"`
	RequestID  string   `json:"request_id"`
	Detail     string   `json:"detail"`
}

func eventLineOf(e audit.Event) eventLine {
	l := eventLine{
		ID: e.ID, SchoolID: e.SchoolID, At: e.At.UTC().Format(time.RFC3339Nano), Kind: string(e.Kind), Result: string(e.Result),
		Actor: string(e.Actor), ClientID: e.ClientID, Scopes: e.Scopes, ClientAddr: e.ClientAddr, UserAgent: e.UserAgent,
		RequestID: e.RequestID, Detail: e.Detail,
	}
	if l.Scopes == nil {
		l.Scopes = []string{}
	}
	if e.ActorID != 0 {
		l.ActorID = &e.ActorID
	}
	if e.SubjectID != 0 {
		l.SubjectID = &e.SubjectID
	}
	return l
}

// eachEvent calls fn for the events f selects, newest first, at most limit of them (0: all),
// paging backwards by id.
func eachEvent(ctx context.Context, log audit.Store, f audit.Filter, limit int, fn func(audit.Event) error) error {
	seen := 0
	for {
		f.Limit = audit.MaxPage
		if limit > 0 {
			f.Limit = min(audit.MaxPage, limit-seen)
		}
		events, err := log.ListSecurityEvents(ctx, f)
		if err != nil {
			return err
		}
		for _, e := range events {
			if err := fn(e); err != nil {
				return err
			}
		}
		seen += len(events)
		if len(events) < f.Limit || (limit > 0 && seen >= limit) {
			return nil
		}
		f.BeforeID = events[len(events)-1].ID
	}
}

func parseEventTime(flag, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s must be an RFC 3339 time such as 2026-01-31T00:00:00Z, got %q", flag, s)
	}
	return t, nil
}

func kindList() string {
	names := make([]string, len(audit.Kinds))
	for i, k := range audit.Kinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}

// actorText is the table's actor column: "member 12", "operator 3", "cli", "system".
func actorText(e audit.Event) string {
	if e.ActorID != 0 {
		return string(e.Actor) + " " + fmt.Sprint(e.ActorID)
	}
	return string(e.Actor)
}

func idText(id int64) string {
	if id == 0 {
		return "-"
	}
	return fmt.Sprint(id)
}

// cell is a table cell: control characters (a browser's User-Agent, a note, all come from
// outside) never reach the terminal, and tabs and line breaks cannot break the table.
func cell(s string) string {
	if s == "" {
		return "-"
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == unicode.ReplacementChar {
			return '?'
		}
		return r
	}, s)
}
