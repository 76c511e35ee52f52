package execution

import (
	"math/big"
	"testing"
)

func BenchmarkBuildPlan(b *testing.B) {
	curves := []Curve{
		mkCurve("A", 1, 1000, ladder1M, 0, 10, 100, 800),
		mkCurve("B", 2, 1001, ladder1M, 0, 12, 110, 820),
		mkCurve("C", 3, 999, ladder1M, 0, 20, 150, 900),
		mkCurve("D", 4, 1000, ladder1M, 0, 40, 300, 1500),
	}
	verify := exact(curves)
	var p Plan
	for b.Loop() {
		p = BuildPlan(1_000_000, curves, nil, crypto, verify)
	}
	if len(p.Legs) == 0 {
		b.Fatal("no legs")
	}
}

func BenchmarkBuildLinks(b *testing.B) {
	p := Pair{BuyMint: cbBTC, SellMint: SOLMint, BuySymbol: "cbBTC", SellSymbol: "SOL"}
	for b.Loop() {
		BuildLinks(p, nil, DefaultIconBase)
	}
}

func BenchmarkEdgeBps(b *testing.B) {
	x, y := big.NewInt(987_654_321), big.NewInt(987_000_000)
	for b.Loop() {
		EdgeBps(x, y)
	}
}
