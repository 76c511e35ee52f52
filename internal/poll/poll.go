// Package poll waits for a condition that another goroutine or process
// makes true and that offers no event to wait on (a replica's HTTP answer,
// a stream consumer's state, a key set refreshed in the background): it
// checks the condition on a ticker until it holds or the context ends.
// Tests use it with generous deadlines, as a guard against hanging, never
// as a speed assertion.
package poll

import (
	"context"
	"testing"
	"time"
)

// Until checks cond at once and then every interval until it holds (nil)
// or ctx ends (ctx's error), and reports how long that took.
func Until(ctx context.Context, every time.Duration, cond func() bool) (time.Duration, error) {
	start := time.Now()
	if cond() {
		return 0, nil
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return time.Since(start), ctx.Err()
		case <-tick.C:
			if cond() {
				return time.Since(start), nil
			}
		}
	}
}

// Interval is how often For checks its condition.
const Interval = 5 * time.Millisecond

// For is Until for tests: it fails t when cond does not hold within d,
// naming what it waited for, and returns how long cond took. Call it from
// the test's goroutine.
func For(t testing.TB, d time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	took, err := Until(ctx, Interval, cond)
	if err != nil {
		t.Fatalf("%s: not within %s", what, d)
	}
	return took
}
