// Package registrytest builds VISIBLY SYNTHETIC registry documents for
// tests and benchmarks of large registries. Nothing in them is real: asset
// ids are syn-NNNNNN, symbols SYNNNNNNN, names "Synthetic asset N", and
// mints are base58 encodings of bytes derived from a number.
package registrytest

import (
	"encoding/binary"
	"fmt"

	"github.com/assetd/assetd/internal/registry"
	"github.com/mr-tron/base58"
)

// categories are spread over the assets, as bench/registrygen does, so
// category filters have something to filter.
var categories = [...]string{"crypto", "crypto", "crypto", "crypto", "stablecoin", "rwa", "equity", "etf"}

// Document is a synthetic registry of n assets in the layout of
// bench/registrygen: one native variant each (mint Mint(2i)) and, on every
// tenth asset, a wrapped second variant with its own symbol and name (mint
// Mint(2i+1)).
func Document(n int) registry.Document {
	doc := registry.Document{Assets: make([]registry.Asset, 0, n)}
	for i := range n {
		id := fmt.Sprintf("syn-%06d", i)
		a := registry.Asset{AssetID: id, Name: fmt.Sprintf("Synthetic asset %d", i), Symbol: fmt.Sprintf("SYN%06d", i),
			Category: categories[i%len(categories)],
			Variants: []registry.Variant{{VariantID: id + ":native", Mint: Mint(2 * i), Kind: "native"}}}
		if i%10 == 0 {
			a.Variants = append(a.Variants, registry.Variant{VariantID: id + ":wrapped", Mint: Mint(2*i + 1), Kind: "wrapped",
				Symbol: fmt.Sprintf("wSYN%06d", i), Name: fmt.Sprintf("Wrapped synthetic asset %d", i)})
		}
		doc.Assets = append(doc.Assets, a)
	}
	return doc
}

// Mint is a valid 44-character base58 mint derived from i, distinct for
// every i ≥ 0.
func Mint(i int) string {
	var b [32]byte
	b[0] = 0x80
	binary.BigEndian.PutUint64(b[24:], uint64(i)*0x9e3779b97f4a7c15)
	binary.BigEndian.PutUint64(b[16:], uint64(i))
	return base58.Encode(b[:])
}
