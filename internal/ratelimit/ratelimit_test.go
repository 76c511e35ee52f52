package ratelimit

import (
	"context"
	"testing"
	"time"
)

func TestSlidingWindow(t *testing.T) {
	m := NewMemory()
	p := Policy{Requests: 10, Window: 10 * time.Second}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	allow := func(at time.Time) Decision {
		d, err := m.Allow(context.Background(), "k", p, at)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	for i := range 10 {
		if d := allow(t0.Add(time.Duration(i) * 100 * time.Millisecond)); !d.Allowed || d.Remaining != 9-i {
			t.Fatalf("request %d: %+v", i, d)
		}
	}
	d := allow(t0.Add(time.Second))
	if d.Allowed || d.Reason != "rate" || d.RetryAfter != 9*time.Second {
		t.Fatalf("11th: %+v", d)
	}
	// Halfway through the next window the previous bucket still weighs
	// floor(10 * 0.5) = 5, so exactly 5 more are allowed.
	mid := t0.Add(15 * time.Second)
	n := 0
	for allow(mid).Allowed {
		n++
	}
	if n != 5 {
		t.Fatalf("allowed %d in the half-overlapping window; want 5", n)
	}
	// Two windows later the slate is clean.
	if d := allow(t0.Add(40 * time.Second)); !d.Allowed || d.Remaining != 9 {
		t.Fatalf("after idle: %+v", d)
	}
	// Other keys are independent.
	if d, _ := m.Allow(context.Background(), "other", p, t0.Add(time.Second)); !d.Allowed {
		t.Fatal("other key limited")
	}
}

func TestMonthlyQuota(t *testing.T) {
	m := NewMemory()
	p := Policy{QuotaPerMonth: 2}
	end := time.Date(2026, 1, 31, 23, 59, 0, 0, time.UTC)
	for i := range 2 {
		if d, _ := m.Allow(context.Background(), "k", p, end); !d.Allowed {
			t.Fatalf("request %d refused", i)
		}
	}
	d, _ := m.Allow(context.Background(), "k", p, end)
	if d.Allowed || d.Reason != "quota" || d.RetryAfter != time.Minute {
		t.Fatalf("over quota: %+v", d)
	}
	if d, _ := m.Allow(context.Background(), "k", p, end.Add(2*time.Minute)); !d.Allowed {
		t.Fatal("new month still refused")
	}
}

func TestQuotaRefusalDoesNotChargeRate(t *testing.T) {
	m := NewMemory()
	p := Policy{Requests: 100, Window: time.Minute, QuotaPerMonth: 1}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m.Allow(context.Background(), "k", p, now)
	for range 5 {
		m.Allow(context.Background(), "k", p, now)
	}
	if w := m.rate["k"]; w.cur != 1 {
		t.Fatalf("rate bucket counted %d; refused requests must not count", w.cur)
	}
}

func BenchmarkAllow(b *testing.B) {
	m := NewMemory()
	p := Policy{Requests: 1 << 30, Window: 10 * time.Second, QuotaPerMonth: 1 << 40}
	now := time.Now()
	b.ReportAllocs()
	for b.Loop() {
		m.Allow(context.Background(), "key_1", p, now)
	}
}

// TestRestoreQuota: a restored count charges against the month it was
// restored for, and the next month starts afresh.
func TestRestoreQuota(t *testing.T) {
	m := NewMemory()
	now := time.Date(2026, 11, 23, 7, 0, 0, 0, time.UTC)
	p := Policy{QuotaPerMonth: 3}
	m.RestoreQuota("k", 2, now)
	if d, _ := m.Allow(context.Background(), "k", p, now); !d.Allowed {
		t.Fatal("third request refused")
	}
	if d, _ := m.Allow(context.Background(), "k", p, now); d.Allowed || d.Reason != "quota" {
		t.Fatalf("fourth request: %+v; want a quota refusal", d)
	}
	if d, _ := m.Allow(context.Background(), "k", p, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)); !d.Allowed {
		t.Fatal("the next month is still refused")
	}
}
