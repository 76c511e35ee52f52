package demo

import (
	"math"
	"strings"
	"sync"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/registry"
)

// LST exchange rates: a liquid staking token of the solana asset trades at
// SOL × rate, rate in [LSTRateMin, LSTRateMax) derived from the mint.
const (
	LSTRateMin = 1.02
	LSTRateMax = 1.30
)

// ThinLSTLiquidityCap: the "thin" LSTs of the solana asset (about half of
// those that are neither tier1-hinted nor a flagship symbol, chosen by
// mint) keep their liquidity below this, under the 250k USD floor of the
// curated LST filter, so the filter visibly drops them.
const ThinLSTLiquidityCap = 240_000

const thinLSTChance = 0.5

// flagshipLST: LST symbols that always get a deep simulated market.
func flagshipLST(symbol string) bool {
	switch strings.ToUpper(symbol) {
	case "JITOSOL", "MSOL", "JUPSOL", "INF", "BSOL", "BNSOL", "BBSOL", "HSOL":
		return true
	}
	return false
}

// profile is everything the world knows about one mint. Immutable.
type profile struct {
	mint     string
	key      uint64 // per-mint randomness key
	flowKey  uint64 // key plus every parameter the flows depend on (cache key)
	assetID  string
	category string
	kind     string
	symbol   string
	name     string
	decimals int
	logo     string
	known    bool // listed by the registry
	lst      bool // LST of the solana asset
	thin     bool

	path     *pathSpec
	lnFactor float64 // ln(mint price / asset-level price)

	liq0       float64 // liquidity (USD) when the path is at its level
	liqCap     float64 // > 0: liquidity never exceeds it
	vol24      float64 // 24h volume level (USD)
	avgTrade   float64 // mean trade size (USD)
	supply     float64 // circulating supply (tokens)
	botShare   float64 // share of trades made by bots
	botPool    float64 // number of bot wallets
	walletPool float64 // number of human wallets

	pools     []poolSpec // see poolSpecs
	poolsOnce sync.Once
	s         profileStreams
}

// profileStreams are the per-mint random streams, derived once.
type profileStreams struct {
	dayFlow, hourFlow, hourCount, hourSize, minuteWeight, lastSecond, liquidity stream
	trade, tradeSecond, signature                                               stream
}

func newProfileStreams(key uint64) profileStreams {
	d := func(tag uint64) stream { return stream(derive(key, tag)) }
	return profileStreams{
		dayFlow: d(tagDayFlow), hourFlow: d(tagHourFlow), hourCount: d(tagHourCount), hourSize: d(tagHourSize),
		minuteWeight: d(tagMinuteWeight), lastSecond: d(tagLastSecond), liquidity: d(tagLiquidity),
		trade: d(tagTrade), tradeSecond: d(tagTradeSecond), signature: d(tagSignature),
	}
}

// assetPath builds the asset-level path of a registry asset.
func (w *World) assetPath(a *registry.Asset) *pathSpec {
	q := newSeq(derive(w.seed, tagPath, strHash("level:"+a.AssetID)))
	id := "asset:" + a.AssetID
	sym := a.Symbol
	allLev := len(a.Variants) > 0
	for i := range a.Variants {
		if a.Variants[i].Kind != asset.KindLeveraged {
			allLev = false
		}
	}
	switch a.Category {
	case "stablecoin":
		level, ok := fxLevel(sym)
		if !ok {
			level = q.logBetween(0.0005, 1.5)
		}
		return newPathSpec(w.seed, id, level, 0.0006, 0.5, 0.003, 0.005, 0.3, false)
	case "crypto", "lst":
		if a.AssetID == "solana" || a.Category == "lst" {
			return w.solPath() // an LST group tracks SOL (times its rate)
		}
		if level, sd, _, ok := cryptoLevel(sym); ok {
			return newPathSpec(w.seed, id, level, sd, 0.97, 0.9, 0.02, 0.35, false)
		}
		return newPathSpec(w.seed, id, q.logBetween(0.01, 20), 0.06, 0.96, 1.2, 0.03, 0.35, false)
	case "equity":
		if a.PreIPO != nil {
			return newPathSpec(w.seed, id, q.logBetween(PreIPOLevelMin, PreIPOLevelMax), 0.015, 0.97, PreIPOBound, 0.01, 0, true)
		}
		return newPathSpec(w.seed, id, tickerLevel(w.seed, a, EquityLevelMin, EquityLevelMax), 0.022, 0.97, EquityBound, 0.01, 0, true)
	case "etf":
		level, ok := etfLevel(a.StockTicker)
		if !ok {
			level = tickerLevel(w.seed, a, ETFLevelMin, ETFLevelMax)
		}
		if allLev {
			return newPathSpec(w.seed, id, level, 0.036, 0.97, 0.9, 0.01, 0, true)
		}
		return newPathSpec(w.seed, id, level, 0.012, 0.97, 0.35, 0.01, 0, true)
	case "rwa":
		level := []float64{1, 10, 100}[q.intn(3)] * q.between(1.0, 1.1)
		if l, ok := etfLevel(a.StockTicker); ok {
			return newPathSpec(w.seed, id, l, 0.012, 0.97, 0.35, 0.01, 0, true)
		}
		if a.StockTicker != "" {
			return newPathSpec(w.seed, id, tickerLevel(w.seed, a, ETFLevelMin, ETFLevelMax), 0.012, 0.97, 0.35, 0.01, 0, true)
		}
		return newPathSpec(w.seed, id, level, 0.0005, 0.8, 0.01, 0.002, 0.2, false)
	case "commodity":
		if level, sd, ok := commodityLevel(sym); ok {
			return newPathSpec(w.seed, id, level, sd, 0.97, 0.35, 0.01, 0.25, false)
		}
		return newPathSpec(w.seed, id, q.logBetween(10, 500), 0.015, 0.97, 0.35, 0.01, 0.25, false)
	case "index":
		return newPathSpec(w.seed, id, q.logBetween(50, 5000), 0.012, 0.97, 0.35, 0.01, 0, true)
	}
	return newPathSpec(w.seed, id, q.logBetween(0.01, 20), 0.06, 0.96, 1.2, 0.03, 0.35, false)
}

// solPath is the path of the solana asset, which every SOL LST follows.
func (w *World) solPath() *pathSpec {
	level, sd, _, _ := cryptoLevel("SOL")
	return newPathSpec(w.seed, "asset:solana", level, sd, 0.97, 0.9, 0.02, 0.35, false)
}

// isSolLST reports whether a variant is a liquid staking token of SOL: a
// yield or lst variant of the solana asset, any lst variant, or a variant of
// an asset of category lst.
func isSolLST(a *registry.Asset, v *registry.Variant) bool {
	switch {
	case a.AssetID == "solana":
		return v.Kind == asset.KindYield || v.Kind == asset.KindLST
	case a.Category == "lst":
		return v.Kind != asset.KindNative
	}
	return v.Kind == asset.KindLST
}

// tickerLevel derives a share-price level from the stock ticker (or the
// asset id when there is none), log-uniform in [lo, hi).
func tickerLevel(seed uint64, a *registry.Asset, lo, hi float64) float64 {
	name := strings.ToUpper(a.StockTicker)
	if name == "" {
		name = "id:" + a.AssetID
	}
	return newSeq(derive(seed, tagPath, strHash("ticker:"+name))).logBetween(lo, hi)
}

// longTailPath is the own path of a mint no asset lists.
func (w *World) longTailPath(mint string) *pathSpec {
	q := newSeq(derive(w.seed, tagPath, strHash("level:mint:"+mint)))
	level := q.logBetween(LongTailLevelMin, LongTailLevelMax)
	return newPathSpec(w.seed, "mint:"+mint, level, q.between(0.08, 0.14), 0.95, 1.6, 0.05, 0.4, false)
}

// economics are the per-mint market parameters.
type economics struct {
	liq, turnover, avgTrade, mcapMult, botShare, walletRatio, botPool float64
}

// variantProfile builds the profile of a registry variant.
func (w *World) variantProfile(a *registry.Asset, v *registry.Variant, ps *pathSpec) *profile {
	key := derive(w.seed, tagProfile, strHash(v.Mint))
	q := newSeq(key)
	p := &profile{
		mint: v.Mint, key: key, assetID: a.AssetID, category: a.Category, kind: v.Kind,
		known: true, path: ps, logo: v.LogoURI,
	}
	p.symbol = firstNonEmpty(v.Symbol, a.Symbol)
	p.name = v.Name
	if p.name == "" {
		p.name = a.Name
		if v.Label != "" && a.Name != "" {
			p.name = a.Name + " (" + v.Label + ")"
		}
	}
	level := math.Exp(ps.lnLevel)
	var e economics
	e.botShare = q.between(0.1, 0.4)
	e.walletRatio = q.between(0.2, 0.6)
	e.botPool = float64(2 + q.intn(11))
	switch {
	case a.AssetID == "solana" && v.Kind == asset.KindNative:
		e.liq = q.logBetween(250e6, 450e6)
		e.turnover = q.between(1.5, 3)
		e.avgTrade = q.between(500, 900)
		e.mcapMult = q.between(150, 250)
		e.botPool = float64(20 + q.intn(20))
	case isSolLST(a, v):
		p.lst = true
		if ps.id != "asset:solana" {
			p.path = w.solPath()
		}
		p.lnFactor = math.Log(q.between(LSTRateMin, LSTRateMax))
		thinDraw := q.u()
		switch {
		case v.LiquidityTier == asset.Tier1:
			e.liq = q.logBetween(40e6, 150e6)
			e.mcapMult = q.between(8, 30)
		case flagshipLST(v.Symbol):
			e.liq = q.logBetween(3e6, 60e6)
			e.mcapMult = q.between(8, 40)
		case thinDraw < thinLSTChance:
			p.thin = true
			e.liq = q.logBetween(20e3, 190e3)
			p.liqCap = ThinLSTLiquidityCap
			e.mcapMult = q.between(20, 300)
		default:
			e.liq = q.logBetween(300e3, 30e6)
			e.mcapMult = q.between(8, 60)
		}
		e.turnover = q.between(0.05, 0.5)
		e.avgTrade = q.between(800, 5000)
		e.botShare = q.between(0.1, 0.3)
	case a.Category == "stablecoin":
		usd := math.Abs(level-1) < 0.05
		switch v.Kind {
		case asset.KindStablecoin:
			p.lnFactor = q.between(-0.001, 0.001)
			switch {
			case usd && v.LiquidityTier == asset.Tier1:
				e.liq = q.logBetween(150e6, 500e6)
				e.turnover = q.between(1, 5)
			case usd:
				e.liq = q.logBetween(1e6, 60e6)
				e.turnover = q.between(0.3, 3)
			default:
				e.liq = q.logBetween(60e3, 5e6)
				e.turnover = q.between(0.2, 2)
			}
		case asset.KindYield:
			p.lnFactor = math.Log(q.between(1.01, 1.15))
			e.liq = q.logBetween(500e3, 25e6)
			e.turnover = q.between(0.02, 0.3)
		default: // bridged and others: a small discount
			p.lnFactor = -q.between(0, 0.003)
			e.liq = q.logBetween(80e3, 4e6)
			e.turnover = q.between(0.1, 0.8)
		}
		e.avgTrade = q.between(1000, 6000)
		e.mcapMult = q.between(10, 80)
		e.botShare = q.between(0.2, 0.5)
	case a.Category == "crypto" || a.Category == "lst":
		sym := a.Symbol
		if _, _, depth, ok := cryptoLevel(sym); ok {
			share := 1.0
			if len(a.Variants) > 1 {
				if v.Kind == asset.KindNative {
					share = q.between(0.6, 0.9)
				} else {
					share = q.logBetween(0.01, 0.5)
				}
			}
			e.liq = depth * share
			e.mcapMult = q.between(30, 300)
		} else {
			e.liq = q.logBetween(100e3, 6e6)
			e.mcapMult = q.between(10, 100)
		}
		switch v.Kind {
		case asset.KindWrapped, asset.KindBridged:
			p.lnFactor = q.between(-0.004, 0.001)
		}
		e.turnover = q.between(0.5, 2.5)
		e.avgTrade = q.between(150, 1500)
	case a.Category == "equity":
		p.lnFactor = q.between(-0.003, 0.003)
		if a.PreIPO != nil {
			e.liq = q.logBetween(40e3, 2e6)
			e.turnover = q.between(0.05, 0.6)
		} else {
			e.liq = q.logBetween(150e3, 6e6)
			e.turnover = q.between(0.1, 1.2)
		}
		e.avgTrade = q.between(300, 2500)
		e.mcapMult = q.between(3, 15)
	case a.Category == "etf" || a.Category == "index":
		p.lnFactor = q.between(-0.003, 0.003)
		if v.Kind == asset.KindLeveraged {
			e.liq = q.logBetween(60e3, 1.5e6)
		} else {
			e.liq = q.logBetween(150e3, 8e6)
		}
		e.turnover = q.between(0.1, 1)
		e.avgTrade = q.between(300, 2500)
		e.mcapMult = q.between(3, 15)
	case a.Category == "rwa":
		p.lnFactor = q.between(-0.001, 0.001)
		e.liq = q.logBetween(200e3, 20e6)
		e.turnover = q.between(0.005, 0.08)
		e.avgTrade = q.between(5000, 50000)
		e.mcapMult = q.between(5, 60)
		e.botShare = q.between(0.02, 0.1)
	case a.Category == "commodity":
		switch v.Kind {
		case asset.KindETF:
			// A share is a fixed fraction of the unit (ounce, barrel…),
			// chosen so the share price lands in [20, 400).
			p.lnFactor = math.Log(q.logBetween(20, 400) / level)
			e.liq = q.logBetween(100e3, 3e6)
		case asset.KindBasket:
			e.liq = q.logBetween(50e3, 1e6)
		default:
			p.lnFactor = q.between(-0.002, 0.002)
			e.liq = q.logBetween(1e6, 30e6)
		}
		e.turnover = q.between(0.1, 0.8)
		e.avgTrade = q.between(500, 4000)
		e.mcapMult = q.between(5, 40)
	default:
		e.liq = q.logBetween(100e3, 6e6)
		e.turnover = q.between(0.3, 2)
		e.avgTrade = q.between(100, 800)
		e.mcapMult = q.between(10, 100)
	}
	if !p.thin {
		switch v.LiquidityTier {
		case asset.Tier1:
			e.liq = math.Max(e.liq, q.logBetween(15e6, 120e6))
		case asset.Tier2:
			e.liq = math.Min(math.Max(e.liq, 2.6e6), 9.5e6)
		}
	}
	p.decimals = defaultDecimals(a.Category, p.lst || a.AssetID == "solana", q)
	if v.Decimals != nil {
		p.decimals = *v.Decimals
	}
	w.finish(p, e)
	return p
}

// longTailProfile is the thin, volatile market of a mint no asset lists.
func (w *World) longTailProfile(mint string) *profile {
	key := derive(w.seed, tagProfile, strHash(mint))
	q := newSeq(key)
	short := mint[:4]
	p := &profile{
		mint: mint, key: key, assetID: "solana-" + mint, category: "crypto", kind: asset.KindNative,
		symbol: "SIM" + strings.ToUpper(short), name: "Simulated token " + short,
		path: w.longTailPath(mint), thin: true,
	}
	p.decimals = 6
	if q.u() < 0.4 {
		p.decimals = 9
	}
	w.finish(p, economics{
		liq:         q.logBetween(2e3, 90e3),
		turnover:    q.between(0.3, 5),
		avgTrade:    q.between(20, 250),
		mcapMult:    q.between(3, 40),
		botShare:    q.between(0.3, 0.7),
		walletRatio: q.between(0.3, 0.8),
		botPool:     float64(1 + q.intn(6)),
	})
	return p
}

// finish derives the remaining figures and the pools.
func (w *World) finish(p *profile, e economics) {
	if p.liqCap > 0 {
		e.liq = math.Min(e.liq, p.liqCap)
	}
	p.liq0 = e.liq
	p.vol24 = e.liq * e.turnover
	p.avgTrade = e.avgTrade
	price := math.Exp(p.path.lnLevel + p.lnFactor)
	p.supply = e.liq * e.mcapMult / price
	p.botShare = e.botShare
	p.botPool = e.botPool
	dailyHumanTrades := p.vol24 / p.avgTrade * (1 - p.botShare)
	p.walletPool = math.Max(8, math.Round(dailyHumanTrades*e.walletRatio))
	if p.known {
		p.pools = w.buildPools(p)
	}
	p.flowKey = derive(p.key, math.Float64bits(p.vol24), math.Float64bits(p.avgTrade), p.path.cacheKey)
	p.s = newProfileStreams(p.key)
}

func defaultDecimals(category string, sol bool, q *seq) int {
	switch {
	case sol:
		return 9
	case category == "stablecoin", category == "rwa":
		return 6
	case category == "equity", category == "etf", category == "commodity", category == "index":
		return 8
	}
	if q.u() < 0.5 {
		return 6
	}
	return 9
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
