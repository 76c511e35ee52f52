package httpapi

import (
	"bytes"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/catalog"
	"github.com/google/go-cmp/cmp"
)

// Tests of the five asset read endpoints (resolve, detail, variants,
// search, curated) over the hand-written fixture registry of
// assets_fixture_test.go, whose market data makes every stat, tier,
// primary and ordering computable by hand.

// Wire bodies, decoded strictly (unknown fields fail the test).
type (
	detailWire struct {
		Asset      *catalog.Detail         `json:"asset"`
		Includes   map[string]includeBlock `json:"includes"`
		Resolution *catalog.Resolution     `json:"resolution"`
	}
	variantsWire struct {
		AssetID  string             `json:"assetId"`
		SortBy   string             `json:"sortBy"`
		Variants []*catalog.Variant `json:"variants"`
	}
	searchWire struct {
		Query                  string        `json:"query"`
		Category               *string       `json:"category"`
		PrimaryVariantStrategy string        `json:"primaryVariantStrategy"`
		Results                []catalog.Row `json:"results"`
	}
	curatedWire struct {
		ListID                 string        `json:"listId"`
		PrimaryVariantStrategy string        `json:"primaryVariantStrategy"`
		Pagination             *pagination   `json:"pagination"`
		Assets                 []catalog.Row `json:"assets"`
	}
)

// ids are the variant ids of vs, the readable form of an ordering.
func ids(vs []*catalog.Variant) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.VariantID
	}
	return out
}

func rowIDs(rows []catalog.Row) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.AssetID
	}
	return out
}

func primaryIDs(rows []catalog.Row) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		if r.PrimaryVariant != nil {
			out[i] = r.PrimaryVariant.VariantID
		}
	}
	return out
}

// wantOK checks a success: 200, JSON, the route's Cache-Control.
func wantOK(t *testing.T, r resp, cache string) {
	t.Helper()
	if r.status != 200 {
		t.Fatalf("status %d, want 200: %.500s", r.status, r.raw)
	}
	if got := r.header.Get("Cache-Control"); got != cache {
		t.Errorf("Cache-Control %q, want %q", got, cache)
	}
	if got := r.header.Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type %q", got)
	}
}

// wantErr checks an error envelope: status, _tag, details.code (when
// code is not empty), and no-store.
func wantErr(t *testing.T, r resp, status int, tag, code string) {
	t.Helper()
	if r.status != status || errTag(r) != tag || (code != "" && errCode(r) != code) {
		t.Fatalf("got %d %s/%s, want %d %s/%s: %.500s", r.status, errTag(r), errCode(r), status, tag, code, r.raw)
	}
	if got := r.header.Get("Cache-Control"); got != "no-store" {
		t.Errorf("error Cache-Control %q, want no-store", got)
	}
	e, _ := r.body["error"].(map[string]any)
	if msg, _ := e["message"].(string); msg == "" {
		t.Errorf("error without message: %s", r.raw)
	}
}

func errDetails(r resp) map[string]any {
	e, _ := r.body["error"].(map[string]any)
	d, _ := e["details"].(map[string]any)
	return d
}

// requireKeys checks that every key is present in m (null allowed): the
// spec's required fields.
func requireKeys(t *testing.T, where string, m any, keys ...string) {
	t.Helper()
	obj, ok := m.(map[string]any)
	if !ok {
		t.Fatalf("%s: not an object: %v", where, m)
	}
	for _, k := range keys {
		if _, ok := obj[k]; !ok {
			t.Errorf("%s: required field %q missing (have %v)", where, k, slices.Sorted(mapKeys(obj)))
		}
	}
}

func mapKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

var (
	variantKeys = []string{"variantId", "mint", "kind", "liquidityTier", "trustTier", "tags", "market", "executionQuality"}
	statsKeys   = []string{"price", "liquidity", "volume24hUSD", "volume30dUSD", "marketCap", "priceChange24hPercent", "priceChange1hPercent"}
	rowKeys     = []string{"assetId", "category", "imageUrl", "stats", "primaryVariant"}
)

// checkRowShape checks a search/curated row and its variants against the
// spec's required fields.
func checkRowShape(t *testing.T, where string, row any) {
	t.Helper()
	requireKeys(t, where, row, rowKeys...)
	m := row.(map[string]any)
	if st, ok := m["stats"].(map[string]any); ok {
		requireKeys(t, where+".stats", st, statsKeys...)
	}
	if pv, ok := m["primaryVariant"].(map[string]any); ok {
		requireKeys(t, where+".primaryVariant", pv, variantKeys...)
	}
	if vs, ok := m["variants"].([]any); ok {
		for i, v := range vs {
			requireKeys(t, where+".variants["+itoa(i)+"]", v, variantKeys...)
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// Stats of the fixture assets, computed by hand (see fixtureMarkets):
// liquidity and volumes sum the spot-like variants (all variants for
// silver, which has none), price fields come from the liquidity primary.
var fxStats = map[string]*asset.Stats{
	"solana": {Price: fp(50), Liquidity: fp(50_000_000), Volume24hUSD: fp(20_000_000), MarketCap: fp(500_000_000),
		PriceChange24hPercent: fp(1.5), PriceChange1hPercent: fp(-0.5)},
	"usd": {Price: fp(30), Liquidity: fp(53_000_000), Volume24hUSD: fp(161_000_000), Volume30dUSD: fp(4_500_000_000),
		MarketCap: fp(300_000_000), PriceChange24hPercent: fp(1.5), PriceChange1hPercent: fp(-0.5)},
	"tesla": {Price: fp(2), Liquidity: fp(3_500_000), Volume24hUSD: fp(900_000), MarketCap: fp(20_000_000),
		PriceChange24hPercent: fp(1.5), PriceChange1hPercent: fp(-0.5)},
	"silver": {Price: fp(2), Liquidity: fp(3_000_000), Volume24hUSD: fp(30_000), MarketCap: fp(20_000_000),
		PriceChange24hPercent: fp(1.5), PriceChange1hPercent: fp(-0.5)},
	"bonk": {Price: fp(5), Liquidity: fp(5_000_000), Volume24hUSD: fp(1_000_000), Volume30dUSD: fp(25_000_000), MarketCap: fp(50_000_000),
		PriceChange24hPercent: fp(1.5), PriceChange1hPercent: fp(-0.5)},
	"nodata": nil,
}

// --- Auth ---

func TestAssetRoutesAuth(t *testing.T) {
	h := newAssetHarness(t, newFixtureCatalog(t))
	paths := []string{
		"/v1/assets/resolve?ref=usd",
		"/v1/assets/usd",
		"/v1/assets/usd/variants",
		"/v1/assets/search?q=usd",
		"/v1/assets/curated",
	}
	for _, p := range paths {
		t.Run(p, func(t *testing.T) {
			wantErr(t, h.do(t, "GET", p, nil, nil), 401, "UnauthorizedError", "")
			wantErr(t, h.do(t, "GET", p, map[string]string{"X-Api-Key": "adk_" + strings.Repeat("0", 64)}, nil), 401, "UnauthorizedError", "")
			if p != "/v1/assets/usd" { // asset detail accepts the include scopes (TestIncludeScopes)
				wantErr(t, h.do(t, "GET", p, map[string]string{"X-Api-Key": h.plain["none"]}, nil), 403, "ForbiddenError", "insufficient_scope")
				wantErr(t, h.do(t, "GET", p, map[string]string{"X-Api-Key": h.plain["risk"]}, nil), 403, "ForbiddenError", "insufficient_scope")
			}
			if r := h.get(t, p); r.status != 200 {
				t.Fatalf("with assets:read: %d %s", r.status, r.raw)
			}
		})
	}
}

// --- GET /v1/assets/resolve ---

func TestResolveEndpoint(t *testing.T) {
	h := newAssetHarness(t, newFixtureCatalog(t))
	type want struct {
		assetID, by, mint, variant string // mint "" = null; variant: variant mint
	}
	cases := []struct {
		name  string
		query string
		want  want
	}{
		{"slug", "ref=usd", want{"usd", asset.ResolvedByAssetID, "", mUSDC}},
		{"slug gives the liquidity primary", "ref=tesla", want{"tesla", asset.ResolvedByAssetID, "", mXStock}},
		{"alias, case-insensitive", "ref=DoLLaR", want{"usd", asset.ResolvedByAlias, "", mUSDC}},
		{"symbol alias", "ref=TSLA", want{"tesla", asset.ResolvedByAlias, "", mXStock}},
		{"multi-word alias", "ref=" + url.QueryEscape("Wrapped SOL"), want{"solana", asset.ResolvedByAlias, "", mWSOL}},
		{"raw known mint: its own variant, not the primary", "ref=" + mUSDT, want{"usd", asset.ResolvedByMint, mUSDT, mUSDT}},
		{"solana-<known mint>", "ref=solana-" + mPYUSD, want{"usd", asset.ResolvedBySingletonMint, mPYUSD, mPYUSD}},
		{"capped LST mint still resolves to its variant", "ref=" + mTiny, want{"solana", asset.ResolvedByMint, mTiny, mTiny}},
		{"unknown raw mint", "ref=" + mUnknown, want{"solana-" + mUnknown, asset.ResolvedBySingleton, mUnknown, mUnknown}},
		{"unknown solana-<mint>", "ref=solana-" + mUnknown, want{"solana-" + mUnknown, asset.ResolvedBySingleton, mUnknown, mUnknown}},
		{"mint param", "mint=" + mOndo, want{"tesla", asset.ResolvedByMint, mOndo, mOndo}},
		{"mint wins over ref", "mint=" + mUSDT + "&ref=tesla", want{"usd", asset.ResolvedByMint, mUSDT, mUSDT}},
		{"unknown mint param", "mint=" + mUnknown, want{"solana-" + mUnknown, asset.ResolvedBySingleton, mUnknown, mUnknown}},
		{"blank mint falls back to ref", "mint=%20&ref=usd", want{"usd", asset.ResolvedByAssetID, "", mUSDC}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := h.get(t, "/v1/assets/resolve?"+tc.query)
			wantOK(t, r, cacheSearch)
			requireKeys(t, "body", r.body, "assetId", "resolvedBy", "mint", "asset", "variant")
			requireKeys(t, "asset", r.body["asset"], "assetId", "name", "symbol", "category", "aliases")
			var got catalog.Resolved
			decodeStrict(t, r, &got)
			gotMint := ""
			if got.Mint != nil {
				gotMint = *got.Mint
			}
			if got.AssetID != tc.want.assetID || got.ResolvedBy != tc.want.by || gotMint != tc.want.mint || got.Asset.AssetID != tc.want.assetID {
				t.Fatalf("got %s/%s/mint %q (asset %s), want %+v", got.AssetID, got.ResolvedBy, gotMint, got.Asset.AssetID, tc.want)
			}
			if got.Variant == nil || got.Variant.Mint != tc.want.variant || got.Variant.Chain != "solana" {
				t.Fatalf("variant %+v, want mint %s on chain solana", got.Variant, tc.want.variant)
			}
			requireKeys(t, "variant", r.body["variant"], "mint", "chain", "kind", "liquidityTier", "trustTier", "tags")
			if got.Variant.TrustTier != got.Variant.LiquidityTier {
				t.Errorf("trustTier %q does not mirror liquidityTier %q", got.Variant.TrustTier, got.Variant.LiquidityTier)
			}
		})
	}

	t.Run("variant fields", func(t *testing.T) {
		var got catalog.Resolved
		decodeStrict(t, h.get(t, "/v1/assets/resolve?ref=usd"), &got)
		want := catalog.Resolved{AssetID: "usd", ResolvedBy: asset.ResolvedByAssetID,
			Asset:   catalog.ResolveAsset{AssetID: "usd", Name: new("US Dollar"), Symbol: new("USD"), Category: "stablecoin", Aliases: []string{"dollar"}},
			Variant: &catalog.ResolveVariant{Mint: mUSDC, Chain: "solana", Kind: asset.KindStablecoin, LiquidityTier: asset.Tier1, TrustTier: asset.Tier1, Tags: []string{"fiat"}, Issuer: "Circle", Label: "Circle"}}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("resolve usd (-want +got):\n%s", d)
		}
		decodeStrict(t, h.get(t, "/v1/assets/resolve?ref="+mUSDT), &got)
		if v := got.Variant; v.IssuerURL != "https://tether.to" || v.Issuer != "Tether" || len(v.Tags) != 0 || v.Tags == nil {
			t.Errorf("usdt variant %+v", v)
		}
	})

	t.Run("singleton shape", func(t *testing.T) {
		r := h.get(t, "/v1/assets/resolve?ref="+mUnknown)
		var got catalog.Resolved
		decodeStrict(t, r, &got)
		want := catalog.Resolved{AssetID: "solana-" + mUnknown, ResolvedBy: asset.ResolvedBySingleton, Mint: new(mUnknown),
			Asset:   catalog.ResolveAsset{AssetID: "solana-" + mUnknown, Category: "crypto", Aliases: []string{mUnknown}},
			Variant: &catalog.ResolveVariant{Mint: mUnknown, Chain: "solana", Kind: asset.KindNative, LiquidityTier: asset.Tier3, TrustTier: asset.Tier3, Tags: []string{}}}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("singleton (-want +got):\n%s", d)
		}
		a := r.body["asset"].(map[string]any)
		if a["name"] != nil || a["symbol"] != nil {
			t.Errorf("singleton name/symbol must be null: %v", a)
		}
	})

	errs := []struct {
		name, query string
		status      int
		tag, code   string
	}{
		{"neither mint nor ref", "", 400, "BadRequestError", "missing_param"},
		{"blank ref", "ref=%20%20", 400, "BadRequestError", "missing_param"},
		{"invalid mint param", "mint=notamint", 400, "BadRequestError", "invalid_mint"},
		{"invalid mint param wins over a good ref", "mint=notamint&ref=usd", 400, "BadRequestError", "invalid_mint"},
		{"lower-cased mint param", "mint=" + strings.ToLower(mUSDC), 400, "BadRequestError", "invalid_mint"},
		{"mint param takes a raw mint only", "mint=solana-" + mUSDC, 400, "BadRequestError", "invalid_mint"},
		{"mint-shaped ref that is no address", "ref=" + strings.Repeat("z", 44), 400, "BadRequestError", "invalid_mint"},
		{"solana-<malformed mint>", "ref=solana-" + strings.Repeat("z", 44), 400, "BadRequestError", "invalid_mint"},
		{"control character", "ref=us%07d", 400, "BadRequestError", "invalid_ref"},
		{"too long", "ref=" + strings.Repeat("a", 201), 400, "BadRequestError", "invalid_ref"},
		{"unknown slug", "ref=dogecoin", 404, "NotFoundError", ""},
		{"solana-<non-mint>", "ref=solana-foo", 404, "NotFoundError", ""},
	}
	for _, tc := range errs {
		t.Run(tc.name, func(t *testing.T) {
			wantErr(t, h.get(t, "/v1/assets/resolve?"+tc.query), tc.status, tc.tag, tc.code)
		})
	}
}

// --- GET /v1/assets/{assetId} ---

func TestAssetDetail(t *testing.T) {
	h := newAssetHarness(t, newFixtureCatalog(t))
	detail := func(t *testing.T, path string) (detailWire, resp) {
		t.Helper()
		r := h.get(t, path)
		wantOK(t, r, cacheDetail)
		requireKeys(t, "body", r.body, "asset")
		requireKeys(t, "asset", r.body["asset"], "assetId", "primaryVariantStrategy", "primaryVariant", "imageUrl", "stats", "canonicalMarket", "variantGroups")
		var d detailWire
		decodeStrict(t, r, &d)
		return d, r
	}

	t.Run("stats, primary and groups", func(t *testing.T) {
		for _, tc := range []struct {
			id, primary string
			groups      catalog.Groups
		}{
			{"solana", "solana:wsol", catalog.Groups{Spot: vs("solana:wsol"), Yield: vs("solana:jitosol", "solana:msol", "solana:edge")}},
			{"usd", "usd:usdc", catalog.Groups{Spot: vs("usd:usdc", "usd:usdt", "usd:pyusd", "usd:usdcet"), Yield: vs("usd:usdy")}},
			{"tesla", "tesla:xstock", catalog.Groups{TokenizedEquity: vs("tesla:xstock", "tesla:ondo", "tesla:backpack", "tesla:nomkt")}},
			{"silver", "silver:b", catalog.Groups{ETF: vs("silver:b", "silver:a")}},
			{"bonk", "bonk:bonk", catalog.Groups{Spot: vs("bonk:bonk")}},
			{"nodata", "nodata:n", catalog.Groups{Spot: vs("nodata:n")}},
		} {
			t.Run(tc.id, func(t *testing.T) {
				d, r := detail(t, "/v1/assets/"+tc.id)
				a := d.Asset
				if a.AssetID != tc.id || a.PrimaryVariantStrategy != asset.StrategyLiquidity {
					t.Errorf("assetId %q strategy %q", a.AssetID, a.PrimaryVariantStrategy)
				}
				if d.Resolution != nil || d.Includes != nil {
					t.Errorf("slug path: resolution %+v includes %+v, want neither", d.Resolution, d.Includes)
				}
				if _, ok := r.body["resolution"]; ok {
					t.Error("resolution key present for a slug path")
				}
				if a.PrimaryVariant == nil || a.PrimaryVariant.VariantID != tc.primary {
					t.Errorf("primaryVariant %+v, want %s", a.PrimaryVariant, tc.primary)
				}
				if d := cmp.Diff(fxStats[tc.id], a.Stats); d != "" {
					t.Errorf("stats (-want +got):\n%s", d)
				}
				if tc.id == "nodata" {
					if st, ok := r.body["asset"].(map[string]any)["stats"]; !ok || st != nil {
						t.Errorf("stats must be null when no variant has data, got %v", st)
					}
					if a.PrimaryVariant.Market != nil {
						t.Errorf("nodata primary market %+v, want null", a.PrimaryVariant.Market)
					}
				} else {
					requireKeys(t, "stats", r.body["asset"].(map[string]any)["stats"], statsKeys...)
				}
				if d := cmp.Diff(groupIDs(tc.groups), groupIDs(a.VariantGroups)); d != "" {
					t.Errorf("variantGroups (-want +got):\n%s", d)
				}
				groups := r.body["asset"].(map[string]any)["variantGroups"].(map[string]any)
				for name, g := range groups {
					for i, v := range g.([]any) {
						requireKeys(t, "variantGroups."+name+"["+itoa(i)+"]", v, variantKeys...)
					}
				}
			})
		}
	})

	t.Run("image and tier derivation", func(t *testing.T) {
		d, _ := detail(t, "/v1/assets/solana")
		if d.Asset.ImageURL == nil || *d.Asset.ImageURL != "https://img.example/sol.png" {
			t.Errorf("imageUrl %v", d.Asset.ImageURL)
		}
		d, _ = detail(t, "/v1/assets/usd")
		if d.Asset.ImageURL != nil {
			t.Errorf("usd imageUrl %v, want null", *d.Asset.ImageURL)
		}
		tiers := map[string]string{}
		for _, v := range append(d.Asset.VariantGroups.Spot, d.Asset.VariantGroups.Yield...) {
			tiers[v.VariantID] = v.LiquidityTier + "/" + v.TrustTier
		}
		want := map[string]string{"usd:usdc": "tier1/tier1", "usd:usdt": "tier1/tier1", "usd:usdy": "tier2/tier2", "usd:pyusd": "tier2/tier2", "usd:usdcet": "tier3/tier3"}
		if d := cmp.Diff(want, tiers); d != "" {
			t.Errorf("derived tiers (-want +got):\n%s", d)
		}
	})

	t.Run("tokenized equity groups carry stockVariantTier and executionQuality", func(t *testing.T) {
		_, r := detail(t, "/v1/assets/tesla")
		te := r.body["asset"].(map[string]any)["variantGroups"].(map[string]any)["tokenizedEquity"].([]any)
		wantTier := []string{asset.StockCashRedeemable, asset.StockCashRedeemable, asset.StockShareRedeemable, asset.StockNotRedeemable}
		wantEQ := []bool{true, true, false, false}
		for i, v := range te {
			m := v.(map[string]any)
			if m["stockVariantTier"] != wantTier[i] {
				t.Errorf("tokenizedEquity[%d].stockVariantTier = %v, want %s", i, m["stockVariantTier"], wantTier[i])
			}
			if (m["executionQuality"] != nil) != wantEQ[i] {
				t.Errorf("tokenizedEquity[%d].executionQuality = %v", i, m["executionQuality"])
			}
		}
	})

	t.Run("primaryVariantStrategy", func(t *testing.T) {
		for strategy, want := range map[string]string{
			"":                               "tesla:xstock",
			asset.StrategyLiquidity:          "tesla:xstock",
			asset.StrategyExecutionQuality:   "tesla:ondo",
			asset.StrategyStockRedeemability: "tesla:backpack",
		} {
			d, _ := detail(t, "/v1/assets/tesla?primaryVariantStrategy="+strategy)
			echo := strategy
			if echo == "" {
				echo = asset.StrategyLiquidity
			}
			if d.Asset.PrimaryVariantStrategy != echo || d.Asset.PrimaryVariant.VariantID != want {
				t.Errorf("strategy %q: echoed %q primary %s, want %q %s", strategy, d.Asset.PrimaryVariantStrategy, d.Asset.PrimaryVariant.VariantID, echo, want)
			}
			if d := cmp.Diff(fxStats["tesla"], d.Asset.Stats); d != "" {
				t.Errorf("strategy %q changes stats (-want +got):\n%s", strategy, d)
			}
		}
		d, _ := detail(t, "/v1/assets/tesla?primaryVariantStrategy=execution_quality")
		if eq := d.Asset.PrimaryVariant.ExecutionQuality; eq == nil || eq.ExecutionScore != 90 {
			t.Errorf("primary executionQuality %+v, want the cached row", eq)
		}
		wantErr(t, h.get(t, "/v1/assets/tesla?primaryVariantStrategy=best"), 400, "BadRequestError", "invalid_param")
	})

	t.Run("variantsMode", func(t *testing.T) {
		d, _ := detail(t, "/v1/assets/solana?variantsMode=all")
		want := []string{"solana:jitosol", "solana:msol", "solana:edge", "solana:under", "solana:tiny", "solana:nomkt"}
		if d := cmp.Diff(want, ids(d.Asset.VariantGroups.Yield)); d != "" {
			t.Errorf("variantsMode=all yield group (-want +got):\n%s", d)
		}
		wantErr(t, h.get(t, "/v1/assets/solana?variantsMode=default"), 400, "BadRequestError", "invalid_param")
		wantErr(t, h.get(t, "/v1/assets/solana?variantsMode=ALL"), 400, "BadRequestError", "invalid_param")
	})

	t.Run("include", func(t *testing.T) {
		d, r := detail(t, "/v1/assets/usd?include=profile,%20risk,ohlcv,markets,profile")
		if got := slices.Sorted(mapKeys(r.body["includes"].(map[string]any))); !slices.Equal(got, []string{"markets", "ohlcv", "profile", "risk"}) {
			t.Errorf("include blocks %v", got)
		}
		for k, b := range d.Includes {
			if b.OK && b.Data == nil || !b.OK && b.Reason == "" {
				t.Errorf("include %s: %+v is neither {ok:true,data} nor {ok:false,reason}", k, b)
			}
			requireKeys(t, "includes."+k, r.body["includes"].(map[string]any)[k], "ok")
		}
		_, r = detail(t, "/v1/assets/usd?include=")
		if _, ok := r.body["includes"]; ok {
			t.Error("empty include must add no includes object")
		}
		r = h.get(t, "/v1/assets/usd?include=profile,news,risk,charts")
		wantErr(t, r, 400, "BadRequestError", "invalid_include")
		det := errDetails(r)
		if d := cmp.Diff(map[string]any{"code": "invalid_include", "param": "include",
			"allowed": []any{"profile", "risk", "ohlcv", "markets", "stablecoinHealth"}, "invalid": []any{"news", "charts"}}, det); d != "" {
			t.Errorf("invalid_include details (-want +got):\n%s", d)
		}
		wantErr(t, h.get(t, "/v1/assets/usd?include=PROFILE"), 400, "BadRequestError", "invalid_include")
	})

	t.Run("mint param", func(t *testing.T) {
		d, _ := detail(t, "/v1/assets/tesla?mint="+mOndo)
		if d.Asset.PrimaryVariant.VariantID != "tesla:xstock" {
			t.Errorf("mint param changed the primary: %s", d.Asset.PrimaryVariant.VariantID)
		}
		detail(t, "/v1/assets/solana?mint="+mTiny) // a capped variant is still a variant
		r := h.get(t, "/v1/assets/tesla?mint="+mUSDC)
		wantErr(t, r, 400, "BadRequestError", "mint_not_variant")
		if det := errDetails(r); det["mint"] != mUSDC || det["assetId"] != "tesla" {
			t.Errorf("mint_not_variant details %v", det)
		}
		wantErr(t, h.get(t, "/v1/assets/tesla?mint="+mUnknown), 400, "BadRequestError", "mint_not_variant")
		wantErr(t, h.get(t, "/v1/assets/tesla?mint=notamint"), 400, "BadRequestError", "invalid_mint")
		// The mint check applies to the resolved asset of a mint path too.
		wantErr(t, h.get(t, "/v1/assets/"+mOndo+"?mint="+mUSDC), 400, "BadRequestError", "mint_not_variant")
		detail(t, "/v1/assets/"+mOndo+"?mint="+mXStock)
	})

	t.Run("ohlcv and markets params", func(t *testing.T) {
		for _, q := range []string{
			"ohlcvInterval=1m", "ohlcvInterval=5m", "ohlcvInterval=15m", "ohlcvInterval=1H", "ohlcvInterval=4H", "ohlcvInterval=1D", "ohlcvInterval=1W",
			"ohlcvFrom=100&ohlcvTo=200", "ohlcvFrom=0&ohlcvTo=1", "ohlcvFrom=1700000000", "ohlcvTo=1800000000",
			"marketsOffset=0", "marketsOffset=25", "marketsLimit=1", "marketsLimit=50", "marketsLimit=51", "marketsLimit=1000",
		} {
			detail(t, "/v1/assets/usd?"+q)
		}
		for _, q := range []string{
			"ohlcvInterval=1h", "ohlcvInterval=2H", "ohlcvInterval=1d",
			"ohlcvFrom=abc", "ohlcvTo=-5", "ohlcvFrom=1.5", "ohlcvFrom=1234567890123",
			"ohlcvFrom=200&ohlcvTo=100", "ohlcvFrom=100&ohlcvTo=100",
			"ohlcvFrom=" + itoa64(fxNow.Unix()+10), // after the default ohlcvTo (now)
			"marketsOffset=-1", "marketsOffset=x", "marketsLimit=ten", "marketsLimit=1.5",
		} {
			t.Run(q, func(t *testing.T) {
				wantErr(t, h.get(t, "/v1/assets/usd?"+q), 400, "BadRequestError", "invalid_param")
			})
		}
	})

	t.Run("resolution block", func(t *testing.T) {
		for _, tc := range []struct {
			path, ref, by, assetID, mint string
		}{
			{"/v1/assets/DOLLAR", "DOLLAR", asset.ResolvedByAlias, "usd", ""},
			{"/v1/assets/TSLA", "TSLA", asset.ResolvedByAlias, "tesla", ""},
			{"/v1/assets/" + mUSDT, mUSDT, asset.ResolvedByMint, "usd", mUSDT},
			{"/v1/assets/solana-" + mUSDT, "solana-" + mUSDT, asset.ResolvedBySingletonMint, "usd", mUSDT},
		} {
			d, r := detail(t, tc.path)
			requireKeys(t, "resolution", r.body["resolution"], "ref", "resolvedBy", "assetId", "mint")
			want := &catalog.Resolution{Ref: tc.ref, ResolvedBy: tc.by, AssetID: tc.assetID}
			if tc.mint != "" {
				want.Mint = &tc.mint
			}
			if diff := cmp.Diff(want, d.Resolution); diff != "" {
				t.Errorf("%s resolution (-want +got):\n%s", tc.path, diff)
			}
			if d.Asset.AssetID != tc.assetID {
				t.Errorf("%s: asset %s", tc.path, d.Asset.AssetID)
			}
			// A mint path does not change the primary (the path mint only
			// drives include computations).
			if tc.assetID == "usd" && d.Asset.PrimaryVariant.VariantID != "usd:usdc" {
				t.Errorf("%s: primary %s, want usd:usdc", tc.path, d.Asset.PrimaryVariant.VariantID)
			}
		}
	})

	t.Run("singleton detail for unknown mints", func(t *testing.T) {
		for _, ref := range []string{mUnknown, "solana-" + mUnknown} {
			d, _ := detail(t, "/v1/assets/"+ref)
			a := d.Asset
			if a.AssetID != "solana-"+mUnknown || a.Category != "crypto" || a.Stats != nil ||
				a.PrimaryVariant == nil || a.PrimaryVariant.Mint != mUnknown || a.PrimaryVariant.VariantID != "solana-"+mUnknown+":mint" {
				t.Fatalf("%s: singleton detail %+v", ref, a)
			}
			if d := cmp.Diff([]string{"solana-" + mUnknown + ":mint"}, ids(a.VariantGroups.Spot)); d != "" {
				t.Errorf("singleton groups (-want +got):\n%s", d)
			}
			if d.Resolution == nil || d.Resolution.ResolvedBy != asset.ResolvedBySingleton || d.Resolution.Mint == nil || *d.Resolution.Mint != mUnknown {
				t.Errorf("singleton resolution %+v", d.Resolution)
			}
		}
		d, _ := detail(t, "/v1/assets/"+mUnknownMkt)
		want := &asset.Stats{Price: fp(0.001234), Liquidity: fp(1234), Volume24hUSD: fp(567), MarketCap: fp(12340), PriceChange24hPercent: fp(1.5), PriceChange1hPercent: fp(-0.5)}
		if diff := cmp.Diff(want, d.Asset.Stats); diff != "" {
			t.Errorf("singleton with a cached market: stats (-want +got):\n%s", diff)
		}
		wantErr(t, h.get(t, "/v1/assets/"+mUnknown+"?mint="+mUSDC), 400, "BadRequestError", "mint_not_variant")
		detail(t, "/v1/assets/"+mUnknown+"?mint="+mUnknown)
	})

	t.Run("errors", func(t *testing.T) {
		wantErr(t, h.get(t, "/v1/assets/dogecoin"), 404, "NotFoundError", "")
		wantErr(t, h.get(t, "/v1/assets/"+strings.Repeat("z", 44)), 400, "BadRequestError", "invalid_mint")
		wantErr(t, h.get(t, "/v1/assets/solana-"+strings.Repeat("z", 44)), 400, "BadRequestError", "invalid_mint")
		// Parameters are validated before the asset is looked up.
		wantErr(t, h.get(t, "/v1/assets/dogecoin?include=nope"), 400, "BadRequestError", "invalid_include")
	})
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

// vs is a list of variants named by id, for expected groups.
func vs(ids ...string) []*catalog.Variant {
	out := make([]*catalog.Variant, len(ids))
	for i, id := range ids {
		out[i] = &catalog.Variant{VariantID: id}
	}
	return out
}

// groupIDs renders groups as variant ids per group.
func groupIDs(g catalog.Groups) map[string][]string {
	out := map[string][]string{}
	for name, vs := range map[string][]*catalog.Variant{"spot": g.Spot, "lst": g.LST, "yield": g.Yield, "etf": g.ETF,
		"leveraged": g.Leveraged, "basket": g.Basket, "tokenizedEquity": g.TokenizedEquity} {
		if len(vs) > 0 {
			out[name] = ids(vs)
		}
	}
	return out
}

// --- GET /v1/assets/{assetId}/variants ---

func TestAssetVariants(t *testing.T) {
	h := newAssetHarness(t, newFixtureCatalog(t))
	get := func(t *testing.T, path string) variantsWire {
		t.Helper()
		r := h.get(t, path)
		wantOK(t, r, cacheDetail)
		requireKeys(t, "body", r.body, "assetId", "sortBy", "variants")
		for i, v := range r.body["variants"].([]any) {
			requireKeys(t, "variants["+itoa(i)+"]", v, variantKeys...)
		}
		var b variantsWire
		decodeStrict(t, r, &b)
		return b
	}
	cases := []struct {
		name, path string
		sortBy     string
		want       []string
	}{
		// Orderings.
		{"liquidity default", "/v1/assets/tesla/variants", "liquidity", []string{"tesla:xstock", "tesla:ondo", "tesla:backpack", "tesla:nomkt"}},
		{"liquidity explicit", "/v1/assets/tesla/variants?sortBy=liquidity", "liquidity", []string{"tesla:xstock", "tesla:ondo", "tesla:backpack", "tesla:nomkt"}},
		// Cached quality first, then stored eligibility before score (ondo
		// 90 eligible beats xstock 95 ineligible), then liquidity.
		{"execution_quality", "/v1/assets/tesla/variants?sortBy=execution_quality", "execution_quality", []string{"tesla:ondo", "tesla:xstock", "tesla:backpack", "tesla:nomkt"}},
		{"stock_redeemability", "/v1/assets/tesla/variants?sortBy=stock_redeemability", "stock_redeemability", []string{"tesla:backpack", "tesla:xstock", "tesla:ondo", "tesla:nomkt"}},
		{"usd liquidity", "/v1/assets/usd/variants", "liquidity", []string{"usd:usdc", "usd:usdt", "usd:usdy", "usd:pyusd", "usd:usdcet"}},
		// Filters.
		{"kind", "/v1/assets/usd/variants?kind=stablecoin", "liquidity", []string{"usd:usdc", "usd:usdt", "usd:pyusd"}},
		{"kind with no match", "/v1/assets/usd/variants?kind=etf", "liquidity", []string{}},
		{"liquidityTier tier1", "/v1/assets/usd/variants?liquidityTier=tier1", "liquidity", []string{"usd:usdc", "usd:usdt"}},
		{"liquidityTier tier2", "/v1/assets/usd/variants?liquidityTier=tier2", "liquidity", []string{"usd:usdy", "usd:pyusd"}},
		{"trustTier tier2", "/v1/assets/usd/variants?trustTier=tier2", "liquidity", []string{"usd:usdy", "usd:pyusd"}},
		{"trustTier experimental is tier3", "/v1/assets/usd/variants?trustTier=experimental", "liquidity", []string{"usd:usdcet"}},
		{"liquidityTier experimental is tier3", "/v1/assets/usd/variants?liquidityTier=experimental", "liquidity", []string{"usd:usdcet"}},
		{"matching tiers", "/v1/assets/usd/variants?liquidityTier=tier3&trustTier=experimental", "liquidity", []string{"usd:usdcet"}},
		{"tier and kind", "/v1/assets/usd/variants?liquidityTier=tier2&kind=stablecoin", "liquidity", []string{"usd:pyusd"}},
		{"stockVariantTier share", "/v1/assets/tesla/variants?stockVariantTier=share_redeemable", "liquidity", []string{"tesla:backpack"}},
		{"stockVariantTier cash", "/v1/assets/tesla/variants?stockVariantTier=cash_redeemable&sortBy=execution_quality", "execution_quality", []string{"tesla:ondo", "tesla:xstock"}},
		{"stockVariantTier on an asset without it", "/v1/assets/usd/variants?stockVariantTier=cash_redeemable", "liquidity", []string{}},
		// LST capping on solana: the 250k floor (inclusive), unknown
		// liquidity fails it.
		{"solana capped", "/v1/assets/solana/variants", "liquidity", []string{"solana:wsol", "solana:jitosol", "solana:msol", "solana:edge"}},
		{"solana variantsMode=all", "/v1/assets/solana/variants?variantsMode=all", "liquidity",
			[]string{"solana:wsol", "solana:jitosol", "solana:msol", "solana:edge", "solana:under", "solana:tiny", "solana:nomkt"}},
		{"solana capped kind=yield", "/v1/assets/solana/variants?kind=yield", "liquidity", []string{"solana:jitosol", "solana:msol", "solana:edge"}},
		{"mint keeps a capped variant", "/v1/assets/solana/variants?mint=" + mTiny, "liquidity", []string{"solana:wsol", "solana:jitosol", "solana:msol", "solana:edge", "solana:tiny"}},
		{"mint keeps a capped variant without market", "/v1/assets/solana/variants?mint=" + mLSTNoMkt, "liquidity", []string{"solana:wsol", "solana:jitosol", "solana:msol", "solana:edge", "solana:nomkt"}},
		{"mint of a kept variant changes nothing", "/v1/assets/solana/variants?mint=" + mJito, "liquidity", []string{"solana:wsol", "solana:jitosol", "solana:msol", "solana:edge"}},
		{"mint with variantsMode=all", "/v1/assets/solana/variants?variantsMode=all&mint=" + mTiny, "liquidity",
			[]string{"solana:wsol", "solana:jitosol", "solana:msol", "solana:edge", "solana:under", "solana:tiny", "solana:nomkt"}},
		{"only solana is capped", "/v1/assets/usd/variants?variantsMode=all", "liquidity", []string{"usd:usdc", "usd:usdt", "usd:usdy", "usd:pyusd", "usd:usdcet"}},
		// Path references.
		{"alias path", "/v1/assets/tsla/variants?sortBy=stock_redeemability", "stock_redeemability", []string{"tesla:backpack", "tesla:xstock", "tesla:ondo", "tesla:nomkt"}},
		{"mint path", "/v1/assets/" + mTiny + "/variants", "liquidity", []string{"solana:wsol", "solana:jitosol", "solana:msol", "solana:edge"}},
		{"singleton", "/v1/assets/" + mUnknown + "/variants", "liquidity", []string{"solana-" + mUnknown + ":mint"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := get(t, tc.path)
			if b.SortBy != tc.sortBy {
				t.Errorf("sortBy %q, want %q", b.SortBy, tc.sortBy)
			}
			if b.Variants == nil {
				t.Fatal("variants is null, want an array")
			}
			if d := cmp.Diff(tc.want, ids(b.Variants)); d != "" {
				t.Errorf("variants (-want +got):\n%s", d)
			}
		})
	}

	t.Run("assetId is canonical", func(t *testing.T) {
		if b := get(t, "/v1/assets/"+mOndo+"/variants"); b.AssetID != "tesla" {
			t.Errorf("assetId %q", b.AssetID)
		}
		if b := get(t, "/v1/assets/solana-"+mUnknown+"/variants"); b.AssetID != "solana-"+mUnknown {
			t.Errorf("assetId %q", b.AssetID)
		}
	})

	t.Run("rows", func(t *testing.T) {
		b := get(t, "/v1/assets/tesla/variants")
		byID := map[string]*catalog.Variant{}
		for _, v := range b.Variants {
			byID[v.VariantID] = v
		}
		if v := byID["tesla:xstock"]; v.Label != "xStock" || v.StockVariantTier != asset.StockCashRedeemable || v.Market == nil ||
			*v.Market.Liquidity != 2_000_000 || v.ExecutionQuality == nil || v.ExecutionQuality.ExecutionScore != 95 {
			t.Errorf("xstock row %+v", v)
		}
		if v := byID["tesla:nomkt"]; v.Market != nil || v.ExecutionQuality != nil || v.LiquidityTier != asset.Tier3 {
			t.Errorf("nomkt row %+v", v)
		}
	})

	errs := []struct {
		name, path, code string
	}{
		{"bad kind", "/v1/assets/usd/variants?kind=spot", "invalid_param"},
		{"bad liquidityTier", "/v1/assets/usd/variants?liquidityTier=tier4", "invalid_param"},
		{"bad trustTier", "/v1/assets/usd/variants?trustTier=gold", "invalid_param"},
		{"mismatched tiers", "/v1/assets/usd/variants?liquidityTier=tier1&trustTier=tier2", "invalid_param"},
		{"mismatched tiers via experimental", "/v1/assets/usd/variants?liquidityTier=tier1&trustTier=experimental", "invalid_param"},
		{"bad stockVariantTier", "/v1/assets/tesla/variants?stockVariantTier=redeemable", "invalid_param"},
		{"bad sortBy", "/v1/assets/tesla/variants?sortBy=volume", "invalid_param"},
		{"bad variantsMode", "/v1/assets/solana/variants?variantsMode=capped", "invalid_param"},
		{"mint of another asset", "/v1/assets/solana/variants?mint=" + mUSDC, "mint_not_variant"},
		{"unknown mint", "/v1/assets/solana/variants?mint=" + mUnknown, "mint_not_variant"},
		{"invalid mint", "/v1/assets/solana/variants?mint=abc", "invalid_mint"},
	}
	for _, tc := range errs {
		t.Run(tc.name, func(t *testing.T) {
			wantErr(t, h.get(t, tc.path), 400, "BadRequestError", tc.code)
		})
	}
	wantErr(t, h.get(t, "/v1/assets/dogecoin/variants"), 404, "NotFoundError", "")
}

// --- GET /v1/assets/search ---

func TestAssetSearch(t *testing.T) {
	h := newAssetHarness(t, newFixtureCatalog(t))
	search := func(t *testing.T, query string) (searchWire, resp) {
		t.Helper()
		r := h.get(t, "/v1/assets/search?"+query)
		wantOK(t, r, cacheSearch)
		requireKeys(t, "body", r.body, "query", "category", "primaryVariantStrategy", "results")
		for i, row := range r.body["results"].([]any) {
			checkRowShape(t, "results["+itoa(i)+"]", row)
		}
		var b searchWire
		decodeStrict(t, r, &b)
		return b, r
	}
	cases := []struct {
		name, query string
		want        []string
	}{
		// Exact id/symbol, then prefix by liquidity (usdx 9M before usde
		// 1M), then substring even with more liquidity (ausd 100M).
		{"match classes then liquidity", "q=usd", []string{"usd", "usdx", "usde", "ausd"}},
		{"case-insensitive", "q=UsD", []string{"usd", "usdx", "usde", "ausd"}},
		{"surrounding spaces", "q=%20usd%20", []string{"usd", "usdx", "usde", "ausd"}},
		{"limit", "q=usd&limit=2", []string{"usd", "usdx"}},
		{"limit 1", "q=usd&limit=1", []string{"usd"}},
		{"limit 50", "q=usd&limit=50", []string{"usd", "usdx", "usde", "ausd"}},
		{"category", "q=usd&category=crypto", []string{"ausd"}},
		{"category stablecoin", "q=usd&category=stablecoin", []string{"usd", "usdx", "usde"}},
		{"category with no match", "q=usd&category=equity", []string{}},
		// "dollar" is usd's alias (exact), a prefix of usdx's name "dollar
		// x", and inside usde's name "ethena dollar".
		{"exact alias", "q=dollar", []string{"usd", "usdx", "usde"}},
		{"exact symbol", "q=sol", []string{"solana"}},
		{"variant symbol", "q=jitosol", []string{"solana"}},
		{"stock ticker", "q=tsla", []string{"tesla"}},
		{"no match", "q=zzzz", []string{}},
		{"exact mint", "q=" + mUSDT, []string{"usd"}},
		{"exact mint of a capped variant", "q=" + mTiny, []string{"solana"}},
		{"exact mint with another category", "q=" + mUSDT + "&category=crypto", []string{}},
		{"unknown mint gives its singleton", "q=" + mUnknown, []string{"solana-" + mUnknown}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, _ := search(t, tc.query)
			if b.Results == nil {
				t.Fatal("results is null, want an array")
			}
			if d := cmp.Diff(tc.want, rowIDs(b.Results)); d != "" {
				t.Errorf("results (-want +got):\n%s", d)
			}
		})
	}

	t.Run("echo", func(t *testing.T) {
		b, r := search(t, "q=%20usd&category=crypto")
		if b.Query != "usd" || b.Category == nil || *b.Category != "crypto" || b.PrimaryVariantStrategy != asset.StrategyLiquidity {
			t.Errorf("echo %+v", b)
		}
		_, r = search(t, "q=usd")
		if v, ok := r.body["category"]; !ok || v != nil {
			t.Errorf("category %v, want null", v)
		}
	})

	t.Run("rows", func(t *testing.T) {
		b, r := search(t, "q=usd")
		usd := b.Results[0]
		if usd.Name != "US Dollar" || usd.Symbol != "USD" || usd.Category != "stablecoin" || usd.ImageURL != nil ||
			usd.PrimaryVariant == nil || usd.PrimaryVariant.VariantID != "usd:usdc" || usd.Variants != nil {
			t.Errorf("usd row %+v", usd)
		}
		if d := cmp.Diff(fxStats["usd"], usd.Stats); d != "" {
			t.Errorf("usd stats (-want +got):\n%s", d)
		}
		if _, ok := r.body["results"].([]any)[0].(map[string]any)["variants"]; ok {
			t.Error("variants present without variants=all")
		}
		b, _ = search(t, "q="+mUnknownMkt)
		s := b.Results[0]
		if s.AssetID != "solana-"+mUnknownMkt || s.Stats == nil || *s.Stats.Liquidity != 1234 || s.PrimaryVariant.Mint != mUnknownMkt {
			t.Errorf("singleton row %+v", s)
		}
	})

	t.Run("variants=all", func(t *testing.T) {
		b, _ := search(t, "q=usd&variants=all&limit=1")
		if d := cmp.Diff([]string{"usd:usdc", "usd:usdt", "usd:usdy", "usd:pyusd", "usd:usdcet"}, ids(b.Results[0].Variants)); d != "" {
			t.Errorf("usd variants by liquidity desc (-want +got):\n%s", d)
		}
		b, _ = search(t, "q=sol&variants=all")
		if d := cmp.Diff([]string{"solana:wsol", "solana:jitosol", "solana:msol", "solana:edge"}, ids(b.Results[0].Variants)); d != "" {
			t.Errorf("solana variants (-want +got):\n%s", d)
		}
		b, _ = search(t, "q="+mUnknown+"&variants=all")
		if d := cmp.Diff([]string{"solana-" + mUnknown + ":mint"}, ids(b.Results[0].Variants)); d != "" {
			t.Errorf("singleton variants (-want +got):\n%s", d)
		}
	})

	t.Run("primaryVariantStrategy", func(t *testing.T) {
		for strategy, want := range map[string]string{
			asset.StrategyLiquidity: "tesla:xstock", asset.StrategyExecutionQuality: "tesla:ondo", asset.StrategyStockRedeemability: "tesla:backpack",
		} {
			b, _ := search(t, "q=tesla&primaryVariantStrategy="+strategy)
			if b.PrimaryVariantStrategy != strategy || b.Results[0].PrimaryVariant.VariantID != want {
				t.Errorf("%s: echoed %q primary %s, want %s", strategy, b.PrimaryVariantStrategy, b.Results[0].PrimaryVariant.VariantID, want)
			}
		}
	})

	errs := []struct {
		name, query, code string
	}{
		{"q missing", "", "missing_param"},
		{"q empty", "q=", "missing_param"},
		{"q blank", "q=%20%20", "missing_param"},
		{"q too long", "q=" + strings.Repeat("a", MaxSearchQuery+1), "invalid_param"},
		{"limit not a number", "q=usd&limit=ten", "invalid_param"},
		{"category", "q=usd&category=meme", "invalid_category"},
		{"category case", "q=usd&category=Crypto", "invalid_category"},
		{"variants", "q=usd&variants=some", "invalid_param"},
		{"strategy", "q=usd&primaryVariantStrategy=fastest", "invalid_param"},
	}
	for _, tc := range errs {
		t.Run(tc.name, func(t *testing.T) {
			r := h.get(t, "/v1/assets/search?"+tc.query)
			wantErr(t, r, 400, "BadRequestError", tc.code)
			if tc.code == "invalid_category" {
				want := []any{}
				for _, c := range asset.Categories {
					want = append(want, c)
				}
				if d := cmp.Diff(want, errDetails(r)["categories"]); d != "" {
					t.Errorf("details.categories (-want +got):\n%s", d)
				}
			}
		})
	}
}

// TestDetailEncodingMatches: the detail handler copies the asset object
// from the catalog's cached encoding (writeDetail); its output must be byte
// for byte what encoding the whole body with writeJSON gives, for every
// asset, strategy and variantsMode, with and without includes and a
// resolution block.
func TestDetailEncodingMatches(t *testing.T) {
	for _, c := range []struct {
		name string
		cat  *catalog.Catalog
	}{{"fixture", newFixtureCatalog(t)}, {"seed", newSeedCatalog(t, true)}} {
		refs := []string{"solana-" + mUnknown, mUnknownMkt, "DOLLAR"}
		for _, a := range c.cat.Snapshot().Assets() {
			refs = append(refs, a.AssetID, a.Variants[len(a.Variants)-1].Mint)
		}
		n := 0
		for _, ref := range refs {
			res, err := c.cat.Resolve(ref)
			if err != nil {
				if ref == "DOLLAR" && c.name == "seed" {
					continue
				}
				t.Fatalf("%s: resolve %q: %v", c.name, ref, err)
			}
			for _, strategy := range asset.Strategies {
				for _, all := range []bool{false, true} {
					d, err := c.cat.Detail(res, catalog.DetailOptions{Strategy: strategy, VariantsAll: all})
					if err != nil {
						t.Fatal(err)
					}
					if d.AssetJSON == nil {
						t.Fatalf("%s %s: no cached encoding", c.name, ref)
					}
					for _, inc := range []map[string]includeBlock{nil, {"risk": {Reason: "not_configured", Message: "a <b> & c"}}} {
						body := detailBody{Asset: d.Asset, Resolution: d.Resolution, Includes: inc}
						slow, fast := httptest.NewRecorder(), httptest.NewRecorder()
						if err := writeJSON(slow, 200, body); err != nil {
							t.Fatal(err)
						}
						if err := writeDetail(fast, d.AssetJSON, body); err != nil {
							t.Fatal(err)
						}
						if !bytes.Equal(slow.Body.Bytes(), fast.Body.Bytes()) || fast.Header().Get("Content-Type") != "application/json" {
							t.Fatalf("%s %s %s all=%v: cached encoding differs:\n%s\n%s", c.name, ref, strategy, all, slow.Body, fast.Body)
						}
						n++
					}
				}
			}
		}
		t.Logf("%s: %d bodies compared", c.name, n)
	}
}

// TestAssetSearchDefaultLimit: without limit, search returns at most 20
// rows; limit raises it up to 50 (seed registry, where "a" matches most
// assets).
func TestAssetSearchDefaultLimit(t *testing.T) {
	h := newAssetHarness(t, newSeedCatalog(t, false))
	count := func(q string) int {
		t.Helper()
		r := h.get(t, "/v1/assets/search?"+q)
		wantOK(t, r, cacheSearch)
		var b searchWire
		decodeStrict(t, r, &b)
		return len(b.Results)
	}
	if n := count("q=a"); n != 20 {
		t.Errorf("default limit: %d rows, want 20", n)
	}
	if n := count("q=a&limit=50"); n != 50 {
		t.Errorf("limit=50: %d rows, want 50", n)
	}
	if n := count("q=a&limit=7"); n != 7 {
		t.Errorf("limit=7: %d rows, want 7", n)
	}
}
