package registrytest

import (
	"testing"

	"github.com/assetd/assetd/internal/registry"
)

// The document builds over the seed: valid, distinct mints, the layout
// the benchmarks rely on.
func TestDocument(t *testing.T) {
	seed, err := registry.Seed()
	if err != nil {
		t.Fatal(err)
	}
	snap, _, err := registry.Build(seed, Document(25))
	if err != nil {
		t.Fatal(err)
	}
	if a, ok := snap.Asset("syn-000020"); !ok || len(a.Variants) != 2 || a.Variants[1].Mint != Mint(41) {
		t.Fatalf("syn-000020 = %+v %v, want a native and a wrapped variant", a, ok)
	}
	seen := map[string]bool{}
	for i := range 1000 {
		m := Mint(i)
		if !registry.ValidMint(m) || len(m) != 44 || seen[m] {
			t.Fatalf("Mint(%d) = %q: invalid, not 44 characters or repeated", i, m)
		}
		seen[m] = true
	}
}
