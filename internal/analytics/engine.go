package analytics

import (
	"fmt"
	"hash/maphash"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/changelog"
	"github.com/assetd/assetd/internal/market"
)

// SourceAnalyticsTrades is the market source and metricsSource of every
// snapshot the engine produces.
const SourceAnalyticsTrades = asset.SourceAnalyticsTrades

// Defaults of Config.
const (
	DefaultShards           = 64
	DefaultDedupeTTL        = 24 * time.Hour
	DefaultDedupeMaxEntries = 4_000_000
	DefaultMaxFutureSkew    = 2 * time.Minute
)

// Config configures an Engine. The zero value is usable.
type Config struct {
	// Clock is the time source of Ingest (dedupe generations, the
	// future-trade bound, candle retention); nil means time.Now.
	Clock func() time.Time
	// Shards is the number of mint shards (and signature shards), a power
	// of two up to 4096; 0 means DefaultShards.
	Shards int
	// DedupeTTL is how long a signature is remembered at least (unless
	// DedupeMaxEntries forces it out sooner); 0 means DefaultDedupeTTL.
	DedupeTTL time.Duration
	// DedupeMaxEntries bounds the remembered signatures (a 16-byte slot
	// each in tables kept at most 5/8 full: about 35 MB per million at
	// worst); 0 means DefaultDedupeMaxEntries.
	DedupeMaxEntries int
	// MaxFutureSkew is how far past the clock a block time may be; 0 means
	// DefaultMaxFutureSkew.
	MaxFutureSkew time.Duration
	// Retention overrides DefaultRetention per interval (0 keeps forever).
	Retention map[market.Interval]time.Duration
	// NoDedupe turns the in-memory signature set off: every valid trade
	// given to Ingest or Warm is applied. For callers that deduplicate
	// against a trade store first (internal/ingest).
	NoDedupe bool
	// DustUSD is the dust bound: a trade of less USD never sets a price
	// (docs/prices.md); 0 means DefaultDustUSD, negative turns it off.
	DustUSD float64
	// OutlierFactor is how far from the reference price a trade may be
	// and still set the price; 0 means DefaultOutlierFactor (it must be
	// above 1).
	OutlierFactor float64
	// Fallback is the reference price of a mint before it has
	// RefMinTrades accepted trades (the market cache's); nil: none.
	Fallback PriceSource
}

// Engine is the in-memory trade analytics engine. It is safe for
// concurrent use.
type Engine struct {
	clock      func() time.Time
	skew       int64               // seconds
	retention  [numIntervals]int64 // seconds, 0 = forever
	shards     []shard
	shardSeed  maphash.Seed
	walletSeed maphash.Seed
	dd         *dedupe
	rules      rules
	// changes logs the mints trades were applied to (see Changes).
	changes *changelog.Log[string]

	accepted, duplicates, rejected atomic.Uint64
}

type shard struct {
	mu    sync.Mutex
	mints map[string]*mintState
	dirty []dirtyRef
	_     [32]byte
}

func (sh *shard) state(mint string) *mintState {
	ms := sh.mints[mint]
	if ms == nil {
		ms = &mintState{mint: mint}
		sh.mints[mint] = ms
	}
	return ms
}

// New builds an Engine.
func New(cfg Config) (*Engine, error) {
	e := &Engine{clock: cfg.Clock, shardSeed: maphash.MakeSeed(), walletSeed: maphash.MakeSeed(), changes: changelog.New[string](0)}
	if e.clock == nil {
		e.clock = time.Now
	}
	n := cfg.Shards
	if n == 0 {
		n = DefaultShards
	}
	if n < 1 || n > 4096 || n&(n-1) != 0 {
		return nil, fmt.Errorf("analytics: Shards %d is not a power of two in 1..4096", cfg.Shards)
	}
	ttl, maxEntries, skew := cfg.DedupeTTL, cfg.DedupeMaxEntries, cfg.MaxFutureSkew
	if ttl == 0 {
		ttl = DefaultDedupeTTL
	}
	if maxEntries == 0 {
		maxEntries = DefaultDedupeMaxEntries
	}
	if skew == 0 {
		skew = DefaultMaxFutureSkew
	}
	if ttl < time.Second || maxEntries < 0 || skew < 0 {
		return nil, fmt.Errorf("analytics: invalid dedupe TTL %s, max entries %d or future skew %s", ttl, maxEntries, skew)
	}
	e.skew = int64(skew / time.Second)
	e.rules = rules{dustUSD: cfg.DustUSD, factor: cfg.OutlierFactor, fallback: cfg.Fallback}
	if e.rules.dustUSD == 0 {
		e.rules.dustUSD = DefaultDustUSD
	}
	if e.rules.factor == 0 {
		e.rules.factor = DefaultOutlierFactor
	}
	if math.IsNaN(e.rules.dustUSD) || math.IsInf(e.rules.dustUSD, 0) || !(e.rules.factor > 1) || math.IsInf(e.rules.factor, 0) {
		return nil, fmt.Errorf("analytics: invalid dust bound %v or outlier factor %v", cfg.DustUSD, cfg.OutlierFactor)
	}
	for iv, name := range market.Intervals {
		e.retention[iv] = int64(DefaultRetention(name) / time.Second)
	}
	for name, d := range cfg.Retention {
		iv, ok := intervalIndex(name)
		if !ok || d < 0 {
			return nil, fmt.Errorf("analytics: invalid retention %s for interval %q", d, name)
		}
		e.retention[iv] = int64(d / time.Second)
	}
	e.shards = make([]shard, n)
	for i := range e.shards {
		e.shards[i].mints = make(map[string]*mintState)
	}
	if !cfg.NoDedupe {
		e.dd = newDedupe(n, int64(ttl/time.Second), maxEntries)
	}
	return e, nil
}

func (e *Engine) shardIndex(mint string) int {
	return int(maphash.String(e.shardSeed, mint) & uint64(len(e.shards)-1))
}

func (e *Engine) shardOf(mint string) *shard { return &e.shards[e.shardIndex(mint)] }

// walletHash is the wallet's identity in the unique-wallet sets: a seeded
// 64-bit hash, never 0 (walletMinutes' empty mark).
func (e *Engine) walletHash(w string) uint64 {
	return max(maphash.String(e.walletSeed, w), 1)
}

// IngestResult counts what one Ingest call did with its trades. Reasons
// counts the rejected trades by Reason code.
type IngestResult struct {
	Accepted   int            `json:"accepted"`
	Duplicates int            `json:"duplicates"`
	Rejected   int            `json:"rejected"`
	Reasons    map[string]int `json:"reasons,omitempty"`
}

func (r *IngestResult) reject(code Reason) {
	r.Rejected++
	if r.Reasons == nil {
		r.Reasons = make(map[string]int)
	}
	r.Reasons[string(code)]++
}

// Ingest validates the trades and applies the new ones (by signature) to
// the windows, candles and execution rollups. Trades may come in any
// order and from any time since MinBlockTime up to the clock plus
// MaxFutureSkew; trades older than the 24 h ring update candles (within
// each interval's retention) and the price history only.
func (e *Engine) Ingest(trades []Trade) IngestResult { return e.ingest(trades, true) }

// Warm is Ingest without the candles: it fills the dedupe set, the
// windows and the execution rollups. At start-up, after LoadCandles
// restored the persisted candles, Warm the last 24 h of trades from the
// trade store so the windows are complete without counting those trades
// twice in the candles.
func (e *Engine) Warm(trades []Trade) IngestResult { return e.ingest(trades, false) }

// ingestItem is a validated trade of a batch on its way through dedupe
// and apply.
type ingestItem struct {
	t      *Trade
	key    sigKey
	wallet uint64
	shard  uint32 // mint shard
	dup    bool
}

// ingest validates the batch, then runs dedupe and apply grouped by shard
// (stable, so the first of two same-signature trades in a batch wins) to
// take each lock once per batch rather than once per trade.
func (e *Engine) ingest(trades []Trade, withCandles bool) IngestResult {
	nowSec := e.clock().Unix()
	nowMin := floorDiv(nowSec, 60)
	latest := nowSec + e.skew
	var res IngestResult
	items := make([]ingestItem, 0, len(trades))
	for i := range trades {
		t := &trades[i]
		if !res.admit(t, latest) {
			continue
		}
		it := ingestItem{t: t, wallet: e.walletHash(t.Wallet), shard: uint32(e.shardIndex(t.Mint))}
		if e.dd != nil {
			it.key = e.dd.key(t.Signature, t.Leg)
		}
		items = append(items, it)
	}
	if len(items) > 0 {
		nsh := len(e.shards)
		order := make([]int32, len(items))
		starts := make([]int32, nsh+1)

		if e.dd != nil {
			e.dedupe(items, order, starts, nowSec)
		}
		groupBy(items, order, starts, func(it *ingestItem) int { return int(it.shard) })
		var touched []string
		for s := range nsh {
			grp := order[starts[s]:starts[s+1]]
			if len(grp) == 0 {
				continue
			}
			sh := &e.shards[s]
			sh.mu.Lock()
			for _, i := range grp {
				it := &items[i]
				if it.dup {
					res.Duplicates++
					continue
				}
				e.apply(sh, it, nowSec, nowMin, withCandles)
				res.Accepted++
				if n := len(touched); n == 0 || touched[n-1] != it.t.Mint {
					touched = append(touched, it.t.Mint)
				}
			}
			sh.mu.Unlock()
		}
		e.changes.Add(touched...)
	}
	e.accepted.Add(uint64(res.Accepted))
	e.duplicates.Add(uint64(res.Duplicates))
	e.rejected.Add(uint64(res.Rejected))
	return res
}

// dedupe marks the items whose signature the dedupe set already holds
// (dup), grouped by signature shard: one lock per shard per batch.
func (e *Engine) dedupe(items []ingestItem, order, starts []int32, nowSec int64) {
	mask := uint64(len(e.dd.shards) - 1)
	groupBy(items, order, starts, func(it *ingestItem) int { return int(it.key.h & mask) })
	for s := range e.dd.shards {
		grp := order[starts[s]:starts[s+1]]
		if len(grp) == 0 {
			continue
		}
		d := &e.dd.shards[s]
		d.mu.Lock()
		for _, i := range grp {
			it := &items[i]
			it.dup = !e.dd.insertLocked(d, it.key, nowSec)
		}
		d.mu.Unlock()
	}
}

// groupBy fills order with the indexes of items grouped by key (0 ..
// len(starts)-2), stable within a group, and starts with each group's
// first position (starts[k] .. starts[k+1]).
func groupBy(items []ingestItem, order, starts []int32, key func(*ingestItem) int) {
	clear(starts)
	for i := range items {
		starts[key(&items[i])+1]++
	}
	for k := 1; k < len(starts); k++ {
		starts[k] += starts[k-1]
	}
	next := starts[:len(starts)-1]
	pos := make([]int32, len(next))
	copy(pos, next)
	for i := range items {
		k := key(&items[i])
		order[pos[k]] = int32(i)
		pos[k]++
	}
}

// apply adds a new trade to its mint's state. Callers hold sh.mu.
func (e *Engine) apply(sh *shard, it *ingestItem, nowSec, nowMin int64, withCandles bool) {
	t := it.t
	qty := t.TokenAmount
	if t.Side == SideSell {
		qty = -qty
	}
	k := tick{k: keyOf(t), price: t.PriceUSD, qty: qty}
	m := floorDiv(t.BlockTime, 60)
	ms := sh.state(t.Mint)
	a := e.rules.step(ms.admission(), t, t.Admission, 0)
	ms.advance(max(m, nowMin))
	if m > ms.head-ringMinutes {
		ms.addTrade(m, t, k, it.wallet, a)
	} else if a == AdmissionAccepted {
		ms.addHistorical(k)
	}
	if withCandles {
		e.upsertCandles(sh, ms, t, &k.k, nowSec, a)
	}
}

// upsertCandles applies t to the mint's bars of every interval whose
// retention still covers it, marking them dirty. Callers hold sh.mu.
func (e *Engine) upsertCandles(sh *shard, ms *mintState, t *Trade, key *orderKey, nowSec int64, a Admission) {
	for iv := range numIntervals {
		start := periodStart(iv, t.BlockTime)
		if r := e.retention[iv]; r > 0 && start < nowSec-r {
			continue
		}
		c := ms.series[iv].apply(start, t.PriceUSD, t.USDAmount, key, a)
		if !c.dirty {
			c.dirty = true
			sh.dirty = append(sh.dirty, dirtyRef{ms: ms, iv: int8(iv), time: start})
		}
	}
}

// Windows returns the mint's rolling-window metrics at now (windows
// anchored at now's minute, asOf = now in seconds), or nil when the
// engine has seen no trade of the mint.
func (e *Engine) Windows(mint string, now time.Time) *WindowMetrics {
	sh := e.shardOf(mint)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	ms := sh.mints[mint]
	if ms == nil {
		return nil
	}
	m := floorDiv(now.Unix(), 60)
	ms.advance(m)
	wm := ms.metrics(m, now.Unix())
	if wm.LastTradeAt == nil {
		return nil
	}
	return &wm
}

// Market returns the mint's analytics_trades market snapshot at now, or
// nil when the engine has seen no trade of the mint. Liquidity, market
// cap, decimals and logo are unknown to trades and left nil;
// lastFetchedAt is now in milliseconds.
func (e *Engine) Market(mint string, now time.Time) *asset.Market {
	wm := e.Windows(mint, now)
	if wm == nil {
		return nil
	}
	return &asset.Market{
		Source:                SourceAnalyticsTrades,
		MetricsSource:         SourceAnalyticsTrades,
		Price:                 wm.Price,
		Volume1hUSD:           ptr(wm.Volume1hUSD),
		Volume24hUSD:          ptr(wm.Volume24hUSD),
		Trade1h:               ptr(float64(wm.Trade1h)),
		Trade24h:              ptr(float64(wm.Trade24h)),
		UniqueWallet1h:        ptr(float64(wm.UniqueWallet1h)),
		UniqueWallet24h:       ptr(float64(wm.UniqueWallet24h)),
		PriceChange1hPercent:  wm.PriceChange1hPercent,
		PriceChange24hPercent: wm.PriceChange24hPercent,
		LastTradeAt:           wm.LastTradeAt,
		AsOf:                  wm.AsOf,
		LastFetchedAt:         ptr(now.UnixMilli()),
		PriceTrades:           ptr(wm.PriceTrades24h),
		Rejected:              rejectedOf(wm.Rejected),
	}
}

func rejectedOf(r RejectedCounts) *asset.Rejected {
	if r.IsZero() {
		return nil
	}
	return &asset.Rejected{Dust: r.Dust, PriceOutlier: r.PriceOutlier}
}

// Prune advances every mint to now: buckets older than 24 h are dropped,
// candles past their interval's retention are dropped, and mints left
// with neither are forgotten. Call it periodically (every few minutes);
// Ingest and reads trim only the mints they touch.
func (e *Engine) Prune(now time.Time) {
	nowSec := now.Unix()
	m := floorDiv(nowSec, 60)
	for si := range e.shards {
		sh := &e.shards[si]
		sh.mu.Lock()
		for mint, ms := range sh.mints {
			ms.advance(m)
			empty := len(ms.bk) == 0
			for iv := range numIntervals {
				if r := e.retention[iv]; r > 0 {
					ms.series[iv].prune(nowSec - r)
				}
				empty = empty && len(ms.series[iv].rows) == 0
			}
			if len(ms.bk) == 0 {
				ms.roll = rolling{}
			} else if m == ms.head {
				ms.resync()
			}
			if empty {
				delete(sh.mints, mint)
			}
		}
		kept := sh.dirty[:0]
		for _, r := range sh.dirty {
			if sh.mints[r.ms.mint] != r.ms {
				continue
			}
			s := &r.ms.series[r.iv]
			if j := s.find(r.time); j < len(s.rows) && s.rows[j].time == r.time {
				kept = append(kept, r)
			}
		}
		clear(sh.dirty[len(kept):])
		sh.dirty = kept
		sh.mu.Unlock()
	}
}

// OutlierFactor is the engine's price outlier factor (docs/prices.md).
func (e *Engine) OutlierFactor() float64 { return e.rules.factor }

// Stats are engine totals for metrics.
type Stats struct {
	Mints      int    `json:"mints"`
	Candles    int    `json:"candles"`
	Signatures int    `json:"signatures"`
	Accepted   uint64 `json:"accepted"`
	Duplicates uint64 `json:"duplicates"`
	Rejected   uint64 `json:"rejected"`
}

// Stats returns current totals (it locks each shard briefly).
func (e *Engine) Stats() Stats {
	st := Stats{Accepted: e.accepted.Load(), Duplicates: e.duplicates.Load(), Rejected: e.rejected.Load()}
	if e.dd != nil {
		st.Signatures = e.dd.size()
	}
	for si := range e.shards {
		sh := &e.shards[si]
		sh.mu.Lock()
		st.Mints += len(sh.mints)
		for _, ms := range sh.mints {
			for iv := range numIntervals {
				st.Candles += len(ms.series[iv].rows)
			}
		}
		sh.mu.Unlock()
	}
	return st
}

// Changes returns the mints trades were applied to after since (a number
// an earlier call returned, 0 at first; a mint may repeat) and the number
// to pass next time. complete is false when some of those changes are no
// longer kept: the caller must assume that every mint changed. Time alone
// (windows moving on, Prune) is not logged.
func (e *Engine) Changes(since uint64) (mints []string, last uint64, complete bool) {
	return e.changes.Since(since)
}

// ChangeSeq is the number of the last logged change (see Changes): reads
// of a mint that gave one answer at a ChangeSeq give it again while the
// number and the clock's second hold.
func (e *Engine) ChangeSeq() uint64 { return e.changes.Last() }
