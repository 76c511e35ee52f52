package registry

import (
	"errors"
	"strings"
	"testing"

	"github.com/assetd/assetd/internal/asset"
	"github.com/google/go-cmp/cmp"
)

func TestBuildFixture(t *testing.T) {
	s, r := mustBuild(t, fixtureDoc())
	if len(r.Issues) != 0 {
		t.Errorf("fixture build reported issues: %v", r.Issues)
	}
	var ids []string
	for _, a := range s.Assets() {
		ids = append(ids, a.AssetID)
	}
	if diff := cmp.Diff([]string{"bonk", "solana", "usd"}, ids); diff != "" {
		t.Errorf("Assets() order (-want +got):\n%s", diff)
	}
	want := Stats{Assets: 3, Variants: 5, LSTIndexVariants: 1,
		ByCategory: map[string]int{"crypto": 2, "stablecoin": 1},
		ByKind:     map[string]int{"native": 2, "stablecoin": 2, "yield": 1}}
	if diff := cmp.Diff(want, s.Stats()); diff != "" {
		t.Errorf("Stats (-want +got):\n%s", diff)
	}
}

func TestBuildNormalisesVariants(t *testing.T) {
	doc := fixtureDoc()
	doc.Assets[2].Variants[0].TrustTier = asset.TierExperimental
	s, _ := mustBuild(t, doc)
	tests := []struct {
		mint     string
		wantTier string
	}{
		{mintUSDC, asset.Tier1},    // liquidityTier set
		{mintUSDT, asset.Tier3},    // nothing set
		{mintBONK, asset.Tier3},    // legacy "experimental" trust tier
		{mintWSOL, asset.Tier3},    // nothing set
		{mintJitoSOL, asset.Tier3}, // LST index entry
	}
	for _, tt := range tests {
		_, v, ok := s.VariantByMint(tt.mint)
		if !ok {
			t.Fatalf("mint %s missing", tt.mint)
		}
		if v.LiquidityTier != tt.wantTier || v.TrustTier != tt.wantTier {
			t.Errorf("%s tiers = %q/%q, want %q mirrored", tt.mint, v.LiquidityTier, v.TrustTier, tt.wantTier)
		}
		if v.Tags == nil {
			t.Errorf("%s tags are nil, want an empty slice", tt.mint)
		}
	}
}

func TestBuildRejectsInvalidDocumentWhole(t *testing.T) {
	bad := Document{Assets: []Asset{{
		AssetID: "jupiter", Category: "crypto",
		Variants: []Variant{{VariantID: "jupiter:jup", Mint: "JUPnotamint", Kind: asset.KindNative}},
	}}}
	s, r, err := Build(fixtureDoc(), bad)
	if s != nil || r != nil {
		t.Error("Build returned a snapshot or report for an invalid overlay")
	}
	var verr *ValidationError
	if !errors.As(err, &verr) {
		t.Fatalf("Build error = %v, want a *ValidationError", err)
	}
	for _, want := range []string{"overlay 1", `asset "jupiter"`, `variant "jupiter:jup"`, `mint "JUPnotamint"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
}

func TestBuildOverlayReplacesAndAdds(t *testing.T) {
	overlay := Document{Assets: []Asset{
		{AssetID: "usd", Name: "Dollar", Category: "stablecoin",
			Variants: []Variant{{VariantID: "usd:usdc", Mint: mintUSDC, Kind: asset.KindStablecoin}}},
		{AssetID: "jupiter", Name: "Jupiter", Symbol: "JUP", Category: "crypto",
			Variants: []Variant{{VariantID: "jupiter:jup", Mint: mintJUP, Kind: asset.KindNative}}},
	}}
	s, r := mustBuild(t, fixtureDoc(), overlay)

	usd, _ := s.Asset("usd")
	if usd.Name != "Dollar" || len(usd.Variants) != 1 {
		t.Errorf("usd = %+v, want the overlay's entry", usd)
	}
	if _, _, ok := s.VariantByMint(mintUSDT); ok {
		t.Error("USDT still listed although the overlay replaced usd without it")
	}
	if _, ok := s.Asset("jupiter"); !ok {
		t.Error("overlay asset jupiter not added")
	}
	if got := r.Filter(IssueAssetReplaced); len(got) != 1 || got[0].AssetID != "usd" {
		t.Errorf("asset_replaced issues = %v, want one for usd", got)
	}
	// The curated USDT member now points at a mint no asset lists.
	if got := r.Filter(IssueCuratedUnknownMint); len(got) != 1 || got[0].Mint != mintUSDT {
		t.Errorf("curated_unknown_mint issues = %v", got)
	}
}

func TestBuildDuplicateMints(t *testing.T) {
	// gold and spdr-gold-shares share a mint; so do sui and xstock-sui.
	goldMint := "hWfiw4mcxT8rnNFkk6fsCQSxoxgZ9yVhB6tyeVcondo"
	suiMint := "suifhC9gU1VbJAPYPTBkHJyyyStKGLLYPVDTmPoqbvA"
	paxg := "5GgRAEmv8ZxF2PR5hY72Qs5x1bnQ6UK2RbTPoqJ3wSwW"
	gold := Asset{AssetID: "gold", Category: "commodity", Variants: []Variant{
		{VariantID: "gold:gld-ondo", Mint: goldMint, Kind: asset.KindETF},
		{VariantID: "gold:paxg", Mint: paxg, Kind: asset.KindNative},
	}}
	spdr := Asset{AssetID: "spdr-gold-shares", Name: "SPDR Gold Shares", Symbol: "GLD", Category: "equity", Aliases: []string{"xstock-spdr-gold-shares"},
		Variants: []Variant{{VariantID: "spdr-gold-shares:ondo", Mint: goldMint, Kind: asset.KindTokenizedEquity}}}
	sui := Asset{AssetID: "sui", Category: "crypto", Variants: []Variant{{VariantID: "sui:sui", Mint: suiMint, Kind: asset.KindWrapped}}}
	xsui := Asset{AssetID: "xstock-sui", Category: "equity", Variants: []Variant{
		{VariantID: "xstock-sui:xstock", Mint: suiMint, Kind: asset.KindTokenizedEquity},
		{VariantID: "xstock-sui:paxg", Mint: paxg, Kind: asset.KindNative},
	}}

	tests := []struct {
		name       string
		seed       Document
		overlays   []Document
		wantHome   map[string]string // mint -> asset
		wantReason map[string]string // mint -> detail substring
		wantFolded []string
		wantAlias  map[string]string // ref -> asset, after folding
	}{
		{
			name:       "mintHomes wins over asset order",
			seed:       Document{Assets: []Asset{spdr, gold}, MintHomes: map[string]string{goldMint: "spdr-gold-shares"}},
			wantHome:   map[string]string{goldMint: "spdr-gold-shares", paxg: "gold"},
			wantReason: map[string]string{goldMint: "mintHomes"},
		},
		{
			name:       "same document: first asset id wins and the emptied asset folds",
			seed:       Document{Assets: []Asset{spdr, gold}},
			wantHome:   map[string]string{goldMint: "gold"},
			wantReason: map[string]string{goldMint: "first assetId"},
			wantFolded: []string{"spdr-gold-shares"},
			wantAlias:  map[string]string{"spdr-gold-shares": "gold", "gld": "gold", "XSTOCK-SPDR-GOLD-SHARES": "gold"},
		},
		{
			name:       "earliest document wins over asset id order",
			seed:       Document{Assets: []Asset{xsui}},
			overlays:   []Document{{Assets: []Asset{gold, sui}}},
			wantHome:   map[string]string{suiMint: "xstock-sui", paxg: "xstock-sui", goldMint: "gold"},
			wantReason: map[string]string{suiMint: "earliest document", paxg: "earliest document"},
			wantFolded: []string{"sui"},
		},
		{
			name:       "a later mintHomes entry overrides the seed's listing",
			seed:       Document{Assets: []Asset{xsui}},
			overlays:   []Document{{Assets: []Asset{sui}, MintHomes: map[string]string{suiMint: "sui"}}},
			wantHome:   map[string]string{suiMint: "sui", paxg: "xstock-sui"},
			wantReason: map[string]string{suiMint: "mintHomes"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, r := mustBuild(t, tt.seed, tt.overlays...)
			for mint, want := range tt.wantHome {
				a, _, ok := s.VariantByMint(mint)
				if !ok || a.AssetID != want {
					t.Errorf("mint %s lives in %v, want %s", mint, a, want)
				}
				n := 0
				for _, a := range s.Assets() {
					for _, v := range a.Variants {
						if v.Mint == mint {
							n++
						}
					}
				}
				if n != 1 {
					t.Errorf("mint %s listed %d times, want once", mint, n)
				}
			}
			for mint, reason := range tt.wantReason {
				found := false
				for _, i := range r.Filter(IssueDuplicateMint) {
					if i.Mint == mint && strings.Contains(i.Detail, reason) && len(i.Candidates) == 2 {
						found = true
					}
				}
				if !found {
					t.Errorf("no duplicate_mint issue for %s with reason %q in %v", mint, reason, r.Issues)
				}
			}
			var folded []string
			for _, i := range r.Filter(IssueAssetFolded) {
				folded = append(folded, i.AssetID)
			}
			if diff := cmp.Diff(tt.wantFolded, folded); diff != "" {
				t.Errorf("folded assets (-want +got):\n%s", diff)
			}
			for _, id := range tt.wantFolded {
				if _, ok := s.Asset(id); ok {
					t.Errorf("folded asset %s still present", id)
				}
			}
			for ref, want := range tt.wantAlias {
				res, err := s.Resolve(ref)
				if err != nil || res.AssetID != want || res.ResolvedBy != asset.ResolvedByAlias {
					t.Errorf("Resolve(%q) = %s/%s, %v; want %s by alias", ref, res.AssetID, res.ResolvedBy, err, want)
				}
			}
		})
	}
}

func TestBuildReportsIgnoredMintHome(t *testing.T) {
	doc := fixtureDoc()
	doc.MintHomes = map[string]string{mintUSDC: "bonk"}
	s, r := mustBuild(t, doc)
	if a, _, _ := s.VariantByMint(mintUSDC); a.AssetID != "usd" {
		t.Errorf("USDC moved to %s", a.AssetID)
	}
	if got := r.Filter(IssueMintHomeIgnored); len(got) != 1 || got[0].Mint != mintUSDC || got[0].AssetID != "bonk" {
		t.Errorf("mint_home_ignored issues = %v", got)
	}
}

func TestBuildSupplemental(t *testing.T) {
	supp := Document{Supplemental: true, Assets: []Asset{
		// Its id is the alias "dollar" of usd: skipped.
		{AssetID: "dollar", Category: "stablecoin", Variants: []Variant{{VariantID: "dollar:x", Mint: mintUnknown, Kind: asset.KindStablecoin}}},
		// Its id is taken by an asset: skipped, never replaces.
		{AssetID: "bonk", Name: "Fake Bonk", Category: "crypto", Variants: []Variant{{VariantID: "bonk:fake", Mint: mintSystem, Kind: asset.KindNative}}},
		// Every mint is known: skipped.
		{AssetID: "usd-coin", Category: "stablecoin", Variants: []Variant{{VariantID: "usd-coin:usdc", Mint: mintUSDC, Kind: asset.KindStablecoin}}},
		// Adds JUP; the known USDT mint is dropped; its symbol "USDT" must
		// not shadow usd's variant symbol, and "jup" resolves to it.
		{AssetID: "jupiter", Symbol: "JUP", Name: "USDT", Category: "crypto", Variants: []Variant{
			{VariantID: "jupiter:jup", Mint: mintJUP, Kind: asset.KindNative},
			{VariantID: "jupiter:usdt", Mint: mintUSDT, Kind: asset.KindNative},
		}},
	}}
	s, r := mustBuild(t, fixtureDoc(), supp)
	if b, _ := s.Asset("bonk"); b.Name != "Bonk" {
		t.Errorf("supplemental document replaced bonk: %+v", b)
	}
	for _, id := range []string{"dollar", "usd-coin"} {
		if _, ok := s.Asset(id); ok {
			t.Errorf("supplemental asset %s added, want skipped", id)
		}
	}
	if got := r.Count(IssueSupplementalSkipped); got != 3 {
		t.Errorf("supplemental_skipped = %d, want 3: %v", got, r.Issues)
	}
	if got := r.Count(IssueSupplementalMintKnown); got != 2 {
		t.Errorf("supplemental_mint_known = %d, want 2", got)
	}
	jup, ok := s.Asset("jupiter")
	if !ok || len(jup.Variants) != 1 {
		t.Fatalf("jupiter = %+v, want one variant", jup)
	}
	for ref, want := range map[string]string{"usdt": "usd", "jup": "jupiter", "dollar": "usd"} {
		if res, err := s.Resolve(ref); err != nil || res.AssetID != want {
			t.Errorf("Resolve(%q) = %s, %v; want %s", ref, res.AssetID, err, want)
		}
	}
}

func TestBuildLSTIndex(t *testing.T) {
	lst := Document{LSTIndex: []Variant{
		{VariantID: "solana:" + mintMSOL, Mint: mintMSOL, Kind: asset.KindYield, Symbol: "mSOL"},
		{Mint: mintUSDC, Kind: asset.KindYield}, // already a registry variant: skipped
		// Replaces the seed's JitoSOL entry (same mint).
		{VariantID: "solana:" + mintJitoSOL, Mint: mintJitoSOL, Kind: asset.KindYield, Symbol: "JitoSOL", Name: "Jito SOL v2"},
	}}
	s, r := mustBuild(t, fixtureDoc(), lst)
	if got := r.Count(IssueLSTIndexKnownMint); got != 1 {
		t.Errorf("lst_index_known_mint = %d, want 1", got)
	}
	sol, _ := s.Asset("solana")
	var got []string
	for _, v := range sol.Variants {
		got = append(got, v.VariantID+"|"+v.Name+"|"+strings.Join(v.Tags, ","))
	}
	want := []string{
		"solana:wsol|Wrapped SOL|",
		"solana:" + mintJitoSOL + "|Jito SOL v2|lst_index",
		"solana:" + mintMSOL + "||lst_index",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("solana variants (-want +got):\n%s", diff)
	}
	if !s.IsLSTIndexMint(mintMSOL) || s.IsLSTIndexMint(mintWSOL) {
		t.Error("IsLSTIndexMint wrong")
	}

	noSolana := Document{Assets: fixtureDoc().Assets[1:], LSTIndex: fixtureDoc().LSTIndex}
	s, r = mustBuild(t, noSolana)
	if r.Count(IssueLSTIndexWithoutSolana) != 1 {
		t.Errorf("want lst_index_without_solana, got %v", r.Issues)
	}
	if res, _ := s.ResolveMint(mintJitoSOL); !res.Singleton() {
		t.Errorf("JitoSOL without a solana asset resolved to %s, want a singleton", res.AssetID)
	}
}

func TestBuildDoesNotAliasInput(t *testing.T) {
	doc := fixtureDoc()
	s, _ := mustBuild(t, doc)
	doc.Assets[1].Name = "changed"
	doc.Assets[1].Variants[0].Symbol = "changed"
	doc.Assets[1].Variants[1].Tags[0] = "changed"
	*doc.Assets[0].Variants[0].Decimals = 1
	doc.CuratedLists[0].Members[0].Mint = mintJUP
	usd, _ := s.Asset("usd")
	sol, _ := s.Asset("solana")
	majors, _ := s.CuratedList("majors")
	if usd.Name != "US Dollar" || usd.Variants[0].Symbol != "USDC" || usd.Variants[1].Tags[0] != "tether" ||
		*sol.Variants[0].Decimals != 9 || majors.Members[0].Mint != mintWSOL {
		t.Error("snapshot shares memory with the input document")
	}
}

// Every asset is found by its id, every variant by its mint and its
// variant id, as itself (the packed indexes point back at it), and Mints
// lists the mints in asset order.
func TestSnapshotLocatesEveryVariant(t *testing.T) {
	lst := Document{LSTIndex: []Variant{{VariantID: "solana:" + mintMSOL, Mint: mintMSOL, Kind: asset.KindYield, Symbol: "mSOL"}}}
	s, _ := mustBuild(t, fixtureDoc(), lst)
	var want []string
	for i := range s.Assets() {
		a := &s.Assets()[i]
		if got, ok := s.AssetIndex(a.AssetID); !ok || got != i {
			t.Errorf("AssetIndex(%s) = %d %v, want %d", a.AssetID, got, ok, i)
		}
		if got, ok := s.Asset(a.AssetID); !ok || got != a {
			t.Errorf("Asset(%s) = %p %v, want %p", a.AssetID, got, ok, a)
		}
		for j := range a.Variants {
			v := &a.Variants[j]
			want = append(want, v.Mint)
			if ga, gv, ok := s.VariantByMint(v.Mint); !ok || ga != a || gv != v {
				t.Errorf("VariantByMint(%s) = %v %v %v, want %s's variant %d", v.Mint, ga, gv, ok, a.AssetID, j)
			}
			if ga, gv, ok := s.Variant(v.VariantID); !ok || ga != a || gv != v {
				t.Errorf("Variant(%s) = %v %v %v, want %s's variant %d", v.VariantID, ga, gv, ok, a.AssetID, j)
			}
		}
	}
	if diff := cmp.Diff(want, s.Mints()); diff != "" || len(want) != s.Stats().Variants {
		t.Errorf("Mints (-want +got):\n%s", diff)
	}
	if i, ok := s.AssetIndex("none"); ok || i != 0 {
		t.Errorf("AssetIndex(none) = %d %v", i, ok)
	}
	if a, v, ok := s.VariantByMint("none"); ok || a != nil || v != nil {
		t.Errorf("VariantByMint(none) = %v %v %v", a, v, ok)
	}
	if !s.IsLSTIndexMint(mintMSOL) || s.IsLSTIndexMint(mintWSOL) {
		t.Error("IsLSTIndexMint wrong")
	}
}
