package main

import (
	"log/slog"
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
	t.Logf("backfill %s of %d mints: %+v in %s; engine %+v", span, len(f.snap().Mints()), r, time.Since(start), f.eng.Stats())
	if r.Accepted == 0 || r.Rejected != 0 || r.Duplicates != 0 {
		t.Fatalf("backfill: %+v", r)
	}
	again := f.step(now.Add(2 * time.Minute))
	if again.Rejected != 0 || again.Duplicates != 0 {
		t.Fatalf("step: %+v", again)
	}
	// The start of the 24 h backfill (before the 24 h window) gives the
	// 24 h price change its price before the window.
	f.backfillRange(now.Add(-demoBackfill), now.Add(-demoBackfill+20*time.Minute), slog.New(slog.DiscardHandler))
	set := f.eng.Trending(now, nil)
	if len(set.Rows) == 0 {
		t.Fatal("no trending rows after backfill")
	}
	for _, r := range set.Rows[:min(5, len(set.Rows))] {
		m := r.Market
		if m.Volume5mUSD <= 0 || m.Volume15mUSD <= 0 || m.Trade5m == 0 || m.PriceChange24hPercent == nil || m.PriceChange1hPercent == nil {
			t.Errorf("trending row %s: 5m %v 15m %v trades5m %d change24h %v change1h %v", r.Mint, m.Volume5mUSD, m.Volume15mUSD, m.Trade5m,
				m.PriceChange24hPercent, m.PriceChange1hPercent)
		}
	}
	if f.eng.Market(set.Rows[0].Mint, now) == nil {
		t.Fatal("no market for a trending mint")
	}
}
