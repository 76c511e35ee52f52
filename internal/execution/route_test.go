package execution

import (
	"context"
	"math/big"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/registry"
)

type noAdvisories struct{}

func (noAdvisories) Get(string) *asset.Advisory { return nil }
func (noAdvisories) Loaded() bool               { return true }

func seedService(t *testing.T, ps ...Provider) *Service {
	t.Helper()
	snap, err := registry.SeedSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	return &Service{Registry: func() *registry.Snapshot { return snap }, Advisories: noAdvisories{}, Providers: ps,
		Now: func() time.Time { return time.Date(2026, 11, 23, 15, 0, 0, 0, time.UTC) }}
}

// concave quotes out = in·rate·D/(D+in) raw units (D in USDC raw).
func concave(rate int64, depth int64) func(QuoteRequest) (*big.Int, error) {
	return func(r QuoteRequest) (*big.Int, error) {
		out := new(big.Int).Mul(r.Amount, big.NewInt(rate))
		out.Mul(out, big.NewInt(depth))
		return out.Quo(out, new(big.Int).Mul(big.NewInt(1000), new(big.Int).Add(big.NewInt(depth), r.Amount))), nil
	}
}

func TestRouteInsufficientQuotes(t *testing.T) {
	s := seedService(t, &fake{id: "p", out: func(QuoteRequest) (*big.Int, error) { return nil, ErrNoRoute }})
	p, err := s.PlanRoute(RouteRequest{AssetID: "bitcoin", AmountUSD: 100_000, MaxVariants: 2, Allocate: true})
	if err != nil {
		t.Fatal(err)
	}
	resp := s.Route(context.Background(), p)
	if resp.AllocationStatus != AllocInsufficientQuotes || resp.Allocation != nil {
		t.Fatalf("status %s", resp.AllocationStatus)
	}
	for _, rung := range resp.Variants[0].Curve.Rungs {
		if rung.Reason == nil || *rung.Reason != ReasonNoRoute {
			t.Errorf("rung %+v", rung)
		}
	}
}

// TestRouteHangingProvider: one provider hangs; the route still answers
// with an allocation from the other provider's quotes (each fan-out ends at
// its budget: the hanging provider's rows are timeouts).
func TestRouteHangingProvider(t *testing.T) {
	hang := &fake{id: "hang", hang: true}
	s := seedService(t, &fake{id: "ok", out: concave(1, 5_000_000_000_000)}, hang)
	s.QuoteBudget = 2 * MinProviderTimeout // two batches of rungs, each a 1.5 s call timeout
	p, err := s.PlanRoute(RouteRequest{AssetID: "bitcoin", AmountUSD: 1_000_000, MaxVariants: 3, Allocate: true})
	if err != nil {
		t.Fatal(err)
	}
	resp := waitDone(t, func() *RouteResponse { return s.Route(context.Background(), p) })
	if resp.AllocationStatus != AllocOK {
		t.Fatalf("status %s warnings %v", resp.AllocationStatus, resp.Meta.Warnings)
	}
	var sum int64
	for _, l := range resp.Allocation.Legs {
		n, _ := new(big.Int).SetString(l.AmountUSD, 10)
		sum += n.Int64()
		if l.Provider == nil || *l.Provider != "ok" || l.Verification.Status != "verified" {
			t.Errorf("leg %+v (warnings %v)", l, resp.Meta.Warnings)
		}
	}
	if sum != 1_000_000 {
		t.Errorf("legs sum %d", sum)
	}
	for _, v := range resp.Variants {
		for _, q := range v.Quotes {
			if q.ProviderQuotes[1].Status != StatusUnavailable || *q.ProviderQuotes[1].Reason != ReasonTimeout {
				t.Errorf("hanging provider row %+v", q.ProviderQuotes[1])
			}
		}
	}
}

func TestPlanRouteDefaults(t *testing.T) {
	s := seedService(t, &fake{id: "ok", out: concave(1, 1)})
	p, err := s.PlanRoute(RouteRequest{AssetID: "btc"}) // an alias
	if err != nil {
		t.Fatal(err)
	}
	if p.req.AmountUSD != DefaultRouteUSD || p.req.MaxVariants != DefaultMaxVariants || len(p.selected) != 4 || p.asset.AssetID != "bitcoin" {
		t.Errorf("plan %+v, %d selected", p.req, len(p.selected))
	}
	if p.UpstreamQuotes() != 4*4*1 {
		t.Errorf("cost %d", p.UpstreamQuotes())
	}
	if _, err := s.PlanRoute(RouteRequest{AssetID: "nope-nope"}); err == nil {
		t.Error("unknown asset accepted")
	}
}
