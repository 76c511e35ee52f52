package tradestream_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/natsbus"
	"github.com/assetd/assetd/internal/natsbus/natstest"
	"github.com/assetd/assetd/internal/poll"
	"github.com/assetd/assetd/internal/tradestream"
	"github.com/mr-tron/base58"
	"github.com/nats-io/nats.go/jetstream"
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

func TestPublishBatchesCountsAcceptedAndDuplicates(t *testing.T) {
	srv := natstest.Start(t)
	bus := connect(t, srv.ClientURL(), "pub")
	ctx := context.Background()
	streams, err := tradestream.Ensure(ctx, bus.JetStream(), tradestream.Config{Prefix: "pub"})
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
	// The same batch re-sent within the duplicate window, and its trades
	// in another order: the stream's PubAck says the batch is stored.
	for _, again := range [][]analytics.Trade{batch, {batch[4], batch[1], batch[0]}} {
		res, err = p.Ingest(ctx, again)
		if err != nil {
			t.Fatal(err)
		}
		if res.Accepted != 0 || res.Duplicates != len(again)-res.Rejected {
			t.Fatalf("re-sent batch: %+v; want only duplicates", res)
		}
	}
	info, err := streams.Batches.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != 1 {
		t.Fatalf("batch stream holds %d messages; want 1", info.State.Msgs)
	}
	// One message: the batch subject, its id the hash of the sorted
	// identities, the format header, the trades as NDJSON.
	m, err := streams.Batches.GetLastMsgForSubject(ctx, tradestream.BatchSubject("pub"))
	if err != nil {
		t.Fatal(err)
	}
	ids := []analytics.TradeID{{Signature: "sig-3"}, {Signature: "sig-1"}, {Signature: "sig-2"}}
	if got, want := m.Header.Get("Nats-Msg-Id"), tradestream.BatchID(ids); got != want {
		t.Fatalf("Nats-Msg-Id %q; want %q", got, want)
	}
	if m.Header.Get(tradestream.FormatHeader) != tradestream.FormatBatch || m.Header.Get(tradestream.CountHeader) != "3" {
		t.Fatalf("headers %v", m.Header)
	}
	lines := strings.Split(strings.TrimSuffix(string(m.Data), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("body holds %d lines; want 3: %s", len(lines), m.Data)
	}
	for _, l := range lines {
		if _, err := analytics.ParseTrade([]byte(l)); err != nil {
			t.Fatalf("batch line is not a trade event: %v (%s)", err, l)
		}
	}

	// Another leg of a published signature is a new trade; a stored leg
	// of a stored signature is a duplicate.
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
	m, err = streams.Batches.GetLastMsgForSubject(ctx, tradestream.BatchSubject("pub"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m.Header.Get("Nats-Msg-Id"), tradestream.BatchID([]analytics.TradeID{{Signature: "sig-3", Leg: 1}, {Signature: "sig-old", Leg: 3}}); got != want {
		t.Fatalf("legs Nats-Msg-Id %q; want %q", got, want)
	}
}

func TestBatchIDIsTheSetOfIdentities(t *testing.T) {
	a := []analytics.TradeID{{Signature: "s1"}, {Signature: "s2", Leg: 1}, {Signature: "s3"}}
	tests := []struct {
		name string
		ids  []analytics.TradeID
		same bool
	}{
		{"same order", []analytics.TradeID{{Signature: "s1"}, {Signature: "s2", Leg: 1}, {Signature: "s3"}}, true},
		{"other order", []analytics.TradeID{{Signature: "s3"}, {Signature: "s1"}, {Signature: "s2", Leg: 1}}, true},
		{"another leg", []analytics.TradeID{{Signature: "s1"}, {Signature: "s2"}, {Signature: "s3"}}, false},
		{"a subset", []analytics.TradeID{{Signature: "s1"}, {Signature: "s3"}}, false},
		{"a superset", []analytics.TradeID{{Signature: "s1"}, {Signature: "s2", Leg: 1}, {Signature: "s3"}, {Signature: "s4"}}, false},
		{"joined differently", []analytics.TradeID{{Signature: "s1\ns2:1"}, {Signature: "s3"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tradestream.BatchID(tt.ids) == tradestream.BatchID(a); got != tt.same {
				t.Fatalf("same id: %v; want %v", got, tt.same)
			}
		})
	}
	// Longer than any one-trade message id: never the id of one.
	if n := len(tradestream.BatchID(a)); n <= analytics.MaxSignatureLen+len(":255") {
		t.Fatalf("batch id of %d characters could be a trade's identity", n)
	}
}

func TestPublishSplitsAtTheBatchBounds(t *testing.T) {
	srv := natstest.Start(t)
	bus := connect(t, srv.ClientURL(), "split")
	ctx := context.Background()
	streams, err := tradestream.Ensure(ctx, bus.JetStream(), tradestream.Config{Prefix: "split"})
	if err != nil {
		t.Fatal(err)
	}
	one, err := tradestream.BatchMessage("split", []analytics.Trade{synthetic("sig-size", 0)})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name                string
		maxTrades, maxBytes int
		want                uint64
	}{
		{"by count", 4, tradestream.MaxBatchBytes, 3},
		{"by bytes", 100, 2*len(one.Data) + 40, 5},
		{"one batch", 100, tradestream.MaxBatchBytes, 1},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, err := streams.Batches.Info(ctx)
			if err != nil {
				t.Fatal(err)
			}
			p := tradestream.NewPublisher(bus.JetStream(), bus.Connected, "split", engine(t), &sigStore{})
			p.SetBatchLimits(tt.maxTrades, tt.maxBytes)
			var batch []analytics.Trade
			for j := range 10 {
				batch = append(batch, synthetic(fmt.Sprintf("sig-split-%d-%d", i, j), j))
			}
			res, err := p.Ingest(ctx, batch)
			if err != nil || res.Accepted != 10 {
				t.Fatalf("publish: %+v, %v", res, err)
			}
			after, err := streams.Batches.Info(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got := after.State.Msgs - before.State.Msgs; got != tt.want {
				t.Fatalf("%d messages; want %d", got, tt.want)
			}
		})
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

// drained reports whether stream's durable consumer has acknowledged
// every message.
func drained(ctx context.Context, stream jetstream.Stream) bool {
	c, err := stream.Consumer(ctx, tradestream.DurableName)
	if err != nil {
		return false
	}
	info, err := c.Info(ctx)
	return err == nil && info.NumPending == 0 && info.NumAckPending == 0
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
	streams, err := tradestream.Ensure(ctx, bus.JetStream(), tradestream.Config{Prefix: "work"})
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
		w := tradestream.NewWorker(streams, st, note, slog.New(slog.DiscardHandler))
		go func() { defer wg.Done(); w.Run(ctx) }()
	}
	p := tradestream.NewPublisher(bus.JetStream(), bus.Connected, "work", engine(t), &sigStore{})
	p.SetBatchLimits(16, tradestream.MaxBatchBytes) // 13 messages
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
	poll.For(t, deadline, "the stream's consumer fully acknowledged", func() bool { return drained(ctx, streams.Batches) })
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
