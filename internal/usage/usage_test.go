package usage

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

type sink struct {
	mu      sync.Mutex
	batches [][]Aggregate
	fail    bool
	calls   int
	pruned  []int64
}

func (s *sink) AddUsage(ctx context.Context, b []Aggregate) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	if s.fail {
		return errors.New("db down")
	}
	s.batches = append(s.batches, append([]Aggregate(nil), b...))
	return nil
}

func (s *sink) PruneUsage(ctx context.Context, before int64) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pruned = append(s.pruned, before)
	return 3, nil
}

func (s *sink) all() []Aggregate {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Aggregate
	for _, b := range s.batches {
		out = append(out, b...)
	}
	return out
}

var t0 = time.Date(2026, 11, 23, 7, 0, 30, 0, time.UTC)

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

// TestCountsPerKeyRouteStatusMinute: 3,000 requests become 4 aggregates,
// written at flush time only (nothing per request reaches the sink).
func TestCountsPerKeyRouteStatusMinute(t *testing.T) {
	s := &sink{}
	r := NewRecorder(s, quiet(), Options{BatchSize: 3})
	for i := range 3000 {
		rec := Record{KeyID: "key_a", ProjectID: "prj_a", Route: "GET /v1/assets/search", Status: 200, Latency: time.Millisecond, At: t0, Charged: true}
		switch i % 3 {
		case 1:
			rec.At = t0.Add(time.Minute) // next minute
		case 2:
			if i%2 == 0 {
				rec.Status, rec.Charged = 429, false
			} else {
				rec.KeyID, rec.ProjectID = "key_b", "prj_b"
			}
		}
		r.Record(rec)
	}
	if s.calls != 0 {
		t.Fatalf("%d store writes before the flush; want none", s.calls)
	}
	if err := r.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	m := MinuteOf(t0)
	want := []Aggregate{
		{KeyID: "key_a", ProjectID: "prj_a", Route: "GET /v1/assets/search", Status: 200, Minute: m, Requests: 1000, Charged: 1000, LatencyUS: 1_000_000},
		{KeyID: "key_a", ProjectID: "prj_a", Route: "GET /v1/assets/search", Status: 429, Minute: m, Requests: 500, Charged: 0, LatencyUS: 500_000},
		{KeyID: "key_a", ProjectID: "prj_a", Route: "GET /v1/assets/search", Status: 200, Minute: m + 1, Requests: 1000, Charged: 1000, LatencyUS: 1_000_000},
		{KeyID: "key_b", ProjectID: "prj_b", Route: "GET /v1/assets/search", Status: 200, Minute: m, Requests: 500, Charged: 500, LatencyUS: 500_000},
	}
	if d := cmp.Diff(want, s.all()); d != "" {
		t.Fatalf("aggregates (-want +got):\n%s", d)
	}
	if s.calls != 2 || r.Written() != 3000 || r.Dropped() != 0 {
		t.Fatalf("writes %d written %d dropped %d; want 2 batches (of 3), 3000, 0", s.calls, r.Written(), r.Dropped())
	}
}

func TestFullTableDropsWithoutBlocking(t *testing.T) {
	s := &sink{}
	r := NewRecorder(s, quiet(), Options{MaxRows: 4})
	for i := range 10 {
		r.Record(Record{KeyID: fmt.Sprint("k", i), At: t0})
		r.Record(Record{KeyID: fmt.Sprint("k", i), At: t0})
	}
	if r.Dropped() != 12 {
		t.Fatalf("dropped %d; want 12 (6 keys past the 4-row table, twice)", r.Dropped())
	}
	if err := r.Close(context.Background()); err != nil || r.Written() != 8 {
		t.Fatalf("close: %v, written %d", err, r.Written())
	}
}

// TestFailedFlushKeepsCounts: a failed write keeps the counts, added to the
// ones that arrive since; a failed final write counts them as dropped.
func TestFailedFlushKeepsCounts(t *testing.T) {
	s := &sink{fail: true}
	r := NewRecorder(s, quiet(), Options{})
	rec := Record{KeyID: "k", Route: "GET /x", Status: 200, At: t0, Charged: true}
	r.Record(rec)
	r.Record(rec)
	if err := r.Flush(context.Background()); err == nil {
		t.Fatal("flush to a failing sink succeeded")
	}
	r.Record(rec)
	s.mu.Lock()
	s.fail = false
	s.mu.Unlock()
	if err := r.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := s.all(); len(got) != 1 || got[0].Requests != 3 || got[0].Charged != 3 {
		t.Fatalf("after recovery: %+v; want one aggregate of 3", got)
	}
	s.fail = true
	r.Record(rec)
	if err := r.Close(context.Background()); err == nil || r.Dropped() != 1 {
		t.Fatalf("close on a failing sink: %v, dropped %d", err, r.Dropped())
	}
}

func TestPruneKeepsRetention(t *testing.T) {
	s := &sink{}
	r := NewRecorder(s, quiet(), Options{Retention: 48 * time.Hour, Now: func() time.Time { return t0 }})
	r.prune(context.Background())
	if len(s.pruned) != 1 || s.pruned[0] != MinuteOf(t0.Add(-48*time.Hour)) || r.Pruned() != 3 {
		t.Fatalf("pruned before %v (%d rows); want minute %d", s.pruned, r.Pruned(), MinuteOf(t0.Add(-48*time.Hour)))
	}
	forever := NewRecorder(s, quiet(), Options{Retention: -1})
	forever.prune(context.Background())
	if len(s.pruned) != 1 {
		t.Fatal("a negative retention pruned")
	}
}

func TestMonthStart(t *testing.T) {
	if got := MonthStart(time.Date(2026, 11, 23, 7, 0, 0, 0, time.FixedZone("x", -10*3600))); !got.Equal(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("MonthStart = %v", got)
	}
}

// BenchmarkRecord is the per-request cost (an existing row: map lookup and
// three additions under a mutex).
func BenchmarkRecord(b *testing.B) {
	r := NewRecorder(&sink{}, quiet(), Options{})
	rec := Record{KeyID: "key_a", ProjectID: "prj_a", Route: "GET /v1/assets/{assetId}", Status: 200, Latency: time.Millisecond, At: t0, Charged: true}
	b.ReportAllocs()
	for b.Loop() {
		r.Record(rec)
	}
}

func BenchmarkRecordParallel(b *testing.B) {
	r := NewRecorder(&sink{}, quiet(), Options{})
	rec := Record{KeyID: "key_a", ProjectID: "prj_a", Route: "GET /v1/assets/{assetId}", Status: 200, Latency: time.Millisecond, At: t0, Charged: true}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			r.Record(rec)
		}
	})
}
