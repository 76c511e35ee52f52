package httpapi

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/apikey"
	"github.com/assetd/assetd/internal/chart"
	"github.com/assetd/assetd/internal/registry"
)

// analyticsHarness is the market harness with an analytics engine fed a
// few trades of a crypto asset's primary mint, USDC and wrapped SOL, plus
// keys with assets:ohlcv:read only and trades:write only.
func analyticsHarness(t *testing.T) (*harness, *analytics.Engine, *registry.Asset) {
	t.Helper()
	h, _, snap := marketHarness(t)
	eng, err := analytics.New(analytics.Config{Clock: func() time.Time { return h.now }})
	if err != nil {
		t.Fatal(err)
	}
	h.srv.d.Analytics = eng
	var crypto *registry.Asset
	for _, a := range snap.Assets() {
		if a.Category == "crypto" && a.AssetID != "solana" && len(a.Variants) == 1 {
			crypto = &a
			break
		}
	}
	if crypto == nil {
		t.Fatal("no single-variant crypto asset in the seed")
	}
	wallets := syntheticMints(20)
	var trades []analytics.Trade
	for _, mint := range []string{crypto.Variants[0].Mint, mkUSDC, mkSOL} {
		for i := range 12 {
			trades = append(trades, analytics.Trade{Signature: fmt.Sprintf("sig-%s-%d", mint[:6], i), Slot: int64(1000 + i),
				BlockTime: h.now.Unix() - int64(3600-i*300), Mint: mint, Side: "buy", TokenAmount: 10, USDAmount: 50 + float64(i),
				PriceUSD: 5 + float64(i)/10, Wallet: wallets[i], Venue: "raydium"})
		}
	}
	if r := eng.Ingest(trades); r.Accepted != len(trades) {
		t.Fatalf("ingest: %+v", r)
	}
	var keys []apikey.Key
	for _, spec := range []struct {
		name   string
		scopes []string
	}{{"read", []string{apikey.ScopeAssetsRead}}, {"ohlcv", []string{apikey.ScopeOHLCVRead}}, {"trades", []string{apikey.ScopeTradesWrite}}} {
		p, k := mkKey(t, "key_"+spec.name, spec.scopes...)
		h.plain[spec.name] = p
		keys = append(keys, k)
	}
	h.keys.set(t, keys...)
	return h, eng, crypto
}

type trendingResp struct {
	Trending []trendingRow `json:"trending"`
	Meta     struct {
		Limit          int    `json:"limit"`
		Offset         int    `json:"offset"`
		Total          int    `json:"total"`
		AsOf           *int64 `json:"asOf"`
		ScoringVersion string `json:"scoringVersion"`
	} `json:"meta"`
}

func TestTrending(t *testing.T) {
	h, eng, crypto := analyticsHarness(t)
	var out trendingResp
	r := h.get(t, "/v1/assets/trending")
	if r.status != 200 {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	decodeStrict(t, r, &out)
	if len(out.Trending) != 0 || out.Meta.Total != 0 || out.Meta.Limit != 50 || out.Meta.AsOf != nil {
		t.Fatalf("before the first run: %s", r.raw)
	}
	if n := h.srv.RefreshTrending(h.now); n != 1 {
		t.Fatalf("trending rows %d, want 1 (USDC and SOL excluded)", n)
	}
	r = h.get(t, "/v1/assets/trending")
	if r.status != 200 || r.header.Get("Cache-Control") != "private, max-age=30" {
		t.Fatalf("%d %v %s", r.status, r.header, r.raw)
	}
	out = trendingResp{}
	decodeStrict(t, r, &out)
	if len(out.Trending) != 1 || out.Meta.Total != 1 || out.Meta.AsOf == nil || *out.Meta.AsOf != h.now.Unix() || out.Meta.ScoringVersion != analytics.ScoringVersion {
		t.Fatalf("trending: %s", r.raw)
	}
	row := out.Trending[0]
	if row.Rank != 1 || row.Mint != crypto.Variants[0].Mint || row.AssetID != crypto.AssetID || row.Category != "crypto" || row.Symbol == "" ||
		row.Market.Source != "analytics_trades" || row.Market.MetricsSource != "analytics_trades" || row.Market.Trade24h != 12 ||
		row.Trending.ScoringVersion != analytics.ScoringVersion || row.Trending.Score <= 0 {
		t.Fatalf("row: %+v", row)
	}
	var raw map[string]any
	_ = json.Unmarshal([]byte(r.raw), &raw)
	for _, f := range []string{"volume5mUSD", "volume15mUSD", "volume6hUSD", "trade5m", "uniqueWallet5m", "priceChange1hPercent", "lastTradeAt", "asOf"} {
		if _, ok := raw["trending"].([]any)[0].(map[string]any)["market"].(map[string]any)[f]; !ok {
			t.Errorf("market.%s missing", f)
		}
	}
	for q, want := range map[string]int{"category=crypto": 1, "category=stablecoin": 0, "category=lst": 0, "offset=1": 0, "limit=1": 1} {
		out = trendingResp{}
		decodeStrict(t, h.get(t, "/v1/assets/trending?"+q), &out)
		if len(out.Trending) != want {
			t.Errorf("%s: %d rows, want %d", q, len(out.Trending), want)
		}
	}
	for _, q := range []string{"category=meme", "offset=-1", "limit=x"} /* limits clamp (TestEveryLimitClamps) */ {
		if r := h.get(t, "/v1/assets/trending?"+q); r.status != 400 || errCode(r) != "invalid_param" {
			t.Errorf("%s: %d %s", q, r.status, r.raw)
		}
	}
	// A run with no eligible mint keeps the last set.
	if n := h.srv.RefreshTrending(h.now.Add(48 * time.Hour)); n != 1 {
		t.Fatalf("an empty run replaced the set (%d rows)", n)
	}
	_ = eng
}

type candlesResp struct {
	AssetID  string         `json:"assetId"`
	Mint     string         `json:"mint"`
	Interval string         `json:"interval"`
	From     int64          `json:"from"`
	To       int64          `json:"to"`
	Source   string         `json:"source"`
	Candles  []chart.Candle `json:"candles"`
}

func TestOHLCV(t *testing.T) {
	h, _, crypto := analyticsHarness(t)
	mint := crypto.Variants[0].Mint
	var out candlesResp
	r := h.get(t, "/v1/assets/"+crypto.AssetID+"/ohlcv")
	if r.status != 200 || r.header.Get("Cache-Control") != "private, max-age=60, stale-while-revalidate=300" {
		t.Fatalf("%d %v %s", r.status, r.header, r.raw)
	}
	decodeStrict(t, r, &out)
	if out.AssetID != crypto.AssetID || out.Mint != mint || out.Interval != "1H" || out.To != h.now.Unix() || out.From != h.now.Unix()-7*86400 {
		t.Fatalf("envelope: %s", r.raw)
	}
	// 12 trades from now−60m to now−5m: 1H bars at 11:00 only (now is 12:00).
	if len(out.Candles) != 1 || out.Candles[0].TradeCount() != 12 || out.Candles[0].IsOpen || out.Candles[0].Open != 5 || out.Candles[0].Close != 6.1 {
		t.Fatalf("candles: %+v", out.Candles)
	}
	out = candlesResp{}
	decodeStrict(t, h.get(t, fmt.Sprintf("/v1/assets/%s/ohlcv?interval=1D&mint=%s&from=%d&to=%d", crypto.AssetID, mint, h.now.Unix()-86400*3, h.now.Unix()+60)), &out)
	if len(out.Candles) != 1 || !out.Candles[0].IsOpen || out.Candles[0].TradeCount() != 12 {
		t.Fatalf("1D candles: %+v", out.Candles)
	}
	// The ohlcv scope alone governs the detail include block only (spec:
	// assets:read unless stated); see TestRouteScopesFollowSpec.
	if r := h.do(t, "GET", "/v1/assets/"+crypto.AssetID+"/ohlcv", map[string]string{"X-Api-Key": h.plain["ohlcv"]}, nil); r.status != 403 {
		t.Fatalf("ohlcv with assets:ohlcv:read: %d %s", r.status, r.raw)
	}
	if r := h.do(t, "GET", "/v1/assets/"+crypto.AssetID+"/price-chart", map[string]string{"X-Api-Key": h.plain["ohlcv"]}, nil); r.status != 403 {
		t.Fatalf("price-chart with assets:ohlcv:read: %d", r.status)
	}
	if r := h.do(t, "GET", "/v1/assets/"+crypto.AssetID+"/ohlcv", map[string]string{"X-Api-Key": h.plain["trades"]}, nil); r.status != 403 {
		t.Fatalf("ohlcv with trades:write: %d", r.status)
	}
	for _, c := range []struct{ q, code string }{
		{"interval=2H", "invalid_param"},
		{"from=10&to=5", "invalid_param"},
		{"from=abc", "invalid_param"},
		{"interval=1m&from=0&to=1000000", "range_too_large"},
		{"mint=" + mkUSDC, "mint_not_variant"},
		{"mint=notamint", "invalid_mint"},
	} {
		if r := h.get(t, "/v1/assets/"+crypto.AssetID+"/ohlcv?"+c.q); r.status != 400 || errCode(r) != c.code {
			t.Errorf("%s: %d %s", c.q, r.status, r.raw)
		}
	}
	if r := h.get(t, "/v1/assets/no-such-asset-xyz/ohlcv"); r.status != 404 {
		t.Errorf("unknown asset: %d %s", r.status, r.raw)
	}
}

func TestPriceChart(t *testing.T) {
	h, _, crypto := analyticsHarness(t)
	var out candlesResp
	r := h.get(t, "/v1/assets/"+crypto.AssetID+"/price-chart?interval=15m&from="+fmt.Sprint(h.now.Unix()-7200))
	if r.status != 200 || r.header.Get("Cache-Control") != "private, max-age=60, stale-while-revalidate=300" {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	decodeStrict(t, r, &out)
	if out.Mint != "" || strings.Contains(r.raw, `"mint"`) || out.Source != "analytics_trades" || out.Interval != "15m" || len(out.Candles) != 4 {
		t.Fatalf("price chart: %s", r.raw)
	}
	if r := h.get(t, "/v1/assets/"+crypto.AssetID+"/price-chart?from=5&to=5"); r.status != 400 {
		t.Fatalf("from >= to: %d", r.status)
	}
}

func (h *harness) ingest(t *testing.T, key, ct, body string) resp {
	t.Helper()
	return h.do(t, "POST", "/v1/internal/trades", map[string]string{"X-Api-Key": h.plain[key], "Content-Type": ct}, strings.NewReader(body))
}

func TestIngestTrades(t *testing.T) {
	h, eng, crypto := analyticsHarness(t)
	mint := crypto.Variants[0].Mint
	w := syntheticMints(1)[0]
	ev := func(sig string, usd float64) string {
		return fmt.Sprintf(`{"signature":%q,"slot":5,"blockTime":%d,"mint":%q,"side":"sell","tokenAmount":%g,"usdAmount":%g,"priceUsd":6,"wallet":%q,"venue":"orca"}`,
			sig, h.now.Unix()-30, mint, max(usd, 1)/6, usd, w)
	}
	body := strings.Join([]string{ev("n1", 6), "", ev("n2", 6), ev("n1", 6), ev("n3", -1), "{bad json", ev("sig-"+mint[:6]+"-0", 50)}, "\n")
	r := h.ingest(t, "trades", "application/x-ndjson", body)
	if r.status != 200 || r.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	var out struct {
		Accepted, Duplicates, Rejected int
		Reasons                        map[string]int
		Errors                         []ingestError
	}
	if err := json.Unmarshal([]byte(r.raw), &out); err != nil {
		t.Fatal(err)
	}
	if out.Accepted != 2 || out.Duplicates != 2 || out.Rejected != 2 || out.Reasons["non_positive_amount"] != 1 || out.Reasons["malformed_json"] != 1 ||
		len(out.Errors) != 2 || out.Errors[0].Index != 3 || out.Errors[0].Field != "usdAmount" {
		t.Fatalf("result: %s", r.raw)
	}
	if m := eng.Windows(mint, h.now); m == nil || m.Trade24h != 14 {
		t.Fatalf("windows after ingest: %+v", m)
	}
	r = h.ingest(t, "trades", "application/json", "["+ev("j1", 6)+","+ev("j1", 6)+"]")
	if r.status != 200 || !strings.Contains(r.raw, `"accepted":1,"duplicates":1,"rejected":0,"reasons":{}`) {
		t.Fatalf("json array: %d %s", r.status, r.raw)
	}
	if r := h.ingest(t, "read", "application/json", "[]"); r.status != 403 {
		t.Fatalf("assets:read key: %d", r.status)
	}
	for _, c := range []struct {
		ct, body string
		status   int
		code     string
	}{
		{"text/plain", ev("x", 1), 400, "unsupported_content_type"},
		{"application/json", "{}", 400, "invalid_type"},
		{"application/json", "[]", 400, "no_events"},
		{"application/x-ndjson", "\n\n", 400, "no_events"},
		{"application/x-ndjson", strings.Repeat("{}\n", MaxTradesPerIngest+1), 400, "too_many_events"},
		{"application/json", "[" + strings.TrimSuffix(strings.Repeat("{},", MaxTradesPerIngest+1), ",") + "]", 400, "too_many_events"},
		{"application/x-ndjson", strings.Repeat("x", MaxTradeBodyBytes+1), 413, "body_too_large"},
	} {
		if r := h.ingest(t, "trades", c.ct, c.body); r.status != c.status || errCode(r) != c.code {
			t.Errorf("%s %.30q: %d %.300s", c.ct, c.body, r.status, r.raw)
		}
	}
	// Over the global 1 MiB, under 8 MiB: accepted.
	big := strings.Repeat(ev("pad", 6)+"\n", 1) + strings.Repeat(" ", 2<<20) + "\n" + ev("big", 6)
	if r := h.ingest(t, "trades", "application/x-ndjson", big); r.status != 200 || !strings.Contains(r.raw, `"accepted":2`) {
		t.Fatalf("2 MiB body: %d %.300s", r.status, r.raw)
	}
}

// TestIngestTradeLegs: (signature, leg) identifies a trade over HTTP: two
// legs of one signature are both accepted, a repeated leg is a duplicate,
// leg defaults to 0 (the bare-signature trade), and an out-of-range leg
// rejects that event with invalid_leg / field leg.
func TestIngestTradeLegs(t *testing.T) {
	h, _, crypto := analyticsHarness(t)
	mint := crypto.Variants[0].Mint
	w := syntheticMints(1)[0]
	ev := func(sig, leg string) string {
		return fmt.Sprintf(`{"signature":%q,%s"slot":5,"blockTime":%d,"mint":%q,"side":"buy","tokenAmount":1,"usdAmount":6,"priceUsd":6,"wallet":%q,"venue":"orca"}`,
			sig, leg, h.now.Unix()-30, mint, w)
	}
	body := strings.Join([]string{ev("route", ""), ev("route", `"leg":1,`), ev("route", `"leg":0,`), ev("route", `"leg":1,`), ev("route", `"leg":256,`), ev("route", `"leg":-1,`)}, "\n")
	r := h.ingest(t, "trades", "application/x-ndjson", body)
	if r.status != 200 {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	var out struct {
		Accepted, Duplicates, Rejected int
		Reasons                        map[string]int
		Errors                         []ingestError
	}
	if err := json.Unmarshal([]byte(r.raw), &out); err != nil {
		t.Fatal(err)
	}
	if out.Accepted != 2 || out.Duplicates != 2 || out.Rejected != 2 || out.Reasons["invalid_leg"] != 2 ||
		len(out.Errors) != 2 || out.Errors[0].Index != 4 || out.Errors[0].Field != "leg" || out.Errors[0].Code != "invalid_leg" {
		t.Fatalf("result: %s", r.raw)
	}
	if r := h.ingest(t, "trades", "application/x-ndjson", ev("route", `"leg":2,`)); !strings.Contains(r.raw, `"accepted":1`) {
		t.Fatalf("leg 2: %s", r.raw)
	}
}
