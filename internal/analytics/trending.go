package analytics

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// ScoringVersion tags the trending model (reference 3.4 weights,
// computed from this engine's windows).
const ScoringVersion = "assetd-flow-v1"

// Trending selection.
const (
	// TrendingLimit is the size of the trending set.
	TrendingLimit = 50
	// TrendingMinVolume24hUSD and TrendingMinTrades24h gate eligibility.
	TrendingMinVolume24hUSD = 100
	TrendingMinTrades24h    = 5
)

// Recency ramp: full credit for a last trade at most recencyFull before
// asOf, none at recencyNone or older, linear between.
const (
	recencyFull = 5 * 60
	recencyNone = 60 * 60
)

// FlowInputs are the window metrics the balanced momentum score reads.
type FlowInputs struct {
	V5m, V15m, V1h, V24h float64 // USD volume
	T5m, T15m, T1h       float64 // trades
	W5m, W1h             float64 // unique wallets
	PriceChange1h        *float64
	LastTradeAt          *int64 // unix seconds
	AsOf                 int64  // unix seconds
}

// FlowScore is the balanced momentum score, 0..100, rounded to 4
// decimals:
//
//	100 * ( 0.12 L(v5m, 1e5) + 0.10 L(v15m, 2.5e5) + 0.10 L(v1h, 1e6)
//	      + 0.08 L(t5m, 500) + 0.08 L(t15m, 1500) + 0.06 L(t1h, 5000)
//	      + 0.08 L(w5m, 150) + 0.06 L(w1h, 1000)
//	      + 0.08 R(v5m/(v1h/12)) + 0.06 R(v15m/(v1h/4)) + 0.04 R(v1h/(v24h/24))
//	      + 0.04 R(t15m/(t1h/4)) + 0.05 clamp(|pc1h|/10) + 0.05 recency )
//
// with L(x, s) = clamp(ln(1+x)/ln(1+s), 0, 1), R(r) = clamp(log2(max(r,
// 1))/4, 0, 1), ratio denominators floored at 1, and recency 1 for a last
// trade at most 5 min before AsOf, 0 at 60 min or more (or missing, or
// after AsOf), linear between.
func FlowScore(in FlowInputs) float64 {
	s := 0.12*logScore(in.V5m, 100_000) +
		0.10*logScore(in.V15m, 250_000) +
		0.10*logScore(in.V1h, 1_000_000) +
		0.08*logScore(in.T5m, 500) +
		0.08*logScore(in.T15m, 1_500) +
		0.06*logScore(in.T1h, 5_000) +
		0.08*logScore(in.W5m, 150) +
		0.06*logScore(in.W1h, 1_000) +
		0.08*ratioScore(in.V5m, in.V1h/12) +
		0.06*ratioScore(in.V15m, in.V1h/4) +
		0.04*ratioScore(in.V1h, in.V24h/24) +
		0.04*ratioScore(in.T15m, in.T1h/4)
	if in.PriceChange1h != nil {
		s += 0.05 * clamp01(math.Abs(*in.PriceChange1h)/10)
	}
	s += 0.05 * recency(in.LastTradeAt, in.AsOf)
	return math.Round(min(max(100*s, 0), 100)*1e4) / 1e4
}

func logScore(x, scale float64) float64 {
	x = finite0(x)
	if x <= 0 {
		return 0
	}
	return clamp01(math.Log1p(x) / math.Log1p(scale))
}

// ratioScore is R(num / max(den, 1)).
func ratioScore(num, den float64) float64 {
	r := finite0(num) / max(finite0(den), 1)
	return clamp01(math.Log2(max(r, 1)) / 4)
}

func recency(last *int64, asOf int64) float64 {
	if last == nil || *last > asOf {
		return 0
	}
	age := asOf - *last
	switch {
	case age <= recencyFull:
		return 1
	case age >= recencyNone:
		return 0
	}
	return float64(recencyNone-age) / float64(recencyNone-recencyFull)
}

func clamp01(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return min(max(v, 0), 1)
}

// TrendingRow is one mint of the trending set.
type TrendingRow struct {
	Rank   int           `json:"rank"`
	Mint   string        `json:"mint"`
	Score  float64       `json:"score"`
	Market WindowMetrics `json:"market"`
}

// TrendingSet is the ranked trending set of one run.
type TrendingSet struct {
	AsOf           int64         `json:"asOf"`
	ScoringVersion string        `json:"scoringVersion"`
	Rows           []TrendingRow `json:"rows"`
}

type trendCand struct {
	mint  string
	score float64
	v1h   float64
	t1h   int64
}

// better is the trending order: score desc, 1h volume desc, 1h trades
// desc, mint asc.
func (a *trendCand) better(b *trendCand) bool {
	switch {
	case a.score != b.score:
		return a.score > b.score
	case a.v1h != b.v1h:
		return a.v1h > b.v1h
	case a.t1h != b.t1h:
		return a.t1h > b.t1h
	}
	return a.mint < b.mint
}

// Trending ranks every eligible mint at now by FlowScore and returns the
// top TrendingLimit. It scores shards on up to min(GOMAXPROCS, 8)
// goroutines of its own and returns when they are done. Eligible: a last trade at or before now's minute,
// 24h volume >= 100 USD, 24h trades >= 5, and excluded(mint) false
// (excluded may be nil; it is called without engine locks held, only for
// eligible mints that would enter the current top set: the caller's
// registry rules such as "has a symbol and name", "not SOL or an LST",
// "not a stablecoin"). Windows are
// anchored at now's minute; asOf is now (unix seconds) for the set and
// every row. A last trade up to MaxFutureSkew after now counts as
// trading now for recency.
func (e *Engine) Trending(now time.Time, excluded func(mint string) bool) TrendingSet {
	nowSec := now.Unix()
	m := floorDiv(nowSec, 60)
	set := TrendingSet{AsOf: nowSec, ScoringVersion: ScoringVersion, Rows: []TrendingRow{}}

	// Score the shards on up to GOMAXPROCS goroutines (at most 8); each
	// holds one shard lock at a time.
	perShard := make([][]trendCand, len(e.shards))
	workers := min(runtime.GOMAXPROCS(0), len(e.shards), 8)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				si := int(next.Add(1) - 1)
				if si >= len(e.shards) {
					return
				}
				sh := &e.shards[si]
				sh.mu.Lock()
				var cands []trendCand
				for mint, ms := range sh.mints {
					if c, ok := ms.trendCandidate(m, nowSec); ok {
						c.mint = mint
						cands = append(cands, c)
					}
				}
				sh.mu.Unlock()
				perShard[si] = cands
			}
		})
	}
	wg.Wait()

	top := make([]trendCand, 0, TrendingLimit+1)
	for _, cands := range perShard {
		for i := range cands {
			c := &cands[i]
			if len(top) == TrendingLimit && !c.better(&top[len(top)-1]) {
				continue
			}
			if excluded != nil && excluded(c.mint) {
				continue
			}
			top = insertTop(top, *c)
		}
	}
	for i := range top {
		sh := e.shardOf(top[i].mint)
		sh.mu.Lock()
		wm := sh.mints[top[i].mint].metrics(m, nowSec)
		sh.mu.Unlock()
		set.Rows = append(set.Rows, TrendingRow{Rank: i + 1, Mint: top[i].mint, Score: top[i].score, Market: wm})
	}
	return set
}

// insertTop inserts c into top (sorted best first), keeping at most
// TrendingLimit rows.
func insertTop(top []trendCand, c trendCand) []trendCand {
	i := len(top)
	for i > 0 && c.better(&top[i-1]) {
		i--
	}
	top = append(top, trendCand{})
	copy(top[i+1:], top[i:])
	top[i] = c
	if len(top) > TrendingLimit {
		top = top[:TrendingLimit]
	}
	return top
}

// trendCandidate scores the mint at minute m if it is eligible. Callers
// hold the shard lock.
func (ms *mintState) trendCandidate(m, nowSec int64) (trendCand, bool) {
	ms.advance(m)
	lastp, ok := ms.lastAtOrBefore(m)
	if !ok {
		return trendCand{}, false
	}
	last := *lastp
	var in FlowInputs
	if m >= ms.head {
		r := &ms.roll
		if r.vol[win24h] < TrendingMinVolume24hUSD || r.trades[win24h] < TrendingMinTrades24h {
			return trendCand{}, false
		}
		in = FlowInputs{
			V5m: r.vol[win5m], V15m: r.vol[win15m], V1h: r.vol[win1h], V24h: r.vol[win24h],
			T5m: float64(r.trades[win5m]), T15m: float64(r.trades[win15m]), T1h: float64(r.trades[win1h]),
			W5m: float64(r.uniq[wal5m]), W1h: float64(r.uniq[wal1h]),
		}
	} else {
		// now is behind the mint's newest trades: compute exactly.
		wm := ms.scan(m, nowSec)
		if wm.Volume24hUSD < TrendingMinVolume24hUSD || wm.Trade24h < TrendingMinTrades24h {
			return trendCand{}, false
		}
		in = FlowInputs{
			V5m: wm.Volume5mUSD, V15m: wm.Volume15mUSD, V1h: wm.Volume1hUSD, V24h: wm.Volume24hUSD,
			T5m: float64(wm.Trade5m), T15m: float64(wm.Trade15m), T1h: float64(wm.Trade1h),
			W5m: float64(wm.UniqueWallet5m), W1h: float64(wm.UniqueWallet1h),
		}
	}
	pc, ok := ms.priceChangeVal(last.price, m, windowMinutes[win1h])
	if ok {
		in.PriceChange1h = &pc
	}
	lt := min(last.k.t, nowSec)
	in.LastTradeAt, in.AsOf = &lt, nowSec
	return trendCand{score: FlowScore(in), v1h: in.V1h, t1h: int64(in.T1h)}, true
}
