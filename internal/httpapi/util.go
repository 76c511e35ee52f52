package httpapi

import (
	"context"
	"log/slog"
)

// contextWith makes ri the request's context (a child of ctx).
func contextWith(ctx context.Context, ri *reqInfo) context.Context {
	ri.Context = ctx
	return ri
}

func accessLevel(status int) slog.Level {
	if status >= 500 {
		return slog.LevelError
	}
	return slog.LevelInfo
}
