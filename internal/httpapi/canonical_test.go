package httpapi

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/apikey"
	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/catalog"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/poll"
	"github.com/assetd/assetd/internal/registry"
	"github.com/assetd/assetd/internal/risk"
	dto "github.com/prometheus/client_model/go"
)

// Synthetic canonical data for the seed registry's bitcoin (coin id
// "bitcoin") and tesla (ticker TSLA) assets.
type fakeCanonical struct{ now time.Time }

func (f fakeCanonical) Coin(id string) (market.Coin, time.Time, bool) {
	if id != "bitcoin" {
		return market.Coin{}, time.Time{}, false
	}
	return market.Coin{ID: id, Name: "Bitcoin", Symbol: "BTC", PriceUSD: fp(90_000), MarketCapUSD: fp(1.8e12), Volume24hUSD: fp(3e10),
		Description: "Synthetic test coin. It exists only in this test.\n\nSecond paragraph.", Links: market.CoinLinks{Website: "https://example.test"},
		AllTimeHighAt: f.now.Add(-48 * time.Hour), LastUpdated: f.now.Add(-time.Minute)}, f.now.Add(-30 * time.Second), true
}

func (f fakeCanonical) Tickers(id string) ([]market.Ticker, time.Time, bool) {
	if id != "bitcoin" {
		return nil, time.Time{}, false
	}
	var out []market.Ticker
	for i := range 60 { // volume desc: 60e6, 59e6, ...
		trust := "green"
		if i%3 == 0 {
			trust = "yellow"
		}
		out = append(out, market.Ticker{Base: "BTC", Target: "USD", MarketName: fmt.Sprintf("Synthetic Exchange %d", i),
			Volume24hUSD: fp(float64(60-i) * 1e6), TrustScore: trust, PriceUSD: fp(90_000)})
	}
	return out, f.now.Add(-time.Minute), true
}

func candleRun(from, to int64, iv market.Interval, px float64) []market.Candle {
	d := int64(iv.Duration() / time.Second)
	var out []market.Candle
	for t := (from + d - 1) / d * d; t < to; t += d {
		out = append(out, market.Candle{Time: t, Open: px, High: px, Low: px, Close: px})
	}
	return out
}

func (f fakeCanonical) CoinCandles(id string, iv market.Interval, from, to int64) ([]market.Candle, bool) {
	if id != "bitcoin" {
		return nil, false
	}
	return candleRun(from, to, iv, 90_000), true
}

func (f fakeCanonical) StockCandles(ticker string, iv market.Interval, from, to int64) ([]market.Candle, bool) {
	if ticker != "TSLA" {
		return nil, false
	}
	return candleRun(from, to, iv, 400), true
}

// fakeMarketData serves the seed markets as the market cache would, with
// pools created 3 days ago for poolMint.
type fakeMarketData struct {
	m        *fakeMarkets
	poolMint string
	now      time.Time
}

func (f fakeMarketData) Token(mint string) (market.Token, bool) {
	if m := f.m.markets[mint]; m != nil {
		return market.Token{Mint: mint, Market: *m}, true
	}
	return market.Token{Mint: mint}, false
}

func (f fakeMarketData) DEXMarkets(mint string) ([]market.DEXMarket, time.Time, bool) {
	if mint != f.poolMint {
		return nil, time.Time{}, false
	}
	created := f.now.Add(-72 * time.Hour).Unix()
	return []market.DEXMarket{{Address: mintOf("pool"), Venue: "Synthetic", BaseMint: mint, QuoteMint: mintOf("quote"),
		LiquidityUSD: fp(1e6), CreatedAt: &created}}, f.now, true
}

func (f fakeMarketData) ExecutionQuality(mint string) *asset.ExecutionQuality {
	return f.m.quality[mint]
}

// MintCandles: provider candles (price 7) for poolMint only.
func (f fakeMarketData) MintCandles(mint string, iv market.Interval, from, to int64) ([]market.Candle, string, bool) {
	if mint != f.poolMint {
		return nil, "", false
	}
	return candleRun(from, to, iv, 7), asset.SourceMarketDataA, true
}

func canonicalHarness(t *testing.T) (*harness, *registry.Snapshot) {
	t.Helper()
	snap, err := seedSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	fm := seedMarkets(snap, false)
	cat := catalog.New(snap, fm, func() time.Time { return fxNow }, nil)
	h := newAssetHarness(t, cat)
	h.now = fxNow
	btc, _ := snap.Asset("bitcoin")
	h.srv.d.Markets = fakeMarketData{m: fm, poolMint: btc.Variants[0].Mint, now: fxNow}
	h.srv.d.Canonical = fakeCanonical{now: fxNow}
	h.srv.d.ExternalProvider = true
	// Keys holding one fine-grained scope each (plus the harness's own).
	var keys []apikey.Key
	for name, scopes := range map[string][]string{
		"read": {apikey.ScopeAssetsRead}, "risk": {apikey.ScopeRiskRead}, "none": {apikey.ScopeOHLCVRead},
		"profile": {apikey.ScopeProfileRead}, "markets": {apikey.ScopeMarketsRead}, "trades": {apikey.ScopeTradesWrite},
		"risk+markets": {apikey.ScopeRiskRead, apikey.ScopeMarketsRead},
	} {
		p, k := mkKey(t, "key_"+strings.ReplaceAll(name, "+", "_"), scopes...)
		h.plain[name] = p
		keys = append(keys, k)
	}
	h.keys.set(t, keys...)
	return h, snap
}

func (h *harness) getAs(t *testing.T, key, path string) resp {
	t.Helper()
	return h.do(t, "GET", path, map[string]string{"X-Api-Key": h.plain[key]}, nil)
}

func block(t *testing.T, r resp, name string) map[string]any {
	t.Helper()
	inc, _ := r.body["includes"].(map[string]any)
	b, ok := inc[name].(map[string]any)
	if !ok {
		t.Fatalf("no %s block: %.600s", name, r.raw)
	}
	return b
}

// TestIncludeCombinations: every subset of the four blocks is answered
// with exactly those blocks, each ok (bitcoin has an external id, markets
// and candles).
func TestIncludeCombinations(t *testing.T) {
	h, _ := canonicalHarness(t)
	names := []string{"profile", "risk", "ohlcv", "markets"}
	for mask := 1; mask < 16; mask++ {
		var sel []string
		for i, n := range names {
			if mask&(1<<i) != 0 {
				sel = append(sel, n)
			}
		}
		t.Run(strings.Join(sel, ","), func(t *testing.T) {
			r := h.get(t, "/v1/assets/bitcoin?include="+strings.Join(sel, ","))
			wantOK(t, r, "private, max-age=30")
			inc, _ := r.body["includes"].(map[string]any)
			if len(inc) != len(sel) {
				t.Fatalf("includes %v; want %v", inc, sel)
			}
			for _, n := range sel {
				if b := block(t, r, n); b["ok"] != true || b["data"] == nil {
					t.Errorf("%s block not ok: %v", n, b)
				}
			}
		})
	}
	// Duplicates and spaces collapse; an unknown block is a 400.
	r := h.get(t, "/v1/assets/bitcoin?include=risk,%20risk,,markets")
	if inc := r.body["includes"].(map[string]any); len(inc) != 2 {
		t.Errorf("duplicate include: %v", inc)
	}
	r = h.get(t, "/v1/assets/bitcoin?include=risk,price")
	wantErr(t, r, 400, "BadRequestError", "invalid_include")
	// No include: no includes key at all.
	if r := h.get(t, "/v1/assets/bitcoin"); strings.Contains(r.raw, `"includes"`) {
		t.Errorf("includes without include param: %.300s", r.raw)
	}
}

func TestIncludeBlocksContent(t *testing.T) {
	h, snap := canonicalHarness(t)
	btc, _ := snap.Asset("bitcoin")
	tesla, _ := snap.Asset("tesla")
	r := h.get(t, "/v1/assets/bitcoin?include=profile,risk,ohlcv,markets&ohlcvInterval=1D&marketsLimit=1")
	p := block(t, r, "profile")["data"].(map[string]any)
	if p["coinId"] != "bitcoin" || p["price"] != 90_000.0 || p["description"] == nil || p["allTimeHighAt"] != float64(fxNow.Add(-48*time.Hour).Unix()) {
		t.Errorf("profile data: %v", p)
	}
	rk := block(t, r, "risk")["data"].(map[string]any)
	if rk["mint"] != h.srv.d.Markets.(fakeMarketData).poolMint || rk["modelVersion"] != risk.ModelVersion || rk["components"] == nil {
		t.Errorf("risk data: %v", rk)
	}
	// Pools created 3 days ago: the token is under 7 days old.
	if in := rk["inputs"].(map[string]any); in["tokenAgeDays"] != 3.0 {
		t.Errorf("risk tokenAgeDays %v; want 3 (oldest pool)", in["tokenAgeDays"])
	}
	o := block(t, r, "ohlcv")["data"].(map[string]any)
	// bitcoin has no stock ticker: mint candles; no trades were ingested
	// for it, so they are the market-data provider's.
	if o["source"] != asset.SourceMarketDataA || o["interval"] != "1D" || o["mint"] == nil || len(o["candles"].([]any)) != 7 {
		t.Errorf("ohlcv data: %v", o)
	}
	if r := h.get(t, "/v1/assets/bitcoin/ohlcv?interval=1D"); r.body["source"] != asset.SourceMarketDataA || len(r.body["candles"].([]any)) != 7 {
		t.Errorf("/ohlcv provider fallback: %.300s", r.raw)
	}
	if r := h.get(t, "/v1/assets/usd/ohlcv?interval=1D"); r.body["source"] != asset.SourceAnalyticsTrades || len(r.body["candles"].([]any)) != 0 {
		t.Errorf("/ohlcv without trades or provider candles: %.300s", r.raw)
	}
	m := block(t, r, "markets")["data"].(map[string]any)
	if m["limit"] != 1.0 || m["total"] != 1.0 || len(m["markets"].([]any)) != 1 {
		t.Errorf("markets data: %v", m)
	}

	// Mapped equity: stock candles, unless mint is passed.
	r = h.get(t, "/v1/assets/tesla?include=ohlcv&ohlcvInterval=1D")
	o = block(t, r, "ohlcv")["data"].(map[string]any)
	if o["source"] != asset.SourceAnalyticsStock || o["symbol"] != "TSLA" || len(o["candles"].([]any)) != 7 {
		t.Errorf("tesla ohlcv: %v", o)
	}
	r = h.get(t, "/v1/assets/tesla?include=ohlcv&ohlcvInterval=1D&mint="+tesla.Variants[0].Mint)
	if o = block(t, r, "ohlcv")["data"].(map[string]any); o["source"] != asset.SourceAnalyticsTrades || o["mint"] != tesla.Variants[0].Mint {
		t.Errorf("tesla ohlcv with mint: %v", o)
	}
	// A mint path fixes the include mint.
	r = h.get(t, "/v1/assets/"+btc.Variants[0].Mint+"?include=risk")
	if rk = block(t, r, "risk")["data"].(map[string]any); rk["mint"] != btc.Variants[0].Mint {
		t.Errorf("path mint: risk mint %v", rk["mint"])
	}
	// Profile fallbacks: no external id, then an id nothing is cached for.
	if b := block(t, h.get(t, "/v1/assets/usd?include=profile"), "profile"); b["ok"] != false || b["reason"] != "not_available" {
		t.Errorf("usd profile: %v", b)
	}
	if b := block(t, h.get(t, "/v1/assets/ethereum?include=profile"), "profile"); b["ok"] != false || b["reason"] != "not_found" {
		t.Errorf("ethereum profile (nothing cached): %v", b)
	}
	h.srv.d.ExternalProvider = false
	if b := block(t, h.get(t, "/v1/assets/bitcoin?include=profile"), "profile"); b["reason"] != "not_configured" {
		t.Errorf("no provider: %v", b)
	}
}

// TestIncludeScopes: assets:read covers every block; a key with only
// fine-grained scopes gets the asset and the blocks it holds a scope for,
// the others as {ok:false, reason:"forbidden"}; a key with no asset scope
// is refused.
func TestIncludeScopes(t *testing.T) {
	h, _ := canonicalHarness(t)
	all := "/v1/assets/bitcoin?include=profile,risk,ohlcv,markets"
	tests := []struct {
		key     string
		allowed []string // blocks answered ok
	}{
		{"read", []string{"profile", "risk", "ohlcv", "markets"}},
		{"risk", []string{"risk"}},
		{"profile", []string{"profile"}},
		{"none", []string{"ohlcv"}}, // assets:ohlcv:read
		{"markets", []string{"markets"}},
		{"risk+markets", []string{"risk", "markets"}},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			r := h.getAs(t, tt.key, all)
			wantOK(t, r, "private, max-age=30")
			if a, _ := r.body["asset"].(map[string]any); a["assetId"] != "bitcoin" {
				t.Fatalf("asset missing: %.300s", r.raw)
			}
			for _, n := range []string{"profile", "risk", "ohlcv", "markets"} {
				b := block(t, r, n)
				want := false
				for _, a := range tt.allowed {
					want = want || a == n
				}
				if want && b["ok"] != true {
					t.Errorf("%s: want ok, got %v", n, b)
				}
				if !want && (b["ok"] != false || b["reason"] != "forbidden" || b["message"] == "") {
					t.Errorf("%s: want forbidden, got %v", n, b)
				}
			}
		})
	}
	wantErr(t, h.getAs(t, "trades", all), 403, "ForbiddenError", "insufficient_scope")
	// Outcomes are counted: profile was forbidden to risk, none, markets and risk+markets.
	var m dto.Metric
	if err := h.srv.d.Metrics.Includes.WithLabelValues("profile", "forbidden").Write(&m); err != nil {
		t.Fatal(err)
	}
	if n := m.GetCounter().GetValue(); n != 4 {
		t.Errorf("assetd_include_blocks_total{block=profile,outcome=forbidden} = %v; want 4", n)
	}
}

func TestRiskEndpoints(t *testing.T) {
	h, snap := canonicalHarness(t)
	usd, _ := snap.Asset("usd")
	usdc := usd.Variants[0].Mint
	var sum risk.Summary
	r := h.get(t, "/v1/assets/risk-summary?mint="+usdc)
	wantOK(t, r, "no-store")
	decodeStrict(t, r, &sum)
	if sum.HasInsufficientData || sum.Grade == "" || sum.Caps == nil {
		t.Errorf("usdc summary: %+v", sum)
	}
	// The address alias, the risk scope alone, and a mint nothing is cached for.
	if r := h.getAs(t, "risk", "/v1/assets/risk-summary?address="+usdc); r.status != 200 {
		t.Errorf("address alias with assets:risk:read: %d %s", r.status, r.raw)
	}
	unknown := mintOf("risk unknown")
	r = h.get(t, "/v1/assets/risk-summary?mint="+unknown)
	sum = risk.Summary{}
	decodeStrict(t, r, &sum)
	if !sum.HasInsufficientData || sum.Score != 0 || sum.Grade != "C" || sum.Label != "Insufficient Data" || sum.Tone != "info" ||
		sum.IsTrustedLaunch || len(sum.Caps) != 0 || sum.InsufficientDataReason == "" || !strings.Contains(r.raw, `"caps":[]`) {
		t.Errorf("no snapshot: %s", r.raw)
	}
	wantErr(t, h.get(t, "/v1/assets/risk-summary"), 400, "BadRequestError", "missing_param")
	wantErr(t, h.get(t, "/v1/assets/risk-summary?mint=nope"), 400, "BadRequestError", "invalid_mint")
	wantErr(t, h.getAs(t, "profile", "/v1/assets/risk-summary?mint="+usdc), 403, "ForbiddenError", "insufficient_scope")

	// Asset-scoped summary and details.
	r = h.get(t, "/v1/assets/usd/risk-details")
	wantOK(t, r, "no-store")
	if r.body["mint"] != h.srv.d.Catalog.Primary(registry.Resolution{AssetID: "usd"}, asset.StrategyLiquidity).Mint {
		t.Errorf("details mint %v; want the liquidity primary", r.body["mint"])
	}
	d := r.body["risk"].(map[string]any)
	requireKeys(t, "risk-details", d, "score", "grade", "label", "tone", "isTrustedLaunch", "caps", "hasInsufficientData",
		"modelVersion", "rawScore", "components", "borderlineSignals", "inputs")
	if comps := d["components"].([]any); len(comps) != 5 {
		t.Errorf("components: %v", comps)
	}
	r = h.get(t, "/v1/assets/usd/risk-summary?mint="+usdc)
	if r.status != 200 || r.body["mint"] != usdc || r.body["risk"].(map[string]any)["modelVersion"] != nil {
		t.Errorf("summary: %d %.300s", r.status, r.raw)
	}
	wantErr(t, h.get(t, "/v1/assets/usd/risk-summary?mint="+mintOf("other")), 400, "BadRequestError", "mint_not_variant")
	// Singleton: never a 404 for a well-formed unknown mint.
	r = h.get(t, "/v1/assets/"+unknown+"/risk-summary")
	if r.status != 200 || r.body["risk"].(map[string]any)["hasInsufficientData"] != true {
		t.Errorf("singleton risk: %d %.300s", r.status, r.raw)
	}
}

func TestProfileTickersDescription(t *testing.T) {
	h, _ := canonicalHarness(t)
	r := h.get(t, "/v1/assets/bitcoin/profile")
	wantOK(t, r, "private, max-age=300, stale-while-revalidate=600")
	if p := r.body["profile"].(map[string]any); p["ok"] != true || r.body["coinId"] != "bitcoin" {
		t.Errorf("profile: %.300s", r.raw)
	}
	unknown := mintOf("profile unknown")
	for _, ref := range []string{"usd", unknown} {
		r = h.get(t, "/v1/assets/"+ref+"/profile")
		if r.status != 200 || r.body["profile"].(map[string]any)["reason"] != "not_available" || r.body["coinId"] != nil {
			t.Errorf("%s profile: %d %.300s", ref, r.status, r.raw)
		}
		r = h.get(t, "/v1/assets/"+ref+"/tickers")
		if tk := r.body["tickers"].(map[string]any); r.status != 200 || tk["total"] != 0.0 || len(tk["rows"].([]any)) != 0 {
			t.Errorf("%s tickers: %d %.300s", ref, r.status, r.raw)
		}
		r = h.get(t, "/v1/assets/"+ref+"/description")
		if r.status != 200 || r.body["description"] != nil || r.body["mint"] == "" {
			t.Errorf("%s description: %d %.300s", ref, r.status, r.raw)
		}
	}
	wantErr(t, h.get(t, "/v1/assets/no-such-asset-xyz/profile"), 404, "NotFoundError", "")

	// Tickers: default 10 by volume, limit clamped to 50, offset, orders.
	vols := func(r resp) []float64 {
		var out []float64
		for _, row := range r.body["tickers"].(map[string]any)["rows"].([]any) {
			out = append(out, row.(map[string]any)["volume24hUsd"].(float64))
		}
		return out
	}
	r = h.get(t, "/v1/assets/bitcoin/tickers")
	if v := vols(r); len(v) != 10 || v[0] != 60e6 || r.body["tickers"].(map[string]any)["total"] != 60.0 {
		t.Errorf("default tickers: %v", v)
	}
	if v := vols(h.get(t, "/v1/assets/bitcoin/tickers?limit=500")); len(v) != 50 {
		t.Errorf("limit clamp: %d rows", len(v))
	}
	wantErr(t, h.get(t, "/v1/assets/bitcoin/tickers?limit=x"), 400, "BadRequestError", "invalid_param") // limits clamp; non-integers are 400
	if v := vols(h.get(t, "/v1/assets/bitcoin/tickers?offset=58")); len(v) != 2 || v[1] != 1e6 {
		t.Errorf("offset: %v", v)
	}
	if v := vols(h.get(t, "/v1/assets/bitcoin/tickers?order=volume_asc&limit=2")); len(v) != 2 || v[0] != 1e6 {
		t.Errorf("volume_asc: %v", v)
	}
	r = h.get(t, "/v1/assets/bitcoin/tickers?order=trust_score_desc&limit=1")
	if row := r.body["tickers"].(map[string]any)["rows"].([]any)[0].(map[string]any); row["trustScore"] != "green" || row["volume24hUsd"] != 59e6 {
		t.Errorf("trust_score_desc: %v", row)
	}
	wantErr(t, h.get(t, "/v1/assets/bitcoin/tickers?order=price"), 400, "BadRequestError", "invalid_param")
	wantErr(t, h.get(t, "/v1/assets/bitcoin/tickers?offset=-1"), 400, "BadRequestError", "invalid_param")

	// Description: the first paragraph of the provider text.
	r = h.get(t, "/v1/assets/bitcoin/description")
	d := r.body["description"].(map[string]any)
	if d["summary"] != "Synthetic test coin. It exists only in this test." || d["source"] != "extprovider" || d["coinId"] != "bitcoin" {
		t.Errorf("description: %.300s", r.raw)
	}
	wantErr(t, h.get(t, "/v1/assets/bitcoin/description?mint="+mintOf("x")), 400, "BadRequestError", "mint_not_variant")
	// Scopes: assets:read only (TestRouteScopesFollowSpec).
	wantErr(t, h.getAs(t, "profile", "/v1/assets/bitcoin/tickers"), 403, "ForbiddenError", "insufficient_scope")
}

func TestPriceChartCanonicalSources(t *testing.T) {
	h, _ := canonicalHarness(t)
	from, to := fxNow.Unix()-3*86400, fxNow.Unix()
	q := fmt.Sprintf("?interval=1D&from=%d&to=%d", from, to)
	for _, tt := range []struct{ ref, source string }{
		{"tesla", asset.SourceAnalyticsStock},
		{"bitcoin", asset.SourceExtProvider},
		{"usd", asset.SourceAnalyticsTrades},
	} {
		r := h.get(t, "/v1/assets/"+tt.ref+"/price-chart"+q)
		if r.status != 200 || r.body["source"] != tt.source {
			t.Errorf("%s: %d source %v; want %s", tt.ref, r.status, r.body["source"], tt.source)
		}
		if tt.source != asset.SourceAnalyticsTrades && len(r.body["candles"].([]any)) != 3 {
			t.Errorf("%s: %d candles; want 3", tt.ref, len(r.body["candles"].([]any)))
		}
	}
}

func TestSummarize(t *testing.T) {
	long := strings.Repeat("word ", 200)
	tests := []struct{ in, want string }{
		{"  Short text.  ", "Short text."},
		{"First para.\n\nSecond para.", "First para."},
		{"Line one\nline two", "Line one line two"},
		{strings.Repeat("a", 200) + ". " + long, strings.Repeat("a", 200) + "."},
	}
	for _, tt := range tests {
		if got := summarize(tt.in); got != tt.want {
			t.Errorf("summarize(%.40q) = %.60q; want %.60q", tt.in, got, tt.want)
		}
	}
	got := summarize(long)
	if !strings.HasSuffix(got, "…") || len([]rune(got)) > MaxDescriptionSummary+1 || strings.Contains(got, "  ") {
		t.Errorf("long text without sentences: %q", got)
	}
}

// blockingMarkets holds every Token read until release is closed.
type blockingMarkets struct {
	fakeMarketData
	release chan struct{}
}

func (b blockingMarkets) Token(mint string) (market.Token, bool) {
	<-b.release
	return b.fakeMarketData.Token(mint)
}

// TestIncludeDeadline: a block still running at the deadline answers
// "timeout" while the others are served; the call never waits for it.
func TestIncludeDeadline(t *testing.T) {
	h, _ := canonicalHarness(t)
	release := make(chan struct{})
	defer close(release)
	h.srv.d.Markets = blockingMarkets{fakeMarketData: h.srv.d.Markets.(fakeMarketData), release: release}
	// The blocked block waits the whole deadline; the others finish at
	// once. Each call's blocked block is a timeout; a loaded machine may
	// also make the others miss a call's deadline, so the call is asked
	// again until one shows them served (a wait, not a speed assertion).
	h.srv.d.IncludeDeadline = 3 * time.Second
	calls := 0
	defer func() {
		if calls > 1 {
			t.Logf("the unblocked blocks were served at call %d (the earlier ones missed the deadline: a loaded machine)", calls)
		}
	}()
	poll.For(t, 2*time.Minute, "a call with the unblocked blocks served", func() bool {
		calls++
		r := h.get(t, "/v1/assets/bitcoin?include=risk,markets,profile")
		wantOK(t, r, "private, max-age=30")
		if b := block(t, r, "risk"); b["ok"] != false || b["reason"] != "timeout" || b["message"] == "" {
			t.Fatalf("blocked risk block: %v", b)
		}
		served := true
		for _, n := range []string{"markets", "profile"} {
			switch b := block(t, r, n); {
			case b["ok"] == true:
			case b["reason"] == "timeout":
				served = false
			default:
				t.Fatalf("%s block: %v", n, b)
			}
		}
		return served
	})
}
