package marketcache

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/changelog"
	"github.com/assetd/assetd/internal/market"
)

// loggingEngine is an Analytics whose change log tests write.
type loggingEngine struct{ log *changelog.Log[string] }

func (loggingEngine) Market(string, time.Time) *asset.Market                     { return nil }
func (loggingEngine) ExecutionQuality(string, time.Time) *asset.ExecutionQuality { return nil }
func (e loggingEngine) Changes(since uint64) ([]string, uint64, bool)            { return e.log.Since(since) }

// TestChangesLogStoredSnapshotsAndTrades: a stored snapshot and a mint
// the analytics engine applied trades to both appear in Changes, once, in
// order; a second call from the returned number sees nothing new.
func TestChangesLogStoredSnapshotsAndTrades(t *testing.T) {
	p := &fakeProvider{source: asset.SourceMarketDataA, prices: map[string]float64{mintA: 150}}
	eng := loggingEngine{log: changelog.New[string](0)}
	clk := &clock{t: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
	c := New(Options{Snapshots: []market.SnapshotProvider{p}, Analytics: eng, Now: clk.now, Deadline: 20 * time.Millisecond})
	if xs, _, ok := c.Changes(0); len(xs) != 0 || !ok {
		t.Fatalf("fresh cache: %v %v", xs, ok)
	}
	c.EnsureSnapshots(mintA)
	c.Flush(context.Background())
	eng.log.Add("TradedMint1111111111111111111111111111111111")
	xs, last, ok := c.Changes(0)
	want := []market.Change{{Kind: market.ChangeMint, Key: mintA}, {Kind: market.ChangeMint, Key: "TradedMint1111111111111111111111111111111111"}}
	if !ok || !slices.Equal(xs, want) {
		t.Fatalf("Changes(0) = %v %v, want %v", xs, ok, want)
	}
	if xs, again, ok := c.Changes(last); len(xs) != 0 || again != last || !ok {
		t.Fatalf("Changes(last) = %v %d %v, want nothing new", xs, again, ok)
	}
}

// numberedEngine is a loggingEngine that numbers its changes.
type numberedEngine struct{ loggingEngine }

func (e numberedEngine) ChangeSeq() uint64 { return e.log.Last() }

// TestVersionMovesWithEveryLoggedWrite: Version moves when a snapshot is
// stored and when the engine logs a trade, and is not offered over an
// engine that does not number its changes.
func TestVersionMovesWithEveryLoggedWrite(t *testing.T) {
	p := &fakeProvider{source: asset.SourceMarketDataA, prices: map[string]float64{mintA: 150}}
	eng := numberedEngine{loggingEngine{log: changelog.New[string](0)}}
	clk := &clock{t: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
	c := New(Options{Snapshots: []market.SnapshotProvider{p}, Analytics: eng, Now: clk.now, Deadline: 20 * time.Millisecond})
	c0, a0, ok := c.Version()
	if !ok {
		t.Fatal("Version not offered over a numbering engine")
	}
	c.EnsureSnapshots(mintA)
	c.Flush(context.Background())
	c1, a1, _ := c.Version()
	if c1 == c0 || a1 != a0 {
		t.Fatalf("after a stored snapshot: cache %d -> %d, analytics %d -> %d", c0, c1, a0, a1)
	}
	eng.log.Add("TradedMint1111111111111111111111111111111111")
	if c2, a2, _ := c.Version(); c2 != c1 || a2 == a1 {
		t.Fatalf("after a logged trade: cache %d -> %d, analytics %d -> %d", c1, c2, a1, a2)
	}
	plain := New(Options{Snapshots: []market.SnapshotProvider{p}, Analytics: eng.loggingEngine, Now: clk.now})
	if _, _, ok := plain.Version(); ok {
		t.Fatal("Version offered over an engine that does not number its changes")
	}
}
