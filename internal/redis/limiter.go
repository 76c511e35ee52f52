package redis

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/assetd/assetd/internal/ratelimit"
	goredis "github.com/redis/go-redis/v9"
	"golang.org/x/sync/singleflight"
)

// allowScript is ratelimit.Memory's algorithm run atomically in Redis:
// the rate limit is a sliding window approximated by two fixed buckets
// (the previous bucket's count weighted by its overlap with the window),
// checked first; then the monthly quota counter (INCR, expiring after the
// month ends). A refusal charges nothing (a bucket roll-over is kept). Only small integers are stored
// (bucket index, counts, window in µs), so Lua's doubles stay exact.
//
// KEYS[1] rate hash {b bucket index, c current count, p previous count, z
// window µs}; KEYS[2] quota counter of the month.
// ARGV: now µs, window µs (0: no rate limit), requests, quota (0: none),
// seed (-1: unknown), quota expiry (unix seconds).
// Reply: {allowed 0/1, reason 0 none / 1 rate / 2 quota, remaining, reset
// µs, quota used (-1: no quota)}, or {-1} when the quota counter is missing
// and no seed was given.
var allowScript = goredis.NewScript(`
local now = tonumber(ARGV[1])
local size = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local quota = tonumber(ARGV[4])
local seed = tonumber(ARGV[5])
local used = -1
if quota > 0 then
  local q = redis.call('GET', KEYS[2])
  if q then
    used = tonumber(q)
  elseif seed < 0 then
    return {-1}
  else
    redis.call('SET', KEYS[2], seed)
    redis.call('EXPIREAT', KEYS[2], ARGV[6])
    used = seed
  end
end
local rated = size > 0 and limit > 0
local cur, prev, weighted, reset, idx = 0, 0, 0, 0, 0
if rated then
  idx = math.floor(now / size)
  local h = redis.call('HMGET', KEYS[1], 'b', 'c', 'p', 'z')
  local b, c, p, z = tonumber(h[1]), tonumber(h[2]), tonumber(h[3]), tonumber(h[4])
  if b == nil or z ~= size then
    b, c, p = idx, 0, 0
  end
  if idx < b then
    -- a replica whose clock runs a little behind counts in the newest bucket
    idx, now = b, b * size
  end
  if idx == b then
    cur, prev = c, p
  elseif idx - b == 1 then
    cur, prev = 0, c
  end
  if idx ~= b or z ~= size then
    -- a new bucket or window is kept even when this call is refused
    redis.call('HSET', KEYS[1], 'b', idx, 'c', cur, 'p', prev, 'z', size)
    redis.call('PEXPIRE', KEYS[1], math.floor(2 * size / 1000) + 1000)
  end
  local start = idx * size
  weighted = math.floor(prev * (1 - (now - start) / size))
  reset = start + size - now
  if weighted + cur >= limit then
    return {0, 1, 0, reset, used}
  end
end
if quota > 0 and used >= quota then
  local rem = 0
  if rated then
    rem = math.max(0, limit - weighted - cur)
  end
  return {0, 2, rem, reset, used}
end
if quota > 0 then
  used = redis.call('INCR', KEYS[2])
end
local rem = 0
if rated then
  cur = cur + 1
  redis.call('HSET', KEYS[1], 'b', idx, 'c', cur, 'p', prev, 'z', size)
  redis.call('PEXPIRE', KEYS[1], math.floor(2 * size / 1000) + 1000)
  rem = math.max(0, limit - weighted - cur)
end
return {1, 0, rem, reset, used}
`)

// LocalLimiter is the in-process limiter a Limiter falls back to; it is
// kept told of each key's quota count so a fallback starts from it.
type LocalLimiter interface {
	ratelimit.Limiter
	RestoreQuota(key string, used int64, now time.Time)
}

// QuotaSeeder returns the requests charged per key since the start of
// now's UTC month, as the store's persisted usage counts them.
type QuotaSeeder func(ctx context.Context, now time.Time) (map[string]int64, error)

// Limiter is a ratelimit.Limiter shared through Redis by every replica
// using the same prefix, with the same semantics as ratelimit.Memory. A
// missing quota counter (a new month, or Redis lost its data) is seeded
// from the store's usage. On any Redis failure the decision comes from
// Local (fail open) and Allow returns no error.
type Limiter struct {
	c     *Client
	local LocalLimiter
	seed  QuotaSeeder
	use   string

	sf    singleflight.Group
	mu    sync.Mutex
	seeds map[string]int64
	month int
	at    time.Time
}

// seedTTL is how long one read of the stored usage seeds missing counters.
const seedTTL = 10 * time.Second

// seedTimeout bounds that read (it runs once per month and after Redis
// lost its data, not per request).
const seedTimeout = 2 * time.Second

// NewLimiter returns a limiter over c; use names it in the fallback
// metric ("limits", "budgets"). seed may be nil (counters start at 0).
func NewLimiter(c *Client, local LocalLimiter, seed QuotaSeeder, use string) *Limiter {
	return &Limiter{c: c, local: local, seed: seed, use: use}
}

var errNeedSeed = errors.New("redis: quota counter missing")

// Allow implements ratelimit.Limiter.
func (l *Limiter) Allow(ctx context.Context, key string, p ratelimit.Policy, now time.Time) (ratelimit.Decision, error) {
	if !l.c.health.begin() {
		return l.fallback(ctx, key, p, now)
	}
	d, used, err := l.eval(ctx, key, p, now, -1)
	if errors.Is(err, errNeedSeed) {
		n, serr := l.seedOf(ctx, key, now)
		if serr != nil {
			// The store, not Redis, failed: Redis stays up.
			l.c.health.record(nil)
			return l.fallback(ctx, key, p, now)
		}
		d, used, err = l.eval(ctx, key, p, now, n)
	}
	if err != nil {
		if ctx.Err() == nil {
			l.c.health.record(err)
		} else {
			l.c.health.abandon()
		}
		return l.fallback(ctx, key, p, now)
	}
	l.c.health.record(nil)
	if used >= 0 {
		l.local.RestoreQuota(key, used, now)
	}
	return d, nil
}

func (l *Limiter) fallback(ctx context.Context, key string, p ratelimit.Policy, now time.Time) (ratelimit.Decision, error) {
	if o := l.c.health.obs; o != nil {
		o.RedisFallback(l.use)
	}
	return l.local.Allow(ctx, key, p, now)
}

func (l *Limiter) eval(ctx context.Context, key string, p ratelimit.Policy, now time.Time, seed int64) (ratelimit.Decision, int64, error) {
	u := now.UTC()
	var size int64
	if p.Requests > 0 && p.Window > 0 {
		size = p.Window.Microseconds()
	}
	month := fmt.Sprintf("%04d%02d", u.Year(), int(u.Month()))
	// The counter outlives its month by a day, so replicas whose clocks
	// straddle the boundary by a little still count against it.
	expiry := time.Date(u.Year(), u.Month()+1, 2, 0, 0, 0, 0, time.UTC).Unix()
	cctx, cancel := context.WithTimeout(ctx, l.c.timeout)
	defer cancel()
	h := l.c.hash(key)
	res, err := allowScript.Run(cctx, l.c.rdb,
		[]string{l.c.prefix + "r:" + h, l.c.prefix + "q:" + h + ":" + month},
		u.UnixMicro(), size, p.Requests, p.QuotaPerMonth, seed, expiry).Int64Slice()
	if err != nil {
		return ratelimit.Decision{}, 0, fmt.Errorf("redis limiter: %w", err)
	}
	if len(res) == 1 && res[0] == -1 {
		return ratelimit.Decision{}, 0, errNeedSeed
	}
	if len(res) != 5 {
		return ratelimit.Decision{}, 0, fmt.Errorf("redis limiter: reply of %d values", len(res))
	}
	d := ratelimit.Decision{Allowed: res[0] == 1, Limit: p.Requests, Remaining: int(res[2]), Reset: time.Duration(res[3]) * time.Microsecond}
	if size == 0 {
		d.Remaining = math.MaxInt32
	}
	switch res[1] {
	case 1:
		d.Reason, d.RetryAfter = "rate", d.Reset
	case 2:
		next := time.Date(u.Year(), u.Month()+1, 1, 0, 0, 0, 0, time.UTC)
		d.Reason, d.RetryAfter = "quota", next.Sub(u)
	}
	return d, res[4], nil
}

// seedOf is key's stored count this month; one store read (shared by
// concurrent callers) serves every key for seedTTL.
func (l *Limiter) seedOf(ctx context.Context, key string, now time.Time) (int64, error) {
	if l.seed == nil {
		return 0, nil
	}
	u := now.UTC()
	mk := u.Year()*12 + int(u.Month())
	cached := func() (map[string]int64, bool) {
		l.mu.Lock()
		defer l.mu.Unlock()
		return l.seeds, l.seeds != nil && l.month == mk && now.Sub(l.at) < seedTTL
	}
	if m, ok := cached(); ok {
		return m[key], nil
	}
	v, err, _ := l.sf.Do(strconv.Itoa(mk), func() (any, error) {
		if m, ok := cached(); ok { // read by a call that just finished
			return m, nil
		}
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), seedTimeout)
		defer cancel()
		m, err := l.seed(sctx, now)
		if err != nil {
			return nil, err
		}
		l.mu.Lock()
		l.seeds, l.month, l.at = m, mk, now
		l.mu.Unlock()
		return m, nil
	})
	if err != nil {
		return 0, fmt.Errorf("seed quota from stored usage: %w", err)
	}
	return v.(map[string]int64)[key], nil
}
