package readiness

import (
	"context"
	"errors"
	"testing"
)

func TestCheck(t *testing.T) {
	down := func(context.Context) error { return errors.New("connection refused") }
	up := func(context.Context) error { return nil }
	cov := func(v float64) func() (float64, map[string]float64) {
		return func() (float64, map[string]float64) { return v, map[string]float64{"marketdata_b": v} }
	}
	for _, tc := range []struct {
		name     string
		c        Checker
		ready    bool
		failing  string
		coverage float64
	}{
		{"all good", Checker{Store: up, Assets: func() int { return 95 }, Coverage: cov(0.9)}, true, "", 0.9},
		{"store down", Checker{Store: down, Assets: func() int { return 95 }, Coverage: cov(0.9)}, false, "store", 0.9},
		{"no registry", Checker{Store: up, Assets: func() int { return 0 }, Coverage: cov(0.9)}, false, "registry", 0.9},
		{"offline: nothing priced", Checker{Store: up, Assets: func() int { return 95 }, Coverage: cov(0)}, false, "markets", 0},
		{"below a custom minimum", Checker{Store: up, Assets: func() int { return 95 }, Coverage: cov(0.6), MinCoverage: 0.8}, false, "markets", 0.6},
		{"no providers configured", Checker{Store: up, Assets: func() int { return 95 }}, true, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.c.Check(context.Background())
			if r.Ready != tc.ready {
				t.Fatalf("ready = %v; want %v (%+v)", r.Ready, tc.ready, r)
			}
			failing := map[string]bool{"store": !r.Store.OK, "registry": !r.Registry.OK, "markets": !r.Markets.OK}
			for name, f := range failing {
				if f != (name == tc.failing) {
					t.Errorf("%s ok = %v", name, !f)
				}
			}
			if r.Markets.Configured && r.Markets.Coverage["any"] != tc.coverage {
				t.Errorf("coverage %v; want %v", r.Markets.Coverage, tc.coverage)
			}
		})
	}
}
