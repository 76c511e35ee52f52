package registry

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"slices"
	"testing"

	"github.com/assetd/assetd/internal/asset"
	"github.com/google/go-cmp/cmp"
)

func seedSnapshot(t testing.TB) *Snapshot {
	t.Helper()
	seed, err := Seed()
	if err != nil {
		t.Fatalf("Seed: %v", err)
	}
	s, r := mustBuild(t, seed)
	if len(r.Issues) != 0 || len(r.Counts) != 0 {
		t.Fatalf("the seed must build without issues: %s\n%v", r.Summary(), r.Issues)
	}
	return s
}

func TestSeedSize(t *testing.T) {
	st := seedSnapshot(t).Stats()
	if st.Assets < 60 || st.Variants < 150 {
		t.Errorf("seed has %d assets and %d variants, want at least 60 and 150", st.Assets, st.Variants)
	}
	t.Logf("seed: %d assets, %d variants; by category %v; by kind %v", st.Assets, st.Variants, st.ByCategory, st.ByKind)
}

func TestSeedCoverage(t *testing.T) {
	s := seedSnapshot(t)
	st := s.Stats()
	// Every category with real Solana examples; lst and index have none
	// (LSTs are yield variants of "solana").
	wantCategories := slices.DeleteFunc(slices.Clone(asset.Categories), func(c string) bool { return c == "lst" || c == "index" })
	if diff := cmp.Diff(wantCategories, slices.Sorted(maps.Keys(st.ByCategory)), cmpSortStrings); diff != "" {
		t.Errorf("seed categories (-want +got):\n%s", diff)
	}
	// Every kind except "lst": LSTs use kind yield so they never count as
	// spot-like SOL (docs/registry.md).
	wantKinds := slices.DeleteFunc(slices.Clone(asset.Kinds), func(k string) bool { return k == asset.KindLST })
	if diff := cmp.Diff(wantKinds, slices.Sorted(maps.Keys(st.ByKind)), cmpSortStrings); diff != "" {
		t.Errorf("seed kinds (-want +got):\n%s", diff)
	}
	tiers := map[string]bool{}
	for _, a := range s.Assets() {
		for _, v := range a.Variants {
			if v.StockVariantTier != "" {
				tiers[v.StockVariantTier] = true
			}
		}
	}
	if diff := cmp.Diff(asset.StockVariantTiers, slices.Sorted(maps.Keys(tiers)), cmpSortStrings); diff != "" {
		t.Errorf("stockVariantTier coverage (-want +got):\n%s", diff)
	}
}

var cmpSortStrings = cmp.Transformer("sort", func(in []string) []string { return slices.Sorted(slices.Values(in)) })

func TestSeedShapes(t *testing.T) {
	s := seedSnapshot(t)
	kindsOf := func(id string) map[string]int {
		a, ok := s.Asset(id)
		if !ok {
			t.Fatalf("seed has no %q", id)
		}
		out := map[string]int{}
		for _, v := range a.Variants {
			out[v.Kind]++
		}
		return out
	}
	sol := kindsOf("solana")
	if sol[asset.KindNative] != 1 || sol[asset.KindYield] < 10 {
		t.Errorf("solana kinds = %v, want wrapped SOL plus LSTs", sol)
	}
	if k := kindsOf("usd"); k[asset.KindStablecoin] < 8 || k[asset.KindBridged] < 2 || k[asset.KindYield] < 1 {
		t.Errorf("usd kinds = %v, want issuer stablecoins, bridged copies and yield tokens", k)
	}
	if k := kindsOf("eur"); k[asset.KindStablecoin] < 2 {
		t.Errorf("eur kinds = %v", k)
	}
	if k := kindsOf("bitcoin"); k[asset.KindWrapped] < 2 || k[asset.KindBridged] < 1 {
		t.Errorf("bitcoin kinds = %v", k)
	}
	if k := kindsOf("gold"); k[asset.KindNative] < 2 || k[asset.KindETF] < 1 || k[asset.KindBridged] < 1 {
		t.Errorf("gold kinds = %v", k)
	}

	multiIssuer := 0
	for _, a := range s.Assets() {
		if a.Category != "equity" {
			continue
		}
		issuers, tiers := map[string]bool{}, map[string]bool{}
		for _, v := range a.Variants {
			issuers[v.Issuer] = true
			tiers[v.StockVariantTier] = true
		}
		if len(issuers) > 1 && tiers[asset.StockShareRedeemable] && tiers[asset.StockCashRedeemable] {
			multiIssuer++
		}
		if a.PreIPO == nil && a.StockTicker == "" && a.AssetID != "sk-hynix" {
			t.Errorf("equity %s has neither a stock ticker nor a pre-IPO reference", a.AssetID)
		}
	}
	if multiIssuer < 3 {
		t.Errorf("%d equities have share- and cash-redeemable variants from several issuers, want at least 3", multiIssuer)
	}
	preIPO := 0
	for _, a := range s.Assets() {
		if a.PreIPO != nil {
			preIPO++
			if _, v, ok := s.VariantByMint(a.PreIPO.Mint); !ok || v.StockVariantTier != asset.StockNotRedeemable {
				t.Errorf("%s pre-IPO mint %q is not a not_redeemable variant", a.AssetID, a.PreIPO.Mint)
			}
		}
	}
	if preIPO < 3 {
		t.Errorf("%d pre-IPO assets, want at least 3", preIPO)
	}
}

func TestSeedCuratedLists(t *testing.T) {
	s := seedSnapshot(t)
	for _, l := range s.CuratedLists() {
		if len(l.Members) == 0 {
			t.Errorf("curated list %s is empty", l.ID)
		}
		for _, m := range l.Members {
			if _, ok := SingletonMint(m.AssetID); ok {
				t.Errorf("curated list %s member %s is not in the seed", l.ID, m.Mint)
			}
		}
	}
	if got := len(s.CuratedAssetIDs(AllListID)); got < 60 {
		t.Errorf("all holds %d assets, want at least 60", got)
	}
	for _, a := range s.Assets() {
		if len(a.Variants) > 0 && !slices.Contains(s.CuratedAssetIDs(AllListID), a.AssetID) {
			t.Errorf("seed asset %s is in no curated list", a.AssetID)
		}
	}
}

func TestSeedResolves(t *testing.T) {
	s := seedSnapshot(t)
	tests := []struct{ ref, wantAsset, wantBy string }{
		{"solana", "solana", asset.ResolvedByAssetID},
		{"SOL", "solana", asset.ResolvedByAlias},
		{"wsol", "solana", asset.ResolvedByAlias},
		{mintWSOL, "solana", asset.ResolvedByMint},
		{mintJitoSOL, "solana", asset.ResolvedByMint},
		{"usdc", "usd", asset.ResolvedByAlias},
		{"PYUSD", "usd", asset.ResolvedByAlias},
		{mintUSDC, "usd", asset.ResolvedByMint},
		{"solana-" + mintUSDC, "usd", asset.ResolvedBySingletonMint},
		{"EURC", "eur", asset.ResolvedByAlias},
		{"btc", "bitcoin", asset.ResolvedByAlias},
		{"cbBTC", "bitcoin", asset.ResolvedByAlias},
		{mintJUP, "jupiter", asset.ResolvedByMint},
		{"jupiter-exchange-solana", "jupiter", asset.ResolvedByAlias},
		{"TSLA", "tesla", asset.ResolvedByAlias},
		{"XsDoVfqeBukxuZHWhdvWHBhgEHjGNst4MLodqsJHzoB", "tesla", asset.ResolvedByMint},
		{"SPACEX", "spacex", asset.ResolvedByAlias},
		{"paxg", "gold", asset.ResolvedByAlias},
		{mintUnknown, "solana-" + mintUnknown, asset.ResolvedBySingleton},
	}
	for _, tt := range tests {
		res, err := s.Resolve(tt.ref)
		if err != nil || res.AssetID != tt.wantAsset || res.ResolvedBy != tt.wantBy {
			t.Errorf("Resolve(%q) = %s/%s, %v; want %s/%s", tt.ref, res.AssetID, res.ResolvedBy, err, tt.wantAsset, tt.wantBy)
		}
	}
	if _, err := s.Resolve("ondo"); !errors.Is(err, ErrNotFound) {
		t.Errorf(`Resolve("ondo") = %v, want not found`, err)
	}
}

// TestSeedMintsAreReal checks that every seed mint appears in the public
// data the seed was curated from.
func TestSeedMintsAreReal(t *testing.T) {
	known := map[string]bool{}
	addJSONMints(t, openSharedData(t, "reference-registry.json"), known, func(raw []byte) []string {
		var f refFile
		if err := json.Unmarshal(raw, &f); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, a := range f.Assets {
			for _, v := range a.Variants {
				out = append(out, v.Mint)
			}
		}
		return out
	})
	addJSONMints(t, openSharedData(t, "sanctum-lst-list.json"), known, func(raw []byte) []string {
		var f sanctumFile
		if err := json.Unmarshal(raw, &f); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range f.List {
			out = append(out, e.Mint)
		}
		return out
	})
	addJSONMints(t, openSharedData(t, "solana-labs-tokenlist.json"), known, func(raw []byte) []string {
		var f tokenListFile
		if err := json.Unmarshal(raw, &f); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tok := range f.Tokens {
			if tok.ChainID == solanaMainnetChainID {
				out = append(out, tok.Address)
			}
		}
		return out
	})
	rd := csv.NewReader(openSharedData(t, "token-index-sonarwatch-solana-150k.csv"))
	rd.ReuseRecord = true
	for {
		rec, err := rd.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		known[rec[0]] = true
	}

	seed, err := Seed()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	check := func(where, mint string) {
		checked++
		if !ValidMint(mint) {
			t.Errorf("%s: mint %q is not a valid address", where, mint)
		}
		if !known[mint] {
			t.Errorf("%s: mint %s does not appear in the shared data", where, mint)
		}
	}
	for _, a := range seed.Assets {
		for _, v := range a.Variants {
			check(v.VariantID, v.Mint)
		}
		if a.PreIPO != nil && a.PreIPO.Mint != "" {
			check(a.AssetID+" preIpo", a.PreIPO.Mint)
		}
	}
	for _, l := range seed.CuratedLists {
		for _, m := range l.Members {
			check("curated "+l.ID, m.Mint)
		}
	}
	t.Logf("checked %d seed mints against %d known mints", checked, len(known))
}

func addJSONMints(t *testing.T, r io.Reader, known map[string]bool, extract func([]byte) []string) {
	t.Helper()
	raw, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range extract(raw) {
		known[m] = true
	}
}
