// Package simrouter provides two SIMULATED quote routers for --demo: they
// quote the demo world's synthetic DEX pools as constant-product pools
// with fees, so every execution endpoint and the whole allocation run
// offline and in tests. No quote they give is real: provider ids start
// with "simulated_", router and mode say "simulated", and every route hop's
// ammKey starts with "sim-".
package simrouter

import (
	"context"
	"fmt"
	"math"
	"math/big"

	"github.com/assetd/assetd/internal/execution"
	"github.com/assetd/assetd/internal/market"
)

// Pools lists the simulated DEX pools of a mint, most liquid first.
type Pools interface {
	Markets(ctx context.Context, mint string, limit int) ([]market.DEXMarket, error)
}

// Profile is a router's fee and depth profile.
type Profile struct {
	ID string
	// FeeBps is charged on the input of every pool hop.
	FeeBps float64
	// Depth scales the reserves the router reaches (1 = all of every
	// pool's liquidity).
	Depth float64
	// MaxPools is how many of the most liquid pools it routes through.
	MaxPools int
}

// Profiles are the two demo routers: a deep router with a higher fee, and
// a cheap router that reaches 70 % of the depth of the three largest pools, so
// the cheap one wins small sizes and the deep one large sizes.
var Profiles = []Profile{
	{ID: "simulated_a", FeeBps: 30, Depth: 1, MaxPools: 8},
	{ID: "simulated_b", FeeBps: 5, Depth: 0.7, MaxPools: 3},
}

// Router is one simulated router.
type Router struct {
	p        Profile
	pools    Pools
	decimals func(mint string) (int, bool)
}

// New returns the routers of Profiles over pools; decimals names the
// decimals of a token mint (USDC's are known).
func New(pools Pools, decimals func(mint string) (int, bool)) []execution.Provider {
	out := make([]execution.Provider, len(Profiles))
	for i, p := range Profiles {
		out[i] = &Router{p: p, pools: pools, decimals: decimals}
	}
	return out
}

// ID is the provider id.
func (r *Router) ID() string { return r.p.ID }

type pool struct {
	key, label string
	usd, tok   float64 // reserves: USD side, token side (UI units)
}

// Quote answers an exact-in quote between USDC and a token (either way);
// other pairs have no route.
func (r *Router) Quote(ctx context.Context, req execution.QuoteRequest) (execution.Quote, error) {
	if req.InputMint == req.OutputMint {
		return execution.Quote{}, execution.ErrNoRoute
	}
	buy := req.InputMint == execution.USDCMint
	token := req.OutputMint
	if !buy {
		token = req.InputMint
		if req.OutputMint != execution.USDCMint {
			return execution.Quote{}, execution.ErrNoRoute
		}
	}
	dec, ok := r.decimals(token)
	if !ok {
		return execution.Quote{}, execution.ErrNoRoute
	}
	ms, err := r.pools.Markets(ctx, token, r.p.MaxPools)
	if err != nil {
		return execution.Quote{}, fmt.Errorf("simulated pools of %s: %w", token, err)
	}
	var pools []pool
	var totUSD, totTok float64
	for _, m := range ms {
		if m.PriceUSD == nil || m.LiquidityUSD == nil || *m.PriceUSD <= 0 || *m.LiquidityUSD <= 0 {
			continue
		}
		usd := *m.LiquidityUSD / 2 * r.p.Depth
		p := pool{key: "sim-" + m.Address, label: "Simulated " + m.Venue, usd: usd, tok: usd / *m.PriceUSD}
		pools = append(pools, p)
		totUSD += p.usd
		totTok += p.tok
	}
	if len(pools) == 0 {
		return execution.Quote{}, execution.ErrNoRoute
	}
	inDec, outDec := execution.USDCDecimals, dec
	if !buy {
		inDec, outDec = dec, execution.USDCDecimals
	}
	in, _ := new(big.Rat).SetFrac(req.Amount, pow10(inDec)).Float64()
	fee := 1 - r.p.FeeBps/1e4
	var out, mid float64
	hops := make([]execution.Hop, 0, len(pools))
	inMint, outMint := req.InputMint, req.OutputMint
	for _, p := range pools {
		// Split the input in proportion to the input-side reserves, which
		// keeps equal-priced pools at equal marginal prices.
		rin, rout, share := p.usd, p.tok, p.usd/totUSD
		if !buy {
			rin, rout, share = p.tok, p.usd, p.tok/totTok
		}
		a := in * share * fee
		o := rout * a / (rin + a)
		out += o
		mid += a * rout / rin
		hops = append(hops, execution.Hop{AmmKey: p.key, Label: p.label, Percent: math.Round(share*1e4) / 100,
			InputMint: inMint, OutputMint: outMint, InAmountRaw: toRaw(in*share, inDec).String(), OutAmountRaw: toRaw(o, outDec).String()})
	}
	outRaw := toRaw(out, outDec)
	if outRaw.Sign() <= 0 {
		return execution.Quote{}, execution.ErrNoRoute
	}
	impact := 0.0
	if mid > 0 {
		impact = math.Max(0, 1-out/mid)
	}
	feeBps := int(r.p.FeeBps)
	return execution.Quote{InAmount: new(big.Int).Set(req.Amount), OutAmount: outRaw, PriceImpact: &impact, Route: hops,
		Router: "simulated", Mode: "simulated", FeeBps: &feeBps, FeeMint: req.InputMint}, nil
}

func pow10(n int) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil) }

// toRaw converts UI units to raw units, rounding down.
func toRaw(v float64, decimals int) *big.Int {
	if !(v > 0) || math.IsInf(v, 0) {
		return new(big.Int)
	}
	f := new(big.Float).SetFloat64(v)
	f.Mul(f, new(big.Float).SetInt(pow10(decimals)))
	i, _ := f.Int(nil)
	return i
}
