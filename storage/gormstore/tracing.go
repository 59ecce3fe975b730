package gormstore

import (
	"log/slog"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"gorm.io/gorm"

	"github.com/proctorhq/proctor/telemetry"
)

// spanKey holds, in a statement's settings, the span traceStatements started for it.
const spanKey = "proctor:span"

// TraceStatements gives every SQL statement sent within a traced operation (a context whose
// span is recording) a span of its own: its name is the statement's kind and table ("SELECT
// oauth_grants"), and it carries neither the SQL text nor the bound values, which include token
// signatures, password hashes and members' personal data. Statements outside a trace (the purge
// job, the mail worker's polling) start none, so an idle server exports nothing. A nil tp
// registers nothing: the store then costs what it did without tracing. With a tp, the slow-query
// log's lines carry the trace and span ids of the statement's context (telemetry.LogHandler).
//
// gorm's callback chains are not safe to change while queries run: call it before the store is
// shared (Open does, with Config.Tracer).
func (s *Store) TraceStatements(tp trace.TracerProvider) {
	if tp == nil {
		return
	}
	if ql, ok := s.db.Logger.(queryLogger); ok && ql.log != nil {
		ql.log = slog.New(telemetry.LogHandler(ql.log.Handler()))
		s.db.Logger = ql
	}
	tracer := tp.Tracer("github.com/proctorhq/proctor/storage/gormstore")
	system := s.driver
	if system == DriverPostgres {
		system = "postgresql"
	}
	start := func(db *gorm.DB) {
		if db.DryRun || db.Statement == nil || !trace.SpanFromContext(db.Statement.Context).IsRecording() {
			return
		}
		_, span := tracer.Start(db.Statement.Context, "sql", trace.WithSpanKind(trace.SpanKindClient),
			trace.WithAttributes(attribute.String("db.system.name", system)))
		db.InstanceSet(spanKey, span)
	}
	end := func(db *gorm.DB) {
		v, ok := db.InstanceGet(spanKey)
		if !ok {
			return
		}
		span := v.(trace.Span)
		sql := db.Statement.SQL.String()
		op := statementKind(sql)
		name := op
		t := db.Statement.Table
		if t == "" {
			t = firstTable(sql)
		}
		if t != "" {
			name += " " + t
			span.SetAttributes(attribute.String("db.collection.name", t))
		}
		span.SetName(name)
		span.SetAttributes(attribute.String("db.operation.name", op), attribute.Int64("db.response.returned_rows", db.RowsAffected))
		if db.Error != nil && db.Error != gorm.ErrRecordNotFound {
			span.SetStatus(codes.Error, "statement failed")
		}
		span.End()
	}
	// Errors here could only be a duplicate name, and each store registers once.
	for _, c := range s.sendingChains() {
		_ = c.before("proctor:trace_start", start)
		_ = c.after("proctor:trace_end", end)
	}
}

// statementKind is the SQL keyword a statement starts with (SELECT, INSERT, WITH ...).
func statementKind(sql string) string {
	sql = strings.TrimSpace(sql)
	if i := strings.IndexAny(sql, " \n\t("); i > 0 {
		sql = sql[:i]
	}
	if sql == "" {
		return "SQL"
	}
	return strings.ToUpper(sql)
}

// firstTable is the first table a raw statement names after FROM, INTO, UPDATE or JOIN (the
// table a data-modifying WITH writes first), or "" if it names none.
func firstTable(sql string) string {
	words := strings.FieldsFunc(sql, func(r rune) bool {
		return r == ' ' || r == '\n' || r == '\t' || r == '(' || r == ')' || r == ','
	})
	for i := 0; i+1 < len(words); i++ {
		switch strings.ToUpper(words[i]) {
		case "FROM", "INTO", "UPDATE", "JOIN":
			if t := strings.Trim(words[i+1], `"`+"`"); t != "" && t != "?" && !strings.EqualFold(t, "SELECT") {
				return t
			}
		}
	}
	return ""
}
