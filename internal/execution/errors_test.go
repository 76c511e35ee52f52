package execution

import (
	"errors"
	"testing"

	"github.com/assetd/assetd/internal/asset"
)

type advisoryMap struct {
	m      map[string]*asset.Advisory
	loaded bool
}

func (a advisoryMap) Get(m string) *asset.Advisory { return a.m[m] }
func (a advisoryMap) Loaded() bool                 { return a.loaded }

// Issue 27 item 13: the service answers with its own errors (internal/httpapi
// alone maps them to statuses and tags).
func TestDomainErrors(t *testing.T) {
	s := seedService(t)
	btc := s.Registry()
	a, ok := btc.Asset("bitcoin")
	if !ok || len(a.Variants) == 0 {
		t.Fatal("seed has no bitcoin")
	}
	mint := a.Variants[0].Mint
	const unknown = "SyntheticUnknownMint1111111111111111111111"
	flagged := advisoryMap{m: map[string]*asset.Advisory{}, loaded: true}
	for _, v := range a.Variants {
		flagged.m[v.Mint] = &asset.Advisory{Status: asset.AdvisoryBlocked, Reason: "synthetic"}
	}
	var (
		param    *ParamError
		notFound *NotFoundError
		refused  *AdvisoryError
	)
	tests := []struct {
		name string
		adv  AdvisorySource
		call func() error
		want func(error) bool
	}{
		{"bad side", nil, func() error { _, err := s.PlanEvaluate(EvaluateRequest{Mint: mint, Side: "hold"}); return err },
			func(err error) bool { return errors.As(err, &param) && param.Param == "side" }},
		{"bad amount", nil, func() error {
			_, err := s.PlanEvaluate(EvaluateRequest{Mint: mint, AmountsUSD: []string{"1e3"}})
			return err
		}, func(err error) bool { return errors.As(err, &param) && param.Param == "amountUsd" }},
		{"unknown mint", nil, func() error { _, err := s.PlanEvaluate(EvaluateRequest{Mint: unknown}); return err },
			func(err error) bool { return errors.As(err, &notFound) }},
		{"unknown asset (links)", nil, func() error { _, err := s.Links(LinksRequest{AssetID: "no-such-asset"}); return err },
			func(err error) bool { return errors.As(err, &notFound) }},
		{"unknown asset (route)", nil, func() error { _, err := s.PlanRoute(RouteRequest{AssetID: "no-such-asset"}); return err },
			func(err error) bool { return errors.As(err, &notFound) }},
		{"advisories not loaded", advisoryMap{}, func() error { _, err := s.Links(LinksRequest{Mint: mint}); return err },
			func(err error) bool { return errors.Is(err, ErrAdvisoriesUnavailable) }},
		{"restricted mint", flagged, func() error { _, err := s.Links(LinksRequest{Mint: mint}); return err },
			func(err error) bool {
				return errors.As(err, &refused) && refused.Mint == mint && refused.Code() == "advisory_blocked"
			}},
		{"every variant restricted", flagged, func() error { _, err := s.PlanRoute(RouteRequest{AssetID: "bitcoin"}); return err },
			func(err error) bool {
				return errors.As(err, &refused) && refused.Advisory.Status == asset.AdvisoryBlocked
			}},
	}
	for _, tc := range tests {
		s.Advisories = noAdvisories{}
		if tc.adv != nil {
			s.Advisories = tc.adv
		}
		if err := tc.call(); !tc.want(err) {
			t.Errorf("%s: %T %v", tc.name, err, err)
		}
	}
}
