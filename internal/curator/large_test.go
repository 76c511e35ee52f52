package curator

import (
	"runtime"
	"slices"
	"testing"

	"github.com/assetd/assetd/internal/registry"
	"github.com/assetd/assetd/internal/registry/registrytest"
	"github.com/assetd/assetd/internal/tokenindex"
)

// syntheticSnapshot builds the seed plus a visibly synthetic registry of
// n assets in the layout of bench/registrygen: syn-NNNNNN ids, symbols
// SYNNNNNNN, names "Synthetic asset N", one native variant each and a
// wrapped second variant with its own symbol and name on every tenth,
// and the given curated lists.
func syntheticSnapshot(tb testing.TB, n int, lists ...registry.CuratedList) *registry.Snapshot {
	tb.Helper()
	doc := registrytest.Document(n)
	doc.CuratedLists = lists
	seed, err := registry.Seed()
	if err != nil {
		tb.Fatal(err)
	}
	snap, _, err := registry.Build(seed, doc)
	if err != nil {
		tb.Fatal(err)
	}
	return snap
}

// liveHeap is the live heap after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkDerived150k builds the curator's derived index (protected
// claims, searchable registry variants, curated membership) of a
// 150,000-asset synthetic registry and reports the live heap it holds
// (MB-live) besides the time and allocations of the build. With the
// shared 150k token index present, a second case adds its
// coingecko-listed tokens.
func BenchmarkDerived150k(b *testing.B) {
	if testing.Short() {
		b.Skip("builds a 150k-asset registry")
	}
	snap := syntheticSnapshot(b, 150_000)
	cases := []struct {
		name string
		idx  func(*testing.B) *tokenindex.Index
	}{
		{"registry", func(*testing.B) *tokenindex.Index { return nil }},
		{"registry+index150k", benchIndex},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			x := c.idx(b)
			var live uint64
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				before := liveHeap()
				b.StartTimer()
				svc := New(Config{Registry: func() *registry.Snapshot { return snap }, Index: func() *tokenindex.Index { return x }})
				svc.Refresh()
				b.StopTimer()
				live += liveHeap() - before
				runtime.KeepAlive(svc)
				b.StartTimer()
			}
			b.ReportMetric(float64(live)/float64(b.N)/1e6, "MB-live")
		})
	}
}

// BenchmarkSearchTokens150k is BenchmarkSearchTokens over a 150,000-asset
// synthetic registry, where the registry scan of every search and the
// protected index's size count.
func BenchmarkSearchTokens150k(b *testing.B) {
	if testing.Short() {
		b.Skip("builds a 150k-asset registry")
	}
	x := benchIndex(b)
	snap := syntheticSnapshot(b, 150_000)
	svc := New(Config{Registry: func() *registry.Snapshot { return snap }, Index: func() *tokenindex.Index { return x }})
	svc.Refresh()
	queries := append(slices.Clip(BenchQueries), struct{ Name, Query string }{"ticker-synthetic", "SYN001230"},
		struct{ Name, Query string }{"name-synthetic", "synthetic asset 12"})
	benchSearch(b, svc, queries)
}
