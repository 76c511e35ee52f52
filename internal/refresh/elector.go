// Package refresh makes one replica of a cluster the refresher of provider
// data: an Elector holds a lease (Locker) and says whether this replica is
// the leader, and the Shared* decorators wrap the upstream providers so
// the leader calls them and publishes every result (Results) while the
// other replicas read the published results instead of calling upstream.
// Without a Locker (no --redis-url) every replica is its own leader: the
// single-process behaviour.
package refresh

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Locker is one lease shared by the replicas (internal/refresh/redisshare).
// Acquire takes the lease when nobody holds it; Renew extends it only while
// this holder still has it; Release gives it up if held. A false result
// means another replica holds the lease.
type Locker interface {
	Acquire(ctx context.Context, ttl time.Duration) (bool, error)
	Renew(ctx context.Context, ttl time.Duration) (bool, error)
	Release(ctx context.Context) error
}

// DefaultLeaseTTL is how long a lease outlives its holder's last renewal:
// the longest a dead leader's work stays undone.
const DefaultLeaseTTL = 10 * time.Second

// Elector keeps trying to hold the lease and answers Leader.
type Elector struct {
	locker Locker
	ttl    time.Duration
	now    func() time.Time
	log    *slog.Logger
	// OnChange, when set before Run, sees every change of leadership.
	OnChange func(leader bool)
	// Role, when set before Run, names what the lease is for in the log
	// lines of leadership changes ("on-chain reads"); empty means the
	// provider refresh, whose lines operators and tests look for.
	Role string

	mu     sync.Mutex
	held   bool
	expiry time.Time // this holder's own view of when the lease ends
	shown  bool      // the leadership last reported (logged, OnChange)
}

// NewElector returns an elector over locker (nil: always the leader).
// ttl <= 0 means DefaultLeaseTTL; now nil means time.Now.
func NewElector(locker Locker, ttl time.Duration, now func() time.Time, log *slog.Logger) *Elector {
	if ttl <= 0 {
		ttl = DefaultLeaseTTL
	}
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Elector{locker: locker, ttl: ttl, now: now, log: log}
}

// Leader says whether this replica runs the cluster's refresh now. A
// holder that could not renew stops leading a third of the TTL before the
// lease can pass to another replica, so two replicas never lead at once
// on one clock.
func (e *Elector) Leader() bool {
	if e == nil || e.locker == nil {
		return true
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.held && e.now().Before(e.expiry)
}

// TTL is the lease duration.
func (e *Elector) TTL() time.Duration { return e.ttl }

// Step makes one acquire or renew attempt and returns whether this
// replica leads afterwards. Run calls it every TTL/3; tests call it
// directly.
func (e *Elector) Step(ctx context.Context) bool {
	if e.locker == nil {
		return true
	}
	start := e.now()
	e.mu.Lock()
	was := e.held && start.Before(e.expiry)
	e.mu.Unlock()
	var ok bool
	var err error
	if was {
		ok, err = e.locker.Renew(ctx, e.ttl)
	} else {
		ok, err = e.locker.Acquire(ctx, e.ttl)
	}
	e.mu.Lock()
	switch {
	case err != nil:
		// Keep leading until the own expiry, which ends before anyone
		// else can take the lease.
	case ok:
		e.held, e.expiry = true, start.Add(e.ttl-e.ttl/3)
	default:
		e.held = false
	}
	now := e.held && e.now().Before(e.expiry)
	shown := e.shown
	e.shown = now
	e.mu.Unlock()
	if err != nil && ctx.Err() == nil {
		e.log.Debug("refresh lease not reached", "err", err)
	}
	if now != shown {
		e.changed(now, err)
	}
	return now
}

func (e *Elector) changed(leader bool, err error) {
	attrs := []any{}
	if err != nil && !leader {
		attrs = append(attrs, "err", err)
	}
	switch {
	case e.Role == "" && leader:
		e.log.Info("this replica now refreshes provider data for the cluster (lease acquired)")
	case e.Role == "":
		e.log.Info("this replica no longer refreshes provider data; it reads the leader's results", attrs...)
	case leader:
		e.log.Info("this replica now runs the cluster's "+e.Role+" (took its lease)", "lease", e.Role)
	default:
		e.log.Info("this replica no longer runs the cluster's "+e.Role, append(attrs, "lease", e.Role)...)
	}
	if e.OnChange != nil {
		e.OnChange(leader)
	}
}

// Run renews or acquires the lease every TTL/3 until ctx ends, then
// releases it so another replica takes over at once.
func (e *Elector) Run(ctx context.Context) {
	if e.locker == nil {
		return
	}
	t := time.NewTicker(e.ttl / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			e.mu.Lock()
			held := e.held
			e.held = false
			e.mu.Unlock()
			if held {
				rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
				if err := e.locker.Release(rctx); err != nil {
					e.log.Warn("refresh lease not released; another replica takes over when it expires", "err", err, "ttl", e.ttl)
				}
				cancel()
			}
			return
		case <-t.C:
			e.Step(ctx)
		}
	}
}
