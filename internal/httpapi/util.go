package httpapi

import (
	"context"
	"log/slog"
)

func contextWith(ctx context.Context, ri *reqInfo) context.Context {
	return context.WithValue(ctx, ctxKey{}, ri)
}

func accessLevel(status int) slog.Level {
	if status >= 500 {
		return slog.LevelError
	}
	return slog.LevelInfo
}
