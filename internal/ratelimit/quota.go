package ratelimit

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Ledger is the store's durable count of quota consumption: the units
// reserved per key and UTC month, by every process serving the key. A unit
// is written here before it is granted, so a crash can only lose units
// reserved and not yet granted (the key is served less), never count a
// served request as unserved.
type Ledger interface {
	// ReserveQuota adds debt units (granted while the ledger could not be
	// written), then up to want more without passing limit, to key's
	// consumption in the month starting at month (00:00 UTC on its first
	// day), atomically. A key with no row for the month starts from the
	// requests the stored usage charged that month. It returns the units
	// granted (0..want) and the consumption after the write.
	ReserveQuota(ctx context.Context, key string, month time.Time, debt, want, limit int64) (granted, used int64, err error)
	// ReleaseQuota gives back n units reserved and never granted.
	ReleaseQuota(ctx context.Context, key string, month time.Time, n int64) error
}

// BlockOf is the units a process reserves at once for a monthly quota of
// limit: 1 % of it, at least 1 and at most MaxBlock. It bounds what a
// crash costs the key (docs/ratelimits.md, "Quotas and crashes").
func BlockOf(limit int64) int64 {
	return min(max(limit/100, 1), MaxBlock)
}

// MaxBlock caps BlockOf: a quota of a billion reserves 10,000 units at a
// time, one store write per 10,000 requests.
const MaxBlock = 10_000

// Defaults of QuotaOptions.
const (
	DefaultLedgerTimeout = 5 * time.Second
	DefaultLedgerRetry   = time.Second
	DefaultDryRecheck    = 10 * time.Second
)

// QuotaOptions tune Quotas; zero values take the defaults.
type QuotaOptions struct {
	// Block is the units reserved at once for a quota (default BlockOf).
	Block func(limit int64) int64
	// Timeout bounds one ledger write.
	Timeout time.Duration
	// Retry is how long after a failed ledger write the key is served
	// from the local count (fail open) before the ledger is tried again.
	Retry time.Duration
	// DryRecheck is how long a key the ledger had no unit left for is
	// refused without asking again (another process may give units back
	// when it stops, or the quota may be raised: that is seen at once).
	DryRecheck time.Duration
}

// Quotas is a Limiter that enforces monthly quotas through a Ledger and
// hands the rate limit to an inner Limiter (called with the quota
// removed). Each key's units are reserved in blocks ahead of use: a
// request takes a unit held in memory, and a new block is reserved (in
// the background) when half of one is left, or (waiting) when none is.
// Keys whose policy has no quota go straight to the inner limiter.
//
// When the ledger cannot be written, requests are granted as debt against
// the local count (fail open, one log line per state change): the last
// consumption the ledger reported plus the debt stays within the quota,
// and the debt is added to the ledger with the next reservation.
type Quotas struct {
	inner  Limiter
	ledger Ledger
	log    *slog.Logger
	o      QuotaOptions

	wg     sync.WaitGroup
	mu     sync.Mutex
	keys   map[string]*allowance
	down   bool // the last ledger write failed
	closed bool
}

// allowance is one key's units of one month in this process.
type allowance struct {
	month    time.Time     // 00:00 UTC on the month's first day
	limit    int64         // the quota the last reservation was made for
	held     int64         // reserved in the ledger, not yet granted
	used     int64         // the ledger's consumption at the last reservation
	debt     int64         // granted while the ledger failed, not yet in it
	dryAt    time.Time     // the ledger had no unit left (zero: it had)
	retryAt  time.Time     // after a failed write: local decisions until then
	pending  chan struct{} // closed when the reservation in flight lands
	inflight int64         // debt that reservation carries
}

// NewQuotas returns a Limiter enforcing quotas through ledger and rates
// through inner.
func NewQuotas(inner Limiter, ledger Ledger, log *slog.Logger, o QuotaOptions) *Quotas {
	if o.Block == nil {
		o.Block = BlockOf
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultLedgerTimeout
	}
	if o.Retry <= 0 {
		o.Retry = DefaultLedgerRetry
	}
	if o.DryRecheck <= 0 {
		o.DryRecheck = DefaultDryRecheck
	}
	return &Quotas{inner: inner, ledger: ledger, log: log, o: o, keys: map[string]*allowance{}}
}

// unit sources of take.
const (
	refused = iota
	fromHeld
	fromDebt
)

// Allow implements Limiter: the quota first (a unit taken from the key's
// reserved block), then the rate limit; a refusal charges nothing (the
// unit goes back to the block).
func (q *Quotas) Allow(ctx context.Context, key string, p Policy, now time.Time) (Decision, error) {
	if p.QuotaPerMonth <= 0 {
		return q.inner.Allow(ctx, key, p, now)
	}
	src, err := q.take(ctx, key, p.QuotaPerMonth, now)
	if err != nil {
		return Decision{}, err
	}
	if src == refused {
		u := now.UTC()
		next := time.Date(u.Year(), u.Month()+1, 1, 0, 0, 0, 0, time.UTC)
		// Nothing remains until the month ends, whatever the window says.
		return Decision{Reason: "quota", Limit: p.Requests, Remaining: 0, Reset: next.Sub(u), RetryAfter: next.Sub(u)}, nil
	}
	rate := p
	rate.QuotaPerMonth = 0
	d, err := q.inner.Allow(ctx, key, rate, now)
	if err == nil && !d.Allowed {
		q.giveBack(key, now, src)
	}
	// On an error the caller fails open and serves the request: the unit
	// stays spent.
	return d, err
}

func monthStart(t time.Time) time.Time {
	u := t.UTC()
	return time.Date(u.Year(), u.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// take spends one of key's units for now's month: one held, else one
// reserved now (waiting for the reservation), else, while the ledger
// fails, one of debt within the local count.
func (q *Quotas) take(ctx context.Context, key string, limit int64, now time.Time) (int, error) {
	month := monthStart(now)
	for {
		q.mu.Lock()
		a := q.keys[key]
		if a == nil || !a.month.Equal(month) {
			a = &allowance{month: month}
			q.keys[key] = a
		}
		if limit > a.limit {
			a.dryAt = time.Time{} // a raised quota may have units again
		}
		a.limit = limit
		if a.held > 0 {
			a.held--
			if block := q.o.Block(limit); a.held <= block/2 {
				q.reserveLocked(key, a, now)
			}
			q.mu.Unlock()
			return fromHeld, nil
		}
		if !a.dryAt.IsZero() && now.Sub(a.dryAt) < q.o.DryRecheck {
			q.mu.Unlock()
			return refused, nil
		}
		if q.closed || now.Before(a.retryAt) {
			// The ledger failed a moment ago: decide on the local count.
			src := refused
			if a.used+a.debt < limit {
				a.debt++
				src = fromDebt
			}
			q.mu.Unlock()
			return src, nil
		}
		q.reserveLocked(key, a, now)
		ch := a.pending
		q.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return refused, ctx.Err()
		}
	}
}

// reserveLocked starts a reservation of one block for a unless one is in
// flight (or the ledger failed a moment ago, or the key is dry). q.mu is
// held.
func (q *Quotas) reserveLocked(key string, a *allowance, now time.Time) {
	if a.pending != nil || q.closed || now.Before(a.retryAt) || (!a.dryAt.IsZero() && now.Sub(a.dryAt) < q.o.DryRecheck) {
		return
	}
	a.pending = make(chan struct{})
	a.inflight = a.debt
	want, debt, limit, month := q.o.Block(a.limit), a.debt, a.limit, a.month
	q.wg.Add(1)
	go func() {
		defer q.wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), q.o.Timeout)
		granted, used, err := q.ledger.ReserveQuota(ctx, key, month, debt, want, limit)
		cancel()
		q.mu.Lock()
		defer q.mu.Unlock()
		if err != nil {
			a.retryAt = now.Add(q.o.Retry)
			if !q.down {
				q.down = true
				q.log.Warn("quota ledger write failed: deciding quotas on each process's local count until the store answers", "err", err)
			}
		} else {
			if q.down {
				q.down = false
				q.log.Info("quota ledger writes work again: quotas are reserved in the store")
			}
			a.held += granted
			a.used = used
			a.debt -= debt
			if granted == 0 {
				a.dryAt = now
			} else {
				a.dryAt = time.Time{}
			}
		}
		a.inflight = 0
		close(a.pending)
		a.pending = nil
	}()
}

// giveBack returns a unit the rate limit refused.
func (q *Quotas) giveBack(key string, now time.Time, src int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	a := q.keys[key]
	if a == nil || !a.month.Equal(monthStart(now)) {
		return
	}
	switch src {
	case fromHeld:
		a.held++
	case fromDebt:
		if a.debt > a.inflight {
			a.debt--
		}
	}
}

// Close waits for the reservations in flight, then gives the units held
// back to the ledger and writes the debt into it, bounded by ctx: a
// graceful stop costs the keys nothing. Call it once the server no longer
// serves requests.
func (q *Quotas) Close(ctx context.Context) error {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.wg.Wait()
	q.mu.Lock()
	type settle struct {
		key   string
		month time.Time
		held  int64
		debt  int64
		limit int64
	}
	var todo []settle
	for k, a := range q.keys {
		if a.held > 0 || a.debt > 0 {
			todo = append(todo, settle{k, a.month, a.held, a.debt, a.limit})
			a.held, a.debt = 0, 0
		}
	}
	q.mu.Unlock()
	var firstErr error
	for _, s := range todo {
		var err error
		switch {
		case s.debt > s.held:
			_, _, err = q.ledger.ReserveQuota(ctx, s.key, s.month, s.debt-s.held, 0, s.limit)
		case s.held > s.debt:
			err = q.ledger.ReleaseQuota(ctx, s.key, s.month, s.held-s.debt)
		}
		if err != nil && firstErr == nil {
			firstErr = err
		}
	}
	return firstErr
}
