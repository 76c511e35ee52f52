// Package ctxwait provides waits that end early with their context.
package ctxwait

import (
	"context"
	"time"
)

// Sleep waits d or until ctx ends, whichever comes first, and returns
// ctx's error when ctx ended it (a d of zero or less returns at once,
// with ctx's error if it has ended).
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
