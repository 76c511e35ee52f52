package logbuf

import (
	"context"
	"io"
	"log/slog"
)

// Handler routes records below a level to a handler over a Writer and the
// others to a handler over its Sync view: access-log and info lines are
// buffered, warnings and errors are written at once (after what was
// buffered before them, so the output keeps its order).
type Handler struct {
	buffered, sync slog.Handler
	urgent         slog.Level
}

// NewHandler builds the pair from one constructor (slog.NewTextHandler or
// slog.NewJSONHandler with the same options): records at urgent or above
// are written synchronously.
func NewHandler(w *Writer, urgent slog.Level, mk func(io.Writer) slog.Handler) *Handler {
	return &Handler{buffered: mk(w), sync: mk(w.Sync()), urgent: urgent}
}

// Enabled implements slog.Handler.
func (h *Handler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.buffered.Enabled(ctx, l)
}

// Handle implements slog.Handler.
func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level >= h.urgent {
		return h.sync.Handle(ctx, r)
	}
	return h.buffered.Handle(ctx, r)
}

// WithAttrs implements slog.Handler.
func (h *Handler) WithAttrs(as []slog.Attr) slog.Handler {
	return &Handler{buffered: h.buffered.WithAttrs(as), sync: h.sync.WithAttrs(as), urgent: h.urgent}
}

// WithGroup implements slog.Handler.
func (h *Handler) WithGroup(name string) slog.Handler {
	return &Handler{buffered: h.buffered.WithGroup(name), sync: h.sync.WithGroup(name), urgent: h.urgent}
}
