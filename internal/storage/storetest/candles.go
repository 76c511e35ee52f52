package storetest

import (
	"context"
	"testing"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/market"
	"github.com/google/go-cmp/cmp"
)

func testCandles(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	ctx := context.Background()
	c := func(mint string, iv market.Interval, start int64, close float64) analytics.CandleUpdate {
		return analytics.CandleUpdate{Mint: mint, Interval: iv,
			CandleRow: analytics.CandleRow{Candle: market.Candle{Time: start, Open: 1, High: 3, Low: 0.5, Close: close, Volume: 10.5}, Trades: 4},
			OpenRef:   analytics.TradeRef{BlockTime: start, Slot: 7, Signature: "sigopen"},
			CloseRef:  analytics.TradeRef{BlockTime: start + 30, Slot: 9, Signature: "sigclose"}}
	}
	in := []analytics.CandleUpdate{c("mintA", "1m", 60, 2), c("mintA", "1H", 3600, 2), c("mintB", "1m", 120, 2)}
	if err := s.UpsertCandles(ctx, in); err != nil {
		t.Fatal(err)
	}
	// Replacing one candle keeps one row with the new values.
	upd := c("mintA", "1m", 60, 2.5)
	if err := s.UpsertCandles(ctx, []analytics.CandleUpdate{upd}); err != nil {
		t.Fatal(err)
	}
	got, err := s.LoadCandles(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []analytics.CandleUpdate{c("mintA", "1H", 3600, 2), upd, c("mintB", "1m", 120, 2)} // by mint, interval text, start
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("candles (-want +got):\n%s", d)
	}
	if got, _ := s.LoadCandles(ctx, 100); len(got) != 2 {
		t.Fatalf("since 100: %d candles; want 2", len(got))
	}
	// Pruning touches one interval only.
	if n, err := s.PruneCandles(ctx, "1m", 100); err != nil || n != 1 {
		t.Fatalf("prune 1m before 100: %d, %v; want 1", n, err)
	}
	if got, _ := s.LoadCandles(ctx, 0); len(got) != 2 || got[0].Interval != "1H" || got[1].Mint != "mintB" {
		t.Fatalf("after prune: %+v", got)
	}
}
