package chainsource

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/natsbus"
	"github.com/assetd/assetd/internal/natsbus/natstest"
	"github.com/assetd/assetd/internal/poll"
	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/tradestream"
	"github.com/nats-io/nats.go/jetstream"
)

// failingCursor fails the next cursor write when armed: a crash after
// the PubAck, before the cursor moved.
type failingCursor struct {
	Store
	mu   sync.Mutex
	fail bool
}

func (f *failingCursor) InsertTradesAtCursor(ctx context.Context, trades []analytics.Trade, now time.Time, cur storage.SourceCursor) (storage.TradeInsert, error) {
	f.mu.Lock()
	fail := f.fail
	f.fail = false
	f.mu.Unlock()
	if fail {
		return storage.TradeInsert{}, errors.New("killed before the cursor write")
	}
	return f.Store.InsertTradesAtCursor(ctx, trades, now, cur)
}

// streamSource is a source over p's store that publishes through the
// trade stream of bus.
func streamSource(p *process, st Store, pub Publisher) *Source {
	return New(Config{RPC: p.src.cfg.RPC, Store: st, Ingest: StreamIngester{Publish: pub, Clock: p.src.cfg.Clock}, Decode: fakeDecode, Trades: fakeTrades,
		Start: 100, Batch: 2, Window: 5, Clock: p.src.cfg.Clock, Sleep: func(context.Context, time.Duration) error { return nil }})
}

func streamMsgs(t *testing.T, s jetstream.Stream) uint64 {
	t.Helper()
	info, err := s.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return info.State.Msgs
}

// TestSourcePublishesThroughTheTradeStream: with a trade stream the source
// publishes each block range's trades and moves its cursor only after the
// PubAck; the stream's worker stores them. A crash between the PubAck and
// the cursor write republishes the range, which the stream drops as the
// same batch; every trade is stored exactly once.
func TestSourcePublishesThroughTheTradeStream(t *testing.T) {
	txs := loadRecorded(t)
	w := newWorld(t, txs)
	w.chain.failN = map[int64]int{}
	var want []string
	for _, tx := range txs {
		want = append(want, tx.Sig+"/0")
	}
	slices.Sort(want)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := natstest.Start(t)
	bus, err := natsbus.Connect(ctx, natsbus.Config{URL: srv.ClientURL(), Prefix: "chain"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bus.Close(context.Background()) })
	streams, err := tradestream.Ensure(ctx, bus.JetStream(), tradestream.Config{Prefix: "chain"})
	if err != nil {
		t.Fatal(err)
	}
	p := w.start(t, Config{})
	pub := tradestream.NewPublisher(bus.JetStream(), bus.Connected, "chain", p.eng, p.st)
	st := &failingCursor{Store: p.st}
	src := streamSource(p, st, pub)

	// Slots 100-104 (blocks 100, 102, 104: 4 trades in 2 commits of 2
	// blocks): published, the cursor moved, nothing stored yet (no worker).
	if _, err := src.Step(ctx); err != nil {
		t.Fatal(err)
	}
	cur, _, err := p.st.SourceCursor(ctx, "solana-rpc")
	if err != nil || cur.Through != 104 {
		t.Fatalf("cursor after the first step: %+v, %v; want through 104", cur, err)
	}
	if got := storedSigs(t, p.st); len(got) != 0 {
		t.Fatalf("the source stored %d trades itself", len(got))
	}
	if s := src.Status(); s.Trades.Emitted != 4 {
		t.Fatalf("emitted %d; want 4 published", s.Trades.Emitted)
	}
	published := streamMsgs(t, streams.Batches)

	// The next range is published, then the process "dies" before its
	// cursor write; the restarted source (from the stored cursor)
	// publishes the same range again: the stream drops it.
	st.mu.Lock()
	st.fail = true
	st.mu.Unlock()
	if _, err := src.Step(ctx); err == nil {
		t.Fatal("step with a failed cursor write succeeded")
	}
	afterCrash := streamMsgs(t, streams.Batches)
	if afterCrash <= published {
		t.Fatalf("nothing published before the failed cursor write (%d messages)", afterCrash)
	}
	if cur, _, _ := p.st.SourceCursor(ctx, "solana-rpc"); cur.Through != 104 {
		t.Fatalf("cursor moved past a failed write: %+v", cur)
	}
	src = streamSource(p, st, pub)
	for range 4 {
		if _, err := src.Step(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if s := src.Status(); s.ContiguousThroughSlot != 112 {
		t.Fatalf("after the restart: %+v", s)
	}
	if s := src.Status(); s.Trades.Duplicates == 0 {
		t.Fatalf("the republished range was not a duplicate: %+v", s.Trades)
	}

	// The stream's worker stores every trade once.
	var wg sync.WaitGroup
	wk := tradestream.NewWorker(streams, p.in, p.st, slog.New(slog.DiscardHandler))
	wg.Go(func() { wk.Run(ctx) })
	poll.For(t, 30*time.Second, "every published trade stored", func() bool { return len(storedSigs(t, p.st)) >= len(want) })
	poll.For(t, 30*time.Second, "the stream acknowledged", func() bool {
		c, err := streams.Batches.Consumer(ctx, tradestream.DurableName)
		if err != nil {
			return false
		}
		info, err := c.Info(ctx)
		return err == nil && info.NumPending == 0 && info.NumAckPending == 0
	})
	cancel()
	wg.Wait()
	if got := storedSigs(t, p.st); !slices.Equal(got, want) {
		t.Fatalf("stored %v\nwant %v", got, want)
	}
}

// TestSourceWithNATSDownKeepsItsCursor: a range the stream cannot take is
// not skipped: the step fails and the cursor stays.
func TestSourceWithNATSDownKeepsItsCursor(t *testing.T) {
	txs := loadRecorded(t)
	w := newWorld(t, txs)
	w.chain.failN = map[int64]int{}
	ctx := context.Background()
	srv := natstest.Start(t)
	bus, err := natsbus.Connect(ctx, natsbus.Config{URL: srv.ClientURL(), Prefix: "down"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bus.Close(context.Background()) })
	if _, err := tradestream.Ensure(ctx, bus.JetStream(), tradestream.Config{Prefix: "down"}); err != nil {
		t.Fatal(err)
	}
	p := w.start(t, Config{})
	src := streamSource(p, p.st, tradestream.NewPublisher(bus.JetStream(), bus.Connected, "down", p.eng, p.st))
	srv.Shutdown()
	srv.WaitForShutdown()
	poll.For(t, 30*time.Second, "the client to notice", func() bool { return !bus.Connected() })
	_, err = src.Step(ctx)
	var un interface{ Unavailable() bool }
	if !errors.As(err, &un) {
		t.Fatalf("step with NATS down: %v; want the stream's unavailable error", err)
	}
	if _, found, err := p.st.SourceCursor(ctx, "solana-rpc"); err != nil || found {
		t.Fatalf("cursor stored with NATS down: found %v, %v", found, err)
	}
}
