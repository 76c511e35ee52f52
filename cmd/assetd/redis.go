package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"time"

	"github.com/assetd/assetd/internal/redis"
)

// redisFlags configure the shared limits in Redis (docs/ratelimits.md).
type redisFlags struct {
	url     string
	prefix  string
	timeout time.Duration
	secret  string
}

func addRedisFlags(fs *flag.FlagSet, f *redisFlags) {
	fs.StringVar(&f.url, "redis-url", "", "redis:// URL; shares per-key rate limits, monthly quotas and provider budgets between replicas (empty: per process)")
	fs.StringVar(&f.prefix, "redis-prefix", redis.DefaultPrefix, "prefix of every Redis key (replicas that share limits use the same one)")
	fs.DurationVar(&f.timeout, "redis-timeout", redis.DefaultTimeout, "deadline of each Redis call; on a failure the local limiter decides (fail open)")
	fs.StringVar(&f.secret, "redis-key-secret", "", "secret keying the HMAC that names a key in Redis (same on every replica; empty: plain SHA-256)")
}

func (f redisFlags) validate() error {
	var errs []error
	if f.url != "" {
		if err := redis.ParseURL(f.url); err != nil {
			errs = append(errs, fmt.Errorf("--redis-url must be a redis://, rediss:// or unix:// URL: %w", err))
		}
	}
	if f.prefix == "" {
		errs = append(errs, errors.New("--redis-prefix must not be empty"))
	}
	if f.timeout < time.Millisecond || f.timeout > 5*time.Second {
		errs = append(errs, fmt.Errorf("--redis-timeout must be within 1ms..5s, not %s", f.timeout))
	}
	return errors.Join(errs...)
}

// openRedis connects the shared-limit client when --redis-url is set (nil
// otherwise). An unreachable Redis does not stop the start: the server
// fails open to its local limiters and logs it once.
func openRedis(ctx context.Context, f redisFlags, obs redis.Observer, log *slog.Logger) (*redis.Client, error) {
	if f.url == "" {
		return nil, nil
	}
	c, err := redis.Open(f.url, redis.Options{Prefix: f.prefix, Secret: f.secret, Timeout: f.timeout, Log: log, Observer: obs})
	if err != nil {
		return nil, fmt.Errorf("--redis-url: %w", err)
	}
	if err := c.Ping(ctx); err == nil {
		log.Info("redis connected: rate limits and budgets are shared (quotas are in the store)", "prefix", f.prefix, "timeout", f.timeout)
	}
	return c, nil
}
