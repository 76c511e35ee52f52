package httpapi

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/registry"
)

// Tests of the spec drifts of issue 12, one per item where the item is an
// HTTP behaviour.

// Item 5: per-asset risk-summary and risk-details default to the primary
// variant mint, also when the path is a mint ref (spec: "Param: mint
// (default primary variant mint)").
func TestRiskDefaultsToPrimaryOnMintPath(t *testing.T) {
	h, snap := canonicalHarness(t)
	btc, _ := snap.Asset("bitcoin")
	primary := h.srv.d.Catalog.Primary(registry.Resolution{AssetID: "bitcoin"}, asset.StrategyLiquidity).Mint
	other := ""
	for _, v := range btc.Variants {
		if v.Mint != primary {
			other = v.Mint
			break
		}
	}
	if other == "" {
		t.Fatal("fixture: bitcoin needs a second variant")
	}
	for _, ep := range []string{"risk-summary", "risk-details"} {
		r := h.get(t, "/v1/assets/"+other+"/"+ep)
		wantOK(t, r, "no-store")
		if r.body["assetId"] != "bitcoin" || r.body["mint"] != primary {
			t.Errorf("%s on a mint path: assetId %v mint %v; want bitcoin and the primary %s", ep, r.body["assetId"], r.body["mint"], primary)
		}
		if r := h.get(t, "/v1/assets/"+other+"/"+ep+"?mint="+other); r.body["mint"] != other {
			t.Errorf("%s with mint=: mint %v; want %s", ep, r.body["mint"], other)
		}
	}
}

// Item 4: one rule for every limit parameter: an integer outside the range
// is clamped into it; a value that is not an integer is 400 invalid_param.
// The echoed limit (where the response has one) shows the clamped value.
func TestEveryLimitClamps(t *testing.T) {
	h, _ := canonicalHarness(t)
	echo := func(path ...string) func(resp) any {
		return func(r resp) any {
			var v any = r.body
			for _, p := range path {
				m, _ := v.(map[string]any)
				v = m[p]
			}
			return v
		}
	}
	none := func(resp) any { return nil }
	tests := []struct {
		name, path, param string
		lo, hi            float64
		echoed            func(resp) any
	}{
		{"markets", "/v1/assets/bitcoin/markets?", "limit", 1, 50, echo("limit")},
		{"tickers", "/v1/assets/bitcoin/tickers?", "limit", 1, 50, echo("tickers", "limit")},
		{"variant-top-markets", "/v1/assets/bitcoin/variant-top-markets?", "limit", 1, 100, echo("limit")},
		{"detail marketsLimit", "/v1/assets/bitcoin?include=markets&", "marketsLimit", 1, 50, echo("includes", "markets", "data", "limit")},
		{"search", "/v1/assets/search?q=usd&", "limit", 1, 50, none},
		{"trending", "/v1/assets/trending?", "limit", 1, 50, echo("meta", "limit")},
		{"curated", "/v1/assets/curated?", "limit", 1, 500, echo("pagination", "limit")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, c := range []struct {
				v    string
				want float64
			}{{"0", tt.lo}, {"-7", tt.lo}, {"100000", tt.hi}, {"99999999999999999999999", tt.hi}} {
				r := h.get(t, tt.path+tt.param+"="+c.v)
				if r.status != 200 {
					t.Errorf("%s=%s: %d %.200s; want 200 (clamped)", tt.param, c.v, r.status, r.raw)
					continue
				}
				if got := tt.echoed(r); got != nil && got != c.want {
					t.Errorf("%s=%s: echoed %v; want %v", tt.param, c.v, got, c.want)
				}
			}
			for _, bad := range []string{"ten", "1.5", "1e3"} {
				wantErr(t, h.get(t, tt.path+tt.param+"="+bad), 400, "BadRequestError", "invalid_param")
			}
		})
	}
}

// Item 10: variant-markets with neither mints nor addresses is 200 with an
// empty list (the public reference's answer; its deploy canary calls it
// that way).
func TestVariantMarketsWithoutMints(t *testing.T) {
	h, _, _ := marketHarness(t)
	for _, q := range []string{"", "?mints=", "?addresses=", "?mints=%20,%20"} {
		r := h.get(t, "/v1/assets/variant-markets"+q)
		wantOK(t, r, "private, max-age=60")
		if strings.TrimSpace(r.raw) != `{"variants":[]}` {
			t.Errorf("%q: %s; want {\"variants\":[]}", q, r.raw)
		}
	}
}

// Item 3: every read endpoint that shows a mint annotates it with
// `advisory` (spec: "Read endpoints annotate with it and never refuse"):
// market-snapshots rows, variant-markets rows, variant-market,
// variant-top-markets rows and the resolve variant. Null when unflagged.
func TestAdvisoryOnEveryMintRow(t *testing.T) {
	h, _, snap := marketHarness(t)
	btc, _ := snap.Asset("bitcoin")
	flagged := h.srv.d.Catalog.Primary(registry.Resolution{AssetID: "bitcoin"}, asset.StrategyLiquidity).Mint
	adv := &asset.Advisory{Status: asset.AdvisoryCaution, Reason: "synthetic test advisory", Since: 1}
	h.srv.d.Advisories = advMap{flagged: adv}
	h.srv.d.Catalog.SetAdvisories(h.srv.d.Advisories.Get)
	var other string
	for _, v := range btc.Variants {
		if v.Mint != flagged {
			other = v.Mint
			break
		}
	}
	status := func(v any) any {
		m, ok := v.(map[string]any)
		if !ok {
			return v // null stays nil
		}
		return m["status"]
	}
	type row = map[string]any
	check := func(name string, r row, mint string) {
		t.Helper()
		v, present := r["advisory"]
		if !present {
			t.Errorf("%s: no advisory field on %v", name, mint)
			return
		}
		want := any(nil)
		if mint == flagged {
			want = "caution"
		}
		if status(v) != want {
			t.Errorf("%s %s: advisory %v; want status %v", name, mint, v, want)
		}
	}

	r := h.postJSON(t, "/v1/assets/market-snapshots", `{"mints":["`+flagged+`","`+other+`"]}`)
	var rows []row
	if err := json.Unmarshal([]byte(r.raw), &rows); err != nil || len(rows) != 2 {
		t.Fatalf("market-snapshots: %d %s", r.status, r.raw)
	}
	for _, x := range rows {
		check("market-snapshots", x, x["address"].(string))
	}
	for _, x := range h.get(t, "/v1/assets/variant-markets?mints="+flagged+","+other).body["variants"].([]any) {
		check("variant-markets", x.(row), x.(row)["mint"].(string))
	}
	check("variant-market", h.get(t, "/v1/assets/bitcoin/variant-market").body, flagged)
	check("variant-market mint=", h.get(t, "/v1/assets/bitcoin/variant-market?mint="+other).body, other)
	for _, x := range h.get(t, "/v1/assets/bitcoin/variant-top-markets?variantsMode=all").body["variants"].([]any) {
		check("variant-top-markets", x.(row), x.(row)["mint"].(string))
	}
	check("resolve variant", h.get(t, "/v1/assets/resolve?mint="+flagged).body["variant"].(row), flagged)
	check("resolve variant", h.get(t, "/v1/assets/resolve?mint="+other).body["variant"].(row), other)
}

// Item 8: the provider-budget 429 carries Retry-After like every 429
// (docs/errors.md), agreeing with details.retryAfterSeconds.
func TestProviderBudget429HasRetryAfter(t *testing.T) {
	h, _, _ := listHarness(t)
	key := h.plain["read"]
	if r := h.send(t, "POST", "/v2/lists", key, `{"slug":"budget-test","name":"Budget"}`); r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	var r resp
	for i := 0; i < 4; i++ { // the harness budget is 3 batch calls per window
		r = h.send(t, "POST", "/v2/lists/budget-test/members", key, `{"mints":[]}`)
	}
	wantErr(t, r, 429, "RateLimitedError", "provider_budget")
	ra := r.header.Get("Retry-After")
	d, _ := r.body["error"].(map[string]any)["details"].(map[string]any)
	if ra == "" || ra == "0" || ra != fmt.Sprint(d["retryAfterSeconds"]) {
		t.Errorf("Retry-After %q; want a positive value equal to details.retryAfterSeconds %v", ra, d["retryAfterSeconds"])
	}
}

// Item 9: DELETE of a member with a malformed mint is 400 invalid_mint, as
// PUT; a well-formed mint that is not a member stays 404.
func TestMemberDeleteMalformedMint(t *testing.T) {
	h, _, _ := listHarness(t)
	key := h.plain["read"]
	if r := h.send(t, "POST", "/v2/lists", key, `{"slug":"delete-test","name":"Delete"}`); r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	for _, bad := range []string{"nope", "0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl", strings.Repeat("1", 60)} {
		wantErr(t, h.send(t, "DELETE", "/v2/lists/delete-test/members/"+bad, key, ""), 400, "BadRequestError", "invalid_mint")
		wantErr(t, h.send(t, "PUT", "/v2/lists/delete-test/members/"+bad, key, ""), 400, "BadRequestError", "invalid_mint")
	}
	wantErr(t, h.send(t, "DELETE", "/v2/lists/delete-test/members/"+mkUnknown, key, ""), 404, "NotFoundError", "")
}

// Item 1: the curated slug `all` (and every curated slug) serves the same
// membership as v1 `curated?list=<slug>&groupBy=mint`, LST floor included,
// in list detail and in compose.
func TestV2CuratedSlugsMatchV1MintRows(t *testing.T) {
	h, _, _ := listHarness(t)
	key := h.plain["read"]
	for _, slug := range []string{"all", "lsts", "majors", "stocks"} {
		t.Run(slug, func(t *testing.T) {
			v1 := h.get(t, "/v1/assets/curated?groupBy=mint&list="+slug)
			var want []string
			for _, row := range v1.body["assets"].([]any) {
				want = append(want, row.(map[string]any)["primaryVariant"].(map[string]any)["mint"].(string))
			}
			slices.Sort(want)
			mintsOf := func(r resp) []string {
				var out []string
				for _, tk := range r.body["tokens"].([]any) {
					out = append(out, tk.(map[string]any)["mint"].(string))
				}
				slices.Sort(out)
				return out
			}
			detail := h.send(t, "GET", "/v2/lists/"+slug+"?limit=2000", key, "")
			if got := mintsOf(detail); !slices.Equal(got, want) {
				t.Errorf("/v2/lists/%s: %d mints; v1 groupBy=mint has %d", slug, len(got), len(want))
			}
			if detail.body["tokenCount"] != float64(len(want)) {
				t.Errorf("tokenCount %v; want %d", detail.body["tokenCount"], len(want))
			}
			compose := h.send(t, "GET", "/v2/lists/tokens?limit=2000&lists="+slug, key, "")
			if got := mintsOf(compose); !slices.Equal(got, want) || compose.body["total"] != float64(len(want)) {
				t.Errorf("/v2/lists/tokens?lists=%s: %d mints, total %v; want %d", slug, len(got), compose.body["total"], len(want))
			}
		})
	}
	// The catalog's list summary counts agree with the detail.
	for _, l := range h.send(t, "GET", "/v2/lists", key, "").body["lists"].([]any) {
		l := l.(map[string]any)
		if l["slug"] == "all" {
			d := h.send(t, "GET", "/v2/lists/all?limit=1", key, "")
			if l["tokenCount"] != d.body["tokenCount"] {
				t.Errorf("catalog all tokenCount %v; detail %v", l["tokenCount"], d.body["tokenCount"])
			}
		}
	}
}

// symbolless hides the token-metadata symbol of one mint.
type symbolless struct {
	MarketData
	mint, symbol string
}

func (s symbolless) Token(m string) (market.Token, bool) {
	tok, ok := s.MarketData.Token(m)
	if m == s.mint {
		tok.Symbol = s.symbol
	}
	return tok, ok
}

// trendingMints is the trending rows' mint → advisory status ("" when
// null); it fails when a row lacks the advisory field.
func trendingMints(t *testing.T, h *harness) map[string]string {
	t.Helper()
	r := h.get(t, "/v1/assets/trending")
	out := map[string]string{}
	for _, x := range r.body["trending"].([]any) {
		row := x.(map[string]any)
		adv, present := row["advisory"]
		if !present {
			t.Fatalf("trending row without advisory: %v", row)
		}
		status := ""
		if adv != nil {
			status = adv.(map[string]any)["status"].(string)
		}
		if row["symbol"] == "" {
			t.Errorf("trending row with an empty symbol: %v", row["mint"])
		}
		out[row["mint"].(string)] = status
	}
	return out
}

// Item 2: blocked mints are hidden from trending, compromised mints never
// trend, caution mints trend with their advisory; every row has advisory.
// A flag raised between two runs applies at once.
func TestTrendingAdvisories(t *testing.T) {
	h, _, crypto := analyticsHarness(t)
	mint := crypto.Variants[0].Mint
	adv := advMap{}
	h.srv.d.Advisories = adv
	h.srv.d.Catalog.SetAdvisories(adv.Get)
	if h.srv.RefreshTrending(h.now) != 1 {
		t.Fatal("fixture: one trending mint expected")
	}
	if got := trendingMints(t, h); got[mint] != "" || len(got) != 1 {
		t.Fatalf("unflagged: %v", got)
	}
	for _, status := range []string{asset.AdvisoryBlocked, asset.AdvisoryCompromised} {
		adv[mint] = &asset.Advisory{Status: status, Reason: "synthetic", Since: 1}
		if got := trendingMints(t, h); len(got) != 0 { // flagged after the run: hidden at serve time
			t.Errorf("%s after the run: %v", status, got)
		}
		if n := h.srv.RefreshTrending(h.now); n != 1 { // an empty run keeps the last set
			t.Errorf("%s: run kept %d rows", status, n)
		}
		if got := trendingMints(t, h); len(got) != 0 {
			t.Errorf("%s: %v", status, got)
		}
		if r := h.get(t, "/v1/assets/trending"); r.body["meta"].(map[string]any)["total"] != 0.0 {
			t.Errorf("%s: meta.total %v", status, r.body["meta"])
		}
	}
	adv[mint] = &asset.Advisory{Status: asset.AdvisoryCaution, Reason: "synthetic", Since: 1}
	h.srv.RefreshTrending(h.now)
	if got := trendingMints(t, h); got[mint] != asset.AdvisoryCaution {
		t.Errorf("caution: %v", got)
	}
}

// Item 7: a mint with no symbol in the registry nor in token metadata
// (xStock index mints such as nasdaq's) does not trend; with a metadata
// symbol it trends under that symbol. No trending row has an empty symbol.
func TestTrendingNeverEmptySymbol(t *testing.T) {
	h, eng, _ := analyticsHarness(t)
	snap := h.srv.d.Catalog.Snapshot()
	nasdaq, ok := snap.Asset("nasdaq")
	if !ok || nasdaq.Symbol != "" || nasdaq.Variants[0].Symbol != "" {
		t.Skip("the seed no longer has a symbol-less xStock index asset")
	}
	mint := nasdaq.Variants[0].Mint
	wallets := syntheticMints(12)
	var trades []analytics.Trade
	for i := range 12 {
		trades = append(trades, analytics.Trade{Signature: fmt.Sprintf("sig-ndx-%d", i), Slot: int64(2000 + i),
			BlockTime: h.now.Unix() - int64(3600-i*300), Mint: mint, Side: "buy", TokenAmount: 1, USDAmount: 500 + float64(i),
			PriceUSD: 500, Wallet: wallets[i], Venue: "raydium"})
	}
	if r := eng.Ingest(trades); r.Accepted != len(trades) {
		t.Fatalf("ingest: %+v", r)
	}
	base := h.srv.d.Markets
	h.srv.d.Markets = symbolless{MarketData: base, mint: mint}
	h.srv.RefreshTrending(h.now)
	if got := trendingMints(t, h); len(got) != 1 {
		t.Errorf("without any symbol the index mint must not trend: %v", got)
	} else if _, in := got[mint]; in {
		t.Errorf("index mint trends without a symbol")
	}
	h.srv.d.Markets = symbolless{MarketData: base, mint: mint, symbol: "QQQx"}
	h.srv.RefreshTrending(h.now)
	r := h.get(t, "/v1/assets/trending")
	found := false
	for _, x := range r.body["trending"].([]any) {
		if row := x.(map[string]any); row["mint"] == mint {
			found = row["symbol"] == "QQQx"
		}
	}
	if !found {
		t.Errorf("with a metadata symbol the index mint trends under it: %.400s", r.raw)
	}
}

// Item 4, v2 list reads: the same limit rule on the catalog, list detail
// and compose limits.
func TestListLimitsClamp(t *testing.T) {
	h, _, _ := listHarness(t)
	key := h.plain["read"]
	for _, path := range []string{"/v2/lists?", "/v2/lists/all?", "/v2/lists/tokens?lists=all&"} {
		for _, v := range []string{"0", "-1", "100000"} {
			if r := h.send(t, "GET", path+"limit="+v, key, ""); r.status != 200 {
				t.Errorf("%slimit=%s: %d %.200s; want 200 (clamped)", path, v, r.status, r.raw)
			}
		}
		wantErr(t, h.send(t, "GET", path+"limit=x", key, ""), 400, "BadRequestError", "invalid_param")
		wantErr(t, h.send(t, "GET", path+"offset=-1", key, ""), 400, "BadRequestError", "invalid_param")
	}
	if r := h.send(t, "GET", "/v2/lists/all?limit=0", key, ""); len(r.body["tokens"].([]any)) != 1 {
		t.Errorf("limit=0 clamps to 1: %d tokens", len(r.body["tokens"].([]any)))
	}
}
