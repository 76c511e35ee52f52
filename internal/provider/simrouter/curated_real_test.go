package simrouter

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/decimals"
	"github.com/assetd/assetd/internal/demo"
	"github.com/assetd/assetd/internal/execution"
	"github.com/assetd/assetd/internal/realdata"
	"github.com/assetd/assetd/internal/registry"
	"github.com/assetd/assetd/internal/tokenindex"
)

// TestCuratedMintsQuoteOffline is the execution acceptance,
// measured offline: the reference registry imported over the seed (as
// `assetd registry import` builds it; the reference has no decimals), the
// 150k token index loaded, and decimals resolved registry → token index
// (no chain facts or market cache offline). Offline, "quote" means the
// --demo routers (this package over the demo world's SIMULATED pools)
// return an available quote: for evaluate, a buy at the default ladder;
// for route, an available quote row of the variant in its asset's route.
// Every curated mint with decimals must quote in evaluate, and in route
// unless its asset's route excludes it for a documented reason other than
// missing_decimals; no mint without decimals may quote. The figures are
// logged (docs/onchain.md).
func TestCuratedMintsQuoteOffline(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the 150k token index")
	}
	snap, x := realdata.Reference(t), realdata.Tokens(t)
	res := &decimals.Resolver{Registry: func() *registry.Snapshot { return snap }, Tokens: func() *tokenindex.Index { return x }}
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	w := demo.New(demo.Config{Assets: snap.Assets(), Now: func() time.Time { return now }})
	s := &execution.Service{Registry: func() *registry.Snapshot { return snap }, Advisories: noAdvisories{}, Decimals: res.Decimals,
		Providers: New(w, res.Decimals), Now: func() time.Time { return now },
		// The routers compute in memory; the budget only must not cut them
		// short on a busy machine.
		QuoteBudget: 10 * time.Minute}
	ctx := context.Background()

	curated := map[string]bool{}
	for _, l := range snap.CuratedLists() {
		for _, m := range l.Members {
			curated[m.Mint] = true
		}
	}
	mints := make([]string, 0, len(curated))
	for m := range curated {
		mints = append(mints, m)
	}
	sort.Strings(mints)

	// One route per asset, every variant allowed.
	routes := map[string]*execution.RouteResponse{}
	routeOf := func(a *registry.Asset) *execution.RouteResponse {
		if r, ok := routes[a.AssetID]; ok {
			return r
		}
		p, err := s.PlanRoute(execution.RouteRequest{AssetID: a.AssetID, MaxVariants: len(a.Variants)})
		var r *execution.RouteResponse
		if err == nil {
			r = s.Route(ctx, p)
		}
		routes[a.AssetID] = r
		return r
	}
	// Documented reasons a mint with decimals does not quote: evaluate
	// and route serve registry variants only (evaluate answers 404
	// unsupported token), USDC is the quote currency itself (no USDC→USDC
	// route), and route's own exclusions other than missing_decimals.
	const (
		notVariant    = "not_a_registry_variant"
		quoteCurrency = "quote_currency"
	)
	var withDec, evalQuoted, routeQuoted int
	evalWhy, routeWhy := map[string]int{}, map[string]int{}
	bySource, noDec := map[string]int{}, map[string]int{}
	for _, m := range mints {
		_, src, has := res.Resolve(m)
		if has {
			withDec++
			bySource[src]++
		}
		a, _, listed := snap.VariantByMint(m)
		quoted := false
		if p, err := s.PlanEvaluate(execution.EvaluateRequest{Mint: m, Side: "buy"}); err == nil {
			for _, row := range s.Evaluate(ctx, p).Quotes {
				quoted = quoted || row.Status == execution.StatusAvailable
			}
		}
		switch {
		case quoted && !has:
			t.Errorf("%s: evaluate quoted without decimals", m)
		case quoted:
			evalQuoted++
		case !has:
			evalWhy["no decimals"]++
			kind := "outside the registry"
			if listed {
				_, v, _ := snap.VariantByMint(m)
				kind = v.Kind
			}
			if _, inIndex := x.Lookup(m); inIndex {
				kind += " (indexed without decimals)"
			}
			noDec[kind]++
		case !listed:
			evalWhy[notVariant]++
		case m == execution.USDCMint:
			evalWhy[quoteCurrency]++
		default:
			t.Errorf("%s: decimals from %s but evaluate has no quote", m, src)
		}
		if !has {
			continue
		}
		if !listed {
			routeWhy[notVariant]++
			continue
		}
		r := routeOf(a)
		rq, why := false, ""
		if r != nil {
			for _, v := range r.Variants {
				if v.Mint != m {
					continue
				}
				for _, row := range v.Quotes {
					rq = rq || row.Status == execution.StatusAvailable
				}
			}
			for _, e := range r.Excluded {
				if e.Mint == m {
					why = e.Reason
				}
			}
		}
		switch {
		case rq:
			routeQuoted++
		case why == execution.ExcludeMissingDecimals:
			t.Errorf("%s: route excludes it for missing decimals though %s gives them", m, src)
		case why != "":
			routeWhy[why]++
		case m == execution.USDCMint:
			routeWhy[quoteCurrency]++
		default:
			t.Errorf("%s: decimals from %s but route has no quote (plan %v)", m, src, r != nil)
		}
	}
	t.Logf("curated mints %d; with decimals %d %v; evaluate quoted %d (not quoted: %v); route quoted %d (mints with decimals not quoted: %v); without decimals by kind %v",
		len(mints), withDec, bySource, evalQuoted, evalWhy, routeQuoted, routeWhy, noDec)
}
