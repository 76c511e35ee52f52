package httpapi

import (
	"testing"
	"time"

	"github.com/assetd/assetd/internal/apikey"
	"github.com/assetd/assetd/internal/depeg"
)

type fakeHealth map[string]depeg.Health

func (f fakeHealth) Health(mint string) (depeg.Health, bool) { h, ok := f[mint]; return h, ok }

func TestIncludeStablecoinHealth(t *testing.T) {
	h := newAssetHarness(t, newFixtureCatalog(t))
	at := time.Date(2026, 11, 27, 12, 10, 0, 0, time.UTC)
	price, peg, dev, liq := 0.965, 1.0, -3.5, 5e6
	h.srv.d.StablecoinHealth = fakeHealth{mUSDC: {Mint: mUSDC, Tier: depeg.TierWarning, PriceUSD: &price, PegUSD: &peg, DeviationPct: &dev,
		LiquidityUSD: &liq, PegCurrency: "USD", TierSince: at, UpdatedAt: at, Sources: []string{"market", "trades"}}}
	h.h = h.srv.build(nil)
	r := h.get(t, "/v1/assets/usd?include=stablecoinHealth")
	if r.status != 200 || r.header.Get("Cache-Control") != cacheDetail {
		t.Fatalf("%d %v %s", r.status, r.header, r.raw)
	}
	blk := r.body["includes"].(map[string]any)["stablecoinHealth"].(map[string]any)
	vs := blk["data"].(map[string]any)["variants"].([]any)
	byMint := map[string]map[string]any{}
	for _, v := range vs {
		m := v.(map[string]any)
		byMint[m["mint"].(string)] = m
	}
	if _, ok := byMint[mUSDY]; ok {
		t.Error("the yield-bearing variant of a stablecoin asset is not judged against the peg")
	}
	u := byMint[mUSDC]
	if u["tier"] != "warning" || u["deviationPct"] != -3.5 || u["priceUsd"] != 0.965 || u["pegUsd"] != 1.0 || u["pegCurrency"] != "USD" ||
		u["liquidityUsd"] != 5e6 || u["tierSince"] != float64(at.UnixMilli()) || u["stale"] != false || len(u["sources"].([]any)) != 2 {
		t.Fatalf("usdc health: %v", u)
	}
	// A variant the guard has not judged yet: ok, stale, nulls.
	usdt := byMint[mUSDT]
	if usdt["tier"] != "ok" || usdt["stale"] != true || usdt["priceUsd"] != nil {
		t.Fatalf("unjudged variant: %v", usdt)
	}
	// Other assets: an empty list.
	r = h.get(t, "/v1/assets/solana?include=stablecoinHealth")
	if vs := r.body["includes"].(map[string]any)["stablecoinHealth"].(map[string]any)["data"].(map[string]any)["variants"].([]any); r.status != 200 || len(vs) != 0 {
		t.Fatalf("solana: %s", r.raw)
	}
	// A key with only a fine-grained scope lacks it.
	p, k := mkKey(t, "key_ohlcv_only", apikey.ScopeOHLCVRead)
	h.keys.set(t, k)
	r = h.do(t, "GET", "/v1/assets/usd?include=stablecoinHealth,ohlcv", map[string]string{"X-Api-Key": p}, nil)
	if blk := r.body["includes"].(map[string]any)["stablecoinHealth"].(map[string]any); r.status != 200 || blk["ok"] != false || blk["reason"] != "forbidden" {
		t.Fatalf("ohlcv-only key: %s", r.raw)
	}
}
