package redis

import (
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// ProbeInterval is how long callers skip Redis after a failure before one
// call probes it again.
const ProbeInterval = time.Second

// Health is the up/down state of Redis as the calls see it. It logs one
// line on each change (never per request) and reports the state to the
// Observer. Safe for concurrent use.
type Health struct {
	down atomic.Bool
	log  *slog.Logger
	obs  Observer
	now  func() time.Time

	mu        sync.Mutex
	nextProbe time.Time
	probing   bool
}

func newHealth(log *slog.Logger, obs Observer, now func() time.Time) *Health {
	h := &Health{log: log, obs: obs, now: now}
	if obs != nil {
		obs.RedisUp(true)
	}
	return h
}

// Up reports whether the last call succeeded.
func (h *Health) Up() bool { return !h.down.Load() }

// begin reports whether a call may go to Redis: always while up; while
// down, one call at a time once the probe interval has passed.
func (h *Health) begin() bool {
	if !h.down.Load() {
		return true
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.probing || h.now().Before(h.nextProbe) {
		return false
	}
	h.probing = true
	return true
}

// abandon ends a call that says nothing about Redis (its caller went
// away): a probe is freed for the next call.
func (h *Health) abandon() {
	if !h.down.Load() {
		return
	}
	h.mu.Lock()
	h.probing = false
	h.mu.Unlock()
}

// record notes a call's outcome; a change of state is logged once.
func (h *Health) record(err error) {
	if err == nil {
		if h.down.Load() {
			h.mu.Lock()
			// Only a probe brings Redis back: a late success of a call
			// that began before the failure says little.
			if !h.probing {
				h.mu.Unlock()
				return
			}
			h.probing = false
			if h.down.CompareAndSwap(true, false) {
				h.log.Info("redis is reachable again: shared rate limits, quotas and budgets resume")
				if h.obs != nil {
					h.obs.RedisUp(true)
				}
			}
			h.mu.Unlock()
		}
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.probing = false
	h.nextProbe = h.now().Add(ProbeInterval)
	if h.down.CompareAndSwap(false, true) {
		h.log.Warn("redis is unreachable: failing open to the local in-process limiters (limits, quotas and budgets count per replica until it is back)", "err", err)
		if h.obs != nil {
			h.obs.RedisUp(false)
		}
	}
}
