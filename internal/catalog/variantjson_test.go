package catalog

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/registry"
)

// The Variant object is encoded into every search, curated, variants and
// detail body. The model keeps a variantModel per variant (a pointer to
// the registry variant plus what the catalog derives) and makes Variant
// views from it on use; these tests pin the views' encoding, byte for
// byte, to that of legacyVariant filled the way the model filled each
// variant's view before (every registry string copied at build): field
// names, order, omitempty, `tags` always present, tiers derived from the
// market, registry-only fields (decimals, logoUri) absent, and
// encoding/json's string escaping.

// legacyVariant is the former definition of Variant, tags included.
type legacyVariant struct {
	VariantID        string                  `json:"variantId"`
	Mint             string                  `json:"mint"`
	Kind             string                  `json:"kind"`
	LiquidityTier    string                  `json:"liquidityTier"`
	TrustTier        string                  `json:"trustTier"`
	Tags             []string                `json:"tags"`
	Issuer           string                  `json:"issuer,omitempty"`
	IssuerURL        string                  `json:"issuerUrl,omitempty"`
	Label            string                  `json:"label,omitempty"`
	StockVariantTier string                  `json:"stockVariantTier,omitempty"`
	Symbol           string                  `json:"symbol,omitempty"`
	Name             string                  `json:"name,omitempty"`
	Market           *asset.Market           `json:"market"`
	ExecutionQuality *asset.ExecutionQuality `json:"executionQuality"`
	Advisory         *asset.Advisory         `json:"advisory"`
	PreIPO           *PreIPOBlock            `json:"preIpo,omitempty"`
}

// legacyFrom is the former view of registry variant rv, filled as the
// former variantView did: rv's strings, tags never nil, the tier derived
// from the market liquidity else rv's stored hint (tier3 when none). The
// market data, advisory and preIpo block (the catalog's inputs) are v's.
func legacyFrom(rv *registry.Variant, v *Variant) *legacyVariant {
	tier := rv.LiquidityTier
	if tier == "" {
		tier = asset.Tier3
	}
	if v.Market != nil && v.Market.Liquidity != nil {
		tier = asset.LiquidityTier(v.Market.Liquidity)
	}
	tags := rv.Tags
	if tags == nil {
		tags = []string{}
	}
	return &legacyVariant{VariantID: rv.VariantID, Mint: rv.Mint, Kind: rv.Kind, LiquidityTier: tier, TrustTier: tier,
		Tags: tags, Issuer: rv.Issuer, IssuerURL: rv.IssuerURL, Label: rv.Label, StockVariantTier: rv.StockVariantTier,
		Symbol: rv.Symbol, Name: rv.Name, Market: v.Market, ExecutionQuality: v.ExecutionQuality, Advisory: v.Advisory, PreIPO: v.PreIPO}
}

// registryVariants finds registry variants by variant id.
type registryVariants map[string]*registry.Variant

func (reg registryVariants) add(a *registry.Asset) {
	for i := range a.Variants {
		reg[a.Variants[i].VariantID] = &a.Variants[i]
	}
}

// legacyOf is the former view of the registry variant v views.
func (reg registryVariants) legacyOf(t *testing.T, v *Variant) *legacyVariant {
	t.Helper()
	if v == nil {
		return nil
	}
	rv, ok := reg[v.VariantID]
	if !ok {
		t.Fatalf("variant %q is not in the registry", v.VariantID)
	}
	return legacyFrom(rv, v)
}

// legacyList converts a variant list, nil and empty kept apart.
func (reg registryVariants) legacyList(t *testing.T, vs []*Variant) []*legacyVariant {
	if vs == nil {
		return nil
	}
	out := make([]*legacyVariant, len(vs))
	for i, v := range vs {
		out[i] = reg.legacyOf(t, v)
	}
	return out
}

// legacyRow, legacyGroups and legacyDetail are Row, Groups and Detail
// with legacy variants.
type legacyRow struct {
	AssetID        string           `json:"assetId"`
	Name           string           `json:"name,omitempty"`
	Symbol         string           `json:"symbol,omitempty"`
	Category       string           `json:"category"`
	ImageURL       *string          `json:"imageUrl"`
	Stats          *asset.Stats     `json:"stats"`
	PrimaryVariant *legacyVariant   `json:"primaryVariant"`
	Variants       []*legacyVariant `json:"variants,omitempty"`
}

type legacyGroups struct {
	Spot            []*legacyVariant `json:"spot"`
	LST             []*legacyVariant `json:"lst"`
	Yield           []*legacyVariant `json:"yield"`
	ETF             []*legacyVariant `json:"etf"`
	Leveraged       []*legacyVariant `json:"leveraged"`
	Basket          []*legacyVariant `json:"basket"`
	TokenizedEquity []*legacyVariant `json:"tokenizedEquity"`
}

type legacyDetail struct {
	AssetID                string         `json:"assetId"`
	Name                   string         `json:"name,omitempty"`
	Symbol                 string         `json:"symbol,omitempty"`
	Category               string         `json:"category"`
	Aliases                []string       `json:"aliases"`
	ImageURL               *string        `json:"imageUrl"`
	Stats                  *asset.Stats   `json:"stats"`
	PrimaryVariantStrategy string         `json:"primaryVariantStrategy"`
	PrimaryVariant         *legacyVariant `json:"primaryVariant"`
	CanonicalMarket        any            `json:"canonicalMarket"`
	VariantGroups          legacyGroups   `json:"variantGroups"`
}

func (reg registryVariants) legacyRows(t *testing.T, rows []Row) []legacyRow {
	if rows == nil {
		return nil
	}
	out := make([]legacyRow, len(rows))
	for i, r := range rows {
		out[i] = legacyRow{AssetID: r.AssetID, Name: r.Name, Symbol: r.Symbol, Category: r.Category, ImageURL: r.ImageURL,
			Stats: r.Stats, PrimaryVariant: reg.legacyOf(t, r.PrimaryVariant), Variants: reg.legacyList(t, r.Variants)}
	}
	return out
}

func (reg registryVariants) legacyDetail(t *testing.T, d *Detail) *legacyDetail {
	g := d.VariantGroups
	l := func(vs []*Variant) []*legacyVariant { return reg.legacyList(t, vs) }
	return &legacyDetail{AssetID: d.AssetID, Name: d.Name, Symbol: d.Symbol, Category: d.Category, Aliases: d.Aliases,
		ImageURL: d.ImageURL, Stats: d.Stats, PrimaryVariantStrategy: d.PrimaryVariantStrategy,
		PrimaryVariant: reg.legacyOf(t, d.PrimaryVariant), CanonicalMarket: d.CanonicalMarket,
		VariantGroups: legacyGroups{Spot: l(g.Spot), LST: l(g.LST), Yield: l(g.Yield), ETF: l(g.ETF), Leveraged: l(g.Leveraged),
			Basket: l(g.Basket), TokenizedEquity: l(g.TokenizedEquity)}}
}

// sameJSON fails t unless got and want encode to the same bytes, with
// json.Marshal and with a json.Encoder (what the HTTP layer uses).
func sameJSON(t *testing.T, what string, got, want any) {
	t.Helper()
	g, err := json.Marshal(got)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	w, err := json.Marshal(want)
	if err != nil {
		t.Fatalf("%s: legacy: %v", what, err)
	}
	if !bytes.Equal(g, w) {
		t.Fatalf("%s: encoding changed\n got %s\nwant %s", what, g, w)
	}
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(got); err != nil || !bytes.Equal(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), w) {
		t.Fatalf("%s: json.Encoder output differs (%v)\n got %s\nwant %s", what, err, buf.Bytes(), w)
	}
}

// goldenCatalog is the seed catalog with synthetic markets, canonical data
// (a pre-IPO mark, so variants carry preIpo blocks) and advisories on one
// mint in four.
func goldenCatalog(t *testing.T, salt string) *Catalog {
	t.Helper()
	c, mr := newSeedCatalog(t, salt)
	if spacex, _ := c.Snapshot().Asset("spacex"); spacex != nil && spacex.PreIPO != nil {
		mr.mu.Lock()
		for _, v := range spacex.Variants {
			mr.markets[v.Mint] = &asset.Market{Price: fp(250), Liquidity: fp(2e6), Volume24hUSD: fp(1e5)}
		}
		mr.mu.Unlock()
	}
	url := "https://example.test/advisory?a=1&b=<2>"
	c.SetAdvisories(func(mint string) *asset.Advisory {
		if h := sha256.Sum256([]byte(salt + mint)); h[0]%4 == 0 {
			return &asset.Advisory{Status: "warning", Reason: "synthetic advisory \"test\"", URL: &url, Since: 1}
		}
		return nil
	})
	c.SetCanonical(mapCanonical{at: testNow.Add(-time.Minute),
		coins:  map[string]market.Coin{"bitcoin": {ID: "bitcoin", PriceUSD: fp(90_000), MarketCapUSD: fp(1.8e12), LastUpdated: testNow.Add(-2 * time.Minute)}},
		quotes: map[string]market.StockQuote{"TSLA": {Ticker: "TSLA", PriceUSD: fp(400), Volume24hUSD: fp(3e10), AsOf: testNow.Add(-time.Hour)}},
		marks:  map[string]market.PreIPOMark{"SPACEX": {Symbol: "SPACEX", MarkPriceUSD: fp(200), MarkValuationUSD: fp(400e9)}}})
	return c
}

// TestVariantEncodingInViews encodes every view that holds variants (asset
// details per strategy and variantsMode, variant rows, curated rows in
// every grouping, search rows, the resolve body) over the seed registry
// and compares them with the legacy encoding.
func TestVariantEncodingInViews(t *testing.T) {
	for _, salt := range []string{"", "golden"} {
		c := goldenCatalog(t, salt)
		snap := c.Snapshot()
		reg := registryVariants{}
		refs := []string{mintOf("singleton"), mintOf("singleton 2")}
		for i, a := range snap.Assets() {
			refs = append(refs, a.AssetID)
			reg.add(&snap.Assets()[i])
		}
		preIPO := 0
		for _, ref := range refs {
			res, err := c.Resolve(ref)
			if err != nil {
				t.Fatal(err)
			}
			if res.Singleton() {
				reg.add(res.Asset)
			}
			for _, s := range asset.Strategies {
				for _, all := range []bool{false, true} {
					d, err := c.Detail(res, DetailOptions{Strategy: s, VariantsAll: all})
					if err != nil {
						t.Fatal(err)
					}
					want := reg.legacyDetail(t, d.Asset)
					sameJSON(t, "detail "+ref+" "+s, d.Asset, want)
					if w, _ := json.Marshal(want); d.AssetJSON != nil && !bytes.Equal(d.AssetJSON, w) {
						t.Fatalf("detail %s %s: cached encoding changed\n got %s\nwant %s", ref, s, d.AssetJSON, w)
					}
					for _, v := range d.Asset.VariantGroups.TokenizedEquity {
						if v.PreIPO != nil {
							preIPO++
						}
					}
					vs, err := c.Variants(res, VariantFilter{All: all, SortBy: s})
					if err != nil {
						t.Fatal(err)
					}
					sameJSON(t, "variants "+ref+" "+s, vs, reg.legacyList(t, vs))
				}
			}
			r := c.ResolvedBody(res)
			if r.Variant != nil {
				v := c.Primary(res, asset.StrategyLiquidity)
				if res.Mint != "" {
					vs, _ := c.Variants(res, VariantFilter{All: true, Mint: res.Mint})
					for _, x := range vs {
						if x.Mint == res.Mint {
							v = x
						}
					}
				}
				l := reg.legacyOf(t, v)
				sameJSON(t, "resolve "+ref, r.Variant, &ResolveVariant{Mint: l.Mint, Chain: "solana", Kind: l.Kind, LiquidityTier: l.LiquidityTier,
					TrustTier: l.TrustTier, Tags: l.Tags, Issuer: l.Issuer, IssuerURL: l.IssuerURL, Label: l.Label, Advisory: l.Advisory})
			}
		}
		if preIPO == 0 {
			t.Error("no variant carries a preIpo block: the case tests nothing")
		}
		lists := []string{"all"}
		lists = append(lists, asset.CuratedLists...)
		for _, list := range lists {
			for _, s := range asset.Strategies {
				for _, o := range []CuratedOptions{{}, {ByMint: true}, {VariantsAll: true}, {VariantsAll: true, AllVariants: true}, {ByMint: true, AllVariants: true}} {
					o.List, o.Strategy = list, s
					rows, ok := c.Curated(o)
					if !ok {
						t.Fatalf("curated %s: unknown list", list)
					}
					sameJSON(t, "curated "+list, rows, reg.legacyRows(t, rows))
				}
			}
		}
		for _, q := range []string{"sol", "usd", "btc", "x", "a", "tesla", "spacex", mintOf("singleton")} {
			for _, s := range asset.Strategies {
				for _, all := range []bool{false, true} {
					rows := c.Search(SearchOptions{Query: q, Limit: 50, Strategy: s, VariantsAll: all})
					sameJSON(t, "search "+q, rows, reg.legacyRows(t, rows))
				}
			}
		}
	}
}

// edgeStrings need escaping or test encoding/json's replacements: HTML
// characters, quotes and backslashes, control characters, non-ASCII,
// U+2028/U+2029, invalid UTF-8 (written as U+FFFD), DEL.
var edgeStrings = []string{
	"",
	"plain",
	`<script>alert("x")</script> & more`,
	`back\slash "quoted" 'single'`,
	"tab\tnewline\ncr\rbackspace\bformfeed\fnul\x00unit\x1f",
	"naïve Ünïcödé 日本語 🚀",
	"line\u2028para\u2029end",
	"invalid \xff\xfe utf-8 \xc3",
	"del\x7f",
}

// TestVariantEncodingEdgeCases encodes variants with every optional field
// set and unset, with or without market data, and with strings that need
// escaping, as values and pointers, alone and in views.
func TestVariantEncodingEdgeCases(t *testing.T) {
	dec := 6
	url := "https://example.test/<advisory>?a=1&b=2"
	mr := &mapMarkets{markets: map[string]*asset.Market{
		"liquid":  {Price: fp(1.5), Liquidity: fp(5e7), Volume24hUSD: fp(1e6)},
		"shallow": {Price: fp(0.01), Liquidity: fp(1e3)},
		"noliq":   {Price: fp(2)},
	}, quality: map[string]*asset.ExecutionQuality{
		"liquid": {Source: "flow", Range: "24h", Volume24hUSD: 5e5, Trade24h: 12, ExecutionScore: 88, IsEligibleForPrimary: true},
	}}
	var cases []registry.Variant
	for _, mint := range []string{"liquid", "shallow", "noliq", "nomarket"} {
		// The tiers a snapshot holds (it maps "experimental" to tier3),
		// and the empty one, which views show as tier3.
		for _, tier := range []string{"", asset.Tier1, asset.Tier2, asset.Tier3} {
			cases = append(cases, registry.Variant{VariantID: "x:" + mint, Mint: mint, Kind: asset.KindNative, LiquidityTier: tier, TrustTier: tier})
		}
	}
	for i, s := range edgeStrings {
		cases = append(cases, registry.Variant{VariantID: "edge:" + s, Mint: "liquid", Kind: s, LiquidityTier: asset.Tier2, TrustTier: asset.Tier2,
			Tags: []string{s, "fiat"}, Issuer: s, IssuerURL: s, Label: s, StockVariantTier: s, Symbol: s, Name: s,
			Decimals: &dec, LogoURI: "https://example.test/logo.png"})
		// One optional field at a time.
		rv := registry.Variant{VariantID: "one", Mint: "nomarket", Kind: asset.KindWrapped}
		switch i % 7 {
		case 0:
			rv.Issuer = s + "issuer"
		case 1:
			rv.IssuerURL = s + "https://issuer.test"
		case 2:
			rv.Label = s + "label"
		case 3:
			rv.StockVariantTier = s + "tier"
		case 4:
			rv.Symbol = s + "SYM"
		case 5:
			rv.Name = s + "Name"
		case 6:
			rv.Tags = []string{s}
		}
		cases = append(cases, rv)
	}
	cases = append(cases,
		registry.Variant{VariantID: "tags:nil", Mint: "nomarket", Kind: asset.KindNative, Tags: nil},
		registry.Variant{VariantID: "tags:empty", Mint: "nomarket", Kind: asset.KindNative, Tags: []string{}},
		registry.Variant{VariantID: "tags:two", Mint: "nomarket", Kind: asset.KindNative, Tags: []string{"a", "b"}, Decimals: &dec},
	)
	pre := &PreIPOBlock{Symbol: "SYN<&>", MarkPriceUSD: fp(200), MarkValuationUSD: fp(4e11), ImpliedValuationUSD: fp(5e11), PremiumToMarkPercent: fp(25), LastFetchedAt: 7}
	var all []*Variant
	var srcs []*registry.Variant // the registry variant of each view
	for i := range cases {
		for _, extra := range []struct {
			adv *asset.Advisory
			pre *PreIPOBlock
		}{{}, {&asset.Advisory{Status: "blocked", Reason: "<reason> & \u2028", URL: &url, Since: 9}, nil}, {nil, pre}, {&asset.Advisory{Status: "warning"}, pre}} {
			vm := newVariantModel(&cases[i], mr)
			vm.advisory, vm.preIPO = extra.adv, extra.pre
			v := new(Variant)
			vm.view(v)
			l := legacyFrom(&cases[i], v)
			what := cases[i].VariantID
			sameJSON(t, what+" (pointer)", v, l)
			sameJSON(t, what+" (value)", *v, *l)
			// Decoding a response into a Variant (as the HTTP tests do)
			// gives what decoding it into the legacy type gave.
			enc, _ := json.Marshal(l)
			var back Variant
			var lback legacyVariant
			if err := json.Unmarshal(enc, &back); err != nil {
				t.Fatalf("%s: decode: %v", what, err)
			}
			if err := json.Unmarshal(enc, &lback); err != nil {
				t.Fatal(err)
			}
			sameJSON(t, what+" (decoded)", &back, &lback)
			all = append(all, v)
			srcs = append(srcs, &cases[i])
		}
	}
	// Views in rows and groups, keyed by variant id (the view of each
	// case with its variant id made unique).
	reg := registryVariants{}
	for i, v := range all {
		rv := *srcs[i]
		rv.VariantID = fmt.Sprintf("%s#%d", rv.VariantID, i)
		v.VariantID = rv.VariantID
		reg[rv.VariantID] = &rv
	}
	// In views: rows with and without variants, null primaries, groups.
	rows := []Row{{AssetID: "a", Category: "crypto", PrimaryVariant: all[0], Variants: all},
		{AssetID: "b", Category: "crypto", PrimaryVariant: nil, Variants: []*Variant{}},
		{AssetID: "c", Category: "crypto", PrimaryVariant: all[len(all)-1]}}
	sameJSON(t, "rows", rows, reg.legacyRows(t, rows))
	d := &Detail{AssetID: "d", Category: "crypto", Aliases: []string{}, PrimaryVariant: all[1],
		VariantGroups: Groups{Spot: all[:3], LST: []*Variant{}, Yield: nil, ETF: all[3:4], Leveraged: []*Variant{}, Basket: all, TokenizedEquity: []*Variant{}}}
	sameJSON(t, "detail", d, reg.legacyDetail(t, d))
}

// TestVariantEncodingLiteral pins one encoding literally, so a reader sees
// the contract without the legacy type.
func TestVariantEncodingLiteral(t *testing.T) {
	dec := 9
	rv := registry.Variant{VariantID: "syn:native", Mint: "m1", Kind: asset.KindNative, LiquidityTier: asset.Tier2, TrustTier: asset.Tier2,
		Issuer: "A & B <Issuer>", Label: "line\u2028sep", Symbol: "SYN", Decimals: &dec, LogoURI: "https://example.test/l.png"}
	mr := &mapMarkets{markets: map[string]*asset.Market{"m1": {Liquidity: fp(5e7)}}}
	vm := newVariantModel(&rv, mr)
	var v Variant
	vm.view(&v)
	got, err := json.Marshal(&v)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"variantId":"syn:native","mint":"m1","kind":"native","liquidityTier":"tier1","trustTier":"tier1","tags":[],` +
		`"issuer":"A \u0026 B \u003cIssuer\u003e","label":"line\u2028sep","symbol":"SYN",` +
		`"market":{"price":null,"liquidity":50000000,"volume24hUSD":null,"marketCap":null,"priceChange24hPercent":null,"priceChange1hPercent":null,` +
		`"decimals":null,"logoURI":null,"lastFetchedAt":null},` +
		`"executionQuality":null,"advisory":null}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
