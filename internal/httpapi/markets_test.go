package httpapi

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/catalog"
	"github.com/assetd/assetd/internal/demo"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/marketcache"
	"github.com/assetd/assetd/internal/registry"
	"github.com/mr-tron/base58"
)

const (
	mkSOL  = "So11111111111111111111111111111111111111112"
	mkUSDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
	// mkUnknown is a real token mint (from the shared token index) that the
	// seed registry does not list.
	mkUnknown = "11DX4CUUUoSoFHMGu74f23rrSofk2DSwy73J3NhgShC"
)

// marketHarness serves the seed registry with the demo world behind a real
// market cache, warmed synchronously.
func marketHarness(t testing.TB) (*harness, *marketcache.Cache, *registry.Snapshot) {
	t.Helper()
	snap, err := seedSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	now := func() time.Time { return time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC) }
	w := demo.New(demo.Config{Assets: snap.Assets(), Now: now})
	c := marketcache.New(marketcache.Options{Snapshots: []market.SnapshotProvider{w}, Markets: w, OHLCV: w, Now: now})
	var mints []string
	for _, a := range snap.Assets() {
		for _, v := range a.Variants {
			mints = append(mints, v.Mint)
		}
	}
	c.Warm(append(mints, mkUnknown))
	c.Flush(context.Background())
	h := newAssetHarness(t, catalog.New(snap, c, now, nil))
	h.srv.d.Markets = c
	return h, c, snap
}

// syntheticMints returns n well-formed addresses that are visibly not
// real mints: base58 of SHA-256("assetd synthetic mint N").
func syntheticMints(n int) []string {
	out := make([]string, n)
	for i := range out {
		sum := sha256.Sum256([]byte(fmt.Sprintf("assetd synthetic mint %d", i)))
		out[i] = base58.Encode(sum[:])
	}
	return out
}

func (h *harness) postJSON(t *testing.T, path, body string) resp {
	t.Helper()
	return h.do(t, "POST", path, map[string]string{"X-Api-Key": h.plain["read"], "Content-Type": "application/json"}, strings.NewReader(body))
}

func TestMarketSnapshots(t *testing.T) {
	h, _, _ := marketHarness(t)
	var rows []snapshotRow
	r := h.postJSON(t, "/v1/assets/market-snapshots", fmt.Sprintf(`{"mints":[%q, %q, %q, %q], "addresses":["ignored"]}`, mkUSDC, mkSOL, mkUSDC, mkUnknown))
	if r.status != 200 || r.header.Get("Cache-Control") != "private, max-age=60" {
		t.Fatalf("%d %v %s", r.status, r.header, r.raw)
	}
	decodeStrict(t, r, &rows)
	if len(rows) != 3 || rows[0].Address != mkUSDC || rows[1].Address != mkSOL || rows[2].Address != mkUnknown {
		t.Fatalf("rows not deduplicated in request order: %+v", rows)
	}
	if rows[0].AssetID != "usd" || rows[0].Market == nil || !rows[0].HasMarket || rows[0].Market.Source != "marketdata_a" {
		t.Fatalf("USDC row: %+v", rows[0])
	}
	if rows[2].AssetID != "solana-"+mkUnknown {
		t.Fatalf("unknown mint row: %+v", rows[2])
	}
	// addresses is the same as mints.
	r = h.postJSON(t, "/v1/assets/market-snapshots", fmt.Sprintf(`{"addresses":[%q]}`, mkSOL))
	if r.status != 200 || !strings.Contains(r.raw, `"assetId":"solana"`) {
		t.Fatalf("addresses: %d %s", r.status, r.raw)
	}
	// Over the cap: capped at 250 rows.
	var many []string
	snap, _ := seedSnapshot()
	for _, a := range snap.Assets() {
		for _, v := range a.Variants {
			many = append(many, fmt.Sprintf("%q", v.Mint))
		}
	}
	for _, m := range syntheticMints(100) {
		many = append(many, fmt.Sprintf("%q", m))
	}
	r = h.postJSON(t, "/v1/assets/market-snapshots", `{"mints":[`+strings.Join(many, ",")+`]}`)
	decodeStrict(t, r, &rows)
	if len(many) <= 250 || len(rows) != 250 || rows[249].Address != strings.Trim(many[249], `"`) {
		t.Fatalf("%d rows for %d mints; want the first 250", len(rows), len(many))
	}
	cases := []struct {
		name, body string
		code       string
	}{
		{"invalid mints named", `{"mints":["nope", "` + mkSOL + `", "0OOO"]}`, "invalid_mint"},
		{"neither field", `{}`, "missing_param"},
		{"wrong type", `{"mints":"` + mkSOL + `"}`, "invalid_type"},
		{"wrong element type", `{"mints":[1,2]}`, "invalid_type"},
		{"malformed", `{"mints":[`, "invalid_json"},
	}
	for _, tc := range cases {
		r := h.postJSON(t, "/v1/assets/market-snapshots", tc.body)
		if r.status != 400 || errCode(r) != tc.code {
			t.Errorf("%s: %d %q, want 400 %q: %s", tc.name, r.status, errCode(r), tc.code, r.raw)
		}
	}
	r = h.postJSON(t, "/v1/assets/market-snapshots", `{"mints":["nope","0OOO"]}`)
	if !strings.Contains(r.raw, `"mints":["nope","0OOO"]`) {
		t.Errorf("400 does not name the invalid mints: %s", r.raw)
	}
}

func TestMarketEndpointsWithoutData(t *testing.T) {
	// Nothing cached (provider down or cold): 200 with nulls, never 5xx.
	h := newAssetHarness(t, newSeedCatalog(t, false))
	r := h.postJSON(t, "/v1/assets/market-snapshots", fmt.Sprintf(`{"mints":[%q]}`, mkSOL))
	if r.status != 200 || !strings.Contains(r.raw, `"market":null`) || !strings.Contains(r.raw, `"hasMarket":false`) {
		t.Fatalf("cold snapshot: %d %s", r.status, r.raw)
	}
	for _, path := range []string{"/v1/assets/solana/markets", "/v1/assets/solana/variant-market", "/v1/assets/solana/variant-top-markets",
		"/v1/assets/variant-markets?mints=" + mkSOL, "/v1/assets/solana-" + mkUnknown + "/markets"} {
		if r := h.get(t, path); r.status != 200 {
			t.Errorf("%s: %d %s", path, r.status, r.raw)
		}
	}
}

func TestVariantMarkets(t *testing.T) {
	h, _, _ := marketHarness(t)
	var body struct {
		Variants []variantMarketRow `json:"variants"`
	}
	r := h.get(t, "/v1/assets/variant-markets?mints="+mkSOL+","+mkUnknown+","+mkSOL)
	decodeStrict(t, r, &body)
	if len(body.Variants) != 2 || *body.Variants[0].AssetID != "solana" || *body.Variants[0].Chain != "solana" || body.Variants[0].Market == nil ||
		*body.Variants[1].AssetID != "solana-"+mkUnknown {
		t.Fatalf("variant-markets: %s", r.raw)
	}
	if r := h.get(t, "/v1/assets/variant-markets?addresses="+mkUSDC); r.status != 200 || !strings.Contains(r.raw, `"assetId":"usd"`) {
		t.Fatalf("addresses alias: %s", r.raw)
	}
	var fifty []string
	snap, _ := seedSnapshot()
	for _, a := range snap.Assets() {
		for _, v := range a.Variants {
			fifty = append(fifty, v.Mint)
		}
	}
	for _, tc := range []struct{ q, code string }{
		{"mints=nope", "invalid_mint"},
		{"mints=" + strings.Join(fifty[:51], ","), "invalid_param"},
	} {
		r := h.get(t, "/v1/assets/variant-markets?"+tc.q)
		if r.status != 400 || errCode(r) != tc.code {
			t.Errorf("%q: %d %s", tc.q, r.status, r.raw)
		}
	}
	if r := h.get(t, "/v1/assets/variant-markets?mints="+strings.Join(fifty[:50], ",")); r.status != 200 {
		t.Errorf("50 mints: %d", r.status)
	}
}

func TestVariantMarket(t *testing.T) {
	h, _, _ := marketHarness(t)
	r := h.get(t, "/v1/assets/usd/variant-market")
	if r.status != 200 || r.body["mint"] != mkUSDC || r.body["market"] == nil || r.body["lastUpdatedAt"] == nil {
		t.Fatalf("default primary: %s", r.raw)
	}
	if r := h.get(t, "/v1/assets/usd/variant-market?mint="+mkSOL); r.status != 400 || errCode(r) != "mint_not_variant" {
		t.Fatalf("foreign mint: %d %s", r.status, r.raw)
	}
	if r := h.get(t, "/v1/assets/usd/variant-market?mint=bad"); r.status != 400 || errCode(r) != "invalid_mint" {
		t.Fatalf("bad mint: %d %s", r.status, r.raw)
	}
	if r := h.get(t, "/v1/assets/"+mkUnknown+"/variant-market"); r.status != 200 || r.body["assetId"] != "solana-"+mkUnknown {
		t.Fatalf("singleton: %d %s", r.status, r.raw)
	}
	if r := h.get(t, "/v1/assets/no-such-asset/variant-market"); r.status != 404 {
		t.Fatalf("unknown slug: %d", r.status)
	}
}

func TestAssetMarkets(t *testing.T) {
	h, c, snap := marketHarness(t)
	r := h.get(t, "/v1/assets/solana/markets")
	ms, _ := r.body["markets"].([]any)
	if r.status != 200 || len(ms) == 0 || r.body["limit"].(float64) != 10 || r.body["offset"].(float64) != 0 || r.body["protocolTokensByMarket"] == nil {
		t.Fatalf("markets: %s", r.raw)
	}
	if got := h.get(t, "/v1/assets/solana/markets?limit=999").body["limit"]; got != 50.0 {
		t.Errorf("limit 999 clamps to %v; want 50", got)
	}
	for _, q := range []string{"limit=x", "offset=-1"} {
		if r := h.get(t, "/v1/assets/solana/markets?"+q); r.status != 400 {
			t.Errorf("%s: %d", q, r.status)
		}
	}
	one := h.get(t, "/v1/assets/solana/markets?limit=1&offset=1").body["markets"].([]any)
	if len(one) != 1 || one[0].(map[string]any)["address"] != ms[1].(map[string]any)["address"] {
		t.Errorf("offset 1 limit 1: %v", one)
	}
	// Some pool in the world carries a protocol-owned token: it shows up in
	// protocolTokensByMarket of its mint.
	found := false
	for _, a := range snap.Assets() {
		for _, v := range a.Variants {
			pools, _, _ := c.DEXMarkets(v.Mint)
			for _, p := range pools {
				if len(p.ProtocolTokens) == 0 {
					continue
				}
				r := h.get(t, "/v1/assets/"+a.AssetID+"/markets?limit=50&mint="+v.Mint)
				if pt, _ := r.body["protocolTokensByMarket"].(map[string]any); pt[p.Address] == nil {
					t.Fatalf("pool %s has protocol tokens but the response omits them: %s", p.Address, r.raw)
				}
				found = true
				break
			}
		}
	}
	if !found {
		t.Error("the demo world has no protocol-owned token case")
	}
}

func TestVariantTopMarkets(t *testing.T) {
	h, _, _ := marketHarness(t)
	r := h.get(t, "/v1/assets/solana/variant-top-markets?limit=100")
	vs := r.body["variants"].([]any)
	prev := 1e300
	for _, v := range vs {
		tm, _ := v.(map[string]any)["topMarket"].(map[string]any)
		if tm == nil {
			prev = -1
			continue
		}
		liq := tm["liquidity"].(float64)
		if liq > prev {
			t.Fatalf("not sorted by top market liquidity desc: %s", r.raw)
		}
		prev = liq
	}
	all := h.get(t, "/v1/assets/solana/variant-top-markets?limit=100&variantsMode=all")
	if all.body["total"].(float64) <= r.body["total"].(float64) {
		t.Errorf("variantsMode=all total %v not above the capped %v", all.body["total"], r.body["total"])
	}
	if got := h.get(t, "/v1/assets/solana/variant-top-markets?limit=500").body["limit"]; got != 100.0 {
		t.Errorf("limit clamps to %v; want 100", got)
	}
	if got := h.get(t, "/v1/assets/solana/variant-top-markets").body["limit"]; got != 10.0 {
		t.Errorf("default limit %v; want 10", got)
	}
	if r := h.get(t, "/v1/assets/solana/variant-top-markets?variantsMode=some"); r.status != 400 {
		t.Errorf("variantsMode=some: %d", r.status)
	}
}

func BenchmarkMarketSnapshots250(b *testing.B) {
	h, _, snap := marketHarness(b)
	var mints []string
	for _, a := range snap.Assets() {
		for _, v := range a.Variants {
			mints = append(mints, fmt.Sprintf("%q", v.Mint))
		}
	}
	for _, m := range syntheticMints(250 - len(mints)) {
		mints = append(mints, fmt.Sprintf("%q", m))
	}
	body := `{"mints":[` + strings.Join(mints[:250], ",") + `]}`
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest("POST", "/v1/assets/market-snapshots", strings.NewReader(body))
		req.Header.Set("X-Api-Key", h.plain["read"])
		req.Header.Set("Content-Type", "application/json")
		rec := h.serve(b, req)
		if rec.Code != 200 {
			b.Fatal(rec.Code, rec.Body.String())
		}
	}
}
