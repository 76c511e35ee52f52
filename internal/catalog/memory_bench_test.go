package catalog

import (
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/registry"
)

// BenchmarkModelMemory reports the live heap of a catalog model (views,
// curated lists, search index) over a large VISIBLY SYNTHETIC registry and
// no market data, in MB-live: the heap in use after a GC with the catalog
// alive, less the heap in use before it was built (the registry snapshot
// itself is not counted). It needs a registrygen document:
//
//	go run ./bench/registrygen -n 150000 > /tmp/variant-reg.json
//	ASSETD_BENCH_REGISTRY=/tmp/variant-reg.json go test -run '^$' -bench ModelMemory ./internal/catalog/
func BenchmarkModelMemory(b *testing.B) {
	path := os.Getenv("ASSETD_BENCH_REGISTRY")
	if path == "" {
		b.Skip("ASSETD_BENCH_REGISTRY is not set (a `go run ./bench/registrygen` document)")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Skip(err)
	}
	seed, err := registry.Seed()
	if err != nil {
		b.Fatal(err)
	}
	doc, err := registry.ParseDocumentBytes(data)
	if err != nil {
		b.Fatal(err)
	}
	snap, _, err := registry.BuildParsed(seed, doc)
	if err != nil {
		b.Fatal(err)
	}
	data, doc = nil, registry.Document{}
	now := func() time.Time { return testNow }
	var live float64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		// The search index is built inside the call, as for a small
		// registry, so the figure includes it.
		c := &Catalog{markets: NoMarkets{}, now: now, syncIndex: true}
		c.snap.Store(snap)
		c.Rebuild()
		runtime.GC()
		runtime.ReadMemStats(&after)
		live = float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / 1e6
		runtime.KeepAlive(c)
	}
	b.ReportMetric(live, "MB-live")
	variants := 0
	for _, a := range snap.Assets() {
		variants += len(a.Variants)
	}
	b.ReportMetric(float64(variants), "variants")
}
