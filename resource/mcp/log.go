package mcp

import (
	"context"
	"log/slog"
)

// clientMistakes are the messages the SDK logs at ERROR for a client's protocol mistake: a
// method the 2026-07-28 revision removed, a request before or a second initialize handshake.
// Nothing is wrong with the server, so they are lowered to INFO, the level of every other
// client error in Proctor (login.Handler.Fail logs 4xx at INFO): ERROR stays for what an
// operator must act on.
var clientMistakes = map[string]bool{
	"method removed in the new protocol":   true,
	"method invalid during initialization": true,
	"initialized before initialize":        true,
	"duplicate initialized notification":   true,
	"duplicate initialize request":         true,
}

// sdkLogger is the logger the SDK is given: the handler's own, with the SDK's records of
// client mistakes lowered to INFO.
func sdkLogger(l *slog.Logger) *slog.Logger { return slog.New(lowerMistakes{l.Handler()}) }

// lowerMistakes is a slog.Handler that logs the records of clientMistakes at INFO.
type lowerMistakes struct{ next slog.Handler }

// Enabled is the next handler's: a record is only ever lowered, and Handle asks again at the
// lowered level.
func (h lowerMistakes) Enabled(ctx context.Context, level slog.Level) bool {
	return h.next.Enabled(ctx, level)
}

func (h lowerMistakes) Handle(ctx context.Context, r slog.Record) error {
	if r.Level > slog.LevelInfo && clientMistakes[r.Message] {
		r = r.Clone()
		r.Level = slog.LevelInfo
	}
	if !h.next.Enabled(ctx, r.Level) {
		return nil
	}
	return h.next.Handle(ctx, r)
}

func (h lowerMistakes) WithAttrs(attrs []slog.Attr) slog.Handler {
	return lowerMistakes{h.next.WithAttrs(attrs)}
}

func (h lowerMistakes) WithGroup(name string) slog.Handler {
	return lowerMistakes{h.next.WithGroup(name)}
}
