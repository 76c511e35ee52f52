package catalog

import (
	"runtime"
	"testing"
	"time"
	"unsafe"

	"github.com/assetd/assetd/internal/registry"
	"github.com/assetd/assetd/internal/registry/registrytest"
)

// BenchmarkModelMemory reports the live heap of a catalog model (views,
// curated lists, search index) over the seed plus 150,000 VISIBLY
// SYNTHETIC assets (internal/registry/registrytest) and no market data, in
// MB-live: the heap in use after a GC with the catalog alive, less the
// heap in use before it was built (the registry snapshot itself is not
// counted).
func BenchmarkModelMemory(b *testing.B) {
	seed, err := registry.Seed()
	if err != nil {
		b.Fatal(err)
	}
	snap, _, err := registry.BuildParsed(seed, registrytest.Document(150_000))
	if err != nil {
		b.Fatal(err)
	}
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

// A large registry has an assetModel per asset and a variantModel per
// variant: their sizes are budgets (allocation size classes 80 and 48
// bytes), and a field that breaks one costs megabytes at 150,000 assets.
func TestModelSizes(t *testing.T) {
	if n := unsafe.Sizeof(assetModel{}); n > 80 {
		t.Errorf("assetModel is %d bytes, over its 80-byte budget: put rarely set fields behind a pointer", n)
	}
	if n := unsafe.Sizeof(variantModel{}); n > 48 {
		t.Errorf("variantModel is %d bytes, over its 48-byte budget", n)
	}
}
