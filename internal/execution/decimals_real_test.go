package execution

import (
	"testing"

	"github.com/assetd/assetd/internal/decimals"
	"github.com/assetd/assetd/internal/realdata"
	"github.com/assetd/assetd/internal/registry"
	"github.com/assetd/assetd/internal/tokenindex"
)

// TestCuratedQuotableWithResolvedDecimals measures the figure:
// with the reference registry imported (it has no decimals) how many
// curated mints evaluate accepts and route does not exclude for
// missing_decimals, with the registry's decimals only and then with the
// resolver (here its token-index source: no chain facts or market cache
// offline). Every mint the resolver gives decimals for must then plan.
func TestCuratedQuotableWithResolvedDecimals(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the 150k token index")
	}
	snap, x := realdata.Reference(t), realdata.Tokens(t)
	curated := map[string]bool{}
	for _, l := range snap.CuratedLists() {
		for _, m := range l.Members {
			curated[m.Mint] = true
		}
	}
	res := &decimals.Resolver{Registry: func() *registry.Snapshot { return snap }, Tokens: func() *tokenindex.Index { return x }}
	count := func(s *Service) (evaluate, route, resolvable int) {
		for m := range curated {
			if _, _, listed := snap.VariantByMint(m); listed {
				if _, ok := res.Decimals(m); ok {
					resolvable++ // evaluate and route serve registry variants only
				}
			}
			if _, err := s.PlanEvaluate(EvaluateRequest{Mint: m}); err == nil {
				evaluate++
			}
			a, v, ok := snap.VariantByMint(m)
			if !ok {
				continue
			}
			if _, ok := s.decimalsOf(v); !ok {
				continue
			}
			p, err := s.PlanRoute(RouteRequest{AssetID: a.AssetID, MaxVariants: len(a.Variants)})
			if err != nil {
				continue
			}
			for _, e := range p.excluded {
				if e.Mint == m && e.Reason == ExcludeMissingDecimals {
					t.Errorf("%s excluded for missing decimals", m)
				}
			}
			route++
		}
		return
	}
	base := &Service{Registry: func() *registry.Snapshot { return snap }, Advisories: noAdvisories{}}
	e0, r0, _ := count(base)
	with := &Service{Registry: func() *registry.Snapshot { return snap }, Advisories: noAdvisories{}, Decimals: res.Decimals}
	e1, r1, resolvable := count(with)
	t.Logf("curated mints: %d; registry decimals only: evaluate %d, route %d; with the resolver: evaluate %d, route %d (registry variants with resolvable decimals %d)", len(curated), e0, r0, e1, r1, resolvable)
	if e1 != resolvable || r1 != resolvable || e1 <= e0 {
		t.Errorf("with the resolver evaluate %d route %d, want every resolvable mint (%d), more than %d", e1, r1, resolvable, e0)
	}
}
