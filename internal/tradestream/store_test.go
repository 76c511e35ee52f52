package tradestream_test

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"testing"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/ingest"
	"github.com/assetd/assetd/internal/natsbus/natstest"
	"github.com/assetd/assetd/internal/poll"
	"github.com/assetd/assetd/internal/storage/sqlite"
	"github.com/assetd/assetd/internal/tradestream"
	"github.com/nats-io/nats.go/jetstream"
)

// storedTrades counts the store's trades per identity.
func storedTrades(t *testing.T, st *sqlite.Store) map[string]int {
	t.Helper()
	out := map[string]int{}
	err := st.ScanTrades(context.Background(), 0, math.MaxInt64, func(b []ingest.StoredTrade) error {
		for _, tr := range b {
			out[tr.ID().String()]++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func trades(from, to int) []analytics.Trade {
	var out []analytics.Trade
	for i := from; i <= to; i++ {
		out = append(out, synthetic(fmt.Sprintf("sig-%d", i), i))
	}
	return out
}

// TestStreamStoresEachTradeOnce: batches re-published after the duplicate
// window (so the stream keeps both), overlapping batches with other trade
// sets, and one-trade messages of the format before batches (an older
// replica's, in the legacy stream) all reach a real store, which holds
// every trade exactly once.
func TestStreamStoresEachTradeOnce(t *testing.T) {
	srv := natstest.Start(t)
	bus := connect(t, srv.ClientURL(), "once")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	streams, err := tradestream.Ensure(ctx, bus.JetStream(), tradestream.Config{Prefix: "once"})
	if err != nil {
		t.Fatal(err)
	}
	js := bus.JetStream()
	// The publisher checks no store (every trade is new to it), so every
	// repeat reaches the stream and the worker.
	p := tradestream.NewPublisher(js, bus.Connected, "once", engine(t), &sigStore{})
	publish := func(batch []analytics.Trade, wantAccepted int) {
		t.Helper()
		res, err := p.Ingest(ctx, batch)
		if err != nil || res.Accepted != wantAccepted {
			t.Fatalf("publish %d trades: %+v, %v; want %d accepted", len(batch), res, err, wantAccepted)
		}
	}
	a := trades(1, 10)
	publish(a, 10)
	// Re-published within the duplicate window: the stream drops it.
	publish(a, 0)
	// Re-published after the window (no message id: the stream keeps it).
	m, err := tradestream.BatchMessage("once", a)
	if err != nil {
		t.Fatal(err)
	}
	m.Header.Del(jetstream.MsgIDHeader)
	if _, err := js.PublishMsg(ctx, m); err != nil {
		t.Fatal(err)
	}
	// Overlapping, another set: a new message; only 11-15 are new.
	publish(trades(6, 15), 10)
	// The old format: one trade per message, on the legacy stream; one
	// new trade and one already in a batch.
	for _, tr := range []analytics.Trade{synthetic("sig-16", 16), synthetic("sig-3", 3)} {
		m, err := tradestream.Message("once", &tr)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := js.PublishMsg(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []jetstream.Stream{streams.Batches, streams.Legacy} {
		info, err := s.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s holds %d messages", info.Config.Name, info.State.Msgs)
	}

	st, err := sqlite.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if _, err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	eng, err := analytics.New(analytics.Config{})
	if err != nil {
		t.Fatal(err)
	}
	in, err := ingest.New(eng, st, ingest.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	// Two replicas' workers on the shared consumers.
	for range 2 {
		w := tradestream.NewWorker(streams, in, st, slog.New(slog.DiscardHandler))
		wg.Go(func() { w.Run(ctx) })
	}
	poll.For(t, deadline, "both streams fully acknowledged", func() bool {
		return drained(ctx, streams.Batches) && drained(ctx, streams.Legacy)
	})
	cancel()
	wg.Wait()
	got := storedTrades(t, st)
	if len(got) != 16 {
		t.Errorf("store holds %d trades; want 16 (sig-1 … sig-16)", len(got))
	}
	for i := 1; i <= 16; i++ {
		if n := got[fmt.Sprintf("sig-%d", i)]; n != 1 {
			t.Errorf("sig-%d stored %d times", i, n)
		}
	}
}
