package execution

import "testing"

func TestIndependence(t *testing.T) {
	leg := func(mint string, hops ...Hop) RouteLeg { return RouteLeg{Mint: mint, Route: hops} }
	hop := func(amm, in, out string) Hop {
		return Hop{AmmKey: amm, Label: "L" + amm, InputMint: in, OutputMint: out}
	}
	cases := []struct {
		name         string
		legs         []RouteLeg
		independent  bool
		pass, shared int
	}{
		{"disjoint", []RouteLeg{leg("A", hop("p1", USDCMint, "A")), leg("B", hop("p2", USDCMint, "B"))}, true, 0, 0},
		{"shared pool", []RouteLeg{leg("A", hop("p1", USDCMint, "A")), leg("B", hop("p1", USDCMint, "X"), hop("p2", "X", "B"))}, false, 0, 1},
		{"masked never matches", []RouteLeg{leg("A", hop(MaskedAmmKey, USDCMint, "A")), leg("B", hop(MaskedAmmKey, USDCMint, "B"))}, true, 0, 0},
		{"pass-through", []RouteLeg{leg("A", hop("p1", USDCMint, "A")), leg("B", hop("p2", USDCMint, "A"), hop("p3", "A", "B"))}, false, 1, 0},
		{"no routes", []RouteLeg{leg("A"), leg("B")}, true, 0, 0},
	}
	for _, c := range cases {
		got := Independence(c.legs)
		if got.Independent != c.independent || len(got.PassThrough) != c.pass || len(got.SharedPools) != c.shared {
			t.Errorf("%s: %+v", c.name, got)
		}
	}
	got := Independence([]RouteLeg{leg("A", hop("p1", USDCMint, "A")), leg("B", hop("p1", USDCMint, "B"))})
	if sp := got.SharedPools[0]; sp.AmmKey != "p1" || sp.Label != "Lp1" || len(sp.LegMints) != 2 || sp.LegMints[0] != "A" {
		t.Errorf("shared pool %+v", sp)
	}
}
