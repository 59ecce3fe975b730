package login

import (
	"log/slog"
	"time"
)

// The pages' parts may each be built without a logger or a clock (tests, tools); these give the
// one default for each, so that every part means the same by leaving it out.

// LoggerOrDiscard is l, or a logger that discards everything when l is nil.
func LoggerOrDiscard(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}

// ClockOrNow is now, or the system clock when now is nil.
func ClockOrNow(now func() time.Time) func() time.Time {
	if now == nil {
		return time.Now
	}
	return now
}

// positiveOr is v, or def when v is zero or negative (an option left unset).
func positiveOr[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}
