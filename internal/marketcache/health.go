package marketcache

import (
	"context"
	"errors"
	"math/rand/v2"
	"sort"
	"sync/atomic"
	"time"

	"github.com/assetd/assetd/internal/market"
)

// A provider whose calls fail backs off exponentially: after n consecutive
// failures its calls are held back for a jittered
// min(BackoffMax, BackoffBase·2^(n-1)), then one probe call is let through;
// a success ends the backoff. A refusal for the provider's own reasons
// (not found, Retry-After) and a call the caller abandoned are not
// failures.
const (
	BackoffBase = time.Second
	BackoffMax  = 5 * time.Minute
)

// ErrBackingOff: the call was not made because its provider is backing
// off after consecutive failures.
var ErrBackingOff = errors.New("provider backing off after failures; call deferred")

// Deferral reasons, as ProviderStatus and the Observer name them.
const (
	DeferredBudget     = "budget"      // the provider's request budget was spent
	DeferredBackoff    = "backoff"     // the provider is backing off after failures
	DeferredRetryAfter = "retry_after" // the provider asked to wait (429 Retry-After)
	DeferredPending    = "pending"     // another replica refreshes it and has not published it yet
)

// Observer receives every provider call the cache makes and every call it
// defers (metrics). Calls come from the worker goroutines.
type Observer interface {
	ProviderCall(source string, took time.Duration, err error)
	ProviderDeferred(source, reason string)
}

// backoff is the un-jittered hold-back after n consecutive failures.
func backoff(n int) time.Duration {
	if n <= 0 {
		return 0
	}
	d := BackoffBase
	for i := 1; i < n && d < BackoffMax; i++ {
		d *= 2
	}
	return min(d, BackoffMax)
}

// equalJitter returns a uniform duration in [d/2, d] (the default Jitter).
func equalJitter(d time.Duration) time.Duration {
	if d <= 1 {
		return d
	}
	return d/2 + rand.N(d/2+1)
}

// health is one provider's state; guarded by Cache.mu except the counters.
type health struct {
	failures int       // consecutive
	until    time.Time // no call before (backoff)
	lastErr  string

	calls, errors                                       atomic.Int64
	deferredBudget, deferredBackoff, deferredRetryAfter atomic.Int64
	nanos                                               atomic.Int64 // total call time
}

// ProviderStatus is a provider's state and running totals.
type ProviderStatus struct {
	Source string
	// Up is false while the provider backs off after failures.
	Up bool
	// Failures is the count of consecutive failed calls; LastError the
	// latest one's message.
	Failures  int
	LastError string
	// BackoffUntil is when the next probe call may go (zero when up).
	BackoffUntil time.Time
	Calls        int64
	Errors       int64
	// Deferred counts calls not made, by reason (DeferredBudget, ...).
	Deferred map[string]int64
}

// healthOf returns source's state, creating it on first use.
func (c *Cache) healthOf(source string) *health {
	c.mu.Lock()
	defer c.mu.Unlock()
	h := c.health[source]
	if h == nil {
		h = &health{}
		c.health[source] = h
	}
	return h
}

// admit decides whether a call to source may go now: nil, or an error
// wrapping ErrBackingOff while the provider backs off. When a backoff has
// expired the caller becomes the probe and the window is re-armed, so
// concurrent callers keep waiting for its outcome.
func (c *Cache) admit(source string, h *health) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if h.failures == 0 {
		return nil
	}
	now := c.o.Now()
	if now.Before(h.until) {
		return &backoffError{source: source, wait: h.until.Sub(now)}
	}
	h.until = now.Add(c.o.Jitter(backoff(h.failures)))
	return nil
}

type backoffError struct {
	source string
	wait   time.Duration
}

func (e *backoffError) Error() string {
	return e.source + ": " + ErrBackingOff.Error() + " (next probe in " + e.wait.Round(time.Millisecond).String() + ")"
}
func (e *backoffError) Unwrap() error { return ErrBackingOff }

// countsAsFailure says whether err from a provider call (made under ctx,
// the caller's context) is the provider failing.
func countsAsFailure(ctx context.Context, err error) bool {
	var rl *market.RateLimitedError
	switch {
	case err == nil, ctx.Err() != nil, errors.Is(err, market.ErrNotFound), errors.As(err, &rl):
		return false
	}
	return true
}

// outcome records a call's result in source's state and logs state
// changes: the first failure after success (WARN) and the recovery (INFO).
func (c *Cache) outcome(ctx context.Context, source string, h *health, took time.Duration, err error) {
	h.calls.Add(1)
	h.nanos.Add(int64(took))
	if err != nil {
		h.errors.Add(1)
	}
	if c.o.Observer != nil {
		c.o.Observer.ProviderCall(source, took, err)
	}
	if ctx.Err() != nil {
		return // abandoned by the caller (shutdown, warm-up deadline)
	}
	c.mu.Lock()
	if !countsAsFailure(ctx, err) {
		failed := h.failures
		if err == nil {
			h.failures, h.until, h.lastErr = 0, time.Time{}, ""
		}
		c.mu.Unlock()
		if err == nil && failed > 0 {
			c.o.Log.Info("provider recovered", "provider", source, "after_failures", failed)
		}
		return
	}
	h.failures++
	h.lastErr = err.Error()
	wait := c.o.Jitter(backoff(h.failures))
	h.until = c.o.Now().Add(wait)
	n := h.failures
	c.mu.Unlock()
	if n == 1 {
		c.o.Log.Warn("provider failing; backing off", "provider", source, "err", err, "backoff", wait.Round(time.Millisecond))
	} else {
		c.o.Log.Debug("provider still failing", "provider", source, "failures", n, "err", err, "backoff", wait.Round(time.Millisecond))
	}
}

// deferred counts a call not made.
func (c *Cache) deferred(source string, h *health, reason string) {
	switch reason {
	case DeferredBudget:
		h.deferredBudget.Add(1)
	case DeferredBackoff:
		h.deferredBackoff.Add(1)
	case DeferredRetryAfter:
		h.deferredRetryAfter.Add(1)
	}
	if c.o.Observer != nil {
		c.o.Observer.ProviderDeferred(source, reason)
	}
}

// Providers returns every configured provider's status, by source name.
func (c *Cache) Providers() []ProviderStatus {
	c.mu.Lock()
	out := make([]ProviderStatus, 0, len(c.health))
	for src, h := range c.health {
		out = append(out, ProviderStatus{Source: src, Up: h.failures == 0, Failures: h.failures, LastError: h.lastErr,
			BackoffUntil: h.until, Calls: h.calls.Load(), Errors: h.errors.Load(),
			Deferred: map[string]int64{DeferredBudget: h.deferredBudget.Load(), DeferredBackoff: h.deferredBackoff.Load(),
				DeferredRetryAfter: h.deferredRetryAfter.Load()}})
	}
	c.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Source < out[j].Source })
	return out
}
