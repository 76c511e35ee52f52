package onchain

import (
	"context"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/registry"
)

// demoAssets are a small visibly synthetic registry (test values, not
// real tokens): a stablecoin and three crypto variants, the second of
// which gets the demo's transfer fee.
func demoAssets() []registry.Asset {
	mk := func(id, cat string) registry.Asset {
		return registry.Asset{AssetID: id, Category: cat, Variants: []registry.Variant{{Mint: *demoKey("test mint " + id)}}}
	}
	return []registry.Asset{mk("test-usd", "stablecoin"), mk("test-a", "crypto"), mk("test-b", "crypto"), mk("test-c", "crypto")}
}

// TestDemoScriptChangesOneFact: the demo world's scripted fee raise is one
// stored change (one change-log row, source demo) when it starts and one
// when it ends; the verdict follows it; steps in between store nothing.
func TestDemoScriptChangesOneFact(t *testing.T) {
	hour := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	now := hour.Add(5 * time.Minute)
	assets := demoAssets()
	store := &memStore{}
	svc := New(Config{Store: store, Now: func() time.Time { return now }, Demo: func(t time.Time) []Facts { return DemoFactsAt(assets, t) }})
	ctx := context.Background()
	if !svc.Step(ctx) {
		t.Fatal("no Leader: want this replica to lead")
	}
	var fee string
	for _, f := range DemoFacts(assets) {
		if f.Extensions.TransferFeeConfig != nil {
			fee = f.Mint
		}
	}
	if fee == "" {
		t.Fatal("no demo fee mint")
	}
	j := Judgement{Facts: svc, Now: func() time.Time { return now }}
	before := j.Verdict(fee)
	if before.DoNotTrade || codes(before)[CodeTransferFee].Severity != SeverityWarning {
		t.Fatalf("before the script: %+v", before)
	}
	// Synthetic facts give no decimals: the decimals resolver never takes
	// made-up ones.
	if _, ok := svc.Decimals(fee); ok {
		t.Error("synthetic facts gave decimals")
	}
	for _, tc := range []struct {
		at      time.Duration
		rows    int
		raised  bool
		newBps  string
		doNotTr bool
	}{
		{10 * time.Minute, 0, false, "", false},
		{DemoScriptStart, 1, true, "1500", true},
		{30 * time.Minute, 1, true, "", true},
		{DemoScriptEnd, 2, false, "250", false},
		{DemoScriptCycle + DemoScriptStart, 3, true, "1500", true},
	} {
		now = hour.Add(tc.at)
		if DemoScriptRaised(now) != tc.raised {
			t.Errorf("%v: raised %v", tc.at, !tc.raised)
		}
		svc.Step(ctx)
		ch, _ := svc.Changes(ctx, nil, 0, 0, 10)
		if len(ch) != tc.rows {
			t.Fatalf("%v: %d change rows, want %d: %+v", tc.at, len(ch), tc.rows, ch)
		}
		if tc.newBps != "" {
			c := ch[0]
			if c.Mint != fee || c.Field != "extensions.transferFeeConfig.newerTransferFee.transferFeeBasisPoints" || c.New != tc.newBps || c.Source != SourceDemo {
				t.Errorf("%v: change %+v", tc.at, c)
			}
		}
		v := j.Verdict(fee)
		if v.DoNotTrade != tc.doNotTr {
			t.Errorf("%v: doNotTrade %v, want %v (%+v)", tc.at, v.DoNotTrade, tc.doNotTr, v.Warnings)
		}
	}
}

// TestStepOnlyOnTheLeader: with several replicas only the lease holder
// reads the schedule: at once when it becomes the leader, then every
// Interval; a replica that is not the leader reads nothing scheduled.
func TestStepOnlyOnTheLeader(t *testing.T) {
	fc := &fakeCaller{}
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	leader := false
	svc := New(Config{Caller: fc, Store: &memStore{}, Interval: time.Hour, Leader: func() bool { return leader },
		Now: func() time.Time { return now }, Scheduled: func() []string { return []string{"s1"} }})
	ctx := context.Background()
	reads := func() int {
		fc.mu.Lock()
		defer fc.mu.Unlock()
		return fc.calls["getMultipleAccounts"]
	}
	for i, tc := range []struct {
		leader  bool
		advance time.Duration
		reads   int
	}{
		{false, 0, 0},               // another replica leads
		{true, 0, 1},                // became the leader: reads at once
		{true, time.Minute, 1},      // not due yet
		{true, time.Hour, 2},        // an Interval later
		{false, time.Minute, 2},     // lost the lease
		{true, time.Minute, 3},      // regained it: reads at once
		{true, 59 * time.Minute, 3}, // not due
		{true, 1 * time.Minute, 4},  // due
	} {
		leader = tc.leader
		now = now.Add(tc.advance)
		if led := svc.Step(ctx); led != tc.leader {
			t.Errorf("step %d: led %v", i, led)
		}
		if got := reads(); got != tc.reads {
			t.Errorf("step %d: %d reads, want %d", i, got, tc.reads)
		}
	}
	// A follower still reads what its own verdicts calls queued.
	leader = false
	if n := svc.Request("k", []string{"r1"}); n != 1 {
		t.Fatalf("queued %d", n)
	}
	svc.ReadQueued(ctx)
	if st, _ := svc.Lookup("r1"); st != StatusUnknownMint {
		t.Errorf("queued read on a follower: %s", st)
	}
}

// TestSymbolChangeIsClaimed: a mint's on-chain symbol change is one
// change-log row, and the claim index search-tokens judges with
// (ChainSymbol, Claiming) follows it. The mint and symbols are synthetic
// test values.
func TestSymbolChangeIsClaimed(t *testing.T) {
	svc := New(Config{Store: &memStore{}})
	ctx := context.Background()
	mint := *demoKey("test renamed mint")
	f := Facts{Mint: mint, Program: ProgramToken2022, Decimals: 6, Extensions: Extensions{TokenMetadata: &TokenMetadata{Mint: mint, Symbol: "OLDSYM", Name: "Old"}}}
	if err := svc.Put(ctx, "test", f); err != nil {
		t.Fatal(err)
	}
	if got := svc.Claiming("OLDSYM", 5); len(got) != 1 || got[0] != mint {
		t.Fatalf("claiming OLDSYM %v", got)
	}
	f.Extensions.TokenMetadata = &TokenMetadata{Mint: mint, Symbol: "usdc", Name: "Old"}
	if err := svc.Put(ctx, SourceChain, f); err != nil {
		t.Fatal(err)
	}
	ch, _ := svc.Changes(ctx, []string{mint}, 0, 0, 10)
	if len(ch) != 1 || ch[0].Field != "extensions.tokenMetadata.symbol" || ch[0].New != `"usdc"` {
		t.Fatalf("changes %+v", ch)
	}
	if sym, _ := svc.ChainSymbol(mint); sym != "usdc" {
		t.Errorf("chain symbol %q", sym)
	}
	if got := svc.Claiming("USDC", 5); len(got) != 1 || got[0] != mint {
		t.Errorf("claiming USDC %v", got)
	}
	if got := svc.Claiming("OLDSYM", 5); len(got) != 0 {
		t.Errorf("claiming OLDSYM after the change %v", got)
	}
	var none *Service
	if none.Claiming("USDC", 5) != nil {
		t.Error("nil service claims")
	}
}
