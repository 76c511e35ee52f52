package execution

import (
	"context"
	"sync"
	"time"
)

// Default per-key quote budget: a bucket of DefaultQuoteBudgetCapacity
// upstream quotes refilled over DefaultQuoteBudgetWindow (a default route
// call costs about 36, an evaluate call rows × providers).
const (
	DefaultQuoteBudgetCapacity = 600
	DefaultQuoteBudgetWindow   = 10 * time.Minute
)

// QuoteBudget meters each key's upstream quotes with a token bucket. A
// call is charged its planned quotes up front (capped at the capacity, so
// a single large call is always possible on a full bucket). Safe for
// concurrent use.
type QuoteBudget struct {
	// Capacity is the bucket size; Window is the time a full refill takes.
	Capacity int
	Window   time.Duration
	// Shared, when set, holds the buckets every replica charges (Redis);
	// when it fails, the local buckets decide (fail open).
	Shared SharedBuckets

	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time
}

// NewQuoteBudget returns a budget (zero values take the defaults).
func NewQuoteBudget(capacity int, window time.Duration) *QuoteBudget {
	if capacity <= 0 {
		capacity = DefaultQuoteBudgetCapacity
	}
	if window <= 0 {
		window = DefaultQuoteBudgetWindow
	}
	return &QuoteBudget{Capacity: capacity, Window: window, buckets: map[string]*bucket{}}
}

// SharedBuckets are token buckets shared between replicas: Take charges n
// tokens of key's bucket (capacity tokens refilled over window), or
// nothing and how long until it holds enough; an error means "decide
// locally".
type SharedBuckets interface {
	Take(ctx context.Context, key string, n, capacity int, window time.Duration) (ok bool, retryAfter time.Duration, err error)
}

// Charge is Take through the shared buckets when there are any (and they
// answer), else through the local ones.
func (b *QuoteBudget) Charge(ctx context.Context, key string, n int, now time.Time) (ok bool, retryAfter time.Duration) {
	if b.Shared != nil {
		need := min(max(n, 0), b.Capacity)
		if ok, after, err := b.Shared.Take(ctx, key, need, b.Capacity, b.Window); err == nil {
			if !ok {
				after = max(after, time.Second)
			}
			return ok, after
		}
	}
	return b.Take(key, n, now)
}

// Take charges n quotes to key at now. When the bucket holds too few it
// charges nothing and returns how long until it will hold enough.
func (b *QuoteBudget) Take(key string, n int, now time.Time) (ok bool, retryAfter time.Duration) {
	need := float64(min(max(n, 0), b.Capacity))
	rate := float64(b.Capacity) / b.Window.Seconds() // tokens per second
	b.mu.Lock()
	defer b.mu.Unlock()
	k := b.buckets[key]
	if k == nil {
		k = &bucket{tokens: float64(b.Capacity), at: now}
		b.buckets[key] = k
	}
	if el := now.Sub(k.at).Seconds(); el > 0 {
		k.tokens = min(float64(b.Capacity), k.tokens+el*rate)
		k.at = now
	}
	if k.tokens >= need {
		k.tokens -= need
		return true, 0
	}
	wait := time.Duration((need - k.tokens) / rate * float64(time.Second))
	return false, max(wait, time.Second)
}
