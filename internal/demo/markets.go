package demo

import (
	"context"
	"math"
	"sort"

	"github.com/assetd/assetd/internal/market"
)

// poolSpec is the static shape of one simulated DEX pool. Pool addresses
// and LP/vault mints are base58 of hashes: shaped like Solana addresses,
// they are not real accounts.
type poolSpec struct {
	address     string
	venue       string
	quoteMint   string
	quoteSymbol string
	liqW, volW  float64 // shares of the mint's liquidity and volume
	devBps      float64 // max price deviation from the mint price
	protocol    []string
}

const (
	venueRaydium  = "Raydium"
	venueOrca     = "Orca"
	venueMeteora  = "Meteora"
	venuePhoenix  = "Phoenix"
	venueLifinity = "Lifinity"
	venueSanctum  = "Sanctum"
)

func (w *World) buildPools(p *profile) []poolSpec {
	q := newSeq(derive(p.key, tagPools))
	venues := []string{venueRaydium, venueOrca, venueMeteora, venuePhoenix, venueLifinity}
	if p.lst {
		venues = append(venues, venueSanctum)
	}
	n := 2 + q.intn(4)
	if p.liq0 < 250e3 {
		n = 2 + q.intn(2)
	}
	n = min(n, len(venues))
	// partial Fisher-Yates: the first n venues
	for i := range n {
		j := i + q.intn(len(venues)-i)
		venues[i], venues[j] = venues[j], venues[i]
	}
	dev := 3.0
	if p.thin {
		dev = 40
	} else if p.liq0 < 2e6 {
		dev = 12
	}
	pools := make([]poolSpec, n)
	var liqSum, volSum float64
	for i := range pools {
		ps := &pools[i]
		ps.venue = venues[i]
		ps.liqW = math.Exp(-1.0*float64(i)) * q.between(0.6, 1.4)
		ps.volW = ps.liqW * lognormal1(q.normal(), 0.5)
		liqSum += ps.liqW
		volSum += ps.volW
		ps.devBps = dev
		addrKey := derive(w.seed, tagPoolAddress, strHash(p.mint), uint64(i))
		ps.address = syntheticAddress(addrKey)
		ps.quoteMint, ps.quoteSymbol = USDCMint, "USDC"
		switch {
		case p.mint == USDCMint:
			ps.quoteMint, ps.quoteSymbol = WSOLMint, "SOL"
		case p.mint == WSOLMint:
		case p.lst:
			if i == 0 || q.u() < 0.7 {
				ps.quoteMint, ps.quoteSymbol = WSOLMint, "SOL"
			}
		case p.category == "crypto":
			if q.u() < 0.5 {
				ps.quoteMint, ps.quoteSymbol = WSOLMint, "SOL"
			}
		default:
			if i > 0 && q.u() < 0.25 {
				ps.quoteMint, ps.quoteSymbol = WSOLMint, "SOL"
			}
		}
		if ps.venue == venueMeteora {
			// a vault pool: its LP mint is protocol-owned
			ps.protocol = []string{syntheticAddress(derive(addrKey, strHash("lp")))}
		}
	}
	for i := range pools {
		pools[i].liqW /= liqSum
		pools[i].volW /= volSum
	}
	sort.SliceStable(pools, func(i, j int) bool { return pools[i].liqW > pools[j].liqW })
	return pools
}

// poolSpecs returns the pool shapes of a mint (built on first use for
// long-tail mints).
func (p *profile) poolSpecs(w *World) []poolSpec {
	p.poolsOnce.Do(func() {
		if p.pools == nil {
			p.pools = w.buildPools(p)
		}
	})
	return p.pools
}

// Markets lists the simulated DEX pools of a mint, most liquid first
// (limit <= 0: all). Pool liquidity, 24h volume and 24h trades sum to the
// mint's snapshot figures at the same instant. An invalid mint gives no
// pools.
func (w *World) Markets(ctx context.Context, mint string, limit int) ([]market.DEXMarket, error) {
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	p := w.profile(mint)
	if p == nil {
		return nil, nil
	}
	_, sec, minute := w.clock()
	m := w.metrics(p, sec, minute)
	pools := p.poolSpecs(w)
	n := len(pools)
	if limit > 0 && limit < n {
		n = limit
	}
	trades := splitInt(m.trade24, pools, func(ps *poolSpec) float64 { return ps.volW })
	out := make([]market.DEXMarket, 0, n)
	var liqAcc, volAcc float64
	ps := stream(derive(p.key, tagPoolPrice))
	for i := range pools {
		sp := &pools[i]
		liq := m.liquidity * sp.liqW
		vol := m.vol24 * sp.volW
		if i == len(pools)-1 { // exact sums
			liq = m.liquidity - liqAcc
			vol = m.vol24 - volAcc
		}
		liqAcc += liq
		volAcc += vol
		if i >= n {
			continue
		}
		price := m.price * (1 + sp.devBps*1e-4*(2*ps.u(minute/secPerMin*8+int64(i))-1))
		tr := float64(trades[i])
		out = append(out, market.DEXMarket{
			Address: sp.address, Venue: sp.venue,
			BaseMint: p.mint, BaseSymbol: p.symbol,
			QuoteMint: sp.quoteMint, QuoteSymbol: sp.quoteSymbol,
			PriceUSD: &price, LiquidityUSD: ptr(math.Max(0, liq)), Volume24hUSD: ptr(math.Max(0, vol)), Trade24h: &tr,
			ProtocolTokens: append([]string(nil), sp.protocol...),
		})
	}
	return out, nil
}

// splitInt splits n into integer parts proportional to the weights
// (cumulative rounding, so the parts sum to n exactly).
func splitInt(n int64, pools []poolSpec, weight func(*poolSpec) float64) []int64 {
	out := make([]int64, len(pools))
	var cum float64
	var prev int64
	for i := range pools {
		cum += weight(&pools[i])
		c := int64(math.Round(float64(n) * cum))
		if i == len(pools)-1 {
			c = n
		}
		out[i] = c - prev
		prev = c
	}
	return out
}

func ptr[T any](v T) *T { return &v }
