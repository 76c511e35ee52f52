package demo

import (
	"crypto/sha256"
	"math"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/registry"
)

// The demo world's SYNTHETIC depegging stablecoin (docs/demo.md, docs/
// advisories.md): a registry asset that exists only under --demo, whose
// price leaves its USD peg and returns on a fixed schedule so the depeg
// guard, include=stablecoinHealth, the advisory feed and the advisory
// annotations can be watched offline. It is not a token: its mint is the
// SHA-256 of a label, and its name says it is synthetic.
const (
	SyntheticStablecoinID     = "demo-synthetic-depeg-usd"
	SyntheticStablecoinSymbol = "SYNUSD"
	// DepegCycle is the schedule's period; within each cycle the price
	// is on peg, then DepegDeviation off it from DepegStart to DepegEnd.
	DepegCycle     int64 = 3 * 3600
	DepegStart     int64 = 60 * 60
	DepegEnd       int64 = 100 * 60
	DepegDeviation       = -0.038 // −3.8 %: tier warning
)

// SyntheticStablecoinMint is the synthetic stablecoin's mint: a valid
// base58 32-byte address derived from a label, owned by nobody.
var SyntheticStablecoinMint = func() string {
	sum := sha256.Sum256([]byte("assetd demo: synthetic depegging stablecoin (not a real token)"))
	return base58(sum[:])
}()

// SyntheticStablecoin is the registry document that adds the synthetic
// stablecoin to the demo registry.
func SyntheticStablecoin() registry.Document {
	return registry.Document{Assets: []registry.Asset{{
		AssetID: SyntheticStablecoinID, Name: "Synthetic Depeg Dollar (SIMULATED demo asset)", Symbol: SyntheticStablecoinSymbol,
		Category: "stablecoin",
		Variants: []registry.Variant{{
			VariantID: SyntheticStablecoinID + ":demo", Mint: SyntheticStablecoinMint, Kind: asset.KindStablecoin,
			Symbol: SyntheticStablecoinSymbol, Name: "Synthetic Depeg Dollar (SIMULATED)", Tags: []string{"peg:USD", "synthetic", "demo"},
			Issuer: "assetd demo world (simulated)",
		}},
	}}}
}

// depegFactor is the synthetic stablecoin's price relative to its peg at
// unix second t: 1 on peg, 1+DepegDeviation inside the depeg span.
func depegFactor(t int64) float64 {
	if at := ((t % DepegCycle) + DepegCycle) % DepegCycle; at >= DepegStart && at < DepegEnd {
		return 1 + DepegDeviation
	}
	return 1
}

// Depegged says whether the synthetic stablecoin is off its peg at unix
// second t.
func Depegged(t int64) bool { return depegFactor(t) != 1 }

// syntheticPrice is the synthetic stablecoin's USD price at t.
func syntheticPrice(t int64) float64 { return math.Round(depegFactor(t)*1e6) / 1e6 }
