// Package bounds holds the plausibility ceilings of upstream market values
// and the one helper every provider adapter applies to what it decodes:
// a negative, non-finite or absurd price, liquidity, market cap, volume,
// count or supply becomes null (nil), and each one is reported by field
// so the adapter can count it. See docs/providers.md, "Value bounds".
package bounds

import (
	"math"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/market"
)

// Ceilings. Each is orders of magnitude above any real value, so only
// garbage reaches them (an upstream's 1e308, a units mix-up).
const (
	// MaxPriceUSD bounds a token price (the dearest token trades near
	// 1e5 USD).
	MaxPriceUSD = 1e9
	// MaxUSD bounds liquidity, market caps, FDVs and volumes: 1e15 USD
	// is ten times the world's yearly GDP.
	MaxUSD = 1e15
	// MaxCount bounds trade, wallet and holder counts.
	MaxCount = 1e12
	// MaxSupply bounds token supplies (a u64 raw amount is at most
	// 1.8e19).
	MaxSupply = 1e20
	// MaxPercent bounds a price change percent (a 10,000x move is
	// +999,900%); the floor is -100%.
	MaxPercent = 1e7
	// MinPercent is the lowest price change percent (a price cannot fall
	// below zero).
	MinPercent = -100
)

// Report receives the field name of each value nulled.
type Report func(field string)

// keep reports whether v is a finite value in [lo, hi].
func keep(v, lo, hi float64) bool { return v >= lo && v <= hi } // false for NaN

// field nulls *p unless it lies in [lo, hi], reporting name.
func field(p **float64, lo, hi float64, name string, r Report) {
	if *p == nil || keep(**p, lo, hi) {
		return
	}
	*p = nil
	if r != nil {
		r(name)
	}
}

// Market nulls m's implausible fields: a price that is not positive or
// above MaxPriceUSD, negative or above-ceiling liquidity, market cap,
// volumes and counts, price changes outside MinPercent..MaxPercent.
func Market(m *asset.Market, r Report) {
	field(&m.Price, math.SmallestNonzeroFloat64, MaxPriceUSD, "price", r)
	field(&m.Liquidity, 0, MaxUSD, "liquidity", r)
	field(&m.MarketCap, 0, MaxUSD, "marketCap", r)
	field(&m.Volume1hUSD, 0, MaxUSD, "volume1hUSD", r)
	field(&m.Volume24hUSD, 0, MaxUSD, "volume24hUSD", r)
	field(&m.Trade1h, 0, MaxCount, "trade1h", r)
	field(&m.Trade24h, 0, MaxCount, "trade24h", r)
	field(&m.UniqueWallet1h, 0, MaxCount, "uniqueWallet1h", r)
	field(&m.UniqueWallet24h, 0, MaxCount, "uniqueWallet24h", r)
	field(&m.Holders, 0, MaxCount, "holders", r)
	field(&m.PriceChange1hPercent, MinPercent, MaxPercent, "priceChange1hPercent", r)
	field(&m.PriceChange24hPercent, MinPercent, MaxPercent, "priceChange24hPercent", r)
}

// DEXMarket nulls a pool's implausible price, liquidity, volume and
// trade count.
func DEXMarket(m *market.DEXMarket, r Report) {
	field(&m.PriceUSD, math.SmallestNonzeroFloat64, MaxPriceUSD, "priceUsd", r)
	field(&m.LiquidityUSD, 0, MaxUSD, "liquidityUsd", r)
	field(&m.Volume24hUSD, 0, MaxUSD, "volume24hUsd", r)
	field(&m.Trade24h, 0, MaxCount, "trade24h", r)
}

// Coin nulls a canonical coin's implausible figures.
func Coin(c *market.Coin, r Report) {
	field(&c.PriceUSD, math.SmallestNonzeroFloat64, MaxPriceUSD, "price", r)
	field(&c.MarketCapUSD, 0, MaxUSD, "marketCap", r)
	field(&c.FDVUSD, 0, MaxUSD, "fdv", r)
	field(&c.Volume24hUSD, 0, MaxUSD, "volume24hUSD", r)
	field(&c.PriceChange1hPercent, MinPercent, MaxPercent, "priceChange1hPercent", r)
	field(&c.PriceChange24hPercent, MinPercent, MaxPercent, "priceChange24hPercent", r)
	field(&c.CirculatingSupply, 0, MaxSupply, "circulatingSupply", r)
	field(&c.TotalSupply, 0, MaxSupply, "totalSupply", r)
	field(&c.MaxSupply, 0, MaxSupply, "maxSupply", r)
	field(&c.AllTimeHighUSD, math.SmallestNonzeroFloat64, MaxPriceUSD, "allTimeHigh", r)
}

// Ticker nulls an exchange ticker's implausible price, volume and
// spread.
func Ticker(t *market.Ticker, r Report) {
	field(&t.PriceUSD, math.SmallestNonzeroFloat64, MaxPriceUSD, "priceUsd", r)
	field(&t.Volume24hUSD, 0, MaxUSD, "volume24hUsd", r)
	field(&t.SpreadPercent, 0, MaxPercent, "spreadPercent", r)
}

// Candles drops the bars whose prices are not positive and at most
// MaxPriceUSD, or whose volume is negative or above MaxUSD (a bar's
// fields are not nullable), reporting "candle" for each; it filters in
// place and returns the kept bars.
func Candles(cs []market.Candle, r Report) []market.Candle {
	out := cs[:0]
	for _, c := range cs {
		if keep(c.Open, math.SmallestNonzeroFloat64, MaxPriceUSD) && keep(c.High, math.SmallestNonzeroFloat64, MaxPriceUSD) &&
			keep(c.Low, math.SmallestNonzeroFloat64, MaxPriceUSD) && keep(c.Close, math.SmallestNonzeroFloat64, MaxPriceUSD) &&
			keep(c.Volume, 0, MaxUSD) {
			out = append(out, c)
		} else if r != nil {
			r("candle")
		}
	}
	return out
}
