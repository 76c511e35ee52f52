package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"

	"github.com/assetd/assetd/internal/onchain"
)

// countingCaller answers every getMultipleAccounts with no accounts and
// counts the calls.
type countingCaller struct {
	mu    sync.Mutex
	calls int
}

func (c *countingCaller) Call(_ context.Context, method string, params []any, result any) error {
	if method != "getMultipleAccounts" {
		return fmt.Errorf("unexpected %s", method)
	}
	c.mu.Lock()
	c.calls++
	c.mu.Unlock()
	n := len(params[0].([]string))
	vals := make([]json.RawMessage, n)
	for i := range vals {
		vals[i] = json.RawMessage("null")
	}
	b, _ := json.Marshal(map[string]any{"context": map[string]any{"slot": 1}, "value": vals})
	return json.Unmarshal(b, result)
}

func (c *countingCaller) n() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls
}

// TestOnChainLeaseOneReader: two replicas sharing a Redis prefix hold one
// on-chain lease between them, so only one runs the scheduled chain reads;
// when the leader's lease lapses the other takes over and reads at once.
// (miniredis: the lease expiry is driven by its clock, not by sleeping.)
func TestOnChainLeaseOneReader(t *testing.T) {
	mr := miniredis.RunT(t)
	ctx := context.Background()
	var cfg serveConfig
	cfg.redis.url, cfg.redis.prefix, cfg.redis.timeout = "redis://"+mr.Addr(), "test-onchain:", time.Second
	cfg.refresh.leaseTTL = 10 * time.Second
	log := slog.New(slog.DiscardHandler)
	type replica struct {
		lease  *onChainLease
		caller *countingCaller
		svc    *onchain.Service
	}
	var reps []replica
	for range 2 {
		l, err := newOnChainLease(ctx, cfg, log)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(l.shutdown)
		c := &countingCaller{}
		svc := onchain.New(onchain.Config{Caller: c, Leader: l.leader(), Scheduled: func() []string { return []string{"11111111111111111111111111111112"} }})
		reps = append(reps, replica{l, c, svc})
	}
	leaders := 0
	for _, r := range reps {
		r.svc.Step(ctx)
		if r.lease.elector.Leader() {
			leaders++
		}
	}
	if leaders != 1 || reps[0].caller.n()+reps[1].caller.n() != 1 {
		t.Fatalf("leaders %d, reads %d+%d: want one leader and one read", leaders, reps[0].caller.n(), reps[1].caller.n())
	}
	lead, follow := reps[0], reps[1]
	if !lead.lease.elector.Leader() {
		lead, follow = follow, lead
	}
	// The leader stops renewing; its lease lapses in Redis and the other
	// replica acquires it and reads at once.
	mr.FastForward(cfg.refresh.leaseTTL + time.Second)
	if !follow.lease.elector.Step(ctx) {
		t.Fatal("the other replica did not take the lapsed lease")
	}
	follow.svc.Step(ctx)
	if follow.caller.n() != 1 {
		t.Errorf("new leader reads %d, want 1", follow.caller.n())
	}
	if lead.lease.elector.Step(ctx) {
		t.Error("the old leader still leads after another took the lease")
	}
	lead.svc.Step(ctx)
	if lead.caller.n() != 1 {
		t.Errorf("old leader read again: %d", lead.caller.n())
	}
	// Without --redis-url there is no lease: every process leads.
	var none serveConfig
	if l, err := newOnChainLease(ctx, none, log); err != nil || l != nil || l.leader() != nil {
		t.Errorf("no redis: lease %v %v", l, err)
	}
}
