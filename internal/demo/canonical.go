package demo

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/registry"
)

// Canonical (asset-level) feeds. They describe an asset as a whole, not
// one mint, and price it on the asset-level path: exp(lnLevel + warp(x)),
// without any mint's lnFactor. Like the rest of the world every figure is
// simulated and a pure function of the seed, the registry facts of the
// asset and the instant asked about. Three adapters expose them, because
// World.Source() already names the mint-level source:
//
//   - Coins() (market.CoinProvider, "extprovider"), keyed by the registry's
//     CoinID;
//   - Stocks() (market.StockProvider, "analytics_stock"), keyed by the
//     registry's StockTicker (case-insensitive);
//   - PreIPO() (market.PreIPOProvider, "preipo"), keyed by the registry's
//     PreIPO.Symbol (case-insensitive).
//
// Volumes come from two asset-level flow profiles per asset (one for the
// coin, one for the stock listing): the same hourly flow model as a mint's
// (intraday cycle, daily and hourly factors, the path's moves and burst
// hours) with a 24h level of their own and about canonTradesPerHour
// trades an hour, so every hour has volume. Coin and stock candles are
// built by the same candler as mint candles, with that flow as volume, so
// the candle volume of the last 24 hours sums to the coin's (or quote's)
// Volume24hUSD.

// Pre-IPO reference marks: the daily mark is the asset-level price at the
// start of the UTC day divided by a seeded factor in [PreIPOMarkFactorMin,
// PreIPOMarkFactorMax), so the token trades at a premium or discount to
// the mark of about that factor (times the move since 00:00 UTC).
const (
	PreIPOMarkFactorMin = 0.8
	PreIPOMarkFactorMax = 1.25
)

// Exchange tickers of a coin: CoinTickersMin..CoinTickersMax markets on
// "Simulated Exchange k" (k in 1..simExchanges), priced within
// ±TickerMaxDeviation of the coin price.
const (
	CoinTickersMin     = 3
	CoinTickersMax     = 8
	TickerMaxDeviation = 0.003
	simExchanges       = 10
	// greenSpread: tickers with a spread (percent) below it are "green",
	// the others "yellow".
	greenSpread = 0.2
)

// canonTradesPerHour is the mean hourly trade count of the asset-level
// flows (see flowProfile).
const canonTradesPerHour = 400

// All-time highs before the served history date from [athEpochMin,
// poolEpochMax).
const athEpochMin = 1_609_459_200 // 2021-01-01T00:00Z

// canonAsset is the canonical-data view of one registry asset: its facts,
// its asset-level path and the seeded figures of the three feeds.
// Immutable.
type canonAsset struct {
	assetID, name, symbol, category string
	coinID, ticker, image           string
	preSymbol, preMint              string

	key  uint64 // randomness key (seed, asset id)
	path *pathSpec

	// coin
	circulating, total float64
	maxSupply          float64 // 0: not reported
	athFactor          float64 // ≥ 1; 1: the all-time high lies in the served history
	athAt              int64   // when athFactor > 1: unix second of the all-time high
	coinFlow           *profile
	tickers            []tickerSpec // largest share first

	// stock
	shares    float64 // shares outstanding
	stockFlow *profile

	// pre-IPO
	markFactor float64
	markShares float64
}

// tickerSpec is the static shape of one simulated exchange market.
type tickerSpec struct {
	exchange int     // simulated exchange number, 1..simExchanges
	target   string  // quote currency
	share    float64 // share of the coin's 24h volume
	spread   float64 // bid-ask spread, percent
}

// canonIndex finds canonical assets by coin id, stock ticker (upper case)
// and pre-IPO symbol (upper case). The first asset of the registry wins a
// shared key.
type canonIndex struct {
	coins, stocks, preIPO map[string]*canonAsset
}

func newCanonIndex() canonIndex {
	return canonIndex{
		coins:  make(map[string]*canonAsset),
		stocks: make(map[string]*canonAsset),
		preIPO: make(map[string]*canonAsset),
	}
}

// add indexes an asset (nil: nothing to index).
func (x canonIndex) add(ca *canonAsset) {
	if ca == nil {
		return
	}
	put := func(m map[string]*canonAsset, k string) {
		if _, dup := m[k]; k != "" && !dup {
			m[k] = ca
		}
	}
	put(x.coins, ca.coinID)
	put(x.stocks, strings.ToUpper(ca.ticker))
	put(x.preIPO, strings.ToUpper(ca.preSymbol))
}

// canonAsset builds the canonical view of an asset; nil when the asset
// has no coin id, stock ticker or pre-IPO symbol. Every random figure is
// drawn in a fixed order whatever feeds the asset has, so adding a coin id
// to an asset leaves its stock figures alone.
func (w *World) canonAsset(a *registry.Asset, ps *pathSpec) *canonAsset {
	ca := &canonAsset{
		assetID: a.AssetID, category: a.Category,
		name:   firstNonEmpty(a.Name, a.Symbol, a.AssetID),
		symbol: strings.ToUpper(firstNonEmpty(a.Symbol, a.StockTicker, a.AssetID)),
		coinID: a.CoinID, ticker: a.StockTicker, image: a.ImageURL,
		path: ps,
	}
	if a.PreIPO != nil {
		ca.preSymbol, ca.preMint = a.PreIPO.Symbol, a.PreIPO.Mint
	}
	if ca.coinID == "" && ca.ticker == "" && ca.preSymbol == "" {
		return nil
	}
	ca.key = derive(w.seed, tagCanonical, strHash(a.AssetID))
	q := newSeq(ca.key)
	level := math.Exp(ps.lnLevel)
	equityLike := false
	switch a.Category {
	case "equity", "etf", "index":
		equityLike = true
	}

	// Coin: market cap at the level, supplies, volume, all-time high.
	mcap := coinCapLevel(a, q.u())
	ca.circulating = mcap / level
	ca.total = ca.circulating
	locked, lockedMul, capped := q.u() < 0.65, q.between(1.05, 3), q.u() < 0.4
	if !equityLike && locked {
		ca.total *= lockedMul // part of the supply is not circulating yet
	}
	if !equityLike && capped {
		ca.maxSupply = ca.total
	}
	turnover := q.between(0.01, 0.10)
	ca.coinFlow = flowProfile(derive(ca.key, tagCoinFlow), ps, turnover*mcap)
	inHistory := q.u() < 0.35
	var athLo, athHi float64
	switch {
	case a.Category == "stablecoin":
		athLo, athHi = 1.002, 1.05
	case a.Category == "crypto" || a.Category == "lst":
		athLo, athHi = 1.05, 4
	default:
		athLo, athHi = 1.02, 1.6
	}
	ca.athFactor = q.logBetween(athLo, athHi)
	ca.athAt = int64(athEpochMin + (poolEpochMax-athEpochMin)*q.u())
	if inHistory {
		ca.athFactor, ca.athAt = 1, 0
	}
	ca.tickers = tickerSpecs(q)

	// Stock: shares outstanding and traded value.
	stockCap := q.logBetween(1e9, 6e11) // ETFs, trusts: assets under management
	if a.Category == "equity" {
		stockCap = q.logBetween(5e9, 3e12)
	}
	ca.shares = stockCap / level
	ca.stockFlow = flowProfile(derive(ca.key, tagStockFlow), ps, q.between(0.003, 0.02)*stockCap)

	// Pre-IPO: mark factor and share count.
	ca.markFactor = q.between(PreIPOMarkFactorMin, PreIPOMarkFactorMax)
	ca.markShares = q.logBetween(1e9, 8e9)
	return ca
}

// coinCapLevel is a plausible market cap (USD, at the path level) by
// category, from one uniform draw u: table crypto a multiple of its rough
// DEX depth, other crypto 20M–3B, stablecoins 50M–60B, tokenized stocks
// and funds 2M–200M (the token's own float, not the company's), the rest
// 10M–2B.
func coinCapLevel(a *registry.Asset, u float64) float64 {
	lerp := func(lo, hi float64) float64 { return math.Exp(math.Log(lo) + (math.Log(hi)-math.Log(lo))*u) }
	switch a.Category {
	case "crypto":
		if _, _, depth, ok := cryptoLevel(a.Symbol); ok {
			return depth * lerp(200, 3000)
		}
		return lerp(20e6, 3e9)
	case "lst":
		return lerp(50e6, 3e9)
	case "stablecoin":
		return lerp(50e6, 60e9)
	case "equity", "etf", "index":
		return lerp(2e6, 200e6)
	}
	return lerp(10e6, 2e9)
}

// tickerSpecs draws a coin's exchange markets, largest volume share first.
func tickerSpecs(q *seq) []tickerSpec {
	n := CoinTickersMin + q.intn(CoinTickersMax-CoinTickersMin+1)
	var ex [simExchanges]int
	for i := range ex {
		ex[i] = i + 1
	}
	out := make([]tickerSpec, n)
	total := 0.0
	for i := range out {
		j := i + q.intn(simExchanges-i) // partial Fisher-Yates: distinct exchanges
		ex[i], ex[j] = ex[j], ex[i]
		t := &out[i]
		t.exchange = ex[i]
		t.target = [...]string{"USDT", "USDC", "USD"}[q.intn(3)]
		t.share = math.Exp(-0.6*float64(i)) * lognormal1(q.normal(), 0.4)
		t.spread = q.logBetween(0.01, 0.5)
		total += t.share
	}
	for i := range out {
		out[i].share /= total
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].share > out[j].share })
	return out
}

// flowProfile is an asset-level flow profile: no mint, the asset path
// (priced without a lnFactor), a 24h USD volume level and a mean trade
// size giving about canonTradesPerHour trades an hour. Only the flow and
// candle code reads it; it never appears in the mint catalog.
func flowProfile(key uint64, ps *pathSpec, vol24 float64) *profile {
	p := &profile{key: key, path: ps, vol24: vol24, avgTrade: vol24 / 24 / canonTradesPerHour}
	p.flowKey = derive(key, math.Float64bits(p.vol24), math.Float64bits(p.avgTrade), ps.cacheKey)
	p.s = newProfileStreams(key)
	return p
}

// canonPrice is the asset-level price at unix second t.
func (w *World) canonPrice(ca *canonAsset, t int64) float64 {
	return math.Exp(ca.path.lnLevel + ca.path.warp(w.xAt(ca.path, t)))
}

func notFound(what, key string) error {
	return fmt.Errorf("demo: %s %q: %w", what, key, market.ErrNotFound)
}

// Coins returns the simulated external coin listing (source
// "extprovider"), keyed by the registry's CoinID.
func (w *World) Coins() market.CoinProvider { return coinFeed{w} }

// Stocks returns the simulated stock-market feed (source
// "analytics_stock"), keyed by the registry's StockTicker.
func (w *World) Stocks() market.StockProvider { return stockFeed{w} }

// PreIPO returns the simulated pre-IPO reference feed (source "preipo"),
// keyed by the registry's PreIPO.Symbol.
func (w *World) PreIPO() market.PreIPOProvider { return preIPOFeed{w} }

// coinFeed adapts a World to market.CoinProvider.
type coinFeed struct{ w *World }

// stockFeed adapts a World to market.StockProvider.
type stockFeed struct{ w *World }

// preIPOFeed adapts a World to market.PreIPOProvider.
type preIPOFeed struct{ w *World }

// Source is "extprovider".
func (coinFeed) Source() string { return asset.SourceExtProvider }

// Source is "analytics_stock".
func (stockFeed) Source() string { return asset.SourceAnalyticsStock }

// Source is "preipo".
func (preIPOFeed) Source() string { return asset.SourcePreIPO }

// coin looks up a coin id.
func (f coinFeed) coin(ctx context.Context, id string) (*canonAsset, error) {
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	ca := f.w.cat.Load().canon.coins[id]
	if ca == nil {
		return nil, notFound("coin", id)
	}
	return ca, nil
}

// Coin returns the simulated profile and market stats of a coin: the
// asset-level price now (to the second), its 1h and 24h changes, a seeded
// circulating supply (market cap = price × circulating, FDV = price ×
// total supply), the coin flow's USD volume over the last 24 complete
// hours' minutes, and an all-time high: the highest price of the served
// history (or now), times a seeded factor ≥ 1 dated before the history
// when the factor exceeds 1. No links; LastUpdated is the last complete
// minute. Unknown ids wrap market.ErrNotFound.
func (f coinFeed) Coin(ctx context.Context, id string) (market.Coin, error) {
	ca, err := f.coin(ctx, id)
	if err != nil {
		return market.Coin{}, err
	}
	w := f.w
	_, sec, minute := w.clock()
	px := w.canonPrice(ca, sec)
	p1h, p24h := w.canonPrice(ca, sec-secPerHour), w.canonPrice(ca, sec-secPerDay)
	_, vol := w.flow(ca.coinFlow, minute-secPerDay, minute)
	ath, athAt, err := w.allTimeHigh(ctx, ca, px, sec, minute)
	if err != nil {
		return market.Coin{}, err
	}
	c := market.Coin{
		ID: ca.coinID, Symbol: ca.symbol, Name: ca.name,
		Description: "Simulated profile of " + ca.name + " generated by the assetd demo world; " +
			"not real data: price, supply, volume and all-time high are seeded random figures, not quotes.",
		ImageURL:              ca.image,
		PriceUSD:              ptr(px),
		MarketCapUSD:          ptr(px * ca.circulating),
		FDVUSD:                ptr(px * ca.total),
		Volume24hUSD:          ptr(vol),
		PriceChange24hPercent: ptr((px/p24h - 1) * 100),
		PriceChange1hPercent:  ptr((px/p1h - 1) * 100),
		CirculatingSupply:     ptr(ca.circulating),
		TotalSupply:           ptr(ca.total),
		AllTimeHighUSD:        ptr(ath),
		AllTimeHighAt:         time.Unix(athAt, 0).UTC(),
		LastUpdated:           time.Unix(minute, 0).UTC(),
	}
	if ca.maxSupply > 0 {
		c.MaxSupply = ptr(ca.maxSupply)
	}
	return c, nil
}

// allTimeHigh is the coin's all-time high and its unix second: the highest
// hourly high of the served history (or the price now, px, when higher),
// times the seeded factor; dated at that hour, or at the seeded date
// before the history when the factor exceeds 1.
func (w *World) allTimeHigh(ctx context.Context, ca *canonAsset, px float64, sec, minute int64) (float64, int64, error) {
	hs := w.historyStart(sec)
	cs, err := w.candles(ctx, ca.coinFlow, ca.path.lnLevel, "1H", hs, minute, sec, minute)
	if err != nil {
		return 0, 0, err
	}
	hi, at := px, sec
	for _, c := range cs {
		if c.High > hi {
			hi, at = c.High, c.Time
		}
	}
	if ca.athFactor > 1 {
		return hi * ca.athFactor, min(ca.athAt, hs-secPerDay), nil
	}
	return hi, at, nil
}

// Tickers returns the coin's simulated exchange markets, largest 24h
// volume first, at most limit (limit <= 0: all). Their volumes split the
// coin's 24h volume exactly; prices deviate from the coin price by up to
// ±TickerMaxDeviation, redrawn every minute; spreads are fixed per market.
// Markets are named "Simulated Exchange k" (id "sim-exchange-k") and have
// no trade URL or logo. Unknown ids wrap market.ErrNotFound.
func (f coinFeed) Tickers(ctx context.Context, id string, limit int) ([]market.Ticker, error) {
	ca, err := f.coin(ctx, id)
	if err != nil {
		return nil, err
	}
	w := f.w
	_, sec, minute := w.clock()
	px := w.canonPrice(ca, sec)
	_, vol := w.flow(ca.coinFlow, minute-secPerDay, minute)
	n := len(ca.tickers)
	if limit > 0 && limit < n {
		n = limit
	}
	dev := stream(derive(ca.key, tagTickers))
	ts := time.Unix(minute, 0).UTC()
	out := make([]market.Ticker, 0, n)
	acc := 0.0
	for i := range ca.tickers {
		if i >= n {
			break
		}
		t := &ca.tickers[i]
		v := vol * t.share
		if i == len(ca.tickers)-1 { // exact sum
			v = math.Max(0, vol-acc)
		}
		acc += v
		price := px * (1 + TickerMaxDeviation*(2*dev.u(minute/secPerMin*16+int64(i))-1))
		trust := "yellow"
		if t.spread < greenSpread {
			trust = "green"
		}
		k := strconv.Itoa(t.exchange)
		out = append(out, market.Ticker{
			Base: ca.symbol, Target: t.target,
			MarketName: "Simulated Exchange " + k, MarketID: "sim-exchange-" + k,
			PriceUSD: ptr(price), Volume24hUSD: ptr(v), SpreadPercent: ptr(t.spread),
			TrustScore: trust, Timestamp: ts,
		})
	}
	return out, nil
}

// CoinCandles returns simulated candles of the coin's asset-level price
// whose open time lies in [from, to), aligned and bounded like OHLCV (1W
// bars open Monday 00:00 UTC; only the served history and complete
// minutes). Volume is the coin flow's USD volume. Unknown ids wrap
// market.ErrNotFound; an unknown interval is an error.
func (f coinFeed) CoinCandles(ctx context.Context, id string, iv market.Interval, from, to int64) ([]market.Candle, error) {
	if iv.Duration() == 0 {
		return nil, errUnknownInterval(iv)
	}
	ca, err := f.coin(ctx, id)
	if err != nil {
		return nil, err
	}
	_, sec, minute := f.w.clock()
	return f.w.candles(ctx, ca.coinFlow, ca.path.lnLevel, iv, from, to, sec, minute)
}

// stock looks up a ticker (case-insensitive).
func (f stockFeed) stock(ctx context.Context, ticker string) (*canonAsset, error) {
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	ca := f.w.cat.Load().canon.stocks[strings.ToUpper(ticker)]
	if ca == nil {
		return nil, notFound("stock ticker", ticker)
	}
	return ca, nil
}

// Quote returns the simulated quote of a ticker: the asset-level price now
// (to the second); PreviousCloseUSD is simply the price 24 hours earlier
// (no session calendar), and the change is computed from it; the volume is
// the stock flow's USD traded value over the last 24 hours' complete
// minutes; market cap = price × seeded shares outstanding. AsOf is the
// last complete minute. Unknown tickers wrap market.ErrNotFound.
func (f stockFeed) Quote(ctx context.Context, ticker string) (market.StockQuote, error) {
	ca, err := f.stock(ctx, ticker)
	if err != nil {
		return market.StockQuote{}, err
	}
	w := f.w
	_, sec, minute := w.clock()
	px := w.canonPrice(ca, sec)
	prev := w.canonPrice(ca, sec-secPerDay)
	_, vol := w.flow(ca.stockFlow, minute-secPerDay, minute)
	return market.StockQuote{
		Ticker:                ca.ticker,
		PriceUSD:              ptr(px),
		PreviousCloseUSD:      ptr(prev),
		Volume24hUSD:          ptr(vol),
		PriceChange24hPercent: ptr((px/prev - 1) * 100),
		MarketCapUSD:          ptr(px * ca.shares),
		AsOf:                  time.Unix(minute, 0).UTC(),
	}, nil
}

// StockCandles returns simulated candles of the ticker's asset-level price
// in [from, to), like CoinCandles; volume is the stock flow's USD traded
// value. Unknown tickers wrap market.ErrNotFound; an unknown interval is
// an error.
func (f stockFeed) StockCandles(ctx context.Context, ticker string, iv market.Interval, from, to int64) ([]market.Candle, error) {
	if iv.Duration() == 0 {
		return nil, errUnknownInterval(iv)
	}
	ca, err := f.stock(ctx, ticker)
	if err != nil {
		return nil, err
	}
	_, sec, minute := f.w.clock()
	return f.w.candles(ctx, ca.stockFlow, ca.path.lnLevel, iv, from, to, sec, minute)
}

// Mark returns the simulated daily reference mark of a pre-IPO symbol
// (case-insensitive): MarkPriceUSD is the asset-level price at 00:00 UTC
// today divided by the asset's seeded factor in [PreIPOMarkFactorMin,
// PreIPOMarkFactorMax); MarkValuationUSD = mark × seeded shares (1e9–8e9);
// TokenPriceUSD is the price now of the registry's PreIPO.Mint variant
// (nil when the asset names no mint); UpdatedAt is 00:00 UTC today.
// Unknown symbols wrap market.ErrNotFound.
func (f preIPOFeed) Mark(ctx context.Context, symbol string) (market.PreIPOMark, error) {
	if err := ctxErr(ctx); err != nil {
		return market.PreIPOMark{}, err
	}
	w := f.w
	cat := w.cat.Load()
	ca := cat.canon.preIPO[strings.ToUpper(symbol)]
	if ca == nil {
		return market.PreIPOMark{}, notFound("pre-IPO symbol", symbol)
	}
	_, sec, _ := w.clock()
	day := floorDiv(sec, secPerDay) * secPerDay
	mark := w.canonPrice(ca, day) / ca.markFactor
	m := market.PreIPOMark{
		Symbol:           ca.preSymbol,
		MarkPriceUSD:     ptr(mark),
		MarkValuationUSD: ptr(mark * ca.markShares),
		UpdatedAt:        time.Unix(day, 0).UTC(),
	}
	if p := cat.byMint[ca.preMint]; p != nil {
		m.TokenPriceUSD = ptr(w.priceAt(p, sec))
	}
	return m, nil
}

// Interface checks.
var (
	_ market.CoinProvider   = coinFeed{}
	_ market.StockProvider  = stockFeed{}
	_ market.PreIPOProvider = preIPOFeed{}
)
