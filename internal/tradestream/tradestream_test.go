package tradestream_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/natsbus"
	"github.com/assetd/assetd/internal/natsbus/natstest"
	"github.com/assetd/assetd/internal/poll"
	"github.com/assetd/assetd/internal/tradestream"
	"github.com/mr-tron/base58"
)

const deadline = 30 * time.Second

func addr(kind string, i int) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s/%d", kind, i))
	return base58.Encode(sum[:])
}

// synthetic is a valid synthetic trade (not market data).
func synthetic(sig string, i int) analytics.Trade {
	return analytics.Trade{Signature: sig, Slot: int64(100 + i), BlockTime: time.Now().Unix() - 60, Mint: addr("mint", i%3),
		Side: analytics.SideBuy, TokenAmount: 10, USDAmount: 25, PriceUSD: 2.5, Wallet: addr("wallet", i), Venue: "synthetic"}
}

func connect(t *testing.T, url, prefix string) *natsbus.Bus {
	t.Helper()
	b, err := natsbus.Connect(context.Background(), natsbus.Config{URL: url, Prefix: prefix, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close(context.Background()) })
	return b
}

func engine(t *testing.T) *analytics.Engine {
	t.Helper()
	e, err := analytics.New(analytics.Config{NoDedupe: true})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

type sigStore struct {
	mu     sync.Mutex
	stored map[string]bool
}

// StoredTradeIDs: stored holds the identities' text form.
func (s *sigStore) StoredTradeIDs(_ context.Context, ids []analytics.TradeID) (map[analytics.TradeID]bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[analytics.TradeID]bool{}
	for _, id := range ids {
		if s.stored[id.String()] {
			out[id] = true
		}
	}
	return out, nil
}

func TestPublishCountsAcceptedAndDuplicatesExactly(t *testing.T) {
	srv := natstest.Start(t)
	bus := connect(t, srv.ClientURL(), "pub")
	ctx := context.Background()
	stream, err := tradestream.Ensure(ctx, bus.JetStream(), tradestream.Config{Prefix: "pub"})
	if err != nil {
		t.Fatal(err)
	}
	sigs := &sigStore{stored: map[string]bool{"sig-old": true}}
	p := tradestream.NewPublisher(bus.JetStream(), bus.Connected, "pub", engine(t), sigs)

	bad := synthetic("sig-bad", 9)
	bad.Mint = "not-a-mint"
	batch := []analytics.Trade{synthetic("sig-1", 1), synthetic("sig-2", 2), synthetic("sig-1", 1), bad, synthetic("sig-3", 3),
		synthetic("sig-old", 4)}
	res, err := p.Ingest(ctx, batch)
	if err != nil {
		t.Fatal(err)
	}
	// sig-1 twice in the batch and sig-old already stored: duplicates.
	if res.Accepted != 3 || res.Duplicates != 2 || res.Rejected != 1 {
		t.Fatalf("first batch: %+v; want 3 accepted, 2 duplicates, 1 rejected", res)
	}
	// Re-sent within the duplicate window: the stream's PubAck says so.
	res, err = p.Ingest(ctx, batch[:3])
	if err != nil {
		t.Fatal(err)
	}
	if res.Accepted != 0 || res.Duplicates != 3 {
		t.Fatalf("re-sent batch: %+v; want only duplicates", res)
	}
	info, err := stream.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != 3 {
		t.Fatalf("stream holds %d messages; want 3", info.State.Msgs)
	}
	// The subject names the mint and the message id is the signature.
	m, err := stream.GetLastMsgForSubject(ctx, tradestream.Subject("pub", addr("mint", 0)))
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Header.Get("Nats-Msg-Id"); got != "sig-3" {
		t.Fatalf("Nats-Msg-Id %q; want sig-3", got)
	}
	if _, err := analytics.ParseTrade(m.Data); err != nil {
		t.Fatalf("message body is not a trade event: %v (%s)", err, m.Data)
	}

	// Another leg of a published signature is a new trade, its id
	// <signature>:<leg>; a stored leg of a stored signature is a duplicate.
	leg1 := synthetic("sig-3", 3)
	leg1.Leg = 1
	sigs.mu.Lock()
	sigs.stored["sig-old:2"] = true
	sigs.mu.Unlock()
	old2 := synthetic("sig-old", 4)
	old2.Leg = 2
	old3 := old2
	old3.Leg = 3
	res, err = p.Ingest(ctx, []analytics.Trade{leg1, old2, old3, leg1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Accepted != 2 || res.Duplicates != 2 {
		t.Fatalf("legs: %+v; want sig-3 leg 1 and sig-old leg 3 accepted, 2 duplicates", res)
	}
	m, err = stream.GetLastMsgForSubject(ctx, tradestream.Subject("pub", addr("mint", 0)))
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Header.Get("Nats-Msg-Id"); got != "sig-3:1" {
		t.Fatalf("leg 1 Nats-Msg-Id %q; want sig-3:1", got)
	}
}

type sink struct {
	mu    sync.Mutex
	seen  map[string]int
	calls int
	fail  bool
}

func (s *sink) Ingest(_ context.Context, trades []analytics.Trade) (analytics.IngestResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	if s.fail {
		return analytics.IngestResult{}, errors.New("store down")
	}
	var r analytics.IngestResult
	for _, t := range trades {
		if s.seen[t.Signature] > 0 {
			r.Duplicates++
		} else {
			r.Accepted++
		}
		s.seen[t.Signature]++
	}
	return r, nil
}

func (s *sink) stored() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.seen)
}

type notifier struct {
	mu sync.Mutex
	n  int
}

func (n *notifier) NotifyTrades(context.Context) error { n.mu.Lock(); n.n++; n.mu.Unlock(); return nil }

func TestWorkersShareTheDurableConsumerAndRetryAFailedStore(t *testing.T) {
	srv := natstest.Start(t)
	bus := connect(t, srv.ClientURL(), "work")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stream, err := tradestream.Ensure(ctx, bus.JetStream(), tradestream.Config{Prefix: "work"})
	if err != nil {
		t.Fatal(err)
	}
	// Shared store, two replicas' workers: every message is stored, and
	// (nothing failing, acks within the ack wait) stored once.
	st := &sink{seen: map[string]int{}, fail: true}
	note := &notifier{}
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		w := tradestream.NewWorker(stream, st, note, slog.New(slog.DiscardHandler))
		go func() { defer wg.Done(); w.Run(ctx) }()
	}
	p := tradestream.NewPublisher(bus.JetStream(), bus.Connected, "work", engine(t), &sigStore{})
	var batch []analytics.Trade
	for i := range 200 {
		batch = append(batch, synthetic(fmt.Sprintf("sig-%d", i), i))
	}
	if res, err := p.Ingest(ctx, batch); err != nil || res.Accepted != 200 {
		t.Fatalf("publish: %+v, %v", res, err)
	}
	// The store fails first: the messages are redelivered, not lost.
	poll.For(t, deadline, "a failed store attempt", func() bool { st.mu.Lock(); defer st.mu.Unlock(); return st.calls > 0 })
	st.mu.Lock()
	st.fail = false
	st.mu.Unlock()
	poll.For(t, deadline, "all 200 trades stored", func() bool { return st.stored() == 200 })
	poll.For(t, deadline, "the stream's consumer fully acknowledged", func() bool {
		c, err := stream.Consumer(ctx, tradestream.DurableName)
		if err != nil {
			return false
		}
		info, err := c.Info(ctx)
		return err == nil && info.NumPending == 0 && info.NumAckPending == 0
	})
	st.mu.Lock()
	for sig, n := range st.seen {
		if n != 1 {
			t.Errorf("%s stored %d times", sig, n)
		}
	}
	st.mu.Unlock()
	note.mu.Lock()
	if note.n == 0 {
		t.Error("the other replicas were never notified")
	}
	note.mu.Unlock()
	cancel()
	wg.Wait()
}

func TestNATSDownIsUnavailableNotAcknowledged(t *testing.T) {
	srv := natstest.Start(t)
	bus := connect(t, srv.ClientURL(), "down")
	ctx := context.Background()
	if _, err := tradestream.Ensure(ctx, bus.JetStream(), tradestream.Config{Prefix: "down"}); err != nil {
		t.Fatal(err)
	}
	p := tradestream.NewPublisher(bus.JetStream(), bus.Connected, "down", engine(t), &sigStore{})
	srv.Shutdown()
	srv.WaitForShutdown()
	poll.For(t, deadline, "the client to notice", func() bool { return !bus.Connected() })
	res, err := p.Ingest(ctx, []analytics.Trade{synthetic("sig-x", 1)})
	var un interface{ Unavailable() bool }
	if !errors.As(err, &un) || !un.Unavailable() {
		t.Fatalf("Ingest with NATS down: %+v, %v; want an unavailable error", res, err)
	}
	if res.Accepted != 0 {
		t.Fatalf("acknowledged %d trades with NATS down", res.Accepted)
	}
}
