package simrouter

import (
	"context"
	"testing"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/execution"
	"github.com/assetd/assetd/internal/registry"
)

type noAdvisories struct{}

func (noAdvisories) Get(string) *asset.Advisory { return nil }
func (noAdvisories) Loaded() bool               { return true }

// BenchmarkDemoRoute is route?assetId=bitcoin&amountUsd=1000000 over the
// simulated routers (probes, curves, allocation, verification), without
// HTTP.
func BenchmarkDemoRoute(b *testing.B) {
	snap, err := registry.SeedSnapshot()
	if err != nil {
		b.Fatal(err)
	}
	ps := routersOver(b, snap)
	s := &execution.Service{Registry: func() *registry.Snapshot { return snap }, Advisories: noAdvisories{}, Providers: ps}
	ctx := context.Background()
	for b.Loop() {
		p, err := s.PlanRoute(execution.RouteRequest{AssetID: "bitcoin", AmountUSD: 1_000_000, Allocate: true})
		if err != nil {
			b.Fatal(err)
		}
		if r := s.Route(ctx, p); r.AllocationStatus != execution.AllocOK {
			b.Fatal(r.AllocationStatus)
		}
	}
}
