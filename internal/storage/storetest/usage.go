package storetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/usage"
	"github.com/google/go-cmp/cmp"
)

// testUsageAggregates: batches add to the stored rows (twice the same row
// sums), concurrent writers do not lose counts, and the read paths sum
// per day and per key.
func testUsageAggregates(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	ctx := context.Background()
	m := usage.MinuteOf(t0)
	detail, search := "GET /v1/assets/{assetId}", "GET /v1/assets/search"
	batch := []usage.Aggregate{
		{KeyID: "key_a", ProjectID: "prj_a", Route: detail, Status: 200, Minute: m, Requests: 10, Charged: 10, LatencyUS: 1000},
		{KeyID: "key_a", ProjectID: "prj_a", Route: detail, Status: 429, Minute: m, Requests: 2, Charged: 0, LatencyUS: 20},
		{KeyID: "key_a", ProjectID: "prj_a", Route: search, Status: 200, Minute: m - 1440, Requests: 5, Charged: 5, LatencyUS: 500},
		{KeyID: "key_b", ProjectID: "prj_b", Route: detail, Status: 200, Minute: m, Requests: 7, Charged: 7, LatencyUS: 700},
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.AddUsage(ctx, batch); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	got, err := s.UsageByDay(ctx, "key_a", m-2*1440)
	if err != nil {
		t.Fatal(err)
	}
	day := t0.Truncate(24 * time.Hour)
	want := []usage.DayCount{
		{Day: day, Route: detail, Status: 200, Requests: 40},
		{Day: day, Route: detail, Status: 429, Requests: 8},
		{Day: day.Add(-24 * time.Hour), Route: search, Status: 200, Requests: 20},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("usage by day (-want +got):\n%s", d)
	}
	if got, _ := s.UsageByDay(ctx, "key_a", m); len(got) != 2 {
		t.Fatalf("since today: %+v", got)
	}
	charged, err := s.ChargedSince(ctx, m-10)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]int64{"key_a": 40, "key_b": 28}, charged); d != "" {
		t.Fatalf("charged (-want +got):\n%s", d)
	}
}

func testUsagePrune(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	ctx := context.Background()
	m := usage.MinuteOf(t0)
	var batch []usage.Aggregate
	for i := range 5 {
		batch = append(batch, usage.Aggregate{KeyID: "k", ProjectID: "p", Route: "GET /x", Status: 200, Minute: m - int64(i)*1440, Requests: 1, Charged: 1})
	}
	if err := s.AddUsage(ctx, batch); err != nil {
		t.Fatal(err)
	}
	n, err := s.PruneUsage(ctx, m-2*1440)
	if err != nil || n != 2 {
		t.Fatalf("pruned %d, %v; want 2 rows", n, err)
	}
	if got, _ := s.UsageByDay(ctx, "k", 0); len(got) != 3 {
		t.Fatalf("after prune: %+v", got)
	}
}

// testStoreMode: the first claim wins, later ones read it.
func testStoreMode(t *testing.T, h Harness) {
	s, other := h.Fresh(t)
	ctx := context.Background()
	if got, err := s.ClaimStoreMode(ctx, "demo"); err != nil || got != "demo" {
		t.Fatalf("first claim: %q %v", got, err)
	}
	if got, err := other().ClaimStoreMode(ctx, "real"); err != nil || got != "demo" {
		t.Fatalf("second claim: %q %v; want the recorded demo", got, err)
	}
}
