package events

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestProducerDiffs(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1_800_000_000, 0)
	prices := map[string]float64{"A": 1, "B": 10}
	var changed []string
	seq := uint64(0)
	adv := map[string]AdvisoryState{"X": {Status: "caution", Reason: "r"}}
	lists := map[string]ListState{"l1": {Name: "L", Status: "published", Members: []string{"A"}}}
	trending := []string{"A", "B"}
	depeg := map[string]DepegState{"U": {Tier: "ok"}}
	leader := true
	in := Inputs{
		PriceChanges: func(since uint64) ([]string, uint64, bool) {
			c := changed
			changed = nil
			seq++
			return c, seq, true
		},
		Price: func(m string) (PriceQuote, bool) {
			p, ok := prices[m]
			return PriceQuote{PriceUSD: p, Source: "trades"}, ok
		},
		Advisories: func() map[string]AdvisoryState { return clone(adv) },
		Lists:      func() map[string]ListState { return clone(lists) },
		Trending:   func() []string { return append([]string(nil), trending...) },
		Depeg:      func() map[string]DepegState { return clone(depeg) },
		Leader:     func() bool { return leader },
	}
	log := NewMemory(100, nil)
	p := NewProducer(in, log, ProducerOptions{Now: func() time.Time { return now }})
	changed = []string{"A", "B"}
	if err := p.Tick(ctx); err != nil || log.Last() != 0 {
		t.Fatalf("first tick is the baseline: %d %v", log.Last(), err)
	}
	// Second tick: A moves 0.4% (below the step), B 1%; an advisory
	// changes, one is set; the list gains a member; trending swaps; depeg
	// tier changes.
	now = now.Add(2 * time.Second)
	prices["A"], prices["B"] = 1.004, 10.1
	changed = []string{"A", "B"}
	adv = map[string]AdvisoryState{"X": {Status: "blocked", Reason: "r"}, "Y": {Status: "caution", Reason: "q"}}
	lists = map[string]ListState{"l1": {Name: "L", Status: "published", Members: []string{"A", "B"}}}
	trending = []string{"B", "C"}
	depeg = map[string]DepegState{"U": {Tier: "watch"}}
	if err := p.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	got, _ := log.Since(ctx, 0, 100)
	var summary []string
	for _, e := range got {
		var d map[string]any
		if err := json.Unmarshal(e.Data, &d); err != nil {
			t.Fatal(err)
		}
		s := e.Type + "/" + e.Topic
		if a, ok := d["action"]; ok {
			s += "/" + a.(string)
		}
		summary = append(summary, s)
	}
	want := "price/price:B advisory/advisories/changed advisory/advisories/set list/list:l1/changed " +
		"trending/trending/entered trending/trending/left depeg/depeg"
	if strings.Join(summary, " ") != want {
		t.Fatalf("events\n got %s\nwant %s", strings.Join(summary, " "), want)
	}
	// A follower compares but does not write; within the same second a
	// further move is held back.
	leader = false
	adv = map[string]AdvisoryState{}
	if err := p.Tick(ctx); err != nil || log.Last() != uint64(len(got)) {
		t.Fatalf("follower appended: %d", log.Last())
	}
	leader = true
	prices["B"] = 12
	changed = []string{"B"}
	if err := p.Tick(ctx); err != nil || log.Last() != uint64(len(got)) {
		t.Fatalf("price inside its second: %d", log.Last())
	}
}

func clone[V any](m map[string]V) map[string]V {
	out := make(map[string]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// TestProducerSkipsUnchangedVersions: with version inputs, a tick whose
// versions have not moved builds none of those states (an idle producer
// costs nothing in proportion to the registry or the lists), and a moved
// version is compared as before.
func TestProducerSkipsUnchangedVersions(t *testing.T) {
	ctx := context.Background()
	calls := map[string]int{}
	adv := map[string]AdvisoryState{"X": {Status: "caution", Reason: "r"}}
	lists := map[string]ListState{"l1": {Name: "L", Status: "published", Members: []string{"A"}}}
	depeg := map[string]DepegState{"U": {Tier: "ok"}}
	var advVer, listsVer, depegVer uint64 = 1, 1, 1
	in := Inputs{
		Advisories:        func() map[string]AdvisoryState { calls["adv"]++; return clone(adv) },
		Lists:             func() map[string]ListState { calls["lists"]++; return clone(lists) },
		Depeg:             func() map[string]DepegState { calls["depeg"]++; return clone(depeg) },
		AdvisoriesVersion: func() uint64 { return advVer },
		ListsVersion:      func() uint64 { return listsVer },
		DepegVersion:      func() uint64 { return depegVer },
	}
	log := NewMemory(100, nil)
	p := NewProducer(in, log, ProducerOptions{})
	for range 3 {
		if err := p.Tick(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if calls["adv"] != 1 || calls["lists"] != 1 || calls["depeg"] != 1 || log.Last() != 0 {
		t.Fatalf("three ticks at the same versions: calls %v, events %d; want each state built once (the baseline), no event", calls, log.Last())
	}
	// A change without a version move is not seen (the version is the
	// contract); with it, it is.
	depeg = map[string]DepegState{"U": {Tier: "watch"}}
	if err := p.Tick(ctx); err != nil || log.Last() != 0 {
		t.Fatalf("unversioned change: %d events, %v", log.Last(), err)
	}
	depegVer++
	adv = map[string]AdvisoryState{}
	advVer++
	if err := p.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	got, _ := log.Since(ctx, 0, 100)
	var types []string
	for _, e := range got {
		types = append(types, e.Type)
	}
	if strings.Join(types, " ") != "advisory depeg" || calls["adv"] != 2 || calls["lists"] != 1 || calls["depeg"] != 2 {
		t.Fatalf("after moving the advisory and depeg versions: events %v, calls %v", types, calls)
	}
}
