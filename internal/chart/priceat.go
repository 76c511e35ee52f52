package chart

import (
	"sort"
	"time"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/market"
)

// Price-at statuses (docs/prices.md, "Price at a time").
const (
	// PriceOK: a bar containing or preceding ts within the search width.
	PriceOK = "ok"
	// PriceNoData: no bar at or before ts (before the mint's first data,
	// or none at all).
	PriceNoData = "no_data"
	// PriceOutOfRange: the mint has data before ts, but no bar within the
	// search width of it.
	PriceOutOfRange = "out_of_range"
	// PriceUnknownMint: the registry does not list the mint and nothing
	// is stored for it (set by the caller, which knows the registry).
	PriceUnknownMint = "unknown_mint"
)

// MaxSearchWidth bounds searchWidth (seconds): 30 days.
const MaxSearchWidth = 30 * 86400

// MaxProviderBars bounds the provider candles one price-at read asks the
// market cache for per interval; a wider span of timestamps reads the
// trade-derived bars only at that interval.
const MaxProviderBars = 5000

// PricePoint is the price of a mint at TS: the close of the finest bar
// (trade-derived, else the market-data provider's cached bar) that opened
// at most the search width before TS and whose first trade is not after
// it. Price, At (the bar's open time), Interval and Source are nil unless
// Status is PriceOK.
type PricePoint struct {
	TS       int64
	Price    *float64
	At       *int64
	Interval *market.Interval
	Source   *string
	Status   string
}

// DefaultSearchWidth is the search width of interval iv when the caller
// gives none: one bar (a bar containing ts always qualifies).
func DefaultSearchWidth(iv market.Interval) int64 { return int64(iv.Duration() / time.Second) }

// PriceAt returns the mint's price at each of ts (in order). width is the
// search width in seconds for every interval; 0 means each interval's
// DefaultSearchWidth. Everything is read from memory (the provider's bars
// as cached; a range not cached yet is scheduled, as for ohlcv).
func (s Service) PriceAt(mint string, ts []int64, width int64) []PricePoint {
	out := make([]PricePoint, len(ts))
	if len(ts) == 0 {
		return out
	}
	lo, hi := ts[0], ts[0]
	for _, t := range ts {
		lo, hi = min(lo, t), max(hi, t)
	}
	type series struct {
		iv     market.Interval
		w      int64
		rows   []analytics.CandleRow // the whole span (dense), or nil
		sparse bool                  // read per timestamp instead
		pv     []market.Candle       // sparse: the provider's bars of the span, if read
		src    string
	}
	all := make([]series, 0, len(market.Intervals))
	for _, iv := range market.Intervals {
		d := int64(iv.Duration() / time.Second)
		w := width
		if w <= 0 {
			w = d
		}
		from := lo - w
		span := (hi + 1 - from) / d
		sr := series{iv: iv, w: w}
		// Timestamps spread far apart read their own few bars rather than
		// every bar between them.
		sr.sparse = (w/d+2)*int64(len(ts)) < span
		var pv []market.Candle
		if s.provider != nil && span <= MaxProviderBars {
			pv, sr.src, _ = s.provider.MintCandles(mint, iv, from, hi+1)
		}
		if sr.sparse {
			sr.pv = pv
		} else {
			var trades []analytics.CandleRow
			if s.trades != nil {
				trades = s.trades.Candles(mint, iv, from, hi+1)
			}
			sr.rows, _ = analytics.MergeCandles(trades, pv, sr.src)
		}
		all = append(all, sr)
	}
	rowsAt := func(sr *series, t int64) []analytics.CandleRow {
		if !sr.sparse {
			return sr.rows
		}
		var trades []analytics.CandleRow
		if s.trades != nil {
			trades = s.trades.Candles(mint, sr.iv, t-sr.w, t+1)
		}
		rows, _ := analytics.MergeCandles(trades, barsIn(sr.pv, t-sr.w, t+1), sr.src)
		return rows
	}
	// Whether any bar at all lies at or before a time: the weekly
	// trade-derived bars from the start (few), and the bars read above.
	var weeks []analytics.CandleRow
	if s.trades != nil {
		weeks = s.trades.Candles(mint, "1W", 0, hi+1)
	}
	for i, t := range ts {
		p := PricePoint{TS: t, Status: PriceNoData}
		for k := range all {
			sr := &all[k]
			rows := rowsAt(sr, t)
			j := sort.Search(len(rows), func(j int) bool { return rows[j].Time > t }) - 1
			for ; j >= 0; j-- {
				if first(&rows[j]) <= t {
					break
				}
			}
			if j < 0 {
				continue
			}
			r := &rows[j]
			p.Status = PriceOutOfRange
			if t-r.Time > sr.w {
				continue
			}
			src := analytics.SourceAnalyticsTrades
			if r.Trades == 0 {
				src = sr.src
			}
			p = PricePoint{TS: t, Price: &r.Close, At: &r.Time, Interval: &sr.iv, Source: &src, Status: PriceOK}
			break
		}
		if p.Status == PriceNoData {
			j := sort.Search(len(weeks), func(j int) bool { return weeks[j].Time > t })
			if j > 0 && first(&weeks[0]) <= t {
				p.Status = PriceOutOfRange
			}
		}
		out[i] = p
	}
	return out
}

// first is the time from which a bar has a price: its first trade, or
// its open time for provider bars.
func first(r *analytics.CandleRow) int64 {
	if r.FirstAt > 0 {
		return r.FirstAt
	}
	return r.Time
}

// barsIn returns the bars of an ascending series opening in [from, to).
func barsIn(all []market.Candle, from, to int64) []market.Candle {
	lo := sort.Search(len(all), func(i int) bool { return all[i].Time >= from })
	hi := sort.Search(len(all), func(i int) bool { return all[i].Time >= to })
	return all[lo:max(lo, hi)]
}
