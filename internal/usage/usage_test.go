package usage

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"
)

type sink struct {
	mu      sync.Mutex
	batches [][]Record
	block   chan struct{}
	fail    bool
}

func (s *sink) InsertUsage(ctx context.Context, b []Record) error {
	if s.block != nil {
		<-s.block
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail {
		return errors.New("db down")
	}
	s.batches = append(s.batches, append([]Record(nil), b...))
	return nil
}

func TestBatchesAndFlushOnClose(t *testing.T) {
	s := &sink{}
	r := NewRecorder(s, slog.New(slog.DiscardHandler), Options{BatchSize: 10, FlushInterval: time.Hour})
	for i := range 25 {
		r.Record(Record{KeyID: "k", Status: 200 + i})
	}
	if err := r.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	var sizes []int
	total := 0
	for _, b := range s.batches {
		sizes = append(sizes, len(b))
		total += len(b)
	}
	if total != 25 || len(s.batches) != 3 || r.Written() != 25 || r.Dropped() != 0 {
		t.Fatalf("batches %v written %d dropped %d; want 10,10,5", sizes, r.Written(), r.Dropped())
	}
	if s.batches[2][4].Status != 224 {
		t.Fatalf("order lost: %+v", s.batches[2])
	}
}

func TestFullBufferDropsWithoutBlocking(t *testing.T) {
	s := &sink{block: make(chan struct{})}
	r := NewRecorder(s, slog.New(slog.DiscardHandler), Options{Buffer: 4, BatchSize: 1, FlushInterval: time.Hour})
	// The writer takes one record and blocks in the sink; 4 more fill the
	// buffer; the rest must be dropped at once.
	for range 50 {
		r.Record(Record{KeyID: "k"})
	}
	if r.Dropped() < 45 {
		t.Fatalf("dropped %d; want at least 45", r.Dropped())
	}
	close(s.block)
	if err := r.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := r.Written() + r.Dropped(); got != 50 {
		t.Fatalf("written+dropped = %d; want 50", got)
	}
}

func TestFailedWritesAreCounted(t *testing.T) {
	s := &sink{fail: true}
	r := NewRecorder(s, slog.New(slog.DiscardHandler), Options{BatchSize: 2})
	for range 4 {
		r.Record(Record{})
	}
	_ = r.Close(context.Background())
	if r.Dropped() != 4 || r.Written() != 0 {
		t.Fatalf("dropped %d written %d", r.Dropped(), r.Written())
	}
}
