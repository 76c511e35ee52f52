package registry

import (
	"strings"
	"testing"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/strtab"
	"github.com/google/go-cmp/cmp"
)

func TestAliasCollisions(t *testing.T) {
	mints := []string{mintWSOL, mintUSDC, mintUSDT, mintBONK, mintJUP}
	mk := func(i int, id, symbol string, aliases []string, variantSymbol string) Asset {
		return Asset{AssetID: id, Symbol: symbol, Category: "crypto", Aliases: aliases,
			Variants: []Variant{{VariantID: id + ":v", Mint: mints[i], Kind: asset.KindNative, Symbol: variantSymbol}}}
	}
	doc := Document{Assets: []Asset{
		mk(0, "zeta", "ZETA", []string{"alpha", "shared"}, "VSYM"), // alias "alpha" vs asset id alpha
		mk(1, "alpha", "ALP", nil, "SHARED2"),
		mk(2, "beta", "VSYM", []string{"shared"}, ""),  // asset symbol beats zeta's variant symbol
		mk(3, "gamma", "GAM", []string{"shared2"}, ""), // asset alias beats alpha's variant symbol
		mk(4, "delta", "DEL", []string{"Shared"}, ""),  // same tier as beta/zeta: first id wins
	}}
	s, r := mustBuild(t, doc)
	tests := []struct {
		ref, wantAsset, wantBy string
	}{
		{"alpha", "alpha", asset.ResolvedByAssetID}, // own id beats zeta's alias
		{"ALPHA", "alpha", asset.ResolvedByAlias},   // other case: alias index, id tier still wins
		{"vsym", "beta", asset.ResolvedByAlias},
		{"shared2", "gamma", asset.ResolvedByAlias},
		{"shared", "beta", asset.ResolvedByAlias}, // beta < delta < zeta
		{"SHARED", "beta", asset.ResolvedByAlias},
	}
	for _, tt := range tests {
		res, err := s.Resolve(tt.ref)
		if err != nil || res.AssetID != tt.wantAsset || res.ResolvedBy != tt.wantBy {
			t.Errorf("Resolve(%q) = %s/%s, %v; want %s/%s", tt.ref, res.AssetID, res.ResolvedBy, err, tt.wantAsset, tt.wantBy)
		}
	}
	got := map[string]Issue{}
	for _, i := range r.Filter(IssueAliasCollision) {
		got[i.Key] = i
	}
	want := map[string]struct {
		winner     string
		candidates []string
	}{
		"alpha":   {"alpha", []string{"alpha", "zeta"}},
		"vsym":    {"beta", []string{"beta", "zeta"}},
		"shared2": {"gamma", []string{"alpha", "gamma"}},
		"shared":  {"beta", []string{"beta", "delta", "zeta"}},
	}
	if len(got) != len(want) {
		t.Errorf("collisions = %v, want keys %v", got, want)
	}
	for k, w := range want {
		i, ok := got[k]
		if !ok {
			t.Errorf("collision on %q not reported", k)
			continue
		}
		if i.AssetID != w.winner || !cmp.Equal(i.Candidates, w.candidates) {
			t.Errorf("collision %q = winner %s candidates %v, want %s %v", k, i.AssetID, i.Candidates, w.winner, w.candidates)
		}
	}
}

func TestAliasCollisionResolutionIsOrderIndependent(t *testing.T) {
	a := Asset{AssetID: "aaa", Category: "crypto", Aliases: []string{"same"}, Variants: []Variant{{VariantID: "aaa:v", Mint: mintUSDC, Kind: asset.KindNative}}}
	b := Asset{AssetID: "bbb", Category: "crypto", Aliases: []string{"same"}, Variants: []Variant{{VariantID: "bbb:v", Mint: mintUSDT, Kind: asset.KindNative}}}
	for _, order := range [][]Asset{{a, b}, {b, a}} {
		s, _ := mustBuild(t, Document{Assets: order})
		if res, _ := s.Resolve("same"); res.AssetID != "aaa" {
			t.Errorf("order %s,%s: same -> %s, want aaa", order[0].AssetID, order[1].AssetID, res.AssetID)
		}
	}
	// Across documents too: the overlay does not win an alias tie.
	s, _ := mustBuild(t, Document{Assets: []Asset{b}}, Document{Assets: []Asset{a}})
	if res, _ := s.Resolve("same"); res.AssetID != "aaa" {
		t.Errorf("across documents: same -> %s, want aaa", res.AssetID)
	}
}

func TestLookupAlias(t *testing.T) {
	long := strings.Repeat("x", 150)
	assets := []Asset{{AssetID: "usd"}, {AssetID: "uni"}, {AssetID: "long"}, {AssetID: "mixed"}}
	b := strtab.NewBuilder[aliasEntry](4)
	for k, e := range map[string]aliasEntry{
		"usd coin":  0 << 1,
		"ünïcode":   1 << 1,
		long:        2 << 1,
		"mixed-42x": 3<<1 | 1,
	} {
		v, _ := b.Add(k)
		*v = e
	}
	s := &Snapshot{assets: assets, aliases: b.Build()}
	tests := []struct{ ref, want string }{
		{"usd coin", "usd"},
		{"USD Coin", "usd"},
		{"ÜNÏCODE", "uni"},
		{strings.ToUpper(long), "long"},
		{"MiXeD-42X", "mixed"},
		{"usd  coin", ""},
	}
	for _, tt := range tests {
		e, ok := s.lookupAlias(tt.ref)
		got := ""
		if ok {
			got = assets[e.asset()].AssetID
			if e.lstIndex() != (got == "mixed") {
				t.Errorf("lookupAlias(%q): lstIndex %v", tt.ref, e.lstIndex())
			}
		}
		if got != tt.want {
			t.Errorf("lookupAlias(%q) = %q, want %q", tt.ref, got, tt.want)
		}
	}
}

// The alias table leaves out the keys the snapshot's id and variant-id
// indexes answer; every key still resolves as the full table resolves it,
// in any case, including a variant id another asset wins as an alias.
func TestAliasTableLeavesOutDerivedKeys(t *testing.T) {
	doc := fixtureDoc()
	doc.Assets = append(doc.Assets,
		Asset{AssetID: "taker", Category: "crypto", Aliases: []string{"usd:usdc"},
			Variants: []Variant{{VariantID: "taker:v", Mint: mintJUP, Kind: asset.KindNative}}},
		Asset{AssetID: "mixed", Category: "crypto",
			Variants: []Variant{{VariantID: "mixed:UPPER", Mint: mintMSOL, Kind: asset.KindNative}}})
	s, _ := mustBuild(t, doc)
	lst := map[string]bool{}
	for _, m := range s.Mints() {
		lst[m] = s.IsLSTIndexMint(m)
	}
	full := aliasKeys(s.Assets(), lst, nil, newReport("")).Build()
	if s.aliases.Len() >= full.Len() {
		t.Errorf("the table holds %d of %d keys: none left out", s.aliases.Len(), full.Len())
	}
	for n := range full.Len() {
		k, want := full.Key(n), *full.Value(n)
		for _, ref := range []string{k, strings.ToUpper(k)} {
			if got, ok := s.lookupAlias(ref); !ok || got != want {
				t.Errorf("lookupAlias(%q) = %d %v, want %d (%s)", ref, got, ok, want, s.assets[want.asset()].AssetID)
			}
		}
	}
	if e, _ := s.lookupAlias("USD:USDC"); s.assets[e.asset()].AssetID != "taker" {
		t.Errorf("lookupAlias(USD:USDC) = %s, want taker (an asset alias beats a variant id)", s.assets[e.asset()].AssetID)
	}
	if _, ok := s.lookupAlias("nothing"); ok {
		t.Error("an unknown key resolves")
	}
}
