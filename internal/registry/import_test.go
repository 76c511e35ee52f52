package registry

import (
	"errors"
	"strings"
	"testing"

	"github.com/assetd/assetd/internal/asset"
	"github.com/google/go-cmp/cmp"
)

// referenceFixture mimics reference-registry.json with the quirks the
// importer repairs.
const referenceFixture = `{
  "_source": {"repository": "example"},
  "enums": {"variantKinds": ["spot"]},
  "aliasIndex": {"ondo": "wisdomtree"},
  "assets": [
    {"assetId": "gold", "name": "Gold", "symbol": "GLD", "category": "commodity",
     "aliases": ["gold", "xau", "AymATz4TCL9sWNEEV9Kvyz45CHVhDZ6kUgjTJPzLpU9P", "Ondo"],
     "fallbackLogoPath": "/logos/gold.png",
     "variants": [
       {"variantId": "gold:tether-gold", "mint": "AymATz4TCL9sWNEEV9Kvyz45CHVhDZ6kUgjTJPzLpU9P", "kind": "spot", "issuer": "Tether", "issuerUrl": "https://tether.to", "trustTier": "tier3", "tags": ["gold"], "label": "Tether Gold", "isHomeForMint": true},
       {"variantId": "gold:ondo-gld", "mint": "hWfiw4mcxT8rnNFkk6fsCQSxoxgZ9yVhB6tyeVcondo", "kind": "etf", "issuer": "Ondo", "issuerUrl": "/relative", "trustTier": "experimental", "tags": [], "label": "Ondo", "isHomeForMint": true}
     ]},
    {"assetId": "spdr-gold-shares", "name": "SPDR Gold Shares", "symbol": "GLD", "category": "equity",
     "aliases": ["xstock-spdr-gold-shares", "Ondo"],
     "variants": [
       {"variantId": "spdr-gold-shares:Ondo", "mint": "hWfiw4mcxT8rnNFkk6fsCQSxoxgZ9yVhB6tyeVcondo", "kind": "tokenized_equity", "trustTier": "tier3", "tags": ["Ondo"], "label": "Ondo", "stockVariantTier": "cash_redeemable", "isHomeForMint": false}
     ]},
    {"assetId": "tesla", "name": "Tesla", "symbol": "TSLA", "category": "equity",
     "aliases": ["xstock-tesla", "Tesla", "tesla:xStock", "Ondo"],
     "variants": [
       {"variantId": "tesla:xStock", "mint": "XsDoVfqeBukxuZHWhdvWHBhgEHjGNst4MLodqsJHzoB", "kind": "tokenized_equity", "trustTier": "tier3", "tags": ["xStock"], "label": "xStock", "stockVariantTier": "cash_redeemable"},
       {"variantId": "tesla:Ondo", "mint": "KeGv7bsfR4MheC1CkmnAVceoApjrkvBhHYjWb67ondo", "kind": "tokenized_equity", "trustTier": "tier3", "tags": ["Ondo"], "label": "Ondo", "stockVariantTier": "cash_redeemable"}
     ]},
    {"assetId": "strcon", "name": "Strategy Stretch Preferred", "symbol": "STRCon", "category": "equity", "aliases": [],
     "variants": [{"variantId": "strcon:mint", "mint": "y6kSRF4i9tfMMjZziPHtQE1PeUS6bWEHTzZMFgXondo", "kind": "tokenized_equity", "trustTier": "tier3", "tags": []}]},
    {"assetId": "pre-pren1fvf", "name": "Anthropic", "symbol": "ANTHROPIC", "category": "equity", "aliases": ["anthropic"],
     "variants": [{"variantId": "pre-pren1fvf:mint", "mint": "Pren1FvFX6J3E4kXhJuCiAD5aDmGEb7qJRncwA8Lkhw", "kind": "tokenized_equity", "trustTier": "tier3", "tags": ["PreStocks"], "stockVariantTier": "not_redeemable"}]}
  ],
  "curatedLists": [
    {"id": "metals", "name": "Metals", "description": "Precious metals.", "order": 5, "members": [
      {"mint": "AymATz4TCL9sWNEEV9Kvyz45CHVhDZ6kUgjTJPzLpU9P", "rank": 0, "assetId": "gold", "addedAt": 1768808907000, "sourceComment": "Tether gold"},
      {"mint": "not-a-mint", "rank": 1, "assetId": "gold", "addedAt": 1},
      {"mint": "hWfiw4mcxT8rnNFkk6fsCQSxoxgZ9yVhB6tyeVcondo", "rank": 2, "assetId": "gold", "addedAt": 1768983407000}
    ]}
  ],
  "mintHomeOverrides": {"hWfiw4mcxT8rnNFkk6fsCQSxoxgZ9yVhB6tyeVcondo": "gold"},
  "preStocks": [
    {"mint": "Pren1FvFX6J3E4kXhJuCiAD5aDmGEb7qJRncwA8Lkhw", "symbol": "ANTHROPIC", "name": "Anthropic", "assetId": "pre-pren1fvf"},
    {"mint": "PreweJYECqtQwBtpxHL171nL2K6umo692gTm7Q3rpgF", "symbol": "OPENAI", "name": "OpenAI", "assetId": "openai"}
  ]
}`

func TestParseReferenceRegistry(t *testing.T) {
	doc, rep, err := ParseReferenceRegistry(strings.NewReader(referenceFixture))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Format != FormatReference {
		t.Errorf("Format = %q", rep.Format)
	}
	byID := map[string]Asset{}
	for _, a := range doc.Assets {
		byID[a.AssetID] = a
	}
	gold := byID["gold"]
	if gold.Variants[0].Kind != asset.KindNative {
		t.Errorf("spot kind mapped to %q, want native", gold.Variants[0].Kind)
	}
	if got := gold.Variants[1]; got.LiquidityTier != asset.Tier3 || got.IssuerURL != "" {
		t.Errorf("experimental tier / relative URL not repaired: %+v", got)
	}
	if gold.ImageURL != "" {
		t.Errorf("relative fallbackLogoPath imported as imageUrl %q", gold.ImageURL)
	}
	wantAliases := map[string][]string{
		"gold":             {"xau"},                     // id, mint and issuer label dropped
		"spdr-gold-shares": {"xstock-spdr-gold-shares"}, // issuer label dropped
		"tesla":            {"xstock-tesla"},            // id in other case, variant id and issuer label dropped
		"pre-pren1fvf":     {"anthropic"},
	}
	for id, want := range wantAliases {
		if diff := cmp.Diff(want, byID[id].Aliases); diff != "" {
			t.Errorf("%s aliases (-want +got):\n%s", id, diff)
		}
	}
	tickers := map[string]string{"tesla": "TSLA", "spdr-gold-shares": "GLD", "strcon": "", "pre-pren1fvf": "", "gold": ""}
	for id, want := range tickers {
		if got := byID[id].StockTicker; got != want {
			t.Errorf("%s stockTicker = %q, want %q", id, got, want)
		}
	}
	if diff := cmp.Diff(&PreIPO{Symbol: "ANTHROPIC", Mint: "Pren1FvFX6J3E4kXhJuCiAD5aDmGEb7qJRncwA8Lkhw"}, byID["pre-pren1fvf"].PreIPO); diff != "" {
		t.Errorf("preIpo (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"hWfiw4mcxT8rnNFkk6fsCQSxoxgZ9yVhB6tyeVcondo": "gold"}, doc.MintHomes); diff != "" {
		t.Errorf("mintHomes (-want +got):\n%s", diff)
	}
	if got := len(doc.CuratedLists[0].Members); got != 2 {
		t.Errorf("metals members = %d, want the malformed one dropped", got)
	}
	counts := map[string]int{
		IssueKindMapped: 1, IssueTierNormalised: 1, IssueAliasMintDropped: 1, IssueAliasRedundant: 3,
		IssueIssuerLabelDropped: 1, IssueStockTickerDerived: 2, IssuePreIPOLinked: 1, IssuePreIPOUnmatched: 1,
		IssueCuratedMemberDrop: 1, IssueFieldDropped: 1,
	}
	if diff := cmp.Diff(counts, rep.Counts); diff != "" {
		t.Errorf("report counts (-want +got):\n%s", diff)
	}
	labels := rep.Filter(IssueIssuerLabelDropped)
	if len(labels) != 1 || labels[0].Key != "ondo" || !cmp.Equal(labels[0].Candidates, []string{"gold", "spdr-gold-shares", "tesla"}) {
		t.Errorf("issuer label issue = %+v", labels)
	}

	// Built over nothing, the home override and the fold apply.
	s, r := mustBuild(t, doc)
	for ref, want := range map[string]string{
		"hWfiw4mcxT8rnNFkk6fsCQSxoxgZ9yVhB6tyeVcondo": "gold",
		"spdr-gold-shares":                            "gold",
		"xstock-tesla":                                "tesla",
		"GLD":                                         "gold",
	} {
		if res, err := s.Resolve(ref); err != nil || res.AssetID != want {
			t.Errorf("Resolve(%q) = %s, %v; want %s", ref, res.AssetID, err, want)
		}
	}
	if _, err := s.Resolve("ondo"); !errors.Is(err, ErrNotFound) {
		t.Errorf(`Resolve("ondo") error = %v, want not found (issuer labels are not aliases)`, err)
	}
	if r.Count(IssueAssetFolded) != 1 {
		t.Errorf("want spdr-gold-shares folded into gold, got %v", r.Issues)
	}
}

func TestParseReferenceRegistryRejectsBadEntries(t *testing.T) {
	tests := []struct {
		name, json, wantInError string
	}{
		{"not JSON", `{"assets": [`, "decode reference registry"},
		{"unknown category", `{"assets":[{"assetId":"x1","category":"memes","aliases":[],"variants":[{"variantId":"x1:a","mint":"` + mintUSDC + `","kind":"native","trustTier":"tier3","tags":[]}]}]}`, `asset "x1": category "memes"`},
		{"bad mint", `{"assets":[{"assetId":"x1","category":"crypto","aliases":[],"variants":[{"variantId":"x1:a","mint":"abc","kind":"native","trustTier":"tier3","tags":[]}]}]}`, `mint "abc"`},
		{"unknown kind", `{"assets":[{"assetId":"x1","category":"crypto","aliases":[],"variants":[{"variantId":"x1:a","mint":"` + mintUSDC + `","kind":"perp","trustTier":"tier3","tags":[]}]}]}`, `kind "perp"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := ParseReferenceRegistry(strings.NewReader(tt.json))
			if err == nil || !strings.Contains(err.Error(), tt.wantInError) {
				t.Errorf("error = %v, want it to mention %q", err, tt.wantInError)
			}
		})
	}
}

const tokenListFixture = `{
  "name": "Example",
  "tokens": [
    {"chainId": 101, "address": "` + mintUSDC + `", "symbol": "USDC", "name": "USD Coin", "decimals": 6, "logoURI": "https://example.com/usdc.png", "tags": ["stablecoin"], "extensions": {"coingeckoId": "usd-coin", "website": "https://circle.com"}},
    {"chainId": 101, "address": "A9mUU4qviSctJVPJdBJWkb28deg915LYJKrzQ19ji3FM", "symbol": "USDCet", "name": "USD Coin (Portal from Ethereum)", "decimals": 6, "tags": ["wrapped"], "extensions": {"coingeckoId": "usd-coin"}},
    {"chainId": 101, "address": "BXXkv6z8ykpG1yuvUDPgh732wzVHB69RnB9YgSYh3itW", "symbol": "soUSDC", "name": "Wrapped USDC (Sollet)", "decimals": 6, "tags": ["stablecoin", "wrapped-sollet"], "extensions": {"coingeckoId": "usd-coin"}},
    {"chainId": 101, "address": "DdFPRnccQqLD4zCHrBqdY95D6hvw6PLWp9DEXj1fLCL9", "symbol": "aeUSDC", "name": "Wrapped USDC (Allbridge from Ethereum)", "decimals": 9, "tags": ["stablecoin"], "extensions": {"coingeckoId": "usd-coin"}},
    {"chainId": 101, "address": "` + mintJUP + `", "symbol": "JUP", "name": "Jupiter", "decimals": 6, "extensions": {"coingeckoId": "Jupiter Exchange"}},
    {"chainId": 101, "address": "` + mintBONK + `", "symbol": "Bonk", "name": "Bonk", "decimals": 5},
    {"chainId": 101, "address": "` + mintUSDC + `", "symbol": "USDC2", "name": "dup", "extensions": {"coingeckoId": "dup"}},
    {"chainId": 103, "address": "` + mintUSDT + `", "symbol": "USDT", "name": "devnet", "extensions": {"coingeckoId": "tether"}},
    {"chainId": 101, "address": "0xnotsolana", "symbol": "BAD", "name": "bad", "extensions": {"coingeckoId": "bad"}},
    {"chainId": 101, "address": "` + mintUnknown + `", "symbol": "!!", "name": "bang", "extensions": {"coingeckoId": "!!!"}}
  ]
}`

func TestParseTokenList(t *testing.T) {
	doc, rep, err := ParseTokenList(strings.NewReader(tokenListFixture))
	if err != nil {
		t.Fatal(err)
	}
	if !doc.Supplemental {
		t.Error("token list document not supplemental")
	}
	type row struct{ ID, Name, Symbol, Category, CoinID, Image string }
	var got []row
	for _, a := range doc.Assets {
		got = append(got, row{a.AssetID, a.Name, a.Symbol, a.Category, a.CoinID, a.ImageURL})
	}
	want := []row{
		{"usd-coin", "USD Coin", "USDC", "stablecoin", "usd-coin", "https://example.com/usdc.png"},
		{"jupiter-exchange", "Jupiter", "JUP", "crypto", "Jupiter Exchange", ""},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("assets (-want +got):\n%s", diff)
	}
	var kinds []string
	for _, v := range doc.Assets[0].Variants {
		kinds = append(kinds, v.VariantID+" "+v.Kind+" "+v.Issuer)
	}
	wantKinds := []string{
		"usd-coin:" + mintUSDC + " stablecoin ",
		"usd-coin:A9mUU4qviSctJVPJdBJWkb28deg915LYJKrzQ19ji3FM bridged Wormhole",
		"usd-coin:BXXkv6z8ykpG1yuvUDPgh732wzVHB69RnB9YgSYh3itW wrapped Sollet",
		"usd-coin:DdFPRnccQqLD4zCHrBqdY95D6hvw6PLWp9DEXj1fLCL9 bridged Allbridge",
	}
	if diff := cmp.Diff(wantKinds, kinds); diff != "" {
		t.Errorf("variant kinds (-want +got):\n%s", diff)
	}
	counts := map[string]int{
		IssueNoCoinIDSkipped: 1, IssueDuplicateMintSkip: 1, IssueOtherChainSkipped: 1,
		IssueInvalidMintSkipped: 1, IssueInvalidSlugSkipped: 1,
	}
	if diff := cmp.Diff(counts, rep.Counts); diff != "" {
		t.Errorf("report counts (-want +got):\n%s", diff)
	}
}

const sanctumFixture = `{"_source": {}, "sanctum_lst_list": [
  {"mint": "So11111111111111111111111111111111111111112", "token_program": "T", "name": "SOL", "symbol": "SOL", "logo_uri": "https://example.com/sol.png", "decimals": 9, "pool": {"program": "ReservePool"}},
  {"mint": "` + mintJitoSOL + `", "token_program": "T", "name": "Jito Staked SOL", "symbol": "JitoSOL", "logo_uri": "https://example.com/jito.png", "decimals": 9, "pool": {"program": "Spl", "pool": "x"}},
  {"mint": "` + mintMSOL + `", "token_program": "T", "name": "Marinade staked SOL", "symbol": "mSOL", "logo_uri": "ipfs://nope", "decimals": 9, "pool": {"program": "Marinade"}},
  {"mint": "` + mintMSOL + `", "token_program": "T", "name": "dup", "symbol": "dup", "decimals": 9, "pool": {"program": "Marinade"}},
  {"mint": "bad", "token_program": "T", "name": "bad", "symbol": "bad", "decimals": 9, "pool": {"program": "Spl"}}
]}`

func TestParseSanctumLSTList(t *testing.T) {
	for name, input := range map[string]string{
		"object": sanctumFixture,
		"array":  sanctumFixture[strings.Index(sanctumFixture, "[") : strings.LastIndex(sanctumFixture, "]")+1],
	} {
		t.Run(name, func(t *testing.T) {
			doc, rep, err := ParseSanctumLSTList(strings.NewReader(input))
			if err != nil {
				t.Fatal(err)
			}
			want := []Variant{
				{VariantID: "solana:" + mintJitoSOL, Mint: mintJitoSOL, Kind: asset.KindYield, Symbol: "JitoSOL", Name: "Jito Staked SOL", Decimals: intPtr(9), LogoURI: "https://example.com/jito.png"},
				{VariantID: "solana:" + mintMSOL, Mint: mintMSOL, Kind: asset.KindYield, Symbol: "mSOL", Name: "Marinade staked SOL", Decimals: intPtr(9)},
			}
			if diff := cmp.Diff(want, doc.LSTIndex); diff != "" {
				t.Errorf("LST index (-want +got):\n%s", diff)
			}
			counts := map[string]int{IssueReservePoolSkipped: 1, IssueInvalidMintSkipped: 1, IssueDuplicateMintSkip: 1, IssueFieldDropped: 1}
			if diff := cmp.Diff(counts, rep.Counts); diff != "" {
				t.Errorf("report counts (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDetectAndParse(t *testing.T) {
	seedJSON := `{"assets": [{"assetId": "bonk", "category": "crypto", "variants": [{"variantId": "bonk:bonk", "mint": "` + mintBONK + `", "kind": "native"}]}]}`
	tests := []struct {
		name, input, wantFormat string
		wantErr                 error
	}{
		{"reference", referenceFixture, FormatReference, nil},
		{"token list", tokenListFixture, FormatTokenList, nil},
		{"sanctum object", sanctumFixture, FormatSanctum, nil},
		{"sanctum array", `[{"mint": "` + mintMSOL + `", "symbol": "mSOL", "name": "m", "pool": {"program": "Marinade"}}]`, FormatSanctum, nil},
		{"our document", seedJSON, FormatDocument, nil},
		{"empty", "  ", "", ErrUnknownFormat},
		{"other object", `{"hello": 1}`, "", ErrUnknownFormat},
		{"other array", `[{"hello": 1}]`, "", ErrUnknownFormat},
		{"not JSON", `<html>`, "", ErrUnknownFormat},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, rep, err := DetectAndParse(strings.NewReader(tt.input))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error = %v, want %v", err, tt.wantErr)
			}
			if err == nil && rep.Format != tt.wantFormat {
				t.Errorf("Format = %q, want %q", rep.Format, tt.wantFormat)
			}
		})
	}
}

func TestParseDocumentIsStrict(t *testing.T) {
	tests := []struct{ name, input, want string }{
		{"unknown field", `{"assets": [], "asset": []}`, "unknown field"},
		{"trailing data", `{"assets": []} {}`, "trailing data"},
		{"invalid", `{"assets": [{"assetId": "Bad", "category": "crypto", "variants": []}]}`, "invalid registry document"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseDocument(strings.NewReader(tt.input))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ParseDocument error = %v, want %q", err, tt.want)
			}
		})
	}
}
