// Package chart decides which candle source serves a chart and returns the
// series from memory: trade-derived candles of a mint (the market-data
// provider's before the first of them), canonical stock candles of a mapped equity, and the external
// provider's candles of a listed asset. It is the one place those source
// rules live; the HTTP layer only parses the range and writes the result.
package chart

import (
	"time"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/registry"
)

// Trades are the trade-derived candles of a mint (the analytics engine).
type Trades interface {
	Candles(mint string, iv market.Interval, from, to int64) []analytics.CandleRow
}

// MintCandles are the market-data provider's cached candles of a mint and
// that provider's source name.
type MintCandles interface {
	MintCandles(mint string, iv market.Interval, from, to int64) ([]market.Candle, string, bool)
}

// Canonical are the cached asset-level candles: the external provider's
// per coin id and the stock market's per ticker.
type Canonical interface {
	CoinCandles(id string, iv market.Interval, from, to int64) ([]market.Candle, bool)
	StockCandles(ticker string, iv market.Interval, from, to int64) ([]market.Candle, bool)
}

// Candle is one bar of a chart: the OHLCV values, the trade count of
// trade-derived bars (never 0 there; omitted for provider bars) and
// whether the bar is still open at the service's now.
//
// Provenance (docs/prices.md): Rejected counts the bar's trades rejected
// from the price (trade-derived bars, when any); Sanitized marks a
// provider bar whose wick failed the outlier rule and was clipped;
// Filled marks a bar of an empty period that fill=previous added
// (open = high = low = close = the previous close, volume 0, trades 0).
type Candle struct {
	market.Candle
	Trades    *int64          `json:"trades,omitempty"`
	Rejected  *asset.Rejected `json:"rejected,omitempty"`
	Sanitized bool            `json:"sanitized,omitempty"`
	Filled    bool            `json:"filled,omitempty"`
	IsOpen    bool            `json:"isOpen,omitempty"`
}

// TradeCount is the bar's trade count (0 for provider bars).
func (c *Candle) TradeCount() int64 {
	if c.Trades == nil {
		return 0
	}
	return *c.Trades
}

// Chart is a candle series with where it came from: Source is
// analytics_trades, the market-data provider's name, both joined by "+"
// (a merged mint chart), analytics_stock (with Symbol) or extprovider
// (with CoinID).
type Chart struct {
	Source  string   `json:"source"`
	Mint    *string  `json:"mint,omitempty"`
	Symbol  *string  `json:"symbol,omitempty"`
	CoinID  *string  `json:"coinId,omitempty"`
	Candles []Candle `json:"candles"`
}

// Service reads charts from memory. It is a small value, cheap to copy.
type Service struct {
	trades    Trades
	provider  MintCandles
	canonical Canonical
	now       func() time.Time
}

// New returns a chart service; nil sources count as "nothing cached" and a
// nil clock is time.Now.
func New(trades Trades, provider MintCandles, canonical Canonical, now func() time.Time) Service {
	if now == nil {
		now = time.Now
	}
	return Service{trades: trades, provider: provider, canonical: canonical, now: now}
}

// Mint is the OHLCV of one mint: trade-derived candles where trades exist
// and the market-data provider's cached candles before the first
// trade-derived one (analytics.MergeCandles, docs/analytics-api.md);
// Source is analytics_trades, the provider's name, or both joined by "+"
// (analytics.MergedSource) when both were used.
func (s Service) Mint(mint string, iv market.Interval, from, to int64) Chart {
	var trades []analytics.CandleRow
	if s.trades != nil {
		trades = s.trades.Candles(mint, iv, from, to)
	}
	var pv []market.Candle
	var src string
	if s.provider != nil {
		pv, src, _ = s.provider.MintCandles(mint, iv, from, to)
	}
	rows, source := analytics.MergeCandles(trades, pv, src)
	out := make([]Candle, len(rows))
	now, d := s.now().Unix(), int64(iv.Duration()/time.Second)
	f := s.outlierFactor()
	for i, c := range rows {
		out[i] = Candle{Candle: c.Candle, IsOpen: c.Time <= now && now < c.Time+d}
		if c.Trades == 0 { // a provider bar
			out[i].Sanitized = sanitize(&out[i].Candle, f)
			continue
		}
		out[i].Trades = &rows[i].Trades
		if !c.Rejected.IsZero() {
			out[i].Rejected = &asset.Rejected{Dust: c.Rejected.Dust, PriceOutlier: c.Rejected.PriceOutlier}
		}
	}
	return Chart{Source: source, Mint: &mint, Candles: out}
}

// Price is the canonical price chart of an asset (a may be nil for a
// singleton): mapped public equities serve stock candles first, then
// assets with an external listing id serve the provider's candles, else
// the OHLCV of mint (the primary variant or the caller's mint). A
// canonical series not cached for the range falls through to the next
// source. The mint fallback names no mint (the response never did).
func (s Service) Price(a *registry.Asset, mint string, iv market.Interval, from, to int64) Chart {
	if c, ok := s.stock(a, iv, from, to); ok {
		return c
	}
	if c, ok := s.coin(a, iv, from, to); ok {
		return c
	}
	c := s.Mint(mint, iv, from, to)
	c.Mint = nil
	return c
}

// Detail is the ohlcv include block of asset detail: mapped public
// equities use the canonical stock candles unless the caller passed the
// mint explicitly (falling back to the mint's candles when none are
// cached); everything else uses the include mint's OHLCV.
func (s Service) Detail(a *registry.Asset, mint string, explicitMint bool, iv market.Interval, from, to int64) Chart {
	if !explicitMint {
		if c, ok := s.stock(a, iv, from, to); ok {
			return c
		}
	}
	return s.Mint(mint, iv, from, to)
}

// stock returns the stock candles of a mapped equity, or false when it has
// none cached for the range.
func (s Service) stock(a *registry.Asset, iv market.Interval, from, to int64) (Chart, bool) {
	if a == nil || a.StockTicker == "" || s.canonical == nil {
		return Chart{}, false
	}
	cs, _ := s.canonical.StockCandles(a.StockTicker, iv, from, to)
	if len(cs) == 0 {
		return Chart{}, false
	}
	return Chart{Source: asset.SourceAnalyticsStock, Symbol: &a.StockTicker, Candles: s.convert(cs, iv)}, true
}

// coin returns the external provider's candles of a listed asset, or false
// when none are cached for the range.
func (s Service) coin(a *registry.Asset, iv market.Interval, from, to int64) (Chart, bool) {
	if a == nil || a.CoinID == "" || s.canonical == nil {
		return Chart{}, false
	}
	cs, _ := s.canonical.CoinCandles(a.CoinID, iv, from, to)
	if len(cs) == 0 {
		return Chart{}, false
	}
	return Chart{Source: asset.SourceExtProvider, CoinID: &a.CoinID, Candles: s.convert(cs, iv)}, true
}

// convert turns provider candles into chart candles, marking the open one.
func (s Service) convert(in []market.Candle, iv market.Interval) []Candle {
	now, d := s.now().Unix(), int64(iv.Duration()/time.Second)
	out := make([]Candle, len(in))
	f := s.outlierFactor()
	for i, c := range in {
		out[i] = Candle{Candle: c, IsOpen: c.Time <= now && now < c.Time+d}
		out[i].Sanitized = sanitize(&out[i].Candle, f)
	}
	return out
}

// outlierFactor is the trade source's outlier factor (the engine's
// --outlier-factor), else analytics.DefaultOutlierFactor.
func (s Service) outlierFactor() float64 {
	if t, ok := s.trades.(interface{ OutlierFactor() float64 }); ok {
		if f := t.OutlierFactor(); f > 1 {
			return f
		}
	}
	return analytics.DefaultOutlierFactor
}

// sanitize applies the outlier rule to a provider bar's wicks
// (docs/prices.md): a high more than f times the body's top is clipped
// to f times it, a low less than the body's bottom over f to that; it
// reports whether it clipped.
func sanitize(c *market.Candle, f float64) bool {
	top, bottom := max(c.Open, c.Close), min(c.Open, c.Close)
	if !(top > 0) || !(bottom > 0) {
		return false
	}
	clipped := false
	if c.High > top*f {
		c.High, clipped = top*f, true
	}
	if c.Low < bottom/f {
		c.Low, clipped = bottom/f, true
	}
	return clipped
}

// Fill modes of ohlcv and price-chart (fill=none|previous).
const (
	FillNone     = "none"
	FillPrevious = "previous"
)

// FillPrevious returns c's candles of [from, to) with every empty period
// of that range up to now added as a filled bar once a close precedes it:
// open = high = low = close = the previous close, volume 0, trades 0,
// filled. Bars of c before from only give that previous close (callers
// read a look-back before from); the forming bar keeps isOpen.
func (s Service) FillPrevious(c Chart, iv market.Interval, from, to int64) Chart {
	d := int64(iv.Duration() / time.Second)
	start, ok := analytics.PeriodStart(iv, from)
	if !ok || d <= 0 {
		return c
	}
	if start < from {
		start += d
	}
	now := s.now().Unix()
	out := make([]Candle, 0, max(len(c.Candles), int((to-start)/d)+1))
	j := 0
	prev := 0.0
	for j < len(c.Candles) && c.Candles[j].Time < from {
		prev = c.Candles[j].Close
		j++
	}
	var zero int64
	for t := start; t < to; t += d {
		for j < len(c.Candles) && c.Candles[j].Time < t {
			out = append(out, c.Candles[j]) // a bar off the grid: kept
			prev = c.Candles[j].Close
			j++
		}
		if j < len(c.Candles) && c.Candles[j].Time == t {
			out = append(out, c.Candles[j])
			prev = c.Candles[j].Close
			j++
			continue
		}
		if prev > 0 && t <= now {
			out = append(out, Candle{Candle: market.Candle{Time: t, Open: prev, High: prev, Low: prev, Close: prev},
				Trades: &zero, Filled: true, IsOpen: t <= now && now < t+d})
		}
	}
	out = append(out, c.Candles[j:]...)
	c.Candles = out
	return c
}
