package execution

import (
	"context"
	"errors"
	"testing"
	"time"
)

// sharedBuckets answers with ok/after, or err; it records the calls.
type sharedBuckets struct {
	ok    bool
	after time.Duration
	err   error
	calls []int
}

func (s *sharedBuckets) Take(_ context.Context, _ string, n, _ int, _ time.Duration) (bool, time.Duration, error) {
	s.calls = append(s.calls, n)
	return s.ok, s.after, s.err
}

// TestChargeShared: with shared buckets the shared answer decides (the
// charge capped at the capacity, the wait at least 1 s) and the local
// buckets are untouched; when they fail, the local buckets decide.
func TestChargeShared(t *testing.T) {
	ctx := context.Background()
	t0 := time.Unix(1000, 0)
	b := NewQuoteBudget(10, 10*time.Second)
	s := &sharedBuckets{ok: false, after: 200 * time.Millisecond}
	b.Shared = s
	if ok, after := b.Charge(ctx, "k", 50, t0); ok || after != time.Second {
		t.Fatalf("shared refusal: ok=%v after=%s; want refused for 1s", ok, after)
	}
	s.ok = true
	for range 3 {
		if ok, _ := b.Charge(ctx, "k", 8, t0); !ok {
			t.Fatal("shared grant refused")
		}
	}
	if len(s.calls) != 4 || s.calls[0] != 10 {
		t.Fatalf("shared calls %v; want 4, the first capped at 10", s.calls)
	}
	if len(b.buckets) != 0 {
		t.Fatal("local buckets charged while the shared ones answered")
	}
	s.err = errors.New("down")
	if ok, _ := b.Charge(ctx, "k", 8, t0); !ok {
		t.Fatal("local fallback refused a full bucket")
	}
	if ok, _ := b.Charge(ctx, "k", 8, t0); ok {
		t.Fatal("local fallback did not count")
	}
}
