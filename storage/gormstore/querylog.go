package gormstore

import (
	"context"
	"log/slog"
	"time"

	gormlogger "gorm.io/gorm/logger"
	"gorm.io/gorm/utils"
)

// slowQuery is the duration above which a statement is reported.
const slowQuery = 200 * time.Millisecond

// queryLogger is gorm's logger for the store. It says nothing but slow-query warnings, and those
// carry the statement with its placeholders, never the bound values: arguments include password
// hashes, token signatures and members' personal data. Errors are not logged here because they
// are returned to the caller, who decides what deserves a log line.
type queryLogger struct {
	log  *slog.Logger
	slow time.Duration
}

func newQueryLogger(l *slog.Logger) gormlogger.Interface {
	return queryLogger{log: l, slow: slowQuery}
}

func (l queryLogger) LogMode(gormlogger.LogLevel) gormlogger.Interface { return l }

func (queryLogger) Info(context.Context, string, ...any)  {}
func (queryLogger) Warn(context.Context, string, ...any)  {}
func (queryLogger) Error(context.Context, string, ...any) {}

func (l queryLogger) Trace(ctx context.Context, begin time.Time, fc func() (string, int64), _ error) {
	if l.log == nil {
		return
	}
	elapsed := time.Since(begin)
	if elapsed < l.slow {
		return
	}
	sql, rows := fc()
	l.log.LogAttrs(ctx, slog.LevelWarn, "slow database query",
		slog.Duration("duration", elapsed),
		slog.String("sql", sql),
		slog.Int64("rows", rows),
		slog.String("caller", utils.FileWithLineNum()),
	)
}

// ParamsFilter drops the bound values, so that the SQL gorm hands to Trace keeps its
// placeholders.
func (queryLogger) ParamsFilter(_ context.Context, sql string, _ ...any) (string, []any) {
	return sql, nil
}
