package catalog

import (
	"testing"

	"github.com/assetd/assetd/internal/asset"
)

// Benchmarks of the read model alone (no HTTP, no JSON encoding of the
// response) over the seed registry with synthetic markets.

func BenchmarkRebuild(b *testing.B) {
	c, _ := newSeedCatalog(b, "")
	b.ReportAllocs()
	for b.Loop() {
		c.Rebuild()
	}
}

func BenchmarkDetail(b *testing.B) {
	c, _ := newSeedCatalog(b, "")
	for _, ref := range []string{"solana", "tesla", mintOf("singleton")} {
		res, err := c.Resolve(ref)
		if err != nil {
			b.Fatal(err)
		}
		name := ref
		if res.Singleton() {
			name = "singleton"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Detail(res, DetailOptions{Strategy: asset.StrategyLiquidity}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkSearch(b *testing.B) {
	c, _ := newSeedCatalog(b, "")
	for _, q := range []string{"sol", "usd", "x"} {
		b.Run(q, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.Search(SearchOptions{Query: q, Limit: 20})
			}
		})
	}
}

func BenchmarkCurated(b *testing.B) {
	c, _ := newSeedCatalog(b, "")
	for _, o := range []CuratedOptions{{List: "all"}, {List: "all", ByMint: true}, {List: "all", VariantsAll: true}} {
		name := "asset"
		if o.ByMint {
			name = "mint"
		}
		if o.VariantsAll {
			name = "asset-variants"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.Curated(o)
			}
		})
	}
}
