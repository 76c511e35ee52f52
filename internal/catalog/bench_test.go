package catalog

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/registry"
)

// Benchmarks of the read model alone (no HTTP; no JSON encoding of the
// response but in BenchmarkEncode) over the seed registry with synthetic
// markets.

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

// BenchmarkSearchLarge ranks queries of every kind over the seed plus
// 150,000 synthetic assets (the issue 17 registry size); the former scan
// is the baseline (scan sub-benchmarks).
func BenchmarkSearchLarge(b *testing.B) {
	seed, err := registry.Seed()
	if err != nil {
		b.Fatal(err)
	}
	snap, _, err := registry.Build(seed, syntheticDoc(150_000))
	if err != nil {
		b.Fatal(err)
	}
	c := &Catalog{markets: syntheticMarkets(snap, "large"), now: func() time.Time { return testNow }, syncIndex: true}
	c.snap.Store(snap)
	c.Rebuild()
	m := c.model()
	for _, q := range []string{"SYN123456", "syn12345", "Synthetic asset 1234", "asset 99", "sol", "usdc", "s", "ta", "zq", "nothing-matches"} {
		b.Run("index/"+q, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.Search(SearchOptions{Query: q, Limit: 20})
			}
		})
		b.Run("scan/"+q, func(b *testing.B) {
			for b.Loop() {
				scanSearch(m, q, "", 20)
			}
		})
	}
}

// BenchmarkEncode encodes views that hold many variants, as the HTTP
// layer does once per model version (curated bodies, details) or per
// request (search, variants).
func BenchmarkEncode(b *testing.B) {
	c, _ := newSeedCatalog(b, "")
	rows, _ := c.Curated(CuratedOptions{List: "all", VariantsAll: true, AllVariants: true})
	res, err := c.Resolve("solana")
	if err != nil {
		b.Fatal(err)
	}
	variants, err := c.Variants(res, VariantFilter{All: true})
	if err != nil {
		b.Fatal(err)
	}
	d, err := c.Detail(res, DetailOptions{VariantsAll: true})
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		v    any
	}{{"curated-variants", rows}, {"solana-variants", variants}, {"solana-detail", d.Asset}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := json.Marshal(bc.v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
