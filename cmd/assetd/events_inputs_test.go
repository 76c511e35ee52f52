package main

import (
	"context"
	"testing"

	"github.com/assetd/assetd/internal/depeg"
	"github.com/assetd/assetd/internal/registry"
)

// TestDepegVersionMovesWithCyclesAndSnapshots: the producer's depeg
// version holds while neither the guard's judgements nor the registry
// snapshot change, and moves when either does.
func TestDepegVersionMovesWithCyclesAndSnapshots(t *testing.T) {
	snap := new(registry.Snapshot)
	g := depeg.New(depeg.Options{Coins: func() []depeg.Coin { return nil }, Act: func() bool { return false }})
	p := &producerInputs{guard: g, snapshot: func() *registry.Snapshot { return snap }}
	v0 := p.depegVersion()
	if v := p.depegVersion(); v != v0 {
		t.Fatalf("nothing changed, version %d -> %d", v0, v)
	}
	if err := g.Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}
	v1 := p.depegVersion()
	if v1 == v0 {
		t.Fatal("a guard cycle left the version")
	}
	snap = new(registry.Snapshot)
	v2 := p.depegVersion()
	if v2 == v1 {
		t.Fatal("a new registry snapshot left the version")
	}
	if v := p.depegVersion(); v != v2 {
		t.Fatalf("nothing changed, version %d -> %d", v2, v)
	}
}
