package storetest

import (
	"context"
	"errors"
	"github.com/assetd/assetd/internal/analytics"
	"sync"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/lists"
	"github.com/assetd/assetd/internal/storage"
	"github.com/google/go-cmp/cmp"
)

// ChangeTests are the conformance tests of the commit hook (the change
// bus's source) and the stored-signature lookup (the trade stream's
// dedupe past its window); Run runs them too.
var ChangeTests = []struct {
	Name string
	Fn   func(*testing.T, Harness)
}{
	{"CommitHookReportsCommittedTopics", testCommitHook},
	{"StoredTradeIDs", testStoredTradeIDs},
}

type hooked interface {
	OnCommit(fn storage.CommitHook)
}

func testCommitHook(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	hs, ok := s.(hooked)
	if !ok {
		t.Fatalf("%T has no OnCommit", s)
	}
	var mu sync.Mutex
	var got [][]string
	hs.OnCommit(func(topics []string) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, append([]string(nil), topics...))
	})
	take := func() [][]string {
		mu.Lock()
		defer mu.Unlock()
		g := got
		got = nil
		return g
	}
	ctx := context.Background()
	mustCreate(t, s, "acme", newKey("key_a", hash(1), "assets:read"))
	if d := cmp.Diff([][]string{{storage.TopicKeys}}, take()); d != "" {
		t.Fatalf("after CreateKey (-want +got):\n%s", d)
	}
	// A write that fails commits nothing and announces nothing.
	if _, err := s.CreateKey(ctx, "acme", newKey("key_b", hash(1), "assets:read")); !errors.Is(err, storage.ErrConflict) {
		t.Fatalf("duplicate hash: %v; want ErrConflict", err)
	}
	if g := take(); len(g) != 0 {
		t.Fatalf("a failed write announced %v", g)
	}
	if err := s.RevokeKey(ctx, "key_a", t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetAdvisory(ctx, lists.Advisory{Mint: "MintA", Advisory: asset.Advisory{Status: asset.AdvisoryCaution, Reason: "test", Since: storage.Ms(t0)}}); err != nil {
		t.Fatal(err)
	}
	if err := tradeStore(t, s).NotifyTrades(ctx); err != nil {
		t.Fatal(err)
	}
	want := [][]string{{storage.TopicKeys}, {storage.TopicAdvisories}, {storage.TopicTrades}}
	if d := cmp.Diff(want, take()); d != "" {
		t.Fatalf("after revoke, advisory, trade notification (-want +got):\n%s", d)
	}
}

func testStoredTradeIDs(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	ss, ok := s.(interface {
		StoredTradeIDs(ctx context.Context, ids []analytics.TradeID) (map[analytics.TradeID]bool, error)
	})
	if !ok {
		t.Fatalf("%T has no StoredTradeIDs", s)
	}
	ts := tradeStore(t, s)
	trades := synthTrades("stored", 3)
	leg2 := trades[0]
	leg2.Leg = 2
	mustInsert(t, ts, append(trades, leg2), t0)
	ask := []analytics.TradeID{{Signature: "stored-000000"}, {Signature: "absent"}, {Signature: "stored-000002"},
		{Signature: "stored-000000", Leg: 2}, {Signature: "stored-000000", Leg: 1}, {Signature: "stored-000001", Leg: 2}}
	for i := range 1200 { // past one lookup chunk
		ask = append(ask, analytics.TradeID{Signature: "absent-" + string(rune('a'+i%26)) + hash(i)})
	}
	got, err := ss.StoredTradeIDs(context.Background(), ask)
	if err != nil {
		t.Fatal(err)
	}
	want := map[analytics.TradeID]bool{{Signature: "stored-000000"}: true, {Signature: "stored-000002"}: true, {Signature: "stored-000000", Leg: 2}: true}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("stored trade ids (-want +got):\n%s", d)
	}
}
