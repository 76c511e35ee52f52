package analytics

import (
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/ranking"
)

// Execution-quality rollup constants.
const (
	// SourceFillQuality is the ExecutionQuality source.
	SourceFillQuality = "analytics_fill_quality"
	// QuoteMintUSDC is the quote mint of every rollup.
	QuoteMintUSDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
	// FillQualityRange and FillQualityHorizon are the rollup's range and
	// markout horizon labels.
	FillQualityRange   = "24h"
	FillQualityHorizon = "5s"
	// MarkoutHorizonSeconds is the markout horizon.
	MarkoutHorizonSeconds = 5
	// FillQualityVersion tags the rollup model.
	FillQualityVersion = "assetd-fill-quality-24h-5s-v1"
)

// ExecutionQuality returns the mint's 24h fill-quality rollup at now (the
// buckets of now's minute and the 1439 before), or nil when the engine
// has seen no trade of the mint:
//
//   - volume, trades, bot volume and trades, fees over the window;
//     botVolumeRatio = botVolume / max(volume, 1), feeBps = fee /
//     max(volume, 1) * 1e4;
//   - flowSourceCount: distinct non-empty flowSource values;
//   - markouts at 5 s: for each trade i the reference price is that of the
//     last trade j after i (by block time, slot, signature) with block
//     time <= t_i + 5 s; markout_i = (p_j - p_i) * tokenAmount_i for a buy
//     and (p_i - p_j) * tokenAmount_i for a sell. Trades without such a j
//     have no markout. markoutCount counts the others, markoutPnl24hUSD
//     sums them, saturating at ±MaxSumUSD like the volume sums (admitted
//     prices span 27 orders of magnitude, so one markout can exceed any
//     real figure), markoutBps = pnl / max(volume, 1) * 1e4; all three are
//     nil when no trade has a markout. Markouts are cached per minute and
//     recomputed only for minutes a trade landed in (or in the minute
//     after) since, so a call costs O(minutes in the window);
//   - executionScore and isEligibleForPrimary from internal/ranking;
//     asOf = now in seconds, lastComputedAt = now in milliseconds.
func (e *Engine) ExecutionQuality(mint string, now time.Time) *asset.ExecutionQuality {
	nowSec := now.Unix()
	m := floorDiv(nowSec, 60)
	sh := e.shardOf(mint)
	sh.mu.Lock()
	ms := sh.mints[mint]
	if ms == nil {
		sh.mu.Unlock()
		return nil
	}
	ms.advance(m)
	if len(ms.bk) == 0 && !ms.hasAnch {
		sh.mu.Unlock()
		return nil
	}
	q := ms.fillQuality(m)
	sh.mu.Unlock()

	q.AsOf = &nowSec
	q.LastComputedAt = now.UnixMilli()
	q.ExecutionScore = ranking.ExecutionScore(q)
	q.IsEligibleForPrimary = ranking.IsEligibleForPrimary(q, now)
	return q
}

// fillQuality sums the buckets of minutes m-1439 .. m. Callers hold the
// shard lock.
func (ms *mintState) fillQuality(m int64) *asset.ExecutionQuality {
	q := &asset.ExecutionQuality{
		Source:    SourceFillQuality,
		Range:     FillQualityRange,
		Horizon:   FillQualityHorizon,
		QuoteMint: QuoteMintUSDC,
	}
	lo := ms.find(m - ringMinutes + 1)
	hi := ms.find(m + 1)
	bk := ms.bk[lo:hi]
	var flows map[string]struct{}
	var trades, botTrades int64
	for i := range bk {
		b := &bk[i]
		q.Volume24hUSD = addSat(q.Volume24hUSD, b.vol)
		q.BotVolume24hUSD = addSat(q.BotVolume24hUSD, b.botVol)
		q.Fee24hUSD = addSat(q.Fee24hUSD, b.fee)
		trades += int64(b.trades)
		botTrades += int64(b.botTrades)
		for _, f := range b.flows {
			if flows == nil {
				flows = make(map[string]struct{})
			}
			flows[f] = struct{}{}
		}
	}
	q.Trade24h = float64(trades)
	q.BotTrade24h = float64(botTrades)
	q.FlowSourceCount = float64(len(flows))
	den := max(q.Volume24hUSD, 1)
	q.BotVolumeRatio = q.BotVolume24hUSD / den
	q.FeeBps = q.Fee24hUSD / den * 1e4

	var pnl float64
	var count int
	for i := range bk {
		b := &bk[i]
		if !b.mkFresh {
			ms.markoutBucket(lo + i)
		}
		pnl = addSatSigned(pnl, b.mkPnl)
		count += int(b.mkCount)
	}
	if count > 0 {
		bps := pnl / den * 1e4
		cnt := float64(count)
		q.MarkoutPnl24hUSD, q.MarkoutCount, q.MarkoutBps = &pnl, &cnt, &bps
	}
	return q
}

// markoutBucket recomputes the cached markouts of bucket i from its ticks
// and those of the next minute's bucket.
func (ms *mintState) markoutBucket(i int) {
	span := ms.bk[i : i+1]
	if i+1 < len(ms.bk) && ms.bk[i+1].min == ms.bk[i].min+1 {
		span = ms.bk[i : i+2]
	}
	for j := range span {
		span[j].sort()
	}
	b := &ms.bk[i]
	pnl, count := markouts(span, len(b.ticks))
	b.mkPnl, b.mkCount, b.mkFresh = pnl, int32(count), true
}

// markouts walks the first n ticks of bk (in trade order across the
// buckets) with a second cursor on the last tick within the horizon,
// which may lie anywhere in bk.
func markouts(bk []bucket, n int) (pnl float64, count int) {
	type cursor struct{ b, k int }
	at := func(c cursor) *tick { return &bk[c.b].ticks[c.k] }
	next := func(c cursor) (cursor, bool) {
		c.k++
		for c.b < len(bk) && c.k >= len(bk[c.b].ticks) {
			c.b, c.k = c.b+1, 0
		}
		return c, c.b < len(bk)
	}
	less := func(a, b cursor) bool { return a.b < b.b || a.b == b.b && a.k < b.k }

	i, ok := next(cursor{0, -1})
	j := i
	for seen := 0; ok && seen < n; i, ok = next(i) {
		seen++
		ti := at(i)
		if less(j, i) {
			j = i
		}
		for {
			nx, ok := next(j)
			if !ok || at(nx).k.t > ti.k.t+MarkoutHorizonSeconds {
				break
			}
			j = nx
		}
		if j == i {
			continue
		}
		pnl = addSatSigned(pnl, (at(j).price-ti.price)*ti.qty)
		count++
	}
	return pnl, count
}
