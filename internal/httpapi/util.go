package httpapi

import (
	"context"
	"log/slog"
	"net/http"
)

// contextWith makes ri the request's context (a child of ctx).
func contextWith(ctx context.Context, ri *reqInfo) context.Context {
	ri.Context = ctx
	return ri
}

// readyzPattern is the route of the readiness probe.
const readyzPattern = "GET /readyz"

// accessLevel is the access-log level of a finished request: ERROR for a
// 5xx, except the readiness probe's 503 (DEBUG: a load balancer probes it
// every few seconds, and the state change is logged once at WARN by
// logReadiness), INFO otherwise.
func accessLevel(route string, status int) slog.Level {
	if route == readyzPattern && status == http.StatusServiceUnavailable {
		return slog.LevelDebug
	}
	if status >= 500 {
		return slog.LevelError
	}
	return slog.LevelInfo
}
