package demo

import (
	"context"
	"testing"
	"time"
)

// oldestPool returns the creation times of a mint's pools, checking that
// every pool has one, that none lies after now and that the most liquid
// pool is the oldest.
func oldestPool(t *testing.T, w *World, mint string, now int64) int64 {
	t.Helper()
	ms, err := w.Markets(context.Background(), mint, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) == 0 {
		t.Fatalf("%s: no pools", mint)
	}
	for _, m := range ms {
		if m.CreatedAt == nil || *m.CreatedAt > now || *m.CreatedAt < *ms[0].CreatedAt {
			t.Fatalf("%s: pool %s created %v (now %d, oldest %d)", mint, m.Address, m.CreatedAt, now, *ms[0].CreatedAt)
		}
	}
	return *ms[0].CreatedAt
}

func TestPoolCreatedAt(t *testing.T) {
	assets := seedAssets(t)
	w := New(Config{Assets: assets, Now: fixedClock(testNow)})
	now := testNow.Unix()
	// Registry pools are months to years old.
	for _, mint := range allMints(assets) {
		c := oldestPool(t, w, mint, now)
		if c < poolEpochMin || c >= poolEpochMax || now-c < 60*secPerDay {
			t.Fatalf("%s: oldest pool created %s", mint, time.Unix(c, 0).UTC())
		}
	}
	// Long-tail pools: some fresh (hours or days old), most old.
	fresh, old := 0, 0
	for i := range uint64(200) {
		mint := syntheticAddress(0xA6E0 + i)
		c := oldestPool(t, w, mint, now)
		switch age := now - c; {
		case age < freshCycleMax:
			fresh++
		case c >= longTailEpochMin && c < poolEpochMax:
			old++
		default:
			t.Fatalf("%s: oldest pool created %s", mint, time.Unix(c, 0).UTC())
		}
	}
	if fresh < 30 || old < 100 {
		t.Fatalf("%d fresh and %d old long-tail mints of 200", fresh, old)
	}
}

func TestFreshPoolsRelaunch(t *testing.T) {
	// A fresh long-tail mint's pools date from the start of its current
	// cycle: fixed while the cycle lasts, later after a relaunch.
	w := New(Config{Now: fixedClock(testNow)})
	var mint string
	var sp poolSpec
	for i := uint64(0); mint == ""; i++ {
		m := syntheticAddress(0xF8E5 + i)
		if ps := w.profile(m).poolSpecs(w); ps[0].cycle > 0 {
			mint, sp = m, ps[0]
		}
	}
	now := testNow.Unix()
	c := oldestPool(t, w, mint, now)
	if age := now - c; age < 0 || age >= sp.cycle {
		t.Fatalf("age %d for cycle %d", age, sp.cycle)
	}
	// Just before the next relaunch: same creation time.
	end := c + sp.cycle
	if got := oldestPool(t, New(Config{Now: fixedClock(time.Unix(end-1, 0))}), mint, end-1); got != c {
		t.Fatalf("creation moved within a cycle: %d -> %d", c, got)
	}
	// After it: created at the relaunch.
	if got := oldestPool(t, New(Config{Now: fixedClock(time.Unix(end+60, 0))}), mint, end+60); got != end {
		t.Fatalf("after relaunch created %d, want %d", got, end)
	}
}

func TestPoolCreatedAtEarlyClock(t *testing.T) {
	// With a clock before the fixed creation dates, registry pools still
	// predate the served history.
	early := time.Date(2023, 3, 15, 10, 0, 0, 0, time.UTC)
	w := New(Config{Assets: fixtureAssets(), Now: fixedClock(early)})
	now := early.Unix()
	hs := w.historyStart(now)
	for _, mint := range allMints(fixtureAssets()) {
		if c := oldestPool(t, w, mint, now); c >= hs {
			t.Fatalf("%s: pool created %s after the history start", mint, time.Unix(c, 0).UTC())
		}
	}
}
