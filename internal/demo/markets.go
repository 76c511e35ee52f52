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
	// Creation: a fixed unix second when cycle is 0; else the pool is
	// created created seconds after the start of the mint's current
	// relaunch cycle (cycle seconds long, starting at phase mod cycle).
	created, cycle, phase int64
}

// Pool creation times (DEXMarket.CreatedAt). Registry mints' pools date
// from fixed, seeded instants in [poolEpochMin, poolEpochMax): months to
// years old. A long-tail mint's pools are either old the same way (from
// longTailEpochMin on) or, with chance freshLongTailChance, fresh: the
// mint "relaunches" every cycle (freshCycleMin..freshCycleMax, seeded) and
// its pools date from the start of the current cycle, so they are only
// hours or days old and the risk model's new-token rules fire in the demo.
const (
	poolEpochMin        = 1_614_556_800 // 2021-03-01T00:00Z
	poolEpochMax        = 1_740_787_200 // 2025-03-01T00:00Z
	longTailEpochMin    = 1_672_531_200 // 2023-01-01T00:00Z
	freshLongTailChance = 0.3
	freshCycleMin       = 12 * secPerHour
	freshCycleMax       = 14 * secPerDay
)

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
	poolAges(p, pools)
	return pools
}

// poolAges sets the creation schedule of a mint's pools (see
// poolEpochMin): the deepest pool is the oldest, the others follow it. It
// draws from its own stream so the rest of the pool shapes do not depend
// on it.
func poolAges(p *profile, pools []poolSpec) {
	q := newSeq(derive(p.key, tagPoolAge))
	lo := float64(poolEpochMin)
	if !p.known {
		lo = longTailEpochMin
		if q.u() < freshLongTailChance {
			cycle := int64(q.logBetween(freshCycleMin, freshCycleMax))
			phase := int64(q.u() * float64(cycle))
			for i := range pools {
				var off int64
				if i > 0 {
					off = int64(q.u() * 0.25 * float64(cycle))
				}
				pools[i].created, pools[i].cycle, pools[i].phase = off, cycle, phase
			}
			return
		}
	}
	t0 := lo + (poolEpochMax-lo)*q.u()
	for i := range pools {
		t := t0
		if i > 0 {
			t += q.logBetween(1, 400) * secPerDay
		}
		pools[i].created = int64(math.Min(t, poolEpochMax))
	}
}

// createdAt is the pool's creation time (unix seconds) seen at second sec
// with history start hs. A fresh pool dates from the start of the current
// relaunch cycle (never after sec). With a clock so early that the served
// history would start before poolEpochMax, fixed dates shift back so every
// pool still predates the history.
func (sp *poolSpec) createdAt(sec, hs int64) int64 {
	if sp.cycle > 0 {
		start := floorDiv(sec-sp.phase, sp.cycle)*sp.cycle + sp.phase
		return min(start+sp.created, sec)
	}
	if shift := poolEpochMax + secPerDay - hs; shift > 0 {
		return sp.created - shift
	}
	return sp.created
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
// mint's snapshot figures at the same instant. CreatedAt is a seeded
// creation time (see poolEpochMin); the most liquid pool is the oldest. An
// invalid mint gives no pools.
func (w *World) Markets(ctx context.Context, mint string, limit int) ([]market.DEXMarket, error) {
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	p := w.profile(mint)
	if p == nil {
		return nil, nil
	}
	_, sec, minute := w.clock()
	hs := w.historyStart(sec)
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
			CreatedAt:      ptr(sp.createdAt(sec, hs)),
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
