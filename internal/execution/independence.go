package execution

import "slices"

// MaskedAmmKey is the placeholder some routers report for an unknown pool;
// it never counts as a shared pool.
const MaskedAmmKey = "11111111111111111111111111111111"

// PassThrough is a leg whose route hops through another leg's variant.
type PassThrough struct {
	LegMint        string `json:"legMint"`
	ViaVariantMint string `json:"viaVariantMint"`
}

// SharedPool is a pool more than one leg's route uses.
type SharedPool struct {
	AmmKey   string   `json:"ammKey"`
	Label    string   `json:"label"`
	LegMints []string `json:"legMints"`
}

// LegIndependence says whether the legs' routes touch each other's
// liquidity, from the routes in hand (no extra quotes).
type LegIndependence struct {
	Independent bool          `json:"independent"`
	PassThrough []PassThrough `json:"passThrough"`
	SharedPools []SharedPool  `json:"sharedPools"`
}

// Independence checks the legs' routes: a pass-through is a hop into or
// out of another leg's variant mint; a shared pool is one ammKey (not the
// masked placeholder) in the routes of two or more legs.
func Independence(legs []RouteLeg) LegIndependence {
	out := LegIndependence{PassThrough: []PassThrough{}, SharedPools: []SharedPool{}}
	mints := make([]string, len(legs))
	for i, l := range legs {
		mints[i] = l.Mint
	}
	pools := map[string]int{} // ammKey -> index in out.SharedPools candidates
	var cand []SharedPool
	for _, l := range legs {
		seenVia := map[string]bool{}
		seenPool := map[string]bool{}
		for _, h := range l.Route {
			for _, m := range []string{h.InputMint, h.OutputMint} {
				if m != l.Mint && slices.Contains(mints, m) && !seenVia[m] {
					seenVia[m] = true
					out.PassThrough = append(out.PassThrough, PassThrough{LegMint: l.Mint, ViaVariantMint: m})
				}
			}
			if h.AmmKey == "" || h.AmmKey == MaskedAmmKey || seenPool[h.AmmKey] {
				continue
			}
			seenPool[h.AmmKey] = true
			i, ok := pools[h.AmmKey]
			if !ok {
				i = len(cand)
				pools[h.AmmKey] = i
				cand = append(cand, SharedPool{AmmKey: h.AmmKey, Label: h.Label})
			}
			cand[i].LegMints = append(cand[i].LegMints, l.Mint)
		}
	}
	for _, p := range cand {
		if len(p.LegMints) > 1 {
			out.SharedPools = append(out.SharedPools, p)
		}
	}
	out.Independent = len(out.PassThrough) == 0 && len(out.SharedPools) == 0
	return out
}
