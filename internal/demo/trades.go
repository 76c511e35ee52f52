package demo

import (
	"math"
	"sort"
	"time"
)

// SimTrade is one simulated swap of a mint against a pool's quote token.
// Signatures, slots, wallets and pools are synthetic: shaped like Solana
// values, they exist nowhere on chain.
type SimTrade struct {
	Signature   string  `json:"signature"`
	Slot        uint64  `json:"slot"`
	BlockTime   int64   `json:"blockTime"` // unix seconds
	Mint        string  `json:"mint"`
	Side        string  `json:"side"` // "buy" or "sell" of the mint
	TokenAmount float64 `json:"tokenAmount"`
	USDAmount   float64 `json:"usdAmount"`
	PriceUSD    float64 `json:"priceUsd"`
	Wallet      string  `json:"wallet"`
	Venue       string  `json:"venue"`
	Pool        string  `json:"pool"`
	QuoteMint   string  `json:"quoteMint"`
	IsBot       bool    `json:"isBot"`
}

// Trade sides.
const (
	SideBuy  = "buy"
	SideSell = "sell"
)

// Synthetic slot clock: 2.5 slots a second from slot 240,000,000 at
// 2024-01-01T00:00:00Z.
const (
	slotRefTime = 1_704_067_200
	slotRef     = 240_000_000
)

// Trade mix.
const (
	whaleChance = 0.015 // a human trade is a whale trade (25× size)
)

// Trades returns the simulated trades of a mint with block time in
// [from, to), ascending, at most MaxTradesPerCall (the earliest). Trades
// exist for complete minutes within the history window only. Per minute
// they add up exactly to the trade counts and USD volumes behind the
// snapshots and candles; wallet draws follow the model behind the
// snapshots' unique-wallet figures. An invalid mint gives none.
func (w *World) Trades(mint string, from, to time.Time) []SimTrade {
	p := w.profile(mint)
	if p == nil {
		return nil
	}
	_, sec, minute := w.clock()
	a := max(from.Unix(), w.historyStart(sec))
	if from.Nanosecond() > 0 && a == from.Unix() {
		a++
	}
	b := to.Unix()
	if to.Nanosecond() > 0 {
		b++
	}
	b = min(b, minute)
	if a >= b {
		return nil
	}
	g := tradeGen{w: w, p: p, pools: p.poolSpecs(w), wallets: map[int64]string{}}
	var out []SimTrade
	for hour := floorDiv(a, secPerHour); hour*secPerHour < b; hour++ {
		mf := w.split(p, hour)
		if mf == nil {
			continue
		}
		day := floorDiv(hour, 24)
		e := w.day(p.path, day)
		vals := w.minutePoints(p.path, hour)
		stepSD := math.Sqrt(e.v[hour-day*24] / 60)
		for j := range 60 {
			m := hour*60 + int64(j)
			ms := m * secPerMin
			if mf.n[j] == 0 || ms+secPerMin <= a || ms >= b {
				continue
			}
			out = g.minute(out, m, mf.n[j], mf.vol[j], vals[j], vals[j+1], stepSD, a, b)
			if len(out) >= MaxTradesPerCall {
				return out[:MaxTradesPerCall]
			}
		}
	}
	return out
}

type tradeGen struct {
	w       *World
	p       *profile
	pools   []poolSpec
	wallets map[int64]string // wallet index (bots negative) → address
}

// minute appends the trades of minute m with block time in [a, b), in time
// order; the minute has c trades worth vol USD and the path moves from x0
// to x1 over it.
func (g *tradeGen) minute(out []SimTrade, m, c int64, vol, x0, x1, stepSD float64, a, b int64) []SimTrade {
	p := g.p
	last := p.lastSecond(m, c)
	base := p.path.lnLevel + p.lnFactor
	move := 0.0
	if stepSD > 0 {
		move = math.Tanh((x1 - x0) / stepSD)
	}
	pBuy := 0.5 + 0.25*move
	type draft struct {
		sec          int64
		size         float64
		bot, buy     bool
		wallet, pool int
		slotOff      uint64
		sig          uint64
	}
	drafts := make([]draft, c)
	total := 0.0
	for j := range c {
		id := m<<21 | (j & (1<<21 - 1))
		r := p.s.trade.bits(id)
		uBot := float64(r&0xFFFF) / 65536
		uWhale := float64(r>>16&0xFFFF) / 65536
		uSide := float64(r>>32&0xFFFF) / 65536
		uPool := float64(r>>48&0xFFFF) / 65536
		d := &drafts[j]
		d.sec = last
		if j < c-1 {
			d.sec = int64(p.s.tradeSecond.u(id) * float64(last+1))
		}
		nz := p.s.trade.normal(^id)
		d.bot = uBot < p.botShare
		if d.bot {
			d.size = 0.3 * math.Exp(0.5*nz)
			d.wallet = -1 - int(p.s.trade.bits(id^0x5A5A)%uint64(max(1, p.botPool)))
		} else {
			d.size = math.Exp(1.1 * nz)
			if uWhale < whaleChance {
				d.size *= 25
			}
			d.wallet = int(p.s.trade.bits(id^0xA5A5) % uint64(max(1, p.walletPool)))
		}
		d.buy = uSide < pBuy
		d.pool = pickPool(g.pools, uPool)
		d.slotOff = r >> 63
		d.sig = p.s.signature.bits(id)
		total += d.size
	}
	sort.SliceStable(drafts, func(x, y int) bool {
		if drafts[x].sec != drafts[y].sec {
			return drafts[x].sec < drafts[y].sec
		}
		return drafts[x].slotOff < drafts[y].slotOff
	})
	for j := range drafts {
		d := &drafts[j]
		t := m*secPerMin + d.sec
		if t < a || t >= b {
			continue
		}
		usd := vol * d.size / total
		x := x0 + (x1-x0)*float64(d.sec)/60
		price := math.Exp(base + p.path.warp(x))
		if p.mint == SyntheticStablecoinMint {
			price = syntheticPrice(t)
		}
		impact := math.Min(0.02, usd/math.Max(p.liq0, 1)*0.5)
		side := SideSell
		if d.buy {
			side = SideBuy
			price *= 1 + impact
		} else {
			price *= 1 - impact
		}
		pool := &g.pools[d.pool]
		out = append(out, SimTrade{
			Signature:   signature58(d.sig),
			Slot:        slotAt(t) + d.slotOff,
			BlockTime:   t,
			Mint:        p.mint,
			Side:        side,
			TokenAmount: roundTo(usd/price, p.decimals),
			USDAmount:   usd,
			PriceUSD:    price,
			Wallet:      g.wallet(d.wallet),
			Venue:       pool.venue,
			Pool:        pool.address,
			QuoteMint:   pool.quoteMint,
			IsBot:       d.bot,
		})
	}
	return out
}

func (g *tradeGen) wallet(i int) string {
	if s, ok := g.wallets[int64(i)]; ok {
		return s
	}
	tag := "human:"
	if i < 0 {
		tag = "bot:"
	}
	s := syntheticAddress(derive(g.w.seed, tagWallet, strHash(tag+g.p.mint), uint64(int64(i))))
	g.wallets[int64(i)] = s
	return s
}

func pickPool(pools []poolSpec, u float64) int {
	cum := 0.0
	for i := range pools {
		cum += pools[i].liqW
		if u < cum {
			return i
		}
	}
	return len(pools) - 1
}

func slotAt(t int64) uint64 {
	s := int64(slotRef) + (t-slotRefTime)*5/2
	return uint64(max(s, 0))
}

func roundTo(x float64, decimals int) float64 {
	if decimals < 0 || decimals > 12 {
		return x
	}
	f := math.Pow10(decimals)
	return math.Round(x*f) / f
}

// signature58 is an 88-character base58 string that decodes to 64 bytes,
// like a transaction signature; derived from key, it signs nothing.
func signature58(key uint64) string {
	var b [88]byte
	v := mix64(key)
	b[0] = b58Alphabet[1+v%4] // keeps the value in [58^87, 5·58^87): 64 bytes
	v /= 4
	left := 9
	for i := 1; i < 88; i++ {
		if left == 0 {
			key = mix64(key + golden)
			v, left = key, 10
		}
		b[i] = b58Alphabet[v%58]
		v /= 58
		left--
	}
	return string(b[:])
}
