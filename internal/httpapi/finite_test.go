package httpapi

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/catalog"
	"github.com/assetd/assetd/internal/chart"
	"github.com/assetd/assetd/internal/market"
)

func fptr(v float64) *float64 { return &v }

// embeddedInner is an unexported type embedded in a response (reflect
// reads its fields as read-only).
type embeddedInner struct {
	A float64   `json:"a"`
	T time.Time `json:"t"`
}

// finiteSamples are response values of every shape encodeFinite handles.
func finiteSamples() map[string]any {
	mint := "So11111111111111111111111111111111111111112"
	return map[string]any{
		"trending row": trendingRow{Rank: 1, AssetID: "a", Mint: mint, Symbol: "<S&P>", Market: analytics.WindowMetrics{Price: fptr(1.5e-9), Volume5mUSD: 12.25}},
		"embedded chart": struct {
			AssetID  string          `json:"assetId"`
			Interval market.Interval `json:"interval"`
			chart.Chart
		}{"x", "1H", chart.Chart{Source: "analytics_trades", Mint: &mint, Candles: []chart.Candle{
			{Candle: market.Candle{Time: 1, Open: 1, High: 2, Low: 0.5, Close: 1.5, Volume: 3e21}, Trades: func() *int64 { n := int64(2); return &n }(), IsOpen: true}, {Candle: market.Candle{Time: 2}}}}},
		"market":    asset.Market{Source: "marketdata_a", Price: fptr(2), Liquidity: fptr(1e6)},
		"map":       map[string]any{"b": 1.0, "a": []int{1, 2}, "c": nil, "d": map[string]int{"z": 1, "y": 2}, "e": []byte("hi"), "t": time.Unix(1700000000, 5).UTC()},
		"nil slice": struct{ X []int }{},
		"unexported embedded": struct {
			embeddedInner
			B int `json:"b"`
		}{embeddedInner{1.5, time.Unix(5, 0).UTC()}, 2},
		"empty envelope": envelope{Error: envelopeBody{Tag: "T", Message: "m"}},
		"float32":        []float32{0.1, 3},
		"pointer":        &struct{ A *int }{},
		"catalog rows":   catalogRows(fptr(2e6)),
	}
}

// catalogRows are curated rows whose variants have a market of the given
// liquidity.
func catalogRows(liquidity *float64) any {
	v := &catalog.Variant{VariantID: "syn:native", Mint: "m1", Kind: asset.KindNative, LiquidityTier: asset.Tier2, TrustTier: asset.Tier2,
		Tags: []string{"<fiat>"}, Issuer: "A & B", Symbol: "SYN", Market: &asset.Market{Price: fptr(1), Liquidity: liquidity}}
	w := &catalog.Variant{VariantID: "syn:wrapped", Mint: "m2", Kind: asset.KindWrapped, LiquidityTier: asset.Tier3, TrustTier: asset.Tier3, Tags: []string{}}
	return struct {
		Rows []catalog.Row `json:"rows"`
	}{[]catalog.Row{{AssetID: "syn", Category: "crypto", PrimaryVariant: v, Variants: []*catalog.Variant{v, w}}}}
}

// TestEncodeFiniteMatchesEncodingJSON: on finite values the fallback
// writes exactly what encoding/json writes.
func TestEncodeFiniteMatchesEncodingJSON(t *testing.T) {
	for name, v := range finiteSamples() {
		var want bytes.Buffer
		if err := json.NewEncoder(&want).Encode(v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var got bytes.Buffer
		first, err := encodeFinite(&got, v)
		if err != nil || first != "" {
			t.Fatalf("%s: encodeFinite = %q, %v", name, first, err)
		}
		if got.String() != want.String() {
			t.Errorf("%s:\n got %s\nwant %s", name, got.String(), want.String())
		}
	}
}

// TestEncodeFiniteNulls: NaN and ±Inf become null wherever they are, the
// first one's path is reported, and the rest of the body is intact.
func TestEncodeFiniteNulls(t *testing.T) {
	tests := []struct {
		name  string
		v     any
		want  string
		first string
	}{
		{"pointer field", asset.Market{Source: "marketdata_a", Price: fptr(math.Inf(1))}, `"price":null`, "price"},
		{"value field in a slice", struct {
			Rows []chart.Candle `json:"rows"`
		}{[]chart.Candle{{Candle: market.Candle{Time: 1, Open: 1}}, {Candle: market.Candle{Time: 2, Volume: math.Inf(1)}}}}, `{"time":2,"open":0,"high":0,"low":0,"close":0,"volume":null}`, "rows[1].volume"},
		{"NaN in a map", map[string]float64{"a": 1, "b": math.NaN()}, `{"a":1,"b":null}`, "b"},
		{"-Inf top level", math.Inf(-1), "null", "(body)"},
		{"catalog variant market", catalogRows(fptr(math.NaN())), `"market":{"price":1,"liquidity":null,`, "rows[0].primaryVariant.market.liquidity"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := json.Marshal(tt.v); err == nil {
				t.Fatal("encoding/json accepted the value; the case tests nothing")
			}
			var buf bytes.Buffer
			first, err := encodeFinite(&buf, tt.v)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(buf.String(), tt.want) || first != tt.first {
				t.Errorf("got %s (first %q), want %s (first %q)", buf.String(), first, tt.want, tt.first)
			}
			if !json.Valid(buf.Bytes()) {
				t.Errorf("invalid JSON: %s", buf.String())
			}
		})
	}
}

// TestNonFiniteResponseIsNullNot500: a trending row whose market holds
// +Inf (what two usdAmount 1e308 trades produced before the value
// bounds) is served 200 with null, and logged once per route and field.
func TestNonFiniteResponseIsNullNot500(t *testing.T) {
	h, _, _ := analyticsHarness(t)
	var logs bytes.Buffer // requests run one at a time
	h.srv.d.Log = slog.New(slog.NewTextHandler(&logs, nil))
	h.srv.trending.Store(&trendingView{scoringVersion: analytics.ScoringVersion, rows: []trendingRow{{Rank: 1, Mint: mkSOL,
		Market: analytics.WindowMetrics{Volume5mUSD: math.Inf(1), Price: fptr(math.NaN())}}}})
	for range 3 {
		r := h.get(t, "/v1/assets/trending")
		if r.status != 200 || !strings.Contains(r.raw, `"volume5mUSD":null`) || !strings.Contains(r.raw, `"price":null`) {
			t.Fatalf("%d %s", r.status, r.raw)
		}
	}
	if n := strings.Count(logs.String(), "non-finite number written as null"); n != 1 {
		t.Errorf("logged %d times, want once:\n%s", n, logs.String())
	}
	if !strings.Contains(logs.String(), "field=trending[0].market.price") {
		t.Errorf("log lacks the field:\n%s", logs.String())
	}
}

// TestIngestRejectsAbsurdValues: values that passed before the value
// bounds are rejected per event with their reason.
func TestIngestRejectsAbsurdValues(t *testing.T) {
	h, _, crypto := analyticsHarness(t)
	mint := crypto.Variants[0].Mint
	ev := func(sig string, usd, tokens, price float64) string {
		b, _ := json.Marshal(analytics.Trade{Signature: sig, Slot: 1, BlockTime: h.now.Unix() - 60, Mint: mint, Side: "buy",
			TokenAmount: tokens, USDAmount: usd, PriceUSD: price, Wallet: mkSOL, Venue: "raydium"})
		return string(b)
	}
	body := strings.Join([]string{
		ev("huge-1", 1e308, 2, 150), ev("huge-2", 1e308, 2, 150),
		ev("price", 300, 2, 1e308),
		ev("mismatch", 3000, 2, 150),
		ev("ok", 300, 2, 150),
	}, "\n")
	r := h.ingest(t, "trades", "application/x-ndjson", body)
	var out struct {
		Accepted, Rejected int
		Reasons            map[string]int
	}
	if err := json.Unmarshal([]byte(r.raw), &out); err != nil || r.status != 200 {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	if out.Accepted != 1 || out.Rejected != 4 || out.Reasons["amount_too_large"] != 2 || out.Reasons["price_out_of_range"] != 1 ||
		out.Reasons["inconsistent_usd_amount"] != 1 {
		t.Fatalf("ingest: %s", r.raw)
	}
	r = h.get(t, "/v1/assets/"+crypto.AssetID+"/ohlcv")
	if r.status != 200 || strings.Contains(r.raw, `"volume":null`) {
		t.Fatalf("ohlcv after the absurd trades: %d %s", r.status, r.raw)
	}
}

// TestEncodeFiniteCatalogVariant: a NaN in a catalog variant's market is
// written as the null an absent value gives, the rest of the body as
// encoding/json writes it.
func TestEncodeFiniteCatalogVariant(t *testing.T) {
	var want, got bytes.Buffer
	if err := json.NewEncoder(&want).Encode(catalogRows(nil)); err != nil {
		t.Fatal(err)
	}
	first, err := encodeInto(&got, catalogRows(fptr(math.NaN())))
	if err != nil || first != "rows[0].primaryVariant.market.liquidity" {
		t.Fatalf("encodeInto: first %q, %v", first, err)
	}
	if got.String() != want.String() {
		t.Errorf("got  %s\nwant %s", got.String(), want.String())
	}
}
