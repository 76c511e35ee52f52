package redis

import (
	"context"
	"fmt"
	"time"

	"github.com/go-redis/redis_rate/v10"
)

// Bucket is a token bucket per key shared through Redis: GCRA
// (github.com/go-redis/redis_rate), which is exactly a bucket of capacity
// tokens refilled continuously over window. It backs the per-key quote
// budget (execution.QuoteBudget.Shared). Its keys are
// "rate:" + prefix + "quote:{hmac}" (redis_rate adds "rate:").
type Bucket struct {
	c  *Client
	rl *redis_rate.Limiter
}

// NewBucket returns the shared bucket over c.
func NewBucket(c *Client) *Bucket {
	return &Bucket{c: c, rl: redis_rate.NewLimiter(c.rdb)}
}

// Take charges n tokens of key's bucket (capacity tokens per window). It
// charges nothing when the bucket holds fewer and says how long until it
// will. An error (Redis down or slow) tells the caller to use its local
// bucket; the fallback is counted.
func (b *Bucket) Take(ctx context.Context, key string, n, capacity int, window time.Duration) (bool, time.Duration, error) {
	if !b.c.health.begin() {
		b.fellBack()
		return false, 0, ErrDown
	}
	cctx, cancel := context.WithTimeout(ctx, b.c.timeout)
	defer cancel()
	res, err := b.rl.AllowN(cctx, b.c.name("quote", key), redis_rate.Limit{Rate: capacity, Burst: capacity, Period: window}, n)
	if err != nil {
		if ctx.Err() == nil {
			b.c.health.record(err)
		} else {
			b.c.health.abandon()
		}
		b.fellBack()
		return false, 0, fmt.Errorf("redis quote budget: %w", err)
	}
	b.c.health.record(nil)
	if res.Allowed > 0 || n == 0 {
		return true, 0, nil
	}
	return false, res.RetryAfter, nil
}

func (b *Bucket) fellBack() {
	if o := b.c.health.obs; o != nil {
		o.RedisFallback("quotes")
	}
}
