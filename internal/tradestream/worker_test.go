package tradestream

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// fakeMsg is a one-trade stream message that reports how it was settled.
type fakeMsg struct {
	jetstream.Msg // unused methods
	data          []byte
	settled       chan string // the first settlement
}

func (m *fakeMsg) Data() []byte         { return m.data }
func (m *fakeMsg) Headers() nats.Header { return nil }
func (m *fakeMsg) Subject() string      { return "test.trades" }
func (m *fakeMsg) settle(s string) error {
	select {
	case m.settled <- s:
	default:
		panic("message settled twice")
	}
	return nil
}
func (m *fakeMsg) Ack() error                       { return m.settle("ack") }
func (m *fakeMsg) Nak() error                       { return m.settle("nak") }
func (m *fakeMsg) NakWithDelay(time.Duration) error { return m.settle("nak") }
func (m *fakeMsg) Term() error                      { return m.settle("term") }

// fakeBatch is a fetch delivering what the test sends on ch.
type fakeBatch struct{ ch chan jetstream.Msg }

func (b *fakeBatch) Messages() <-chan jetstream.Msg { return b.ch }
func (b *fakeBatch) Error() error                   { return nil }

// fakeConsumer answers each Fetch with the next of its batches.
type fakeConsumer struct {
	jetstream.Consumer // unused methods
	batches            []*fakeBatch
}

func (c *fakeConsumer) Fetch(int, ...jetstream.FetchOpt) (jetstream.MessageBatch, error) {
	b := c.batches[0]
	c.batches = c.batches[1:]
	return b, nil
}

type recordSink struct {
	mu  sync.Mutex
	ids []string
}

func (s *recordSink) Ingest(_ context.Context, trades []analytics.Trade) (analytics.IngestResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range trades {
		s.ids = append(s.ids, trades[i].ID().String())
	}
	return analytics.IngestResult{Accepted: len(trades)}, nil
}

func tradeMsg(sig string) *fakeMsg {
	// A synthetic trade event (made-up addresses).
	return &fakeMsg{settled: make(chan string, 1), data: fmt.Appendf(nil, `{"signature":%q,"slot":1,"blockTime":1700000000,"mint":%q,"side":"buy","tokenAmount":1,"usdAmount":2,"priceUsd":2,"wallet":%q,"venue":"synthetic"}`,
		sig, synthAddr("mint"), synthAddr("wallet"))}
}

// TestStepDoesNotWaitForALateFetchEnd: the fetch after the first message
// is read until its end or the guard, whichever comes first. A fetch whose
// end never comes (the server's 408 late) is stored and acknowledged as
// far as it arrived when the guard fires; a message it delivers after that
// is handed back (Nak), neither stored nor acknowledged.
func TestStepDoesNotWaitForALateFetchEnd(t *testing.T) {
	m1, m2, m3 := tradeMsg("sig-1"), tradeMsg("sig-2"), tradeMsg("sig-3")
	first := &fakeBatch{ch: make(chan jetstream.Msg, 1)}
	first.ch <- m1
	close(first.ch)
	rest := &fakeBatch{ch: make(chan jetstream.Msg, 1)}
	rest.ch <- m2 // arrived before the guard; the fetch stays open
	guard := make(chan time.Time)
	sink := &recordSink{}
	w := NewWorker(Streams{}, sink, nil, nil)
	w.after = func(d time.Duration) <-chan time.Time {
		if d != restGuard {
			t.Errorf("guard of %v, want %v", d, restGuard)
		}
		return guard
	}
	cons := &fakeConsumer{batches: []*fakeBatch{first, rest}}
	done := make(chan int)
	go func() {
		n, err := w.step(context.Background(), cons)
		if err != nil {
			t.Error(err)
		}
		done <- n
	}()
	// m2 is buffered: the worker has it once the guard fires (the
	// guard's drain takes what has arrived).
	guard <- time.Time{}
	if n := <-done; n != 2 {
		t.Fatalf("step handled %d messages, want 2", n)
	}
	rest.ch <- m3 // the late server
	close(rest.ch)
	if got := fmt.Sprint(sink.ids); got != "[sig-1 sig-2]" {
		t.Fatalf("stored %s, want [sig-1 sig-2]", got)
	}
	if s1, s2 := <-m1.settled, <-m2.settled; s1 != "ack" || s2 != "ack" {
		t.Fatalf("m1 %q, m2 %q: want both acked", s1, s2)
	}
	// Handed back by the goroutine that drains the fetch.
	if s3 := <-m3.settled; s3 != "nak" {
		t.Fatalf("the late message was settled %q, want nak", s3)
	}
}
