package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/storage"
	"github.com/google/go-cmp/cmp"
)

// CursorStore is the trade source's store (chainsource.Store's writes).
type CursorStore interface {
	SourceCursor(ctx context.Context, source string) (storage.SourceCursor, bool, error)
	InsertTradesAtCursor(ctx context.Context, trades []analytics.Trade, now time.Time, cur storage.SourceCursor) (storage.TradeInsert, error)
}

func testTradeSourceCursor(t *testing.T, h Harness) {
	st, another := h.Fresh(t)
	cs, ok := st.(CursorStore)
	if !ok {
		t.Fatalf("%T does not implement CursorStore", st)
	}
	ctx := context.Background()
	if _, found, err := cs.SourceCursor(ctx, "solana-rpc"); err != nil || found {
		t.Fatalf("empty store: found %v err %v", found, err)
	}
	a := synthTrades("cur-a", 3)
	cur := storage.SourceCursor{Source: "solana-rpc", Through: 100, Frontier: 100}
	res, err := cs.InsertTradesAtCursor(ctx, a, t0, cur)
	if err != nil || res.Count != 3 {
		t.Fatalf("first: %+v %v", res, err)
	}
	// A writer that read version 0 (a replica that lost the lease) stores
	// nothing: neither its trades nor its cursor.
	b := synthTrades("cur-b", 2)
	if _, err := cs.InsertTradesAtCursor(ctx, b, t0, storage.SourceCursor{Source: "solana-rpc", Through: 200, Frontier: 200}); !errors.Is(err, storage.ErrConflict) {
		t.Fatalf("stale writer: %v, want ErrConflict", err)
	}
	if got := scanAll(t, tradeStore(t, st), 0); len(got) != 3 {
		t.Fatalf("stale writer's trades stored: %d trades", len(got))
	}
	// No trades, gaps and an advanced frontier, through another handle.
	cs2 := another().(CursorStore)
	next := storage.SourceCursor{Source: "solana-rpc", Through: 101, Frontier: 110, Version: 1,
		Gaps: []storage.SourceGap{{FromSlot: 102, ToSlot: 104, Attempts: 2, LastError: "solana rpc getBlock: error -32004: Block not available"}}}
	if _, err := cs2.InsertTradesAtCursor(ctx, nil, t0, next); err != nil {
		t.Fatal(err)
	}
	got, found, err := cs.SourceCursor(ctx, "solana-rpc")
	next.Version = 2
	if err != nil || !found || !cmp.Equal(got, next) {
		t.Fatalf("read back %+v found %v err %v, want %+v", got, found, err, next)
	}
	// Re-sent trades with the cursor: duplicates, cursor still moves.
	next.Gaps, next.Through = nil, 110
	res, err = cs.InsertTradesAtCursor(ctx, a, t0.Add(time.Minute), next)
	if err != nil || res.Count != 0 {
		t.Fatalf("re-send: %+v %v", res, err)
	}
	got, _, _ = cs.SourceCursor(ctx, "solana-rpc")
	if got.Version != 3 || got.Through != 110 || len(got.Gaps) != 0 {
		t.Fatalf("after re-send: %+v", got)
	}
}
