package main

import (
	"os"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/demo"
	"github.com/assetd/assetd/internal/registry"
)

func newTestFeed(t testing.TB) *demoFeed {
	t.Helper()
	seed, err := registry.Seed()
	if err != nil {
		t.Fatal(err)
	}
	snap, _, err := registry.Build(seed)
	if err != nil {
		t.Fatal(err)
	}
	eng, err := analytics.New(analytics.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return &demoFeed{eng: eng, world: demo.New(demo.Config{Assets: snap.Assets()}), snap: func() *registry.Snapshot { return snap }}
}

// TestDemoFeedBackfill feeds the engine from the demo world and checks
// every demo trade is valid and the engine then has markets and trending.
// ASSETD_MEASURE_BACKFILL=1 measures the full 24 h backfill instead of 1 h.
func TestDemoFeedBackfill(t *testing.T) {
	f := newTestFeed(t)
	span := time.Hour
	if os.Getenv("ASSETD_MEASURE_BACKFILL") != "" {
		span = demoBackfill
	}
	now := time.Now()
	start := time.Now()
	f.last = now.Add(-span)
	r := f.step(now)
	t.Logf("backfill %s of %d mints: %+v in %s; engine %+v", span, len(registryMints(f.snap())), r, time.Since(start), f.eng.Stats())
	if r.Accepted == 0 || r.Rejected != 0 || r.Duplicates != 0 {
		t.Fatalf("backfill: %+v", r)
	}
	again := f.step(now.Add(2 * time.Minute))
	if again.Rejected != 0 || again.Duplicates != 0 {
		t.Fatalf("step: %+v", again)
	}
	set := f.eng.Trending(now, nil)
	if len(set.Rows) == 0 {
		t.Fatal("no trending rows after backfill")
	}
	if f.eng.Market(set.Rows[0].Mint, now) == nil {
		t.Fatal("no market for a trending mint")
	}
}
