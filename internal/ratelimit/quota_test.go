package ratelimit

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"
)

// memLedger is a Ledger in memory, shared by the "processes" of a test.
type memLedger struct {
	mu     sync.Mutex
	used   map[string]int64 // key|month
	fail   bool
	writes int
}

func newMemLedger() *memLedger { return &memLedger{used: map[string]int64{}} }

func (l *memLedger) ReserveQuota(_ context.Context, key string, month time.Time, debt, want, limit int64) (int64, int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fail {
		return 0, 0, errors.New("store unreachable")
	}
	l.writes++
	k := key + "|" + month.Format("2006-01")
	cur := l.used[k] + debt
	g := min(want, max(0, limit-cur))
	l.used[k] = cur + g
	return g, cur + g, nil
}

func (l *memLedger) ReleaseQuota(_ context.Context, key string, month time.Time, n int64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fail {
		return errors.New("store unreachable")
	}
	k := key + "|" + month.Format("2006-01")
	l.used[k] = max(0, l.used[k]-n)
	return nil
}

func (l *memLedger) get(key string, at time.Time) int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.used[key+"|"+at.Format("2006-01")]
}

func (l *memLedger) setFail(v bool) {
	l.mu.Lock()
	l.fail = v
	l.mu.Unlock()
}

var discard = slog.New(slog.NewTextHandler(io.Discard, nil))

func allowed(t *testing.T, l Limiter, key string, p Policy, at time.Time) bool {
	t.Helper()
	d, err := l.Allow(context.Background(), key, p, at)
	if err != nil {
		t.Fatal(err)
	}
	return d.Allowed
}

// TestQuotasSurviveCrashes: three processes share one ledger; each is
// "killed" (dropped without Close) every 50 requests and replaced by a new
// one. However the background reservations interleave, the key is never
// served more than its quota (a unit is in the ledger before it is
// granted), and what crashes cost it is at most 1.5 blocks per crash.
func TestQuotasSurviveCrashes(t *testing.T) {
	const quota = 400
	led := newMemLedger()
	p := Policy{QuotaPerMonth: quota}
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	procs := make([]*Quotas, 3)
	for i := range procs {
		procs[i] = NewQuotas(NewMemory(), led, discard, QuotaOptions{})
	}
	served, crashes, refusedInRow := 0, 0, 0
	for i := 0; refusedInRow < 30; i++ {
		if i > 0 && i%50 == 0 && crashes < 6 {
			procs[crashes%3].wg.Wait() // let its reservations land: they count, then are lost
			procs[crashes%3] = NewQuotas(NewMemory(), led, discard, QuotaOptions{})
			crashes++
		}
		if allowed(t, procs[i%3], "k", p, now) {
			served++
			refusedInRow = 0
		} else {
			refusedInRow++
		}
		if served > quota {
			t.Fatalf("served %d > quota %d", served, quota)
		}
	}
	for _, q := range procs {
		if err := q.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	lost := int(led.get("k", now)) - served
	t.Logf("served %d of %d over %d crashes (%d units lost with the crashed processes; block %d)", served, quota, crashes, lost, BlockOf(quota))
	if max := crashes * 3 * int(BlockOf(quota)) / 2; lost < 0 || lost > max {
		t.Fatalf("ledger %d, served %d: %d lost; want 0..%d", led.get("k", now), served, lost, max)
	}
}

// TestQuotasGracefulStopIsExact: processes stopped with Close give their
// held units back, so restarts cost nothing: exactly the quota is served.
func TestQuotasGracefulStopIsExact(t *testing.T) {
	led := newMemLedger()
	p := Policy{QuotaPerMonth: 250}
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	served := 0
	for round := range 10 {
		procs := []*Quotas{NewQuotas(NewMemory(), led, discard, QuotaOptions{}), NewQuotas(NewMemory(), led, discard, QuotaOptions{})}
		for i := range 40 + round {
			if allowed(t, procs[i%2], "k", p, now) {
				served++
			}
		}
		for _, q := range procs {
			if err := q.Close(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		if got := led.get("k", now); got != int64(served) {
			t.Fatalf("round %d: ledger %d, served %d; want equal after a graceful stop", round, got, served)
		}
	}
	if served != 250 {
		t.Fatalf("served %d; want exactly the quota 250", served)
	}
}

// TestQuotasRateRefusalChargesNothing: a request the rate limit refuses
// gives its unit back; a quota refusal reports the month's end.
func TestQuotasRateRefusalChargesNothing(t *testing.T) {
	led := newMemLedger()
	q := NewQuotas(NewMemory(), led, discard, QuotaOptions{})
	now := time.Date(2026, 11, 30, 23, 0, 0, 0, time.UTC)
	p := Policy{Requests: 2, Window: time.Minute, QuotaPerMonth: 3}
	got := []bool{allowed(t, q, "k", p, now), allowed(t, q, "k", p, now), allowed(t, q, "k", p, now)}
	if got[0] != true || got[1] != true || got[2] != false {
		t.Fatalf("decisions %v; want allowed, allowed, rate-refused", got)
	}
	later := now.Add(2 * time.Minute)
	if !allowed(t, q, "k", p, later) {
		t.Fatal("the third unit was not given back after the rate refusal")
	}
	d, err := q.Allow(context.Background(), "k", p, later)
	if err != nil || d.Allowed || d.Reason != "quota" || d.RetryAfter != 58*time.Minute || d.Remaining != 0 {
		t.Fatalf("over quota: %+v, %v; want a quota refusal until the month ends", d, err)
	}
	if err := q.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := led.get("k", now); got != 3 {
		t.Fatalf("ledger %d; want 3", got)
	}
	// A new month starts from zero.
	if !allowed(t, q, "k", p, now.Add(2*time.Hour)) {
		t.Fatal("refused in the next month")
	}
}

// TestQuotasFailOpenAddsDebt: while the ledger fails, the key is served
// within its last known count (fail open); the requests served meanwhile
// are added to the ledger once it answers, so it ends equal to what was
// served.
func TestQuotasFailOpenAddsDebt(t *testing.T) {
	led := newMemLedger()
	q := NewQuotas(NewMemory(), led, discard, QuotaOptions{})
	p := Policy{QuotaPerMonth: 1000}
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	served := 0
	for range 30 {
		if allowed(t, q, "k", p, now) {
			served++
		}
	}
	q.wg.Wait()
	led.setFail(true)
	for range 100 {
		if allowed(t, q, "k", p, now) {
			served++
		}
	}
	q.wg.Wait()
	led.setFail(false)
	now = now.Add(DefaultLedgerRetry)
	for range 20 {
		if allowed(t, q, "k", p, now) {
			served++
		}
	}
	if served != 150 {
		t.Fatalf("served %d of 150 with a quota of 1000", served)
	}
	if err := q.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := led.get("k", now); got != 150 {
		t.Fatalf("ledger %d after recovery and stop; want the 150 served", got)
	}
	// Without a quota the ledger is never asked.
	led2 := newMemLedger()
	q2 := NewQuotas(NewMemory(), led2, discard, QuotaOptions{})
	for range 10 {
		allowed(t, q2, "k", Policy{Requests: 100, Window: time.Second}, now)
	}
	if led2.writes != 0 {
		t.Fatalf("%d ledger writes for a key without a quota", led2.writes)
	}
}

// TestQuotasBlocks: a block is 1 % of the quota within 1..MaxBlock, so a
// busy key writes the ledger about once per block.
func TestQuotasBlocks(t *testing.T) {
	for _, c := range []struct{ limit, want int64 }{{1, 1}, {99, 1}, {400, 4}, {1_000_000, 10_000}, {1_000_000_000, MaxBlock}} {
		if got := BlockOf(c.limit); got != c.want {
			t.Errorf("BlockOf(%d) = %d; want %d", c.limit, got, c.want)
		}
	}
	led := newMemLedger()
	q := NewQuotas(NewMemory(), led, discard, QuotaOptions{})
	p := Policy{QuotaPerMonth: 100_000}
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	for range 10_000 {
		allowed(t, q, "k", p, now)
	}
	q.wg.Wait()
	if led.writes < 9 || led.writes > 11 {
		t.Fatalf("%d ledger writes for 10,000 requests with blocks of 1,000; want about 10", led.writes)
	}
}
