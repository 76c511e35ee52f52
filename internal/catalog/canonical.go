package catalog

import (
	"math"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/registry"
	"github.com/assetd/assetd/internal/stats"
)

// PreIPOMaxAge: a pre-IPO reference mark fetched longer ago than this, or
// dated by its feed longer ago than this, is ignored (no preipo arm, no
// variant preIpo blocks).
const PreIPOMaxAge = 24 * time.Hour

// CanonicalReader reads the cached canonical (asset-level) market data.
// Implementations answer from memory at once (and may schedule a
// refresh); ok is false when nothing usable is cached.
type CanonicalReader interface {
	Coin(id string) (market.Coin, time.Time, bool)
	StockQuote(ticker string) (market.StockQuote, time.Time, bool)
	PreIPOMark(symbol string) (market.PreIPOMark, time.Time, bool)
}

// ExtProviderMarket is the canonicalMarket arm "extprovider": the asset's
// listing at the external provider. Times: lastFetchedAt unix ms;
// providerLastUpdatedAt unix seconds (the provider's own update time).
type ExtProviderMarket struct {
	Source                string   `json:"source"`
	CoinID                string   `json:"coinId"`
	Price                 *float64 `json:"price"`
	MarketCap             *float64 `json:"marketCap"`
	Volume24hUSD          *float64 `json:"volume24hUSD"`
	PriceChange24hPercent *float64 `json:"priceChange24hPercent"`
	LastFetchedAt         int64    `json:"lastFetchedAt"`
	ProviderLastUpdatedAt *int64   `json:"providerLastUpdatedAt"`
}

// StockMarket is the canonicalMarket arm "analytics_stock" of a mapped
// public equity. asOf and providerLastUpdatedAt are the quote's time, unix
// seconds; lastFetchedAt unix ms.
type StockMarket struct {
	Source                string   `json:"source"`
	Symbol                string   `json:"symbol"`
	Price                 *float64 `json:"price"`
	MarketCap             *float64 `json:"marketCap"`
	Volume24hUSD          *float64 `json:"volume24hUSD"`
	PriceChange24hPercent *float64 `json:"priceChange24hPercent"`
	LastFetchedAt         int64    `json:"lastFetchedAt"`
	ProviderLastUpdatedAt *int64   `json:"providerLastUpdatedAt"`
	AsOf                  *int64   `json:"asOf"`
}

// PreIPOMarket is the canonicalMarket arm "preipo" of a tokenized pre-IPO
// equity. marketCap is the implied company valuation (not the token
// float); price is the basis price (the token's on-chain price, else the
// feed's token price). asOf and providerLastUpdatedAt mirror the fetch
// time in unix seconds; lastFetchedAt is that time in unix ms.
type PreIPOMarket struct {
	Source                string   `json:"source"`
	Symbol                string   `json:"symbol"`
	Mint                  string   `json:"mint"`
	Price                 *float64 `json:"price"`
	MarketCap             *float64 `json:"marketCap"`
	MarkPriceUSD          *float64 `json:"markPriceUsd"`
	MarkValuationUSD      *float64 `json:"markValuationUsd"`
	ImpliedValuationUSD   *float64 `json:"impliedValuationUsd"`
	PremiumToMarkPercent  *float64 `json:"premiumToMarkPercent"`
	Volume24hUSD          *float64 `json:"volume24hUSD"`
	PriceChange24hPercent *float64 `json:"priceChange24hPercent"`
	LastFetchedAt         int64    `json:"lastFetchedAt"`
	ProviderLastUpdatedAt int64    `json:"providerLastUpdatedAt"`
	AsOf                  int64    `json:"asOf"`
}

// PreIPOBlock is a variant's `preIpo` block, derived from the variant's
// own on-chain price. lastFetchedAt is the mark's fetch time, unix ms.
type PreIPOBlock struct {
	Symbol               string   `json:"symbol"`
	MarkPriceUSD         *float64 `json:"markPriceUsd"`
	MarkValuationUSD     *float64 `json:"markValuationUsd"`
	ImpliedValuationUSD  *float64 `json:"impliedValuationUsd"`
	PremiumToMarkPercent *float64 `json:"premiumToMarkPercent"`
	LastFetchedAt        int64    `json:"lastFetchedAt"`
}

// NoCanonical is a CanonicalReader with nothing cached.
type NoCanonical struct{}

func (NoCanonical) Coin(string) (market.Coin, time.Time, bool) {
	return market.Coin{}, time.Time{}, false
}
func (NoCanonical) StockQuote(string) (market.StockQuote, time.Time, bool) {
	return market.StockQuote{}, time.Time{}, false
}
func (NoCanonical) PreIPOMark(string) (market.PreIPOMark, time.Time, bool) {
	return market.PreIPOMark{}, time.Time{}, false
}

// applyCanonical sets the asset's canonicalMarket arm, the variants'
// preIpo blocks and the canonical overrides of its stats. Arm selection:
// analytics_stock (mapped ticker with a cached quote), then preipo (a
// fresh mark and a basis price), then extprovider (a cached coin), else
// none.
func applyCanonical(am *assetModel, a *registry.Asset, cr CanonicalReader, now time.Time) {
	var st asset.Stats
	if am.stats != nil {
		st = *am.stats
	}
	changed := false

	// Variant preIpo blocks and the preipo arm.
	var pre *PreIPOMarket
	if a.PreIPO != nil && a.PreIPO.Symbol != "" {
		mk, at, ok := cr.PreIPOMark(a.PreIPO.Symbol)
		fresh := ok && now.Sub(at) <= PreIPOMaxAge && (mk.UpdatedAt.IsZero() || now.Sub(mk.UpdatedAt) <= PreIPOMaxAge)
		if fresh && positive(mk.MarkPriceUSD) {
			for i := range am.variants {
				v := &am.variants[i]
				if v.market == nil || !positive(v.market.Price) {
					continue
				}
				implied, prem := stats.PreIPO(v.market.Price, mk.MarkPriceUSD, mk.MarkValuationUSD)
				v.preIPO = &PreIPOBlock{Symbol: a.PreIPO.Symbol, MarkPriceUSD: stats.Finite(mk.MarkPriceUSD), MarkValuationUSD: stats.Finite(mk.MarkValuationUSD),
					ImpliedValuationUSD: implied, PremiumToMarkPercent: prem, LastFetchedAt: at.UnixMilli()}
			}
			mint := a.PreIPO.Mint
			if mint == "" && am.primary[0] >= 0 {
				mint = am.variants[am.primary[0]].rv.Mint
			}
			var basis *float64
			if i := variantIndex(a, mint); i >= 0 && am.variants[i].market != nil && positive(am.variants[i].market.Price) {
				basis = stats.Finite(am.variants[i].market.Price)
			} else if positive(mk.TokenPriceUSD) {
				basis = stats.Finite(mk.TokenPriceUSD)
			}
			if implied, prem := stats.PreIPO(basis, mk.MarkPriceUSD, mk.MarkValuationUSD); prem != nil {
				pre = &PreIPOMarket{Source: asset.SourcePreIPO, Symbol: a.PreIPO.Symbol, Mint: mint, Price: basis, MarketCap: implied,
					MarkPriceUSD: stats.Finite(mk.MarkPriceUSD), MarkValuationUSD: stats.Finite(mk.MarkValuationUSD), ImpliedValuationUSD: implied,
					PremiumToMarkPercent: prem, LastFetchedAt: at.UnixMilli(), ProviderLastUpdatedAt: at.Unix(), AsOf: at.Unix()}
			}
		}
	}

	var coin *ExtProviderMarket
	if a.CoinID != "" {
		if c, at, ok := cr.Coin(a.CoinID); ok {
			coin = &ExtProviderMarket{Source: asset.SourceExtProvider, CoinID: a.CoinID, Price: stats.Finite(c.PriceUSD), MarketCap: stats.Finite(c.MarketCapUSD),
				Volume24hUSD: stats.Finite(c.Volume24hUSD), PriceChange24hPercent: stats.Finite(c.PriceChange24hPercent), LastFetchedAt: at.UnixMilli(),
				ProviderLastUpdatedAt: unixPtr(c.LastUpdated)}
			st = stats.ApplyProvider(st, stats.Provider{Price: c.PriceUSD, MarketCap: c.MarketCapUSD,
				PriceChange24hPercent: c.PriceChange24hPercent, PriceChange1hPercent: c.PriceChange1hPercent})
			changed = true
		}
	}

	var stock *StockMarket
	if a.StockTicker != "" {
		if q, at, ok := cr.StockQuote(a.StockTicker); ok {
			stock = &StockMarket{Source: asset.SourceAnalyticsStock, Symbol: a.StockTicker, Price: stats.Finite(q.PriceUSD), MarketCap: stats.Finite(q.MarketCapUSD),
				Volume24hUSD: stats.Finite(q.Volume24hUSD), PriceChange24hPercent: stats.Finite(q.PriceChange24hPercent), LastFetchedAt: at.UnixMilli(),
				ProviderLastUpdatedAt: unixPtr(q.AsOf), AsOf: unixPtr(q.AsOf)}
			st = stats.ApplyStockMarket(st, stats.StockMarket{Price: q.PriceUSD, Volume24hUSD: q.Volume24hUSD, PriceChange24hPercent: q.PriceChange24hPercent})
			changed = true
		}
	}
	if pre != nil && pre.MarketCap != nil {
		st.MarketCap = stats.Finite(pre.MarketCap)
		changed = true
	}

	switch {
	case stock != nil:
		am.canonical = &canonicalArm{stock}
	case pre != nil:
		am.canonical = &canonicalArm{pre}
	case coin != nil:
		am.canonical = &canonicalArm{coin}
	}
	if changed && !stats.IsEmpty(st) {
		am.stats = &st
	}
}

func positive(p *float64) bool { return p != nil && *p > 0 && !math.IsInf(*p, 0) }

func unixPtr(t time.Time) *int64 {
	if t.IsZero() {
		return nil
	}
	s := t.Unix()
	return &s
}
