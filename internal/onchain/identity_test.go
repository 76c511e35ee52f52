package onchain

import (
	"testing"

	"github.com/assetd/assetd/internal/registry"
)

// TestIdentityChanges: a registry document renaming a seed variant's
// symbol (a test document) yields one symbol row; unchanged mints none.
func TestIdentityChanges(t *testing.T) {
	seed, err := registry.Seed()
	if err != nil {
		t.Fatal(err)
	}
	old, _, err := registry.Build(seed)
	if err != nil {
		t.Fatal(err)
	}
	doc := registry.Document{Assets: []registry.Asset{}}
	for _, a := range seed.Assets {
		if a.AssetID == "usd" {
			a2 := a
			a2.Variants = append([]registry.Variant(nil), a.Variants...)
			for i := range a2.Variants {
				if a2.Variants[i].Mint == usdcMint {
					a2.Variants[i].Symbol = "USDC-RENAMED-IN-TEST"
				}
			}
			doc.Assets = append(doc.Assets, a2)
		}
	}
	cur, _, err := registry.Build(seed, doc)
	if err != nil {
		t.Fatal(err)
	}
	ch := IdentityChanges(old, cur, 5, SourceRegistry)
	if len(ch) != 1 || ch[0].Mint != usdcMint || ch[0].Field != "symbol" || ch[0].New != `"USDC-RENAMED-IN-TEST"` || ch[0].Old == "" || ch[0].At != 5 {
		t.Fatalf("%+v", ch)
	}
	if ch := IdentityChanges(old, old, 5, SourceRegistry); len(ch) != 0 {
		t.Errorf("no-op diff %+v", ch)
	}
}
