// Package redisshare is the Redis engine of internal/refresh: the
// refresher lease (SET NX PX, renewed and released only by its holder
// through a compare-and-act script) and the published provider results
// (SET PX, read with MGET). Every key starts with the configured prefix.
package redisshare

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Store holds one replica's lease identity and key prefix.
type Store struct {
	rdb    redis.UniversalClient
	prefix string
	id     string // this holder's lease token
}

// New returns a store on rdb whose keys start with prefix.
func New(rdb redis.UniversalClient, prefix string) *Store {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return &Store{rdb: rdb, prefix: prefix, id: hex.EncodeToString(b[:])}
}

// MinTimeout is the shortest read and write deadline of Open's client:
// the refresh loop is not on the request path, so it does not inherit a
// request-path deadline shorter than this.
const MinTimeout = 500 * time.Millisecond

// Open parses a redis:// URL into a client whose calls wait at most
// timeout (at least MinTimeout): a slow Redis must not hold the refresh
// loop (callers fail open).
func Open(url string, timeout time.Duration) (*redis.Client, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("redis url: %w", err)
	}
	timeout = max(timeout, MinTimeout)
	opt.DialTimeout = max(timeout, time.Second)
	opt.ReadTimeout = timeout
	opt.WriteTimeout = timeout
	opt.MaxRetries = 0
	return redis.NewClient(opt), nil
}

func (s *Store) leaseKey() string { return s.prefix + "refresh:lease" }

// Acquire implements refresh.Locker.
func (s *Store) Acquire(ctx context.Context, ttl time.Duration) (bool, error) {
	ok, err := s.rdb.SetNX(ctx, s.leaseKey(), s.id, ttl).Result()
	if err != nil {
		return false, fmt.Errorf("redisshare: acquire lease: %w", err)
	}
	return ok, nil
}

var renew = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("PEXPIRE", KEYS[1], ARGV[2]) else return 0 end`)

var release = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) else return 0 end`)

// Renew implements refresh.Locker: it extends the lease only while this
// holder still has it.
func (s *Store) Renew(ctx context.Context, ttl time.Duration) (bool, error) {
	n, err := renew.Run(ctx, s.rdb, []string{s.leaseKey()}, s.id, ttl.Milliseconds()).Int()
	if err != nil {
		return false, fmt.Errorf("redisshare: renew lease: %w", err)
	}
	return n == 1, nil
}

// Release implements refresh.Locker.
func (s *Store) Release(ctx context.Context) error {
	if err := release.Run(ctx, s.rdb, []string{s.leaseKey()}, s.id).Err(); err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("redisshare: release lease: %w", err)
	}
	return nil
}

func (s *Store) resultKey(k string) string { return s.prefix + "refresh:r:" + k }

// Get implements refresh.Results.
func (s *Store) Get(ctx context.Context, keys []string) (map[string][]byte, error) {
	if len(keys) == 0 {
		return map[string][]byte{}, nil
	}
	full := make([]string, len(keys))
	for i, k := range keys {
		full[i] = s.resultKey(k)
	}
	vals, err := s.rdb.MGet(ctx, full...).Result()
	if err != nil {
		return nil, fmt.Errorf("redisshare: get %d results: %w", len(keys), err)
	}
	out := make(map[string][]byte, len(keys))
	for i, v := range vals {
		if str, ok := v.(string); ok {
			out[keys[i]] = []byte(str)
		}
	}
	return out, nil
}

// Put implements refresh.Results: one pipelined SET PX per value.
func (s *Store) Put(ctx context.Context, vals map[string][]byte, ttl time.Duration) error {
	if len(vals) == 0 {
		return nil
	}
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for k, v := range vals {
			p.Set(ctx, s.resultKey(k), v, ttl)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("redisshare: put %d results: %w", len(vals), err)
	}
	return nil
}
