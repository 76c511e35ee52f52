package execution

import (
	"math"
	"math/big"
	"sort"
)

// Point is one proven rung of a variant's curve: the best output (raw
// token units) for SizeUSD dollars of USDC in.
type Point struct {
	SizeUSD int64
	Out     *big.Int
}

// Curve is what the allocator knows about one variant: its proven rungs
// in ascending size. Index 0 of a pool is not special; Rank orders ties
// (1 = the primary, lower is better).
type Curve struct {
	VariantID string
	Mint      string
	Symbol    string
	Rank      int
	Decimals  int
	Points    []Point
	// DepthUncertain is set when a rung failed for a reason other than
	// no_route (a timeout says nothing about depth).
	DepthUncertain bool
}

// Capacity is the largest proven rung: the allocator never extrapolates.
func (c *Curve) Capacity() int64 {
	if len(c.Points) == 0 {
		return 0
	}
	return c.Points[len(c.Points)-1].SizeUSD
}

// ExactAt returns the proven output at exactly sizeUSD.
func (c *Curve) ExactAt(sizeUSD int64) (*big.Int, bool) {
	for _, p := range c.Points {
		if p.SizeUSD == sizeUSD {
			return p.Out, true
		}
	}
	return nil, false
}

// PointImpactBps is the impact of rung i against the smallest rung,
// (1 − out_i·in_0/(in_i·out_0))·1e4, floored at 0.
func (c *Curve) PointImpactBps(i int) float64 {
	b, p := c.Points[0], c.Points[i]
	return impactBps(p.Out, p.SizeUSD, b.Out, b.SizeUSD)
}

// impactBps compares out/in with the base out/in in basis points.
func impactBps(out *big.Int, in int64, baseOut *big.Int, baseIn int64) float64 {
	if baseOut.Sign() == 0 || in == 0 {
		return 0
	}
	num := new(big.Int).Mul(out, big.NewInt(baseIn))
	den := new(big.Int).Mul(baseOut, big.NewInt(in))
	r, _ := new(big.Rat).SetFrac(num, den).Float64()
	return math.Max(0, (1-r)*1e4)
}

// ImpactAt interpolates the impact at sizeUSD log-linearly between rungs
// (0 at or below the smallest rung, the largest rung's impact beyond it).
func (c *Curve) ImpactAt(sizeUSD int64) float64 {
	n := len(c.Points)
	if n == 0 || sizeUSD <= c.Points[0].SizeUSD {
		return 0
	}
	j := sort.Search(n, func(i int) bool { return c.Points[i].SizeUSD >= sizeUSD })
	if j == n {
		return c.PointImpactBps(n - 1)
	}
	if c.Points[j].SizeUSD == sizeUSD {
		return c.PointImpactBps(j)
	}
	lo, hi := c.Points[j-1], c.Points[j]
	t := (math.Log(float64(sizeUSD)) - math.Log(float64(lo.SizeUSD))) / (math.Log(float64(hi.SizeUSD)) - math.Log(float64(lo.SizeUSD)))
	a, b := c.PointImpactBps(j-1), c.PointImpactBps(j)
	return a + t*(b-a)
}

// OutAt is the expected raw output for sizeUSD dollars:
// usdcRaw·out_0·(1e6 − round(impactBps·100)) / (in_0raw·1e6).
func (c *Curve) OutAt(sizeUSD int64) *big.Int {
	if len(c.Points) == 0 || sizeUSD <= 0 {
		return new(big.Int)
	}
	b := c.Points[0]
	keep := 1_000_000 - int64(math.Round(c.ImpactAt(sizeUSD)*100))
	if keep < 0 {
		keep = 0
	}
	out := new(big.Int).Mul(usdRaw(sizeUSD), b.Out)
	out.Mul(out, big.NewInt(keep))
	return out.Quo(out, new(big.Int).Mul(usdRaw(b.SizeUSD), big.NewInt(1_000_000)))
}

// basePrice is the smallest rung's output in asset units per dollar.
func (c *Curve) basePrice() float64 {
	b := c.Points[0]
	v, _ := new(big.Rat).SetFrac(b.Out, new(big.Int).Mul(pow10(c.Decimals), big.NewInt(b.SizeUSD))).Float64()
	return v
}

// scaleTo converts raw units of decimals d to raw units of decimals to
// (to ≥ d).
func scaleTo(raw *big.Int, d, to int) *big.Int {
	return new(big.Int).Mul(raw, pow10(to-d))
}
