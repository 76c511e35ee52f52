package httpapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"log/slog"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/catalog"
	"github.com/assetd/assetd/internal/ratelimit"
	"github.com/assetd/assetd/internal/registry"
	"github.com/mr-tron/base58"
)

// Test fixtures of the asset read endpoints: a small hand-written registry
// with hand-picked market data (so stats, tiers, primaries and orderings
// have hand-computed expectations), and the embedded seed registry with
// synthetic markets for every mint (benchmarks, pagination property).

// fakeMarkets is a catalog.MarketReader over maps.
type fakeMarkets struct {
	markets map[string]*asset.Market
	quality map[string]*asset.ExecutionQuality
	vol30   map[string]*float64
}

func newFakeMarkets() *fakeMarkets {
	return &fakeMarkets{markets: map[string]*asset.Market{}, quality: map[string]*asset.ExecutionQuality{}, vol30: map[string]*float64{}}
}

func (f *fakeMarkets) Market(m string) *asset.Market                     { return f.markets[m] }
func (f *fakeMarkets) ExecutionQuality(m string) *asset.ExecutionQuality { return f.quality[m] }
func (f *fakeMarkets) Volume30d(m string) *float64                       { return f.vol30[m] }

// mintOf is a deterministic valid mint (base58 of 32 bytes) named by s.
func mintOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	sum[0] |= 1 // no leading zero byte, so always 43 or 44 characters
	return base58.Encode(sum[:])
}

func fp(v float64) *float64 { return &v }
func ip64(v int64) *int64   { return &v }

// fxNow is the clock of the fixture catalog (equal to the harness clock).
var fxNow = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// fxMarket is a market with the given liquidity, 24h volume and trades;
// price is liquidity/1e6 so every variant has a distinct, known price.
func fxMarket(liq, vol, trades float64) *asset.Market {
	return &asset.Market{Source: asset.SourceMarketDataA, Price: fp(liq / 1e6), Liquidity: fp(liq), Volume24hUSD: fp(vol), Trade24h: fp(trades),
		MarketCap: fp(liq * 10), PriceChange24hPercent: fp(1.5), PriceChange1hPercent: fp(-0.5), LastFetchedAt: ip64(fxNow.UnixMilli())}
}

// Fixture mints, by variant id.
var (
	mWSOL     = mintOf("solana:wsol")
	mJito     = mintOf("solana:jitosol")
	mMSOL     = mintOf("solana:msol")
	mEdge     = mintOf("solana:edge")  // exactly at the 250k floor: kept
	mUnder    = mintOf("solana:under") // 249,999.99: capped
	mTiny     = mintOf("solana:tiny")  // 100k: capped
	mLSTNoMkt = mintOf("solana:nomkt") // no market: capped
	mUSDC     = mintOf("usd:usdc")
	mUSDT     = mintOf("usd:usdt")
	mPYUSD    = mintOf("usd:pyusd")
	mUSDY     = mintOf("usd:usdy")
	mUSDCet   = mintOf("usd:usdcet")
	mXStock   = mintOf("tesla:xstock")
	mOndo     = mintOf("tesla:ondo")
	mBackpack = mintOf("tesla:backpack")
	mTSLANoMk = mintOf("tesla:nomkt")
	mSilverA  = mintOf("silver:a")
	mSilverB  = mintOf("silver:b")
	mBonk     = mintOf("bonk:bonk")
	mNoData   = mintOf("nodata:n")
	mUSDX     = mintOf("usdx:usdx")
	mUSDE     = mintOf("usde:usde")
	mAUSD     = mintOf("ausd:ausd")
	// mUnknown and mUnknownMkt are listed by no asset; the latter has a
	// cached market.
	mUnknown    = mintOf("unknown")
	mUnknownMkt = mintOf("unknown-with-market")
)

// fixtureDocument is the hand-written registry:
//
//	solana  crypto      wsol native 50M; yield jitosol 40M, msol 300k, edge 250k,
//	                    under 249,999.99, tiny 100k, nomkt (no market)
//	usd     stablecoin  usdc 30M, usdt 20M, pyusd 3M (stablecoins), usdy 5M (yield),
//	                    usdcet bridged (no market)
//	tesla   equity      xstock 2M cash, ondo 1M cash, backpack 500k share,
//	                    nomkt not_redeemable (no market)
//	silver  commodity   etf a 1M, etf b 2M (no spot-like variant)
//	bonk    crypto      native 5M
//	nodata  crypto      native, no market at all
//	usdx, usde, ausd    search-only assets
func fixtureDocument() registry.Document {
	v := func(id, mint, kind string) registry.Variant {
		return registry.Variant{VariantID: id, Mint: mint, Kind: kind}
	}
	te := func(id, mint, tier, label string) registry.Variant {
		r := v(id, mint, asset.KindTokenizedEquity)
		r.StockVariantTier, r.Label, r.Issuer = tier, label, label
		return r
	}
	wsol := v("solana:wsol", mWSOL, asset.KindNative)
	wsol.Symbol, wsol.Name, wsol.Label, wsol.Issuer, wsol.IssuerURL = "wSOL", "Wrapped SOL", "Wrapped SOL", "Solana", "https://solana.com"
	usdc := v("usd:usdc", mUSDC, asset.KindStablecoin)
	usdc.Symbol, usdc.Name, usdc.Issuer, usdc.Label, usdc.Tags = "USDC", "USD Coin", "Circle", "Circle", []string{"fiat"}
	usdt := v("usd:usdt", mUSDT, asset.KindStablecoin)
	usdt.Symbol, usdt.Name, usdt.Issuer, usdt.IssuerURL = "USDT", "Tether USD", "Tether", "https://tether.to"
	pyusd := v("usd:pyusd", mPYUSD, asset.KindStablecoin)
	pyusd.Symbol = "PYUSD"
	usdy := v("usd:usdy", mUSDY, asset.KindYield)
	usdy.Symbol = "USDY"
	usdcet := v("usd:usdcet", mUSDCet, asset.KindBridged)
	usdcet.Symbol = "USDCet"
	lst := func(id, mint, sym string) registry.Variant {
		r := v(id, mint, asset.KindYield)
		r.Symbol, r.Tags = sym, []string{"lst"}
		return r
	}
	return registry.Document{
		Assets: []registry.Asset{
			{AssetID: "solana", Name: "Solana", Symbol: "SOL", Category: "crypto", CoinID: "solana", Aliases: []string{"wrapped sol"},
				ImageURL: "https://img.example/sol.png",
				Variants: []registry.Variant{wsol, lst("solana:jitosol", mJito, "JitoSOL"), lst("solana:msol", mMSOL, "mSOL"),
					lst("solana:edge", mEdge, "edgeSOL"), lst("solana:under", mUnder, "underSOL"), lst("solana:tiny", mTiny, "tinySOL"),
					lst("solana:nomkt", mLSTNoMkt, "nomktSOL")}},
			{AssetID: "usd", Name: "US Dollar", Symbol: "USD", Category: "stablecoin", Aliases: []string{"dollar"},
				Variants: []registry.Variant{usdc, usdt, pyusd, usdy, usdcet}},
			{AssetID: "tesla", Name: "Tesla", Symbol: "TSLA", Category: "equity", StockTicker: "TSLA",
				Variants: []registry.Variant{te("tesla:xstock", mXStock, asset.StockCashRedeemable, "xStock"),
					te("tesla:ondo", mOndo, asset.StockCashRedeemable, "Ondo"),
					te("tesla:backpack", mBackpack, asset.StockShareRedeemable, "Backpack"),
					te("tesla:nomkt", mTSLANoMk, asset.StockNotRedeemable, "NoMarket")}},
			{AssetID: "silver", Name: "Silver", Symbol: "XAG", Category: "commodity",
				Variants: []registry.Variant{v("silver:a", mSilverA, asset.KindETF), v("silver:b", mSilverB, asset.KindETF)}},
			{AssetID: "bonk", Name: "Bonk", Symbol: "BONK", Category: "crypto", Variants: []registry.Variant{v("bonk:bonk", mBonk, asset.KindNative)}},
			{AssetID: "nodata", Name: "No Data", Symbol: "NODATA", Category: "crypto", Variants: []registry.Variant{v("nodata:n", mNoData, asset.KindNative)}},
			{AssetID: "usdx", Name: "Dollar X", Symbol: "USDX", Category: "stablecoin", Variants: []registry.Variant{v("usdx:usdx", mUSDX, asset.KindStablecoin)}},
			{AssetID: "usde", Name: "Ethena Dollar", Symbol: "USDE", Category: "stablecoin", Variants: []registry.Variant{v("usde:usde", mUSDE, asset.KindStablecoin)}},
			{AssetID: "ausd", Name: "Agora", Symbol: "AUSD", Category: "crypto", Variants: []registry.Variant{v("ausd:ausd", mAUSD, asset.KindStablecoin)}},
		},
		CuratedLists: []registry.CuratedList{
			{ID: "majors", Members: []registry.CuratedMember{{Mint: mWSOL}, {Mint: mBonk, Rank: 1}, {Mint: mNoData, Rank: 2}}},
			{ID: "lsts", Members: []registry.CuratedMember{{Mint: mJito}, {Mint: mMSOL, Rank: 1}}},
			{ID: "currencies", Members: []registry.CuratedMember{{Mint: mUSDC}, {Mint: mUSDT, Rank: 1}, {Mint: mPYUSD, Rank: 2}, {Mint: mUSDY, Rank: 3}}},
			{ID: "stocks", Members: []registry.CuratedMember{{Mint: mXStock}, {Mint: mOndo, Rank: 1}, {Mint: mBackpack, Rank: 2}}},
			{ID: "metals", Members: []registry.CuratedMember{{Mint: mSilverA}}},
		},
	}
}

// fixtureMarkets is the market cache of the fixture registry.
func fixtureMarkets() *fakeMarkets {
	f := newFakeMarkets()
	set := func(mint string, liq, vol, trades float64) { f.markets[mint] = fxMarket(liq, vol, trades) }
	set(mWSOL, 50_000_000, 20_000_000, 10_000)
	set(mJito, 40_000_000, 5_000_000, 2_000)
	set(mMSOL, 300_000, 50_000, 100)
	set(mEdge, 250_000, 40_000, 100)
	set(mUnder, 249_999.99, 30_000, 100)
	set(mTiny, 100_000, 10_000, 100)
	set(mUSDC, 30_000_000, 100_000_000, 1_000)
	set(mUSDT, 20_000_000, 60_000_000, 1_000)
	set(mPYUSD, 3_000_000, 1_000_000, 1_000)
	set(mUSDY, 5_000_000, 2_000_000, 1_000)
	set(mXStock, 2_000_000, 500_000, 100)
	set(mOndo, 1_000_000, 300_000, 80)
	set(mBackpack, 500_000, 100_000, 50)
	set(mSilverA, 1_000_000, 10_000, 50)
	set(mSilverB, 2_000_000, 20_000, 60)
	set(mBonk, 5_000_000, 1_000_000, 500)
	set(mUSDX, 9_000_000, 1_000, 10)
	set(mUSDE, 1_000_000, 1_000, 10)
	set(mAUSD, 100_000_000, 1_000, 10)
	set(mUnknownMkt, 1_234, 567, 8)
	f.vol30[mUSDC] = fp(3_000_000_000)
	f.vol30[mUSDT] = fp(1_500_000_000)
	f.vol30[mUSDY] = fp(10_000_000) // yield: not spot-like, not summed
	f.vol30[mBonk] = fp(25_000_000)
	asOf := fxNow.Add(-time.Hour).Unix()
	// ondo: eligible, score 90. xstock: higher stored score but stored and
	// recomputed ineligible (5k fill volume).
	f.quality[mOndo] = &asset.ExecutionQuality{Source: "analytics_fill_quality", Range: "24h", Horizon: "5s", QuoteMint: mUSDC,
		Volume24hUSD: 100_000, Trade24h: 100, FlowSourceCount: 2, ExecutionScore: 90, IsEligibleForPrimary: true, AsOf: &asOf, LastComputedAt: fxNow.UnixMilli()}
	f.quality[mXStock] = &asset.ExecutionQuality{Source: "analytics_fill_quality", Range: "24h", Horizon: "5s", QuoteMint: mUSDC,
		Volume24hUSD: 5_000, Trade24h: 5, FlowSourceCount: 1, ExecutionScore: 95, IsEligibleForPrimary: false, AsOf: &asOf, LastComputedAt: fxNow.UnixMilli()}
	return f
}

// newFixtureCatalog builds the catalog of the hand-written registry.
func newFixtureCatalog(t testing.TB) *catalog.Catalog {
	t.Helper()
	snap, _, err := registry.Build(fixtureDocument())
	if err != nil {
		t.Fatal(err)
	}
	return catalog.New(snap, fixtureMarkets(), func() time.Time { return fxNow }, nil)
}

// seedSnapshot is the embedded seed registry, built once.
var seedSnapshot = sync.OnceValues(func() (*registry.Snapshot, error) {
	doc, err := registry.Seed()
	if err != nil {
		return nil, err
	}
	snap, _, err := registry.Build(doc)
	return snap, err
})

// seedMarkets is a market cache with a synthetic market, a 30-day volume
// and (for one mint in three) an execution-quality rollup for every seed
// mint. With gaps, one mint in seven has no market and one in five shares a
// round liquidity and volume with others, so nulls and ties are exercised.
func seedMarkets(snap *registry.Snapshot, gaps bool) *fakeMarkets {
	f := newFakeMarkets()
	asOf := fxNow.Add(-2 * time.Hour).Unix()
	for _, a := range snap.Assets() {
		for _, v := range a.Variants {
			h := sha256.Sum256([]byte(v.Mint))
			u := func(i int) float64 { return float64(uint16(h[i])<<8|uint16(h[i+1])) / 65535 }
			if gaps && h[0]%7 == 0 {
				continue
			}
			liq := math.Round(math.Pow(10, 4+4.5*u(2))) // 10k .. ~316M
			vol := math.Round(liq * (0.05 + 2*u(4)))
			if gaps && h[1]%5 == 0 {
				liq, vol = 1_000_000, 100_000
			}
			dec := 6
			logo := "https://img.example/" + v.Mint + ".png"
			f.markets[v.Mint] = &asset.Market{Source: asset.SourceMarketDataA, MetricsSource: asset.SourceAnalyticsTrades,
				Price: fp(0.01 + 500*u(6)), Liquidity: fp(liq), Volume1hUSD: fp(vol / 24), Volume24hUSD: fp(vol),
				Trade1h: fp(10 + 100*u(8)), Trade24h: fp(240 + 2400*u(8)), UniqueWallet1h: fp(5 + 50*u(10)), UniqueWallet24h: fp(100 + 1000*u(10)),
				MarketCap: fp(liq * 20), PriceChange24hPercent: fp(20*u(12) - 10), PriceChange1hPercent: fp(4*u(14) - 2),
				Decimals: &dec, LogoURI: &logo, LastTradeAt: ip64(fxNow.Unix() - 30), AsOf: ip64(fxNow.Unix() - 60), LastFetchedAt: ip64(fxNow.UnixMilli())}
			f.vol30[v.Mint] = fp(math.Round(vol * 30 * (0.5 + u(16))))
			if h[18]%3 == 0 {
				f.quality[v.Mint] = &asset.ExecutionQuality{Source: "analytics_fill_quality", Range: "24h", Horizon: "5s", QuoteMint: mintOf("quote"),
					Volume24hUSD: math.Round(vol * 0.4), Trade24h: math.Round(100 + 1000*u(20)), BotVolume24hUSD: math.Round(vol * 0.05),
					BotTrade24h: 12, BotVolumeRatio: 0.05 + 0.3*u(22), Fee24hUSD: math.Round(vol * 0.001), FeeBps: 10 * u(24), FlowSourceCount: float64(1 + h[26]%6),
					ExecutionScore: math.Round(100*u(28)*100) / 100, IsEligibleForPrimary: h[30]%2 == 0, AsOf: &asOf, LastComputedAt: fxNow.UnixMilli()}
			}
		}
	}
	return f
}

// newSeedCatalog builds the catalog of the seed registry over synthetic
// markets.
func newSeedCatalog(t testing.TB, gaps bool) *catalog.Catalog {
	t.Helper()
	snap, err := seedSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	return catalog.New(snap, seedMarkets(snap, gaps), func() time.Time { return fxNow }, nil)
}

// newAssetHarness is newHarness with a catalog wired in.
func newAssetHarness(t testing.TB, cat *catalog.Catalog) *harness {
	t.Helper()
	h := newHarness(t, ratelimit.Policy{})
	h.srv.d.Catalog = cat
	h.srv.d.Log = slog.New(slog.DiscardHandler)
	return h
}

// get is a GET with the assets:read key.
func (h *harness) get(t *testing.T, path string) resp {
	t.Helper()
	return h.do(t, "GET", path, map[string]string{"X-Api-Key": h.plain["read"]}, nil)
}

// decodeStrict decodes a response body into v, refusing unknown fields, so
// the typed decode doubles as a shape check.
func decodeStrict(t *testing.T, r resp, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader([]byte(r.raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("decode %T: %v\n%.2000s", v, err, r.raw)
	}
}
