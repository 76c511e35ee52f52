// Package redis is the Redis engine: the per-key rate limits, monthly
// quotas and provider budgets every replica shares (docs/ratelimits.md).
//
// Every call has a short deadline (Options.Timeout). When Redis fails, the
// callers fall back to their in-process limiter (fail open): Health tracks
// the up/down state, logs each change once and skips Redis for a short
// while after a failure, so an outage costs no per-request timeout.
package redis

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// DefaultTimeout bounds each Redis call on the request path.
const DefaultTimeout = 50 * time.Millisecond

// DefaultPrefix starts every key assetd writes.
const DefaultPrefix = "assetd:"

// Options configure a Client.
type Options struct {
	// Prefix starts every key (default DefaultPrefix); replicas that share
	// limits use the same prefix.
	Prefix string
	// Secret keys the HMAC-SHA256 that names a limited key in Redis (API
	// key ids never appear raw); replicas must share it. Empty: plain
	// SHA-256.
	Secret string
	// Timeout bounds each call (default DefaultTimeout).
	Timeout time.Duration
	// Log receives one line per up/down change (default slog.Default()).
	Log *slog.Logger
	// Observer receives the state and the fallbacks (nil: none).
	Observer Observer
	// Now is the clock of the probe back-off (default time.Now).
	Now func() time.Time
}

// Observer records the Redis state and each request served by a local
// fallback; internal/metrics implements it.
type Observer interface {
	RedisUp(up bool)
	RedisFallback(use string)
}

// Client is a Redis connection pool with its key naming and health.
type Client struct {
	rdb     *goredis.Client
	prefix  string
	secret  []byte
	timeout time.Duration
	health  *Health
}

// ParseURL checks a redis://, rediss:// or unix:// URL.
func ParseURL(url string) error {
	_, err := goredis.ParseURL(url)
	return err
}

// Open returns a client of the Redis at url. It does not connect: the
// first call does (see Ping).
func Open(url string, o Options) (*Client, error) {
	opt, err := goredis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("redis url: %w", err)
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Prefix == "" {
		o.Prefix = DefaultPrefix
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	// Calls carry their own deadline; a dial gets a little more, once.
	opt.ContextTimeoutEnabled = true
	opt.DialTimeout = max(o.Timeout, 250*time.Millisecond)
	opt.ReadTimeout, opt.WriteTimeout = o.Timeout, o.Timeout
	opt.MaxRetries = -1   // no retry inside the deadline: fall back instead
	opt.DialerRetries = 1 // one dial per call; Health spaces the probes
	// go-redis logs pool failures (a failed dial per probe) through a
	// process-wide logger writing plain lines to stderr; Health already
	// logs each state change once, so those go to slog at debug level.
	goredis.SetLogger(debugLogger{o.Log})
	return &Client{
		rdb:     goredis.NewClient(opt),
		prefix:  o.Prefix,
		secret:  []byte(o.Secret),
		timeout: o.Timeout,
		health:  newHealth(o.Log, o.Observer, o.Now),
	}, nil
}

// Close closes the pool.
func (c *Client) Close() error { return c.rdb.Close() }

// Prefix is the key prefix.
func (c *Client) Prefix() string { return c.prefix }

// Health is the client's up/down state.
func (c *Client) Health() *Health { return c.health }

// Ping checks Redis once (with a longer deadline than a request-path
// call) and records the outcome.
func (c *Client) Ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, max(c.timeout, time.Second))
	defer cancel()
	err := c.rdb.Ping(ctx).Err()
	c.health.record(err)
	if err != nil {
		return fmt.Errorf("redis ping: %w", err)
	}
	return nil
}

// debugLogger forwards go-redis's own log lines to slog at debug level.
type debugLogger struct{ log *slog.Logger }

func (d debugLogger) Printf(ctx context.Context, format string, v ...any) {
	d.log.DebugContext(ctx, fmt.Sprintf(format, v...))
}

// hash names key in Redis: the HMAC of key, hex, in braces (a Redis
// Cluster hash tag, so one key's entries share a slot).
func (c *Client) hash(key string) string {
	m := hmac.New(sha256.New, c.secret)
	m.Write([]byte(key))
	var sum [sha256.Size]byte
	return "{" + hex.EncodeToString(m.Sum(sum[:0])[:16]) + "}"
}

// name is the Redis key of kind for the caller's key.
func (c *Client) name(kind, key string) string {
	return c.prefix + kind + ":" + c.hash(key)
}

// ErrDown is returned without a call while Redis is considered down and
// the next probe is not due.
var ErrDown = errors.New("redis: down (waiting for the next probe)")
