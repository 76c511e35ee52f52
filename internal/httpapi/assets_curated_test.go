package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/assetd/assetd/internal/asset"
	"github.com/google/go-cmp/cmp"
)

// --- GET /v1/assets/curated ---

func TestCurated(t *testing.T) {
	h := newAssetHarness(t, newFixtureCatalog(t))
	curated := func(t *testing.T, query string) (curatedWire, resp) {
		t.Helper()
		r := h.get(t, "/v1/assets/curated?"+query)
		wantOK(t, r, cacheCurated)
		requireKeys(t, "body", r.body, "listId", "primaryVariantStrategy", "assets")
		for i, row := range r.body["assets"].([]any) {
			checkRowShape(t, "assets["+strconv.Itoa(i)+"]", row)
		}
		var b curatedWire
		decodeStrict(t, r, &b)
		if b.Assets == nil {
			t.Fatal("assets is null, want an array")
		}
		return b, r
	}

	// groupBy=asset: stats.volume24hUSD desc, nulls last (usd 161M, solana
	// 20M, bonk 1M, tesla 900k, silver 30k, nodata null).
	assetCases := []struct {
		query, listID string
		want          []string
	}{
		{"", "all", []string{"usd", "solana", "bonk", "tesla", "silver", "nodata"}},
		{"list=all", "all", []string{"usd", "solana", "bonk", "tesla", "silver", "nodata"}},
		{"list=majors", "majors", []string{"solana", "bonk", "nodata"}},
		{"list=lsts", "lsts", []string{"solana"}},
		{"list=currencies", "currencies", []string{"usd"}},
		{"list=stables", "currencies", []string{"usd"}},
		{"list=stocks", "stocks", []string{"tesla"}},
		{"list=metals", "metals", []string{"silver"}},
		{"list=rwas", "rwas", []string{}},
		{"list=etfs", "etfs", []string{}},
		{"list=xstocks", "etfs", []string{}},
		{"list=all&groupBy=asset", "all", []string{"usd", "solana", "bonk", "tesla", "silver", "nodata"}},
	}
	for _, tc := range assetCases {
		t.Run("asset/"+tc.query, func(t *testing.T) {
			b, r := curated(t, tc.query)
			if b.ListID != tc.listID || b.PrimaryVariantStrategy != asset.StrategyLiquidity {
				t.Errorf("listId %q strategy %q", b.ListID, b.PrimaryVariantStrategy)
			}
			if _, ok := r.body["pagination"]; ok {
				t.Error("pagination present without limit/offset")
			}
			if d := cmp.Diff(tc.want, rowIDs(b.Assets)); d != "" {
				t.Errorf("assets (-want +got):\n%s", d)
			}
			for _, row := range b.Assets {
				if d := cmp.Diff(fxStats[row.AssetID], row.Stats); d != "" {
					t.Errorf("%s stats (-want +got):\n%s", row.AssetID, d)
				}
				if row.Variants != nil {
					t.Errorf("%s: variants without variants=all", row.AssetID)
				}
			}
		})
	}

	// groupBy=mint: one row per mint, the asset order above, the variant
	// liquidity order inside an asset; LSTs are the dynamic capped set.
	allMints := []string{"usd:usdc", "usd:usdt", "usd:usdy", "usd:pyusd",
		"solana:wsol", "solana:jitosol", "solana:msol", "solana:edge",
		"bonk:bonk", "tesla:xstock", "tesla:ondo", "tesla:backpack", "silver:a", "nodata:n"}
	mintCases := []struct {
		query string
		want  []string
	}{
		{"list=majors&groupBy=mint", []string{"solana:wsol", "bonk:bonk", "nodata:n"}},
		{"list=lsts&groupBy=mint", []string{"solana:jitosol", "solana:msol", "solana:edge"}},
		{"list=lsts&groupBy=mint&variantsMode=all", []string{"solana:jitosol", "solana:msol", "solana:edge", "solana:under", "solana:tiny", "solana:nomkt"}},
		{"list=currencies&groupBy=mint", []string{"usd:usdc", "usd:usdt", "usd:usdy", "usd:pyusd"}},
		{"list=stocks&groupBy=mint", []string{"tesla:xstock", "tesla:ondo", "tesla:backpack"}},
		{"list=stocks&groupBy=mint&primaryVariantStrategy=stock_redeemability", []string{"tesla:xstock", "tesla:ondo", "tesla:backpack"}},
		{"list=metals&groupBy=mint", []string{"silver:a"}},
		// all is the union of the lists at mint level too.
		{"list=all&groupBy=mint", allMints},
		{"list=all&groupBy=mint&variantsMode=all", []string{"usd:usdc", "usd:usdt", "usd:usdy", "usd:pyusd",
			"solana:wsol", "solana:jitosol", "solana:msol", "solana:edge", "solana:under", "solana:tiny", "solana:nomkt",
			"bonk:bonk", "tesla:xstock", "tesla:ondo", "tesla:backpack", "silver:a", "nodata:n"}},
		// variants=all is ignored for mint rows.
		{"list=all&groupBy=mint&variants=all", allMints},
	}
	for _, tc := range mintCases {
		t.Run("mint/"+tc.query, func(t *testing.T) {
			b, _ := curated(t, tc.query)
			if d := cmp.Diff(tc.want, primaryIDs(b.Assets)); d != "" {
				t.Errorf("mint rows (-want +got):\n%s", d)
			}
			for _, row := range b.Assets {
				if row.Variants != nil {
					t.Errorf("%s: variants on a mint row", row.PrimaryVariant.VariantID)
				}
			}
		})
	}

	t.Run("mint rows: mint market, asset stats", func(t *testing.T) {
		b, _ := curated(t, "list=currencies&groupBy=mint")
		wantLiq := map[string]float64{"usd:usdc": 30_000_000, "usd:usdt": 20_000_000, "usd:usdy": 5_000_000, "usd:pyusd": 3_000_000}
		for _, row := range b.Assets {
			pv := row.PrimaryVariant
			if pv.Market == nil || *pv.Market.Liquidity != wantLiq[pv.VariantID] {
				t.Errorf("%s: primaryVariant.market %+v, want the mint's own (liquidity %v)", pv.VariantID, pv.Market, wantLiq[pv.VariantID])
			}
			if row.AssetID != "usd" {
				t.Errorf("%s: assetId %q", pv.VariantID, row.AssetID)
			}
			if d := cmp.Diff(fxStats["usd"], row.Stats); d != "" {
				t.Errorf("%s: stats are not the asset's (-want +got):\n%s", pv.VariantID, d)
			}
		}
	})

	t.Run("variants=all", func(t *testing.T) {
		b, _ := curated(t, "variants=all")
		got := map[string][]string{}
		for _, row := range b.Assets {
			got[row.AssetID] = ids(row.Variants)
			if row.PrimaryVariant != nil && !contains(got[row.AssetID], row.PrimaryVariant.VariantID) {
				t.Errorf("%s: primary %s not inside variants[]", row.AssetID, row.PrimaryVariant.VariantID)
			}
		}
		want := map[string][]string{
			"usd":    {"usd:usdc", "usd:usdt", "usd:usdy", "usd:pyusd", "usd:usdcet"},
			"solana": {"solana:wsol", "solana:jitosol", "solana:msol", "solana:edge"},
			"bonk":   {"bonk:bonk"},
			"tesla":  {"tesla:xstock", "tesla:ondo", "tesla:backpack", "tesla:nomkt"},
			"silver": {"silver:b", "silver:a"},
			"nodata": {"nodata:n"},
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("nested variants (-want +got):\n%s", d)
		}
		b, _ = curated(t, "list=lsts&variants=all&variantsMode=all")
		if d := cmp.Diff([]string{"solana:wsol", "solana:jitosol", "solana:msol", "solana:edge", "solana:under", "solana:tiny", "solana:nomkt"},
			ids(b.Assets[0].Variants)); d != "" {
			t.Errorf("variantsMode=all nested variants (-want +got):\n%s", d)
		}
		for _, v := range b.Assets[0].Variants {
			if v.VariantID == "solana:jitosol" && (v.Market == nil || v.ExecutionQuality != nil) {
				t.Errorf("nested variant without its market: %+v", v)
			}
		}
	})

	t.Run("primaryVariantStrategy", func(t *testing.T) {
		for strategy, want := range map[string]string{
			asset.StrategyLiquidity: "tesla:xstock", asset.StrategyExecutionQuality: "tesla:ondo", asset.StrategyStockRedeemability: "tesla:backpack",
		} {
			b, _ := curated(t, "list=stocks&primaryVariantStrategy="+strategy)
			if b.PrimaryVariantStrategy != strategy || b.Assets[0].PrimaryVariant.VariantID != want {
				t.Errorf("%s: echoed %q primary %s, want %s", strategy, b.PrimaryVariantStrategy, b.Assets[0].PrimaryVariant.VariantID, want)
			}
			if eq := b.Assets[0].PrimaryVariant.ExecutionQuality; (eq != nil) != (want != "tesla:backpack") {
				t.Errorf("%s: primary executionQuality %+v (exposed whatever the strategy)", strategy, eq)
			}
		}
	})

	t.Run("pagination", func(t *testing.T) {
		for _, tc := range []struct {
			query string
			want  pagination
			rows  []string
		}{
			{"limit=2", pagination{Offset: 0, Limit: 2, Total: 6, HasMore: true, NextOffset: new(2)}, []string{"usd", "solana"}},
			{"limit=2&offset=2", pagination{Offset: 2, Limit: 2, Total: 6, HasMore: true, NextOffset: new(4)}, []string{"bonk", "tesla"}},
			{"limit=2&offset=4", pagination{Offset: 4, Limit: 2, Total: 6, HasMore: false}, []string{"silver", "nodata"}},
			{"limit=4&offset=3", pagination{Offset: 3, Limit: 4, Total: 6, HasMore: false}, []string{"tesla", "silver", "nodata"}},
			{"offset=0", pagination{Offset: 0, Limit: 250, Total: 6, HasMore: false}, []string{"usd", "solana", "bonk", "tesla", "silver", "nodata"}},
			{"offset=5", pagination{Offset: 5, Limit: 250, Total: 6, HasMore: false}, []string{"nodata"}},
			{"offset=6", pagination{Offset: 6, Limit: 250, Total: 6, HasMore: false}, []string{}},
			{"offset=100&limit=1", pagination{Offset: 100, Limit: 1, Total: 6, HasMore: false}, []string{}},
			{"limit=500", pagination{Offset: 0, Limit: 500, Total: 6, HasMore: false}, []string{"usd", "solana", "bonk", "tesla", "silver", "nodata"}},
			{"limit=", pagination{Offset: 0, Limit: 250, Total: 6, HasMore: false}, []string{"usd", "solana", "bonk", "tesla", "silver", "nodata"}},
			{"list=rwas&limit=10", pagination{Offset: 0, Limit: 10, Total: 0, HasMore: false}, []string{}},
		} {
			t.Run(tc.query, func(t *testing.T) {
				b, r := curated(t, tc.query)
				requireKeys(t, "pagination", r.body["pagination"], "offset", "limit", "total", "hasMore", "nextOffset")
				if d := cmp.Diff(&tc.want, b.Pagination); d != "" {
					t.Errorf("pagination (-want +got):\n%s", d)
				}
				if d := cmp.Diff(tc.rows, rowIDs(b.Assets)); d != "" {
					t.Errorf("page (-want +got):\n%s", d)
				}
			})
		}
		b, _ := curated(t, "list=all&groupBy=mint&limit=5&offset=3")
		if d := cmp.Diff(&pagination{Offset: 3, Limit: 5, Total: 14, HasMore: true, NextOffset: new(8)}, b.Pagination); d != "" {
			t.Errorf("mint pagination (-want +got):\n%s", d)
		}
		if d := cmp.Diff(allMints[3:8], primaryIDs(b.Assets)); d != "" {
			t.Errorf("mint page (-want +got):\n%s", d)
		}
	})

	errs := []struct {
		name, query, code string
	}{
		{"unknown list", "list=memes", "invalid_param"},
		{"list is case-sensitive", "list=All", "invalid_param"},
		{"groupBy", "groupBy=variant", "invalid_param"},
		{"variants", "variants=yes", "invalid_param"},
		{"variantsMode", "variantsMode=none", "invalid_param"},
		{"strategy", "primaryVariantStrategy=volume", "invalid_param"},
		{"limit not a number", "limit=all", "invalid_param"},
		{"offset negative", "offset=-1", "invalid_param"},
		{"offset not a number", "offset=x", "invalid_param"},
	}
	for _, tc := range errs {
		t.Run(tc.name, func(t *testing.T) {
			r := h.get(t, "/v1/assets/curated?"+tc.query)
			wantErr(t, r, 400, "BadRequestError", tc.code)
			if tc.name == "unknown list" {
				if d := cmp.Diff([]any{"all", "majors", "lsts", "currencies", "rwas", "etfs", "metals", "stocks"}, errDetails(r)["allowed"]); d != "" {
					t.Errorf("allowed lists (-want +got):\n%s", d)
				}
			}
		})
	}
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// curatedPage is the raw decode of a curated response used by the
// property test: rows stay raw JSON, so pages compare byte for byte.
type curatedPage struct {
	ListID     string            `json:"listId"`
	Pagination *pagination       `json:"pagination"`
	Assets     []json.RawMessage `json:"assets"`
}

// TestCuratedPaginationProperty: for every list x groupBy x variants x
// variantsMode x strategy combination and several page sizes, walking the
// pages via nextOffset concatenates to exactly the unpaginated result;
// every page reports the same total, offsets advance by the page size, and
// the walk ends on a page with hasMore=false and nextOffset=null. It runs
// over the seed registry (with nulls and ties in the market data) and over
// the fixture.
func TestCuratedPaginationProperty(t *testing.T) {
	seed := uint64(20261121)
	rng := rand.New(rand.NewPCG(seed, seed>>1))
	t.Logf("rand seed %d", seed)
	for _, cat := range []struct {
		name string
		h    *harness
	}{
		{"seed", newAssetHarness(t, newSeedCatalog(t, true))},
		{"fixture", newAssetHarness(t, newFixtureCatalog(t))},
	} {
		h := cat.h
		// fetch decodes only the page envelope (rows stay raw), which keeps
		// thousands of requests cheap.
		fetch := func(t *testing.T, path string) curatedPage {
			t.Helper()
			req := httptest.NewRequest("GET", path, nil)
			req.Header.Set("X-Api-Key", h.plain["read"])
			rec := h.serve(t, req)
			if rec.Code != 200 || rec.Header().Get("X-Request-Id") == "" {
				t.Fatalf("%s: %d %s", path, rec.Code, rec.Body)
			}
			var p curatedPage
			if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
				t.Fatal(err)
			}
			return p
		}
		lists := []string{"all", "majors", "lsts", "currencies", "rwas", "etfs", "metals", "stocks", "stables", "xstocks"}
		combos := 0
		for _, list := range lists {
			for _, groupBy := range []string{"asset", "mint"} {
				for _, variants := range []string{"", "all"} {
					for _, mode := range []string{"", "all"} {
						for _, strategy := range asset.Strategies {
							combos++
							base := fmt.Sprintf("/v1/assets/curated?list=%s&groupBy=%s&variants=%s&variantsMode=%s&primaryVariantStrategy=%s",
								list, groupBy, variants, mode, strategy)
							full := fetch(t, base)
							if full.Pagination != nil {
								t.Fatalf("%s: pagination without limit/offset", base)
							}
							n := len(full.Assets)
							// 0 walks with offset alone (the default page size,
							// 250); page size 1 only on the smaller lists.
							sizes := []int{0, 2 + rng.IntN(7), 1 + rng.IntN(n+5), 500}
							if n <= 40 {
								sizes = append(sizes, 1)
							}
							for _, size := range sizes {
								walkPages(t, fetch, base, size, full.Assets)
							}
						}
					}
				}
			}
		}
		t.Logf("%s: %d combinations walked", cat.name, combos)
	}
}

// walkPages pages through base with the given page size (0: offset alone,
// the default 250) via nextOffset and checks the concatenation against
// want.
func walkPages(t *testing.T, fetch func(*testing.T, string) curatedPage, base string, size int, want []json.RawMessage) {
	t.Helper()
	var got []json.RawMessage
	offset := 0
	for pages := 0; ; pages++ {
		if pages > len(want)+1 {
			t.Fatalf("%s limit %d: the walk does not end", base, size)
		}
		path := fmt.Sprintf("%s&limit=%d&offset=%d", base, size, offset)
		limit := size
		if size == 0 {
			path = fmt.Sprintf("%s&offset=%d", base, offset)
			limit = 250
		}
		p := fetch(t, path)
		pg := p.Pagination
		if pg == nil {
			t.Fatalf("%s: no pagination object", path)
		}
		if pg.Offset != offset || pg.Limit != limit || pg.Total != len(want) || len(p.Assets) > limit {
			t.Fatalf("%s: pagination %+v with %d rows; want offset %d limit %d total %d", path, pg, len(p.Assets), offset, limit, len(want))
		}
		got = append(got, p.Assets...)
		if !pg.HasMore {
			if pg.NextOffset != nil {
				t.Fatalf("%s: last page has nextOffset %d, want null", path, *pg.NextOffset)
			}
			break
		}
		if pg.NextOffset == nil || *pg.NextOffset != offset+len(p.Assets) || len(p.Assets) != limit {
			t.Fatalf("%s: hasMore with nextOffset %v after %d rows", path, pg.NextOffset, len(p.Assets))
		}
		offset = *pg.NextOffset
	}
	if len(got) != len(want) {
		t.Fatalf("%s limit %d: pages hold %d rows, unpaginated %d", base, size, len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("%s limit %d: row %d differs:\npaged   %.300s\nunpaged %.300s", base, size, i, got[i], want[i])
		}
	}
}
