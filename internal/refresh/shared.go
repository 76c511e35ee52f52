package refresh

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/assetd/assetd/internal/market"
)

// Results is where the leader publishes provider results and the other
// replicas read them (internal/refresh/redisshare). Get returns the
// values it has (missing keys are absent, not an error); an error means
// the store is unreachable.
type Results interface {
	Get(ctx context.Context, keys []string) (map[string][]byte, error)
	Put(ctx context.Context, vals map[string][]byte, ttl time.Duration) error
}

// Leadership says whether this replica calls upstream (*Elector).
type Leadership interface{ Leader() bool }

// Config configures a Sharer.
type Config struct {
	Leader  Leadership
	Results Results
	// Grace is how long a follower waits for the leader to publish a key
	// it needs before fetching it upstream itself (a mint only its own
	// requests want, or a leader that cannot publish). Default 2 minutes.
	Grace time.Duration
	// MaxAge is how long a published result is served to followers; it
	// must outlive the leader's refresh period of the key. Default 3
	// minutes; canonical data and markets use their own (longer) ages.
	MaxAge time.Duration
	// DownAfter is how long the shared store must stay unreachable before
	// a follower calls providers itself (fail-open). Until then a failed
	// read is pending: the caches keep serving what they hold, so one slow
	// Redis call on a loaded machine does not multiply upstream calls by
	// the number of replicas. Default 5 seconds.
	DownAfter time.Duration
	Now       func() time.Time
	Log       *slog.Logger
}

// Sharer makes the Shared* decorators; it remembers since when each key
// has been waited for.
type Sharer struct {
	cfg Config

	mu        sync.Mutex
	waiting   map[string]time.Time
	storeDown bool
	downSince time.Time

	// Counters (read by metrics and tests).
	Published atomic.Int64 // results written by this replica
	Hits      atomic.Int64 // results read from the leader's
	Upstream  atomic.Int64 // upstream calls made through the decorators
}

// NewSharer returns a Sharer; with a nil Results every call goes upstream.
func NewSharer(cfg Config) *Sharer {
	if cfg.Grace <= 0 {
		cfg.Grace = 2 * time.Minute
	}
	if cfg.MaxAge <= 0 {
		cfg.MaxAge = 3 * time.Minute
	}
	if cfg.DownAfter <= 0 {
		cfg.DownAfter = 5 * time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	return &Sharer{cfg: cfg, waiting: map[string]time.Time{}}
}

// envelope is one published result; NotFound records the provider's
// ErrNotFound (or a mint absent from a snapshot batch) so followers do
// not fetch it themselves.
type envelope[T any] struct {
	V        T    `msgpack:"v"`
	NotFound bool `msgpack:"nf,omitempty"`
}

func (s *Sharer) leader() bool {
	return s.cfg.Results == nil || s.cfg.Leader == nil || s.cfg.Leader.Leader()
}

// storeState records the shared store's reachability, logs each change
// once, and says whether the store has been unreachable for DownAfter
// (false while it is reachable).
func (s *Sharer) storeState(err error) (longDown bool) {
	now := s.cfg.Now()
	s.mu.Lock()
	was := s.storeDown
	s.storeDown = err != nil
	if err != nil && !was {
		s.downSince = now
	}
	longDown = err != nil && now.Sub(s.downSince) >= s.cfg.DownAfter
	s.mu.Unlock()
	switch {
	case err != nil && !was:
		s.cfg.Log.Warn("shared provider results unreachable; providers are called directly if it lasts", "err", err, "after", s.cfg.DownAfter)
	case err == nil && was:
		s.cfg.Log.Info("shared provider results reachable again")
	}
	return longDown
}

// readState is the outcome of a follower's read of shared results.
type readState int

const (
	readOK     readState = iota // the store answered
	readWait                    // the store failed, not for DownAfter yet: pending
	readDirect                  // unreachable for DownAfter: call providers (fail-open)
)

// get reads keys; absent keys are missing.
func get[T any](ctx context.Context, s *Sharer, keys []string) (map[string]envelope[T], readState) {
	raw, err := s.cfg.Results.Get(ctx, keys)
	if err != nil {
		if s.storeState(err) {
			return nil, readDirect
		}
		return nil, readWait
	}
	s.storeState(nil)
	out := make(map[string]envelope[T], len(raw))
	for k, b := range raw {
		var e envelope[T]
		if err := msgpack.Unmarshal(b, &e); err != nil {
			s.cfg.Log.Warn("shared provider result unreadable; ignored", "key", k, "err", err)
			continue
		}
		out[k] = e
	}
	return out, readOK
}

func put[T any](ctx context.Context, s *Sharer, vals map[string]envelope[T], ttl time.Duration) {
	if s.cfg.Results == nil || len(vals) == 0 {
		return
	}
	raw := make(map[string][]byte, len(vals))
	for k, v := range vals {
		b, err := msgpack.Marshal(v)
		if err != nil {
			s.cfg.Log.Warn("provider result not publishable", "key", k, "err", err)
			continue
		}
		raw[k] = b
	}
	err := s.cfg.Results.Put(context.WithoutCancel(ctx), raw, ttl)
	s.storeState(err)
	if err == nil {
		s.Published.Add(int64(len(raw)))
	}
}

// due says whether a follower stops waiting for key: it has been waited
// for longer than the grace. The wait starts at the first miss.
func (s *Sharer) due(key string) bool {
	now := s.cfg.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.waiting[key]
	if !ok {
		s.waiting[key] = now
		return false
	}
	return now.Sub(t) >= s.cfg.Grace
}

func (s *Sharer) arrived(key string) {
	s.mu.Lock()
	delete(s.waiting, key)
	s.mu.Unlock()
}

// one is the single-key read-through of the decorators: the leader (or a
// replica that cannot reach the store) calls upstream and publishes; a
// follower serves the published result, or waits (market.ErrPending)
// until the grace ends and then calls upstream itself.
func one[T any](ctx context.Context, s *Sharer, key string, ttl time.Duration, upstream func(context.Context) (T, error)) (T, error) {
	var zero T
	call := func() (T, error) {
		s.Upstream.Add(1)
		v, err := upstream(ctx)
		switch {
		case err == nil:
			put(ctx, s, map[string]envelope[T]{key: {V: v}}, ttl)
		case errors.Is(err, market.ErrNotFound):
			put(ctx, s, map[string]envelope[T]{key: {NotFound: true}}, ttl)
		}
		return v, err
	}
	if s.leader() {
		return call()
	}
	got, st := get[T](ctx, s, []string{key})
	switch st {
	case readDirect:
		return call() // fail-open: the store has been unreachable for DownAfter
	case readWait:
		return zero, fmt.Errorf("%s: shared results unreachable: %w", key, market.ErrPending)
	}
	if e, found := got[key]; found {
		s.arrived(key)
		s.Hits.Add(1)
		if e.NotFound {
			return zero, market.ErrNotFound
		}
		return e.V, nil
	}
	if s.due(key) {
		s.arrived(key)
		return call()
	}
	return zero, fmt.Errorf("%s: %w", key, market.ErrPending)
}

// Snapshots wraps a snapshot provider.
func (s *Sharer) Snapshots(p market.SnapshotProvider) market.SnapshotProvider {
	return &sharedSnapshots{p: p, s: s}
}

type sharedSnapshots struct {
	p market.SnapshotProvider
	s *Sharer
}

func (x *sharedSnapshots) Source() string { return x.p.Source() }
func (x *sharedSnapshots) MaxBatch() int  { return x.p.MaxBatch() }

func (x *sharedSnapshots) key(mint string) string { return "snap:" + x.p.Source() + ":" + mint }

// Snapshots: a batch is served from published results only when every
// mint of it is published (or its wait is over, then the rest is fetched
// upstream); otherwise the whole batch is pending and retried later.
func (x *sharedSnapshots) Snapshots(ctx context.Context, mints []string) (map[string]market.Token, error) {
	s := x.s
	upstream := func(mints []string) (map[string]market.Token, error) {
		s.Upstream.Add(1)
		got, err := x.p.Snapshots(ctx, mints)
		if err != nil {
			return nil, err
		}
		pub := make(map[string]envelope[market.Token], len(mints))
		for _, m := range mints {
			if t, ok := got[m]; ok {
				pub[x.key(m)] = envelope[market.Token]{V: t}
			} else {
				pub[x.key(m)] = envelope[market.Token]{NotFound: true}
			}
		}
		put(ctx, s, pub, s.cfg.MaxAge)
		return got, nil
	}
	if s.leader() {
		return upstream(mints)
	}
	keys := make([]string, len(mints))
	for i, m := range mints {
		keys[i] = x.key(m)
	}
	got, st := get[market.Token](ctx, s, keys)
	switch st {
	case readDirect:
		return upstream(mints) // fail-open: the store has been unreachable for DownAfter
	case readWait:
		return nil, fmt.Errorf("%d mints: shared results unreachable: %w", len(mints), market.ErrPending)
	}
	out := make(map[string]market.Token, len(mints))
	var missing []string
	pending := false
	for i, m := range mints {
		e, found := got[keys[i]]
		if !found {
			missing = append(missing, m)
			if !s.due(keys[i]) {
				pending = true
			}
			continue
		}
		s.arrived(keys[i])
		if !e.NotFound {
			out[m] = e.V
		}
	}
	s.Hits.Add(int64(len(mints) - len(missing)))
	if pending {
		return nil, fmt.Errorf("%d of %d mints: %w", len(missing), len(mints), market.ErrPending)
	}
	if len(missing) > 0 {
		for _, m := range missing {
			s.arrived(x.key(m))
		}
		more, err := upstream(missing)
		if err != nil {
			return nil, err
		}
		for m, t := range more {
			out[m] = t
		}
	}
	return out, nil
}

// Markets wraps a DEX markets provider.
func (s *Sharer) Markets(p market.MarketsProvider, maxAge time.Duration) market.MarketsProvider {
	return &sharedMarkets{p: p, s: s, ttl: maxAge}
}

type sharedMarkets struct {
	p   market.MarketsProvider
	s   *Sharer
	ttl time.Duration
}

func (x *sharedMarkets) Source() string { return x.p.Source() }

func (x *sharedMarkets) Markets(ctx context.Context, mint string, limit int) ([]market.DEXMarket, error) {
	key := fmt.Sprintf("markets:%s:%s:%d", x.p.Source(), mint, limit)
	return one(ctx, x.s, key, x.ttl, func(ctx context.Context) ([]market.DEXMarket, error) { return x.p.Markets(ctx, mint, limit) })
}

// OHLCV wraps a candle provider.
func (s *Sharer) OHLCV(p market.OHLCVProvider, maxAge time.Duration) market.OHLCVProvider {
	return &sharedOHLCV{p: p, s: s, ttl: maxAge}
}

type sharedOHLCV struct {
	p   market.OHLCVProvider
	s   *Sharer
	ttl time.Duration
}

func (x *sharedOHLCV) Source() string { return x.p.Source() }

// OHLCV keys on the window rounded to the interval's bucket, so replicas
// asking for the same window a few seconds apart share one result.
func (x *sharedOHLCV) OHLCV(ctx context.Context, mint string, iv market.Interval, from, to int64) ([]market.Candle, error) {
	key := fmt.Sprintf("ohlcv:%s:%s:%s:%d:%d", x.p.Source(), mint, iv, bucket(from, iv), bucket(to, iv))
	return one(ctx, x.s, key, x.ttl, func(ctx context.Context) ([]market.Candle, error) { return x.p.OHLCV(ctx, mint, iv, from, to) })
}

func bucket(t int64, iv market.Interval) int64 {
	sec := int64(iv.Duration() / time.Second)
	if sec <= 0 {
		return t
	}
	return t / sec
}

// Coins wraps the external coin provider.
func (s *Sharer) Coins(p market.CoinProvider, maxAge time.Duration) market.CoinProvider {
	return &sharedCoins{p: p, s: s, ttl: maxAge}
}

type sharedCoins struct {
	p   market.CoinProvider
	s   *Sharer
	ttl time.Duration
}

func (x *sharedCoins) Source() string { return x.p.Source() }

func (x *sharedCoins) Coin(ctx context.Context, id string) (market.Coin, error) {
	return one(ctx, x.s, "coin:"+x.p.Source()+":"+id, x.ttl, func(ctx context.Context) (market.Coin, error) { return x.p.Coin(ctx, id) })
}

func (x *sharedCoins) Tickers(ctx context.Context, id string, limit int) ([]market.Ticker, error) {
	key := fmt.Sprintf("tickers:%s:%s:%d", x.p.Source(), id, limit)
	return one(ctx, x.s, key, x.ttl, func(ctx context.Context) ([]market.Ticker, error) { return x.p.Tickers(ctx, id, limit) })
}

func (x *sharedCoins) CoinCandles(ctx context.Context, id string, iv market.Interval, from, to int64) ([]market.Candle, error) {
	key := fmt.Sprintf("coincandles:%s:%s:%s:%d:%d", x.p.Source(), id, iv, bucket(from, iv), bucket(to, iv))
	return one(ctx, x.s, key, x.ttl, func(ctx context.Context) ([]market.Candle, error) { return x.p.CoinCandles(ctx, id, iv, from, to) })
}
