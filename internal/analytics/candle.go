package analytics

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/registry"
)

// Candle intervals, indexes into market.Intervals.
const (
	iv1m = iota
	iv5m
	iv15m
	iv1H
	iv4H
	iv1D
	iv1W
	numIntervals
)

// intervalSeconds is read-only.
var intervalSeconds = [numIntervals]int64{60, 300, 900, 3600, 14400, 86400, 604800}

// weekOffset shifts 1W bars to Monday 00:00 UTC: the Unix epoch was a
// Thursday, the first Monday after it 1970-01-05.
const weekOffset = 4 * 86400

// DefaultRetention is how long candles of interval iv are kept by
// default, measured from the bar's open time to the clock; 0 keeps them
// forever (and is returned for unknown intervals).
//
//	1m 7 days, 5m and 15m 30 days, 1H 365 days, 4H 730 days, 1D and 1W forever
//
// (docs/prices.md, "Retention"); internal/ingest applies the same to the
// stored candles of both engines.
func DefaultRetention(iv market.Interval) time.Duration {
	const d = 24 * time.Hour
	switch iv {
	case "1m":
		return 7 * d
	case "5m":
		return 30 * d
	case "15m":
		return 30 * d
	case "1H":
		return 365 * d
	case "4H":
		return 730 * d
	}
	return 0
}

func intervalIndex(iv market.Interval) (int, bool) {
	for i, x := range market.Intervals {
		if x == iv {
			return i, true
		}
	}
	return 0, false
}

// PeriodStart returns the open time (unix seconds) of the bar of interval
// iv that contains t: UTC-aligned multiples of the interval, 1W bars
// starting Monday 00:00 UTC. ok is false for an unknown interval.
func PeriodStart(iv market.Interval, t int64) (start int64, ok bool) {
	i, ok := intervalIndex(iv)
	if !ok {
		return 0, false
	}
	return periodStart(i, t), true
}

func periodStart(iv int, t int64) int64 {
	d := intervalSeconds[iv]
	if iv == iv1W {
		t -= weekOffset
		return floorDiv(t, d)*d + weekOffset
	}
	if t >= 0 { // block times are
		return t - t%d
	}
	return floorDiv(t, d) * d
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// CandleRow is one OHLCV bar with its trade count.
type CandleRow struct {
	market.Candle
	// Trades is the accepted trades (those in open/high/low/close and
	// volume); Rejected the trades rejected from the price.
	Trades   int64          `json:"trades"`
	Rejected RejectedCounts `json:"rejected,omitzero"`
	// FirstAt is the block time of the bar's open trade (0 when unknown:
	// provider bars); price-at never reads a bar before it.
	FirstAt int64 `json:"-"`
}

// CandleUpdate is a candle as persisted: its mint, interval, values and
// the order keys of its open and close trades (so a reloaded candle keeps
// taking late trades correctly; their signatures are cut to
// SignatureOrderBytes).
type CandleUpdate struct {
	Mint     string          `json:"mint"`
	Interval market.Interval `json:"interval"`
	CandleRow
	OpenRef  TradeRef `json:"openRef"`
	CloseRef TradeRef `json:"closeRef"`
}

type candle struct {
	time                        int64
	open, high, low, close, vol float64
	trades                      int64 // accepted; 0: a bar of rejected trades only (not served or stored)
	rej                         RejectedCounts
	openKey, closeKey           orderKey
	dirty                       bool
}

func (c *candle) row() CandleRow {
	return CandleRow{Candle: market.Candle{Time: c.time, Open: c.open, High: c.high, Low: c.low, Close: c.close, Volume: c.vol}, Trades: c.trades, Rejected: c.rej, FirstAt: c.openKey.t}
}

// series is one mint's candles of one interval, ascending by time.
type series struct {
	rows []candle
}

// find returns the index of the first candle with time >= t.
func (s *series) find(t int64) int {
	if n := len(s.rows); n == 0 || s.rows[n-1].time < t {
		return n
	} else if s.rows[n-1].time == t {
		return n - 1
	}
	return sort.Search(len(s.rows), func(i int) bool { return s.rows[i].time >= t })
}

// apply applies a trade of admission a to the bar opening at start and
// returns the bar: an accepted trade sets its prices and volume, a
// rejected one only counts (a bar may hold rejected trades only until
// its first accepted one).
func (s *series) apply(start int64, price, usd float64, k *orderKey, a Admission) (c *candle) {
	if a != AdmissionDust && a != AdmissionOutlier {
		return s.add(start, price, usd, k)
	}
	i := s.find(start)
	if i == len(s.rows) || s.rows[i].time != start {
		s.rows = slices.Insert(s.rows, i, candle{time: start})
	}
	c = &s.rows[i]
	if a == AdmissionDust {
		c.rej.Dust++
	} else {
		c.rej.PriceOutlier++
	}
	return c
}

// add applies an accepted trade to the bar opening at start and returns
// the bar.
func (s *series) add(start int64, price, usd float64, k *orderKey) (c *candle) {
	i := s.find(start)
	if i == len(s.rows) || s.rows[i].time != start {
		s.rows = slices.Insert(s.rows, i, candle{time: start, open: price, high: price, low: price, close: price, vol: usd, trades: 1, openKey: *k, closeKey: *k})
		return &s.rows[i]
	}
	c = &s.rows[i]
	if c.trades == 0 {
		c.open, c.high, c.low, c.close, c.vol, c.trades, c.openKey, c.closeKey = price, price, price, price, usd, 1, *k, *k
		return c
	}
	c.high = max(c.high, price)
	c.low = min(c.low, price)
	c.vol = addSat(c.vol, usd)
	c.trades++
	if c.openKey.after(k) {
		c.open, c.openKey = price, *k
	}
	if k.after(&c.closeKey) {
		c.close, c.closeKey = price, *k
	}
	return c
}

// prune drops candles opening before cutoff.
func (s *series) prune(cutoff int64) {
	n := 0
	for n < len(s.rows) && s.rows[n].time < cutoff {
		n++
	}
	if n == 0 {
		return
	}
	if n == len(s.rows) {
		s.rows = nil
		return
	}
	s.rows = append([]candle(nil), s.rows[n:]...)
}

// dirtyRef names a candle changed since the last DirtyCandles call.
type dirtyRef struct {
	ms   *mintState
	iv   int8
	time int64
}

// Candles returns the mint's candles of interval iv whose open time t
// satisfies from <= t < to, ascending. Bars without trades are absent
// (never zero-filled). An unknown mint or interval gives none.
func (e *Engine) Candles(mint string, iv market.Interval, from, to int64) []CandleRow {
	i, ok := intervalIndex(iv)
	if !ok || from >= to {
		return nil
	}
	sh := e.shardOf(mint)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	ms := sh.mints[mint]
	if ms == nil {
		return nil
	}
	s := &ms.series[i]
	var out []CandleRow
	for j := s.find(from); j < len(s.rows) && s.rows[j].time < to; j++ {
		if s.rows[j].trades > 0 {
			out = append(out, s.rows[j].row())
		}
	}
	return out
}

// Source is the market source of the engine's candles and snapshots.
func (e *Engine) Source() string { return SourceAnalyticsTrades }

// OHLCV implements market.OHLCVProvider over the in-memory candles: bars
// of [from, to) ascending, volume in USD. An unknown interval is an error.
func (e *Engine) OHLCV(ctx context.Context, mint string, iv market.Interval, from, to int64) ([]market.Candle, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if _, ok := intervalIndex(iv); !ok {
		return nil, fmt.Errorf("analytics: unknown OHLCV interval %q", iv)
	}
	rows := e.Candles(mint, iv, from, to)
	out := make([]market.Candle, len(rows))
	for i := range rows {
		out[i] = rows[i].Candle
	}
	return out, nil
}

// DirtyCandles returns the candles created or changed since the previous
// call (their current values), sorted by mint, interval and time, and
// clears the dirty set. Candles pruned in between are not reported. The
// caller persists them (upsert by mint, interval, time) and reloads them
// with LoadCandles after a restart.
func (e *Engine) DirtyCandles() []CandleUpdate {
	var out []CandleUpdate
	for si := range e.shards {
		sh := &e.shards[si]
		sh.mu.Lock()
		refs := sh.dirty
		sh.dirty = nil
		for _, r := range refs {
			s := &r.ms.series[r.iv]
			j := s.find(r.time)
			if j == len(s.rows) || s.rows[j].time != r.time || !s.rows[j].dirty {
				continue
			}
			c := &s.rows[j]
			c.dirty = false
			if c.trades == 0 {
				continue // rejected trades only: stored with its first accepted trade
			}
			out = append(out, CandleUpdate{Mint: r.ms.mint, Interval: market.Intervals[r.iv], CandleRow: c.row(), OpenRef: c.openKey.ref(), CloseRef: c.closeKey.ref()})
		}
		sh.mu.Unlock()
	}
	sort.Slice(out, func(a, b int) bool {
		x, y := &out[a], &out[b]
		if x.Mint != y.Mint {
			return x.Mint < y.Mint
		}
		ix, _ := intervalIndex(x.Interval)
		iy, _ := intervalIndex(y.Interval)
		if ix != iy {
			return ix < iy
		}
		return x.Time < y.Time
	})
	return out
}

// CandleRef names one bar: a mint's candle of an interval opening at Time.
type CandleRef struct {
	Mint     string
	Interval market.Interval
	Time     int64
}

// SkippedCandle is the error LoadCandles returns for a row it skipped.
type SkippedCandle struct {
	CandleRef
	Err error
}

func (e *SkippedCandle) Error() string {
	return fmt.Sprintf("analytics: candle %s %s %d skipped: %v", e.Mint, e.Interval, e.Time, e.Err)
}

func (e *SkippedCandle) Unwrap() error { return e.Err }

// LoadCandles installs persisted candles, replacing any in memory for the
// same mint, interval and open time; loaded candles are not dirty. A row
// that fails validation (unknown interval, misaligned time, a price
// outside MinPriceUSD..MaxPriceUSD, inconsistent high/low, a negative,
// non-finite or above-MaxSumUSD volume, a negative trade count) is
// skipped: it is returned in skipped (one *SkippedCandle per row, naming
// it; Recandle rebuilds such bars from trades) and the other rows load. Rows whose OpenRef/CloseRef are zero keep their
// open against later trades of the same bar and take any later trade as
// their close. Rows past their interval's retention go at the next Prune.
// Load before ingesting trades the candles already contain (see Warm).
func (e *Engine) LoadCandles(rows []CandleUpdate) (loaded int, skipped []error) {
	for i := range rows {
		r := &rows[i]
		if err := checkCandle(r); err != nil {
			skipped = append(skipped, &SkippedCandle{CandleRef: CandleRef{Mint: r.Mint, Interval: r.Interval, Time: r.Time}, Err: err})
			continue
		}
		iv, _ := intervalIndex(r.Interval)
		sh := e.shardOf(r.Mint)
		sh.mu.Lock()
		ms := sh.state(r.Mint)
		s := &ms.series[iv]
		c := candle{time: r.Time, open: r.Open, high: r.High, low: r.Low, close: r.Close, vol: r.Volume, trades: r.Trades, rej: r.Rejected, openKey: refKey(r.OpenRef), closeKey: refKey(r.CloseRef)}
		if j := s.find(r.Time); j < len(s.rows) && s.rows[j].time == r.Time {
			s.rows[j] = c
		} else {
			s.rows = slices.Insert(s.rows, j, c)
		}
		sh.mu.Unlock()
		loaded++
	}
	return loaded, skipped
}

// Recandle applies trades to the bars named in bars only, within each
// interval's retention, and marks them dirty (so the next save replaces
// what is stored for them); the windows, rollups, dedupe set and every
// other bar are left alone. It rebuilds the bars LoadCandles skipped from
// the stored trades that Warm applied without candles. It returns how
// many trades reached at least one of the bars and adds each bar it
// changed to changed (when not nil).
func (e *Engine) Recandle(trades []Trade, bars, changed map[CandleRef]struct{}) (applied int) {
	if len(bars) == 0 {
		return 0
	}
	nowSec := e.clock().Unix()
	latest := nowSec + e.skew
	var res IngestResult
	for i := range trades {
		t := &trades[i]
		if !res.admit(t, latest) {
			continue
		}
		key := keyOf(t)
		hit := false
		sh := e.shardOf(t.Mint)
		sh.mu.Lock()
		for iv := range numIntervals {
			start := periodStart(iv, t.BlockTime)
			ref := CandleRef{Mint: t.Mint, Interval: market.Intervals[iv], Time: start}
			if _, ok := bars[ref]; !ok {
				continue
			}
			if r := e.retention[iv]; r > 0 && start < nowSec-r {
				continue
			}
			if changed != nil {
				changed[ref] = struct{}{}
			}
			ms := sh.state(t.Mint)
			c := ms.series[iv].apply(start, t.PriceUSD, t.USDAmount, &key, t.Admission)
			if !c.dirty {
				c.dirty = true
				sh.dirty = append(sh.dirty, dirtyRef{ms: ms, iv: int8(iv), time: start})
			}
			hit = true
		}
		sh.mu.Unlock()
		if hit {
			applied++
		}
	}
	return applied
}

func priceInRange(p float64) bool { return p >= MinPriceUSD && p <= MaxPriceUSD }

func checkCandle(r *CandleUpdate) error {
	iv, ok := intervalIndex(r.Interval)
	switch {
	case !registry.ValidMint(r.Mint):
		return fmt.Errorf("invalid mint %q", r.Mint)
	case !ok:
		return fmt.Errorf("unknown interval %q", r.Interval)
	case periodStart(iv, r.Time) != r.Time:
		return fmt.Errorf("time %d is not aligned to %s", r.Time, r.Interval)
	case !positive(r.Open) || !positive(r.High) || !positive(r.Low) || !positive(r.Close):
		return fmt.Errorf("non-positive price at %d", r.Time)
	case !priceInRange(r.Open) || !priceInRange(r.High) || !priceInRange(r.Low) || !priceInRange(r.Close):
		return fmt.Errorf("price out of range at %d", r.Time)
	case r.High < max(r.Open, r.Close, r.Low) || r.Low > min(r.Open, r.Close):
		return fmt.Errorf("inconsistent high/low at %d", r.Time)
	case !(r.Volume >= 0) || r.Volume > MaxSumUSD || r.Trades < 0 || r.Rejected.Dust < 0 || r.Rejected.PriceOutlier < 0:
		return fmt.Errorf("invalid volume or trade count at %d", r.Time)
	}
	return nil
}
