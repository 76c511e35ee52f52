package storetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/usage"
)

// testQuotaLedger: a key's first reservation of a month starts from the
// usage charged that month (not the month before or after); concurrent
// reservations from two handles (two replicas) grant exactly the units
// left, never more; debt is added even past the limit; a release gives
// units back.
func testQuotaLedger(t *testing.T, h Harness) {
	s, another := h.Fresh(t)
	ctx := context.Background()
	month := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	in := usage.MinuteOf(month.Add(36 * time.Hour))
	batch := []usage.Aggregate{
		{KeyID: "key_a", ProjectID: "prj", Route: "GET /x", Status: 200, Minute: in, Requests: 12, Charged: 10},
		{KeyID: "key_a", ProjectID: "prj", Route: "GET /x", Status: 200, Minute: usage.MinuteOf(month) - 1, Requests: 50, Charged: 50},
		{KeyID: "key_a", ProjectID: "prj", Route: "GET /x", Status: 200, Minute: usage.MinuteOf(month.AddDate(0, 1, 0)), Requests: 70, Charged: 70},
		{KeyID: "key_b", ProjectID: "prj", Route: "GET /x", Status: 200, Minute: in, Requests: 5, Charged: 5},
	}
	if err := s.AddUsage(ctx, batch); err != nil {
		t.Fatal(err)
	}
	granted, used, err := s.ReserveQuota(ctx, "key_a", month, 0, 4, 100)
	if err != nil || granted != 4 || used != 14 {
		t.Fatalf("first reservation = %d, %d, %v; want 4 granted, 14 used (10 charged this month)", granted, used, err)
	}

	// Two handles reserve 3 at a time until nothing is left: together
	// exactly the 86 units left.
	stores := []interface {
		ReserveQuota(ctx context.Context, key string, month time.Time, debt, want, limit int64) (int64, int64, error)
	}{s, another()}
	var mu sync.Mutex
	var total int64
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				g, u, err := stores[i%2].ReserveQuota(ctx, "key_a", month, 0, 3, 100)
				if err != nil {
					t.Error(err)
					return
				}
				if u > 100 || g < 0 || g > 3 {
					t.Errorf("reservation granted %d, used %d; limit 100", g, u)
				}
				if g == 0 {
					return
				}
				mu.Lock()
				total += g
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if total != 86 {
		t.Fatalf("concurrent reservations granted %d; want the 86 left", total)
	}
	// Debt is what was served while the ledger failed: added even past
	// the limit, and nothing more is granted.
	if g, u, err := s.ReserveQuota(ctx, "key_a", month, 2, 3, 100); err != nil || g != 0 || u != 102 {
		t.Fatalf("debt past the limit = %d, %d, %v; want 0 granted, 102 used", g, u, err)
	}
	if err := s.ReleaseQuota(ctx, "key_a", month, 7); err != nil {
		t.Fatal(err)
	}
	if g, u, err := another().ReserveQuota(ctx, "key_a", month, 0, 10, 100); err != nil || g != 5 || u != 100 {
		t.Fatalf("after releasing 7 = %d, %d, %v; want 5 granted, 100 used", g, u, err)
	}
	// Another key and another month have their own rows.
	if g, u, err := s.ReserveQuota(ctx, "key_b", month, 0, 10, 100); err != nil || g != 10 || u != 15 {
		t.Fatalf("key_b = %d, %d, %v; want 10 granted, 15 used", g, u, err)
	}
	if g, u, err := s.ReserveQuota(ctx, "key_a", month.AddDate(0, 1, 0), 0, 10, 100); err != nil || g != 10 || u != 80 {
		t.Fatalf("key_a next month = %d, %d, %v; want 10 granted, 80 used (70 charged then)", g, u, err)
	}
	for _, c := range []struct {
		key   string
		month time.Time
		want  int64
	}{{"key_a", month, 100}, {"key_b", month, 15}, {"key_a", month.AddDate(0, 1, 0), 80}, {"key_c", month, 0}} {
		if got, err := another().QuotaReserved(ctx, c.key, c.month); err != nil || got != c.want {
			t.Errorf("QuotaReserved(%s, %s) = %d, %v; want %d", c.key, c.month.Format("2006-01"), got, err, c.want)
		}
	}
}
