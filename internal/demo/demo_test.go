package demo

import (
	"context"
	"errors"
	"math"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/market"
)

func TestDeterminismAcrossWorlds(t *testing.T) {
	ctx := context.Background()
	mints := append(allMints(fixtureAssets()), mintUnknown)
	a := fixtureWorld(t, testNow)
	b := fixtureWorld(t, testNow)
	// Warm b's caches in a different order first: results must not depend
	// on call order or cache state.
	for _, m := range mints {
		candles(t, b, m, "1D", 0, testNow.Unix())
		_ = b.Trades(m, testNow.Add(-2*time.Minute), testNow)
	}
	sa, err := a.Snapshots(ctx, mints)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := b.Snapshots(ctx, mints)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sa, sb) {
		t.Fatal("two worlds disagree on snapshots")
	}
	if len(sa) != len(mints) {
		t.Fatalf("got %d snapshots for %d mints", len(sa), len(mints))
	}
	for _, m := range mints {
		for _, iv := range market.Intervals {
			from := testNow.Add(-3 * 24 * time.Hour).Unix()
			if iv == "1D" || iv == "1W" {
				from = 0
			}
			ca := candles(t, a, m, iv, from, testNow.Unix())
			cb := candles(t, b, m, iv, from, testNow.Unix())
			if !reflect.DeepEqual(ca, cb) {
				t.Fatalf("%s %s: two worlds disagree on candles", m, iv)
			}
		}
		ma, _ := a.Markets(ctx, m, 0)
		mb, _ := b.Markets(ctx, m, 0)
		if !reflect.DeepEqual(ma, mb) {
			t.Fatalf("%s: two worlds disagree on markets", m)
		}
		ta := a.Trades(m, testNow.Add(-10*time.Minute), testNow)
		tb := b.Trades(m, testNow.Add(-10*time.Minute), testNow)
		if !reflect.DeepEqual(ta, tb) {
			t.Fatalf("%s: two worlds disagree on trades", m)
		}
	}
	// A fresh snapshot of a single mint equals its batch row.
	c := fixtureWorld(t, testNow)
	if got := snapshot(t, c, mintJitoSOL); !reflect.DeepEqual(got, sa[mintJitoSOL].Market) {
		t.Fatal("single-mint snapshot differs from batch row")
	}
}

func TestSeedChangesTheWorld(t *testing.T) {
	a := New(Config{Assets: fixtureAssets(), Now: fixedClock(testNow)})
	b := New(Config{Assets: fixtureAssets(), Now: fixedClock(testNow), Seed: 42})
	if a.Seed() != DefaultSeed || b.Seed() != 42 {
		t.Fatalf("seeds %d %d", a.Seed(), b.Seed())
	}
	pa, pb := *snapshot(t, a, mintWSOL).Price, *snapshot(t, b, mintWSOL).Price
	if pa == pb {
		t.Fatalf("different seeds gave the same SOL price %v", pa)
	}
}

// sampleTimes returns n times spread over a year before testNow.
func sampleTimes(n int) []time.Time {
	out := make([]time.Time, n)
	for i := range out {
		out[i] = testNow.Add(-time.Duration(i) * 365 * 24 * time.Hour / time.Duration(n)).Add(time.Duration(i*7919) * time.Second)
	}
	return out
}

func TestStablecoinsNearPeg(t *testing.T) {
	assets := seedAssets(t)
	for _, now := range sampleTimes(60) {
		w := New(Config{Assets: assets, Now: fixedClock(now)})
		for _, a := range assets {
			if a.Category != "stablecoin" {
				continue
			}
			peg, ok := fxLevel(a.Symbol)
			if !ok {
				t.Fatalf("%s: no FX level", a.AssetID)
			}
			for _, v := range a.Variants {
				if v.Kind != asset.KindStablecoin && v.Kind != asset.KindBridged {
					continue
				}
				p := *snapshot(t, w, v.Mint).Price
				if math.Abs(p/peg-1) > 0.01 {
					t.Fatalf("%s %s at %s: price %v, peg %v", a.AssetID, v.Symbol, now, p, peg)
				}
			}
		}
	}
}

func TestLSTsAboveSOL(t *testing.T) {
	assets := seedAssets(t)
	var lsts []string
	for _, a := range assets {
		if a.AssetID != "solana" {
			continue
		}
		for _, v := range a.Variants {
			if v.Kind == asset.KindYield || v.Kind == asset.KindLST {
				lsts = append(lsts, v.Mint)
			}
		}
	}
	if len(lsts) < 5 {
		t.Fatalf("only %d LSTs in the seed", len(lsts))
	}
	for _, now := range sampleTimes(20) {
		w := New(Config{Assets: assets, Now: fixedClock(now)})
		snaps, err := w.Snapshots(context.Background(), append([]string{mintWSOL}, lsts...))
		if err != nil {
			t.Fatal(err)
		}
		sol := *snaps[mintWSOL].Market.Price
		if sol < 150*math.Exp(-0.9)-1e-9 || sol > 150*math.Exp(0.9)+1e-9 {
			t.Fatalf("SOL at %v", sol)
		}
		for _, m := range lsts {
			r := *snaps[m].Market.Price / sol
			if r < LSTRateMin-1e-9 || r > LSTRateMax {
				t.Fatalf("%s: LST/SOL = %v at %s", m, r, now)
			}
		}
	}
}

func TestCategoryLevels(t *testing.T) {
	assets := seedAssets(t)
	eqLo, eqHi := EquityLevelMin*math.Exp(-EquityBound), EquityLevelMax*math.Exp(EquityBound)
	preLo, preHi := PreIPOLevelMin*math.Exp(-PreIPOBound), PreIPOLevelMax*math.Exp(PreIPOBound)
	for _, now := range sampleTimes(12) {
		w := New(Config{Assets: assets, Now: fixedClock(now)})
		for _, a := range assets {
			for _, v := range a.Variants {
				p := *snapshot(t, w, v.Mint).Price
				if !(p > 0) || math.IsInf(p, 0) {
					t.Fatalf("%s: price %v", v.Mint, p)
				}
				lo, hi := 0.0, math.Inf(1)
				switch {
				case a.Category == "equity" && a.PreIPO != nil:
					lo, hi = preLo*0.99, preHi*1.01
				case a.Category == "equity":
					lo, hi = eqLo*0.99, eqHi*1.01
				case a.AssetID == "bitcoin":
					lo, hi = 95_000*math.Exp(-0.9)*0.99, 95_000*math.Exp(0.9)*1.01
				case a.AssetID == "ethereum":
					lo, hi = 3_200*math.Exp(-0.9)*0.99, 3_200*math.Exp(0.9)*1.01
				case a.AssetID == "gold" && v.Kind != asset.KindETF:
					lo, hi = 3_300*math.Exp(-0.35)*0.99, 3_300*math.Exp(0.35)*1.01
				}
				if p < lo || p > hi {
					t.Fatalf("%s (%s %s): price %v outside [%v, %v]", a.AssetID, v.Kind, v.Mint, p, lo, hi)
				}
			}
		}
	}
	// Long-tail tokens are cheap.
	w := fixtureWorld(t, testNow)
	if p := *snapshot(t, w, mintUnknown).Price; p > LongTailLevelMax*math.Exp(1.6) {
		t.Fatalf("long-tail price %v", p)
	}
}

func TestLiquidityTiers(t *testing.T) {
	assets := seedAssets(t)
	var lsts []string
	for _, a := range assets {
		if a.AssetID == "solana" {
			for _, v := range a.Variants {
				if v.Kind == asset.KindYield {
					lsts = append(lsts, v.Mint)
				}
			}
		}
	}
	majors := []string{mintWSOL, mintUSDC, mintUSDT, mintJitoSOL}
	for _, now := range sampleTimes(10) {
		w := New(Config{Assets: assets, Now: fixedClock(now)})
		snaps, err := w.Snapshots(context.Background(), append(append([]string{}, majors...), lsts...))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range majors {
			if l := *snaps[m].Market.Liquidity; l <= asset.Tier1MinLiquidityUSD {
				t.Fatalf("major %s: liquidity %v", m, l)
			}
		}
		below, above := 0, 0
		for _, m := range lsts {
			if *snaps[m].Market.Liquidity < 250_000 {
				below++
			} else {
				above++
			}
		}
		if below == 0 || above < 5 {
			t.Fatalf("LSTs below/above 250k: %d/%d", below, above)
		}
		// Thin markets stay thin; deep ones trade more than thin ones.
		if v := *snaps[mintWSOL].Market.Volume24hUSD; v < 10e6 {
			t.Fatalf("wSOL 24h volume %v", v)
		}
	}
	w := fixtureWorld(t, testNow)
	m := snapshot(t, w, mintUnknown)
	if *m.Liquidity > 100_000 || *m.Volume24hUSD > 1e6 {
		t.Fatalf("unknown mint is not thin: liq %v vol %v", *m.Liquidity, *m.Volume24hUSD)
	}
}

func TestSnapshotFields(t *testing.T) {
	w := New(Config{Assets: seedAssets(t), Now: fixedClock(testNow)})
	seed := allMints(seedAssets(t))
	seed = seed[:min(len(seed), 240)]
	mints := append(seed, mintUnknown, "not-a-mint", "")
	snaps, err := w.Snapshots(context.Background(), mints)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := snaps["not-a-mint"]; ok {
		t.Fatal("invalid mint got a snapshot")
	}
	if len(snaps) != len(seed)+1 {
		t.Fatalf("got %d snapshots", len(snaps))
	}
	for mint, tok := range snaps {
		m := tok.Market
		if m.Source != asset.SourceMarketDataA || m.MetricsSource != asset.SourceMarketDataA {
			t.Fatalf("%s: sources %q %q", mint, m.Source, m.MetricsSource)
		}
		if m.Price == nil || m.Liquidity == nil || m.Volume24hUSD == nil || m.MarketCap == nil ||
			m.PriceChange1hPercent == nil || m.PriceChange24hPercent == nil || m.Decimals == nil || m.LastFetchedAt == nil ||
			m.Volume1hUSD == nil || m.Trade1h == nil || m.Trade24h == nil || m.UniqueWallet1h == nil || m.UniqueWallet24h == nil || m.AsOf == nil {
			t.Fatalf("%s: missing field in %+v", mint, m)
		}
		if *m.Volume1hUSD > *m.Volume24hUSD || *m.Trade1h > *m.Trade24h ||
			*m.UniqueWallet1h > *m.UniqueWallet24h || *m.UniqueWallet24h > *m.Trade24h || *m.UniqueWallet1h > *m.Trade1h {
			t.Fatalf("%s: inconsistent flows %+v", mint, m)
		}
		if (*m.Trade24h == 0) != (*m.Volume24hUSD == 0) {
			t.Fatalf("%s: volume without trades or trades without volume", mint)
		}
		if *m.MarketCap < *m.Liquidity {
			t.Fatalf("%s: market cap %v below liquidity %v", mint, *m.MarketCap, *m.Liquidity)
		}
		if *m.LastFetchedAt != testNow.UnixMilli() || *m.AsOf != testNow.Truncate(time.Minute).Unix() {
			t.Fatalf("%s: timestamps %v %v", mint, *m.LastFetchedAt, *m.AsOf)
		}
		if m.LastTradeAt != nil && (*m.LastTradeAt >= *m.AsOf || *m.LastTradeAt < *m.AsOf-48*3600) {
			t.Fatalf("%s: lastTradeAt %v", mint, *m.LastTradeAt)
		}
		if *tok.Decimals != *m.Decimals {
			t.Fatal("decimals differ")
		}
	}
	// Decimals come from the registry when known.
	if d := *snaps[mintCbBTC].Decimals; d != 8 {
		t.Fatalf("cbBTC decimals %d", d)
	}
	if d := *snaps[mintBonk].Decimals; d != 5 {
		t.Fatalf("Bonk decimals %d", d)
	}
	if s := snaps[mintUnknown]; !strings.HasPrefix(s.Symbol, "SIM") || !strings.Contains(s.Name, "Simulated") {
		t.Fatalf("unknown mint token %q %q", s.Symbol, s.Name)
	}
	// Price changes follow the path.
	p1h := w.priceAt(w.profile(mintWSOL), testNow.Unix()-3600)
	want := (*snaps[mintWSOL].Market.Price/p1h - 1) * 100
	if got := *snaps[mintWSOL].Market.PriceChange1hPercent; got != want {
		t.Fatalf("priceChange1h %v, want %v", got, want)
	}
}

func TestSnapshotsBatchLimits(t *testing.T) {
	w := fixtureWorld(t, testNow)
	var mints []string
	for i := range 251 {
		mints = append(mints, syntheticAddress(uint64(i)))
	}
	if _, err := w.Snapshots(context.Background(), mints); err == nil {
		t.Fatal("251 mints accepted")
	}
	dup := append(append([]string{}, mints[:250]...), mints[:250]...)
	got, err := w.Snapshots(context.Background(), dup)
	if err != nil || len(got) != 250 {
		t.Fatalf("deduplicated batch: %d, %v", len(got), err)
	}
	if w.MaxBatch() != 250 || w.Source() != asset.SourceMarketDataA || !w.Simulated() {
		t.Fatal("provider metadata")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := w.Snapshots(ctx, mints[:3]); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled context: %v", err)
	}
	if _, err := w.OHLCV(ctx, mintWSOL, "1H", 0, 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled context: %v", err)
	}
	if _, err := w.Markets(ctx, mintWSOL, 0); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled context: %v", err)
	}
}

func TestMarkets(t *testing.T) {
	assets := seedAssets(t)
	w := New(Config{Assets: assets, Now: fixedClock(testNow)})
	ctx := context.Background()
	protocol := 0
	for _, mint := range append(allMints(assets), mintUnknown) {
		ms, err := w.Markets(ctx, mint, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) < 2 || len(ms) > 5 {
			t.Fatalf("%s: %d markets", mint, len(ms))
		}
		snap := snapshot(t, w, mint)
		var liq, vol, trades float64
		venues := map[string]bool{}
		for i, m := range ms {
			liq += *m.LiquidityUSD
			vol += *m.Volume24hUSD
			trades += *m.Trade24h
			if m.BaseMint != mint || (m.QuoteMint != USDCMint && m.QuoteMint != WSOLMint) || m.QuoteMint == mint {
				t.Fatalf("%s: pair %s/%s", mint, m.BaseMint, m.QuoteMint)
			}
			if !validMint(m.Address) {
				t.Fatalf("%s: pool address %q", mint, m.Address)
			}
			if venues[m.Venue] {
				t.Fatalf("%s: venue %s twice", mint, m.Venue)
			}
			venues[m.Venue] = true
			if i > 0 && *m.LiquidityUSD > *ms[i-1].LiquidityUSD {
				t.Fatalf("%s: markets not sorted by liquidity", mint)
			}
			if math.Abs(*m.PriceUSD / *snap.Price - 1) > 0.005 {
				t.Fatalf("%s: pool price %v vs %v", mint, *m.PriceUSD, *snap.Price)
			}
			for _, pt := range m.ProtocolTokens {
				if !validMint(pt) {
					t.Fatalf("protocol token %q", pt)
				}
				protocol++
			}
		}
		if !relClose(liq, *snap.Liquidity, 1e-9) || !relClose(vol, *snap.Volume24hUSD, 1e-9) || trades != *snap.Trade24h {
			t.Fatalf("%s: pools sum to liq %v vol %v trades %v; snapshot %v %v %v",
				mint, liq, vol, trades, *snap.Liquidity, *snap.Volume24hUSD, *snap.Trade24h)
		}
		if lim, _ := w.Markets(ctx, mint, 1); len(lim) != 1 || !reflect.DeepEqual(lim[0], ms[0]) {
			t.Fatalf("%s: limit 1", mint)
		}
	}
	if protocol == 0 {
		t.Fatal("no pool reports a protocol-owned token")
	}
	if ms, _ := w.Markets(ctx, "bogus", 0); ms != nil {
		t.Fatal("markets for an invalid mint")
	}
}

func checkCandles(t *testing.T, mint string, iv market.Interval, cs []market.Candle, from, to int64) {
	t.Helper()
	d := int64(iv.Duration() / time.Second)
	for i, c := range cs {
		if c.Time < from || c.Time >= to {
			t.Fatalf("%s %s: candle %d outside [%d,%d)", mint, iv, c.Time, from, to)
		}
		ts := time.Unix(c.Time, 0).UTC()
		if iv == "1W" {
			if ts.Weekday() != time.Monday || ts.Hour() != 0 || ts.Minute() != 0 || ts.Second() != 0 {
				t.Fatalf("%s 1W candle at %s", mint, ts)
			}
		} else if c.Time%d != 0 {
			t.Fatalf("%s %s: candle at %s not aligned", mint, iv, ts)
		}
		if !(c.Low <= c.Open && c.Low <= c.Close && c.High >= c.Open && c.High >= c.Close && c.Low > 0) {
			t.Fatalf("%s %s: inconsistent candle %+v", mint, iv, c)
		}
		if c.Volume < 0 || math.IsNaN(c.Volume) {
			t.Fatalf("%s %s: volume %v", mint, iv, c.Volume)
		}
		if i > 0 {
			if c.Time != cs[i-1].Time+d {
				t.Fatalf("%s %s: gap between %d and %d", mint, iv, cs[i-1].Time, c.Time)
			}
			if c.Open != cs[i-1].Close {
				t.Fatalf("%s %s: open %v != previous close %v", mint, iv, c.Open, cs[i-1].Close)
			}
		}
	}
}

func TestCandles(t *testing.T) {
	w := fixtureWorld(t, testNow)
	now := testNow.Unix()
	minute := testNow.Truncate(time.Minute).Unix()
	for _, mint := range []string{mintWSOL, mintUSDC, mintTSLAx, mintUnknown, "Dso1bDeDjCQxTrWHqUUi63oBvV7Mdm6WaobLbQ7gnPQ"} {
		for _, iv := range market.Intervals {
			from := now - 7*24*3600
			if iv == "1m" || iv == "5m" {
				from = now - 2*24*3600
			}
			if iv == "1W" || iv == "1D" {
				from = 0
			}
			cs := candles(t, w, mint, iv, from, now+3600)
			if len(cs) == 0 {
				t.Fatalf("%s %s: no candles", mint, iv)
			}
			checkCandles(t, mint, iv, cs, from, minute)
			last := cs[len(cs)-1]
			if d := int64(iv.Duration() / time.Second); last.Time+d < minute {
				t.Fatalf("%s %s: last candle %d does not reach now", mint, iv, last.Time)
			}
		}
	}
	// History: the first 1W candle opens on the Monday on or before now−30d.
	cs := candles(t, w, mintWSOL, "1W", 0, now)
	start := testNow.Add(-DefaultHistory)
	first := time.Unix(cs[0].Time, 0).UTC()
	if first.After(start) || start.Sub(first) >= 7*24*time.Hour {
		t.Fatalf("first weekly candle %s for history start %s", first, start)
	}
	if _, err := w.OHLCV(context.Background(), mintWSOL, "2H", 0, now); err == nil {
		t.Fatal("unknown interval accepted")
	}
	if got := candles(t, w, mintWSOL, "1H", now+10, now+7200); len(got) != 0 {
		t.Fatalf("future candles: %d", len(got))
	}
}

func TestDailyCandles30Days(t *testing.T) {
	w := New(Config{Assets: seedAssets(t), Now: fixedClock(testNow)})
	now := testNow.Unix()
	for _, mint := range []string{mintWSOL, mintUSDC, mintJitoSOL, mintTSLAx, mintUnknown} {
		cs := candles(t, w, mint, "1D", now-30*86400, now)
		if len(cs) != 30 { // 30 day opens in [now−30d, now)
			t.Fatalf("%s: %d daily candles", mint, len(cs))
		}
		checkCandles(t, mint, "1D", cs, now-30*86400, now)
		var vol30 float64
		for _, c := range cs {
			vol30 += c.Volume
		}
		v24 := *snapshot(t, w, mint).Volume24hUSD
		if mint != mintUnknown && (vol30 < 5*v24 || vol30 > 150*v24) {
			t.Fatalf("%s: 30d volume %v vs 24h %v", mint, vol30, v24)
		}
	}
}

func TestAggregationConsistency(t *testing.T) {
	w := fixtureWorld(t, testNow)
	minute := testNow.Truncate(time.Minute).Unix()
	for _, mint := range []string{mintWSOL, mintJitoSOL, "Dso1bDeDjCQxTrWHqUUi63oBvV7Mdm6WaobLbQ7gnPQ", mintUnknown} {
		// Snapshot flows equal the 1m candles over the same minutes.
		snap := snapshot(t, w, mint)
		ms := candles(t, w, mint, "1m", minute-86400, minute)
		if len(ms) != 1440 {
			t.Fatalf("%s: %d minute candles in 24h", mint, len(ms))
		}
		var v24, v1h float64
		for i, c := range ms {
			v24 += c.Volume
			if i >= 1380 {
				v1h += c.Volume
			}
		}
		if !relClose(v24, *snap.Volume24hUSD, 1e-9) || !relClose(v1h, *snap.Volume1hUSD, 1e-9) {
			t.Fatalf("%s: minute volumes %v/%v, snapshot %v/%v", mint, v24, v1h, *snap.Volume24hUSD, *snap.Volume1hUSD)
		}
		// An hour candle aggregates its minutes.
		hs := candles(t, w, mint, "1H", minute-86400, minute)
		for _, h := range hs {
			sub := candles(t, w, mint, "1m", h.Time, h.Time+3600)
			var hi, lo, vol = math.Inf(-1), math.Inf(1), 0.0
			for _, c := range sub {
				hi, lo, vol = math.Max(hi, c.High), math.Min(lo, c.Low), vol+c.Volume
			}
			if len(sub) == 0 || sub[0].Open != h.Open || sub[len(sub)-1].Close != h.Close || hi != h.High || lo != h.Low || !relClose(vol, h.Volume, 1e-9) {
				t.Fatalf("%s: hour %d does not aggregate its minutes", mint, h.Time)
			}
		}
		// A day candle aggregates its hours (and 4H its hours).
		ds := candles(t, w, mint, "1D", minute-3*86400, minute-86400)
		for _, d := range ds {
			sub := candles(t, w, mint, "1H", d.Time, d.Time+86400)
			var vol float64
			for _, c := range sub {
				vol += c.Volume
			}
			if len(sub) != 24 || sub[0].Open != d.Open || sub[23].Close != d.Close || !relClose(vol, d.Volume, 1e-9) {
				t.Fatalf("%s: day %d does not aggregate its hours", mint, d.Time)
			}
		}
		// Trades add up to the snapshot's last hour.
		trades := w.Trades(mint, time.Unix(minute-3600, 0), time.Unix(minute, 0))
		var usd float64
		for i, tr := range trades {
			usd += tr.USDAmount
			if i > 0 && tr.BlockTime < trades[i-1].BlockTime {
				t.Fatalf("%s: trades out of order", mint)
			}
		}
		if float64(len(trades)) != *snap.Trade1h || !relClose(usd, *snap.Volume1hUSD, 1e-9) {
			t.Fatalf("%s: trades %d / %v USD, snapshot %v / %v", mint, len(trades), usd, *snap.Trade1h, *snap.Volume1hUSD)
		}
		if len(trades) > 0 && snap.LastTradeAt != nil && trades[len(trades)-1].BlockTime != *snap.LastTradeAt {
			t.Fatalf("%s: last trade %d, snapshot lastTradeAt %d", mint, trades[len(trades)-1].BlockTime, *snap.LastTradeAt)
		}
	}
}

func TestTrades(t *testing.T) {
	w := fixtureWorld(t, testNow)
	minute := testNow.Truncate(time.Minute)
	trades := w.Trades(mintJitoSOL, minute.Add(-6*time.Hour), testNow.Add(time.Hour))
	if len(trades) == 0 {
		t.Fatal("no JitoSOL trades in 6h")
	}
	snap := snapshot(t, w, mintJitoSOL)
	ms, _ := w.Markets(context.Background(), mintJitoSOL, 0)
	pools := map[string]string{}
	for _, m := range ms {
		pools[m.Address] = m.Venue
	}
	var bots, buys int
	wallets := map[string]bool{}
	sigs := map[string]bool{}
	var prevSlot uint64
	for _, tr := range trades {
		if tr.BlockTime >= minute.Unix() {
			t.Fatal("trade in the current (incomplete) minute or the future")
		}
		if tr.Mint != mintJitoSOL || tr.USDAmount <= 0 || tr.TokenAmount <= 0 {
			t.Fatalf("bad trade %+v", tr)
		}
		if math.Abs(tr.PriceUSD / *snap.Price - 1) > 0.25 {
			t.Fatalf("trade price %v far from %v", tr.PriceUSD, *snap.Price)
		}
		if pools[tr.Pool] != tr.Venue {
			t.Fatalf("trade on unknown pool %s/%s", tr.Venue, tr.Pool)
		}
		if len(tr.Signature) != 88 || len(decode58(tr.Signature)) != 64 || sigs[tr.Signature] {
			t.Fatalf("signature %q", tr.Signature)
		}
		sigs[tr.Signature] = true
		if !validMint(tr.Wallet) {
			t.Fatalf("wallet %q", tr.Wallet)
		}
		if tr.Slot < prevSlot {
			t.Fatal("slots go backwards")
		}
		prevSlot = tr.Slot
		wallets[tr.Wallet] = true
		if tr.IsBot {
			bots++
		}
		if tr.Side == SideBuy {
			buys++
		} else if tr.Side != SideSell {
			t.Fatalf("side %q", tr.Side)
		}
	}
	if bots == 0 || bots == len(trades) || buys == 0 || buys == len(trades) || len(wallets) < 3 {
		t.Fatalf("trade mix: %d trades, %d bots, %d buys, %d wallets", len(trades), bots, buys, len(wallets))
	}
	if got := w.Trades("bogus", minute.Add(-time.Hour), minute); got != nil {
		t.Fatal("trades for an invalid mint")
	}
	// Wallet counts in snapshots follow the same model as trade wallets:
	// compare distinct wallets over 24h with uniqueWallet24h.
	day := w.Trades(mintJitoSOL, minute.Add(-24*time.Hour), minute)
	distinctW := map[string]bool{}
	for _, tr := range day {
		distinctW[tr.Wallet] = true
	}
	if float64(len(day)) != *snap.Trade24h {
		t.Fatalf("24h trades %d vs %v", len(day), *snap.Trade24h)
	}
	if u := *snap.UniqueWallet24h; math.Abs(float64(len(distinctW))-u) > 0.15*u+5 {
		t.Fatalf("distinct wallets %d vs uniqueWallet24h %v", len(distinctW), u)
	}
}

func TestSetAssetsReload(t *testing.T) {
	w := fixtureWorld(t, testNow)
	before := snapshot(t, w, mintUSDC)
	_ = snapshot(t, w, mintTSLAx) // warm caches for its registry profile
	if !w.Known(mintUSDC) {
		t.Fatal("USDC unknown")
	}
	assets := fixtureAssets()
	w.SetAssets(assets[:4]) // drop eur and tesla
	if after := snapshot(t, w, mintUSDC); !reflect.DeepEqual(before, after) {
		t.Fatal("reload changed an unchanged mint")
	}
	if w.Known(mintTSLAx) {
		t.Fatal("dropped mint still known")
	}
	// A dropped mint becomes a long-tail singleton with its own path, and
	// nothing cached for its registry self leaks into it.
	_ = candles(t, w, mintTSLAx, "1H", testNow.Unix()-3*86400, testNow.Unix())
	m := snapshot(t, w, mintTSLAx)
	if *m.Liquidity > 100_000 {
		t.Fatalf("dropped mint liquidity %v", *m.Liquidity)
	}
	fresh := New(Config{Assets: assets[:4], Now: fixedClock(testNow)})
	if want := snapshot(t, fresh, mintTSLAx); !reflect.DeepEqual(m, want) {
		t.Fatalf("reloaded world %+v, fresh world %+v", m, want)
	}
	w.SetAssets(nil)
	if w.Known(mintUSDC) {
		t.Fatal("empty asset list still knows USDC")
	}
}

func TestTimeMovesOn(t *testing.T) {
	// Later clocks see the same past: candles that were complete stay put.
	a := fixtureWorld(t, testNow)
	b := fixtureWorld(t, testNow.Add(3*time.Hour+17*time.Minute))
	from := testNow.Add(-48 * time.Hour).Truncate(time.Hour).Unix()
	to := testNow.Truncate(4 * time.Hour).Unix()
	for _, iv := range []market.Interval{"1m", "15m", "1H", "4H"} {
		ca := candles(t, a, mintWSOL, iv, from, to)
		cb := candles(t, b, mintWSOL, iv, from, to)
		if !reflect.DeepEqual(ca, cb) {
			t.Fatalf("%s: the past changed as time moved on", iv)
		}
	}
	// The partial last bar grows into the full one.
	h := testNow.Truncate(time.Hour).Unix()
	pa := candles(t, a, mintWSOL, "1H", h, h+3600)
	pb := candles(t, b, mintWSOL, "1H", h, h+3600)
	if len(pa) != 1 || len(pb) != 1 || pa[0].Open != pb[0].Open || pa[0].Volume > pb[0].Volume || pa[0].High > pb[0].High {
		t.Fatalf("partial bar %+v vs full %+v", pa, pb)
	}
}

func TestConcurrentUse(t *testing.T) {
	w := New(Config{Assets: seedAssets(t), Now: fixedClock(testNow), MaxCachedDays: 64})
	mints := allMints(seedAssets(t))
	want := map[string]float64{}
	snaps, _ := w.Snapshots(context.Background(), mints[:100])
	for m, tk := range snaps {
		want[m] = *tk.Market.Price
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 30 {
				m := mints[(g*31+i)%100]
				_ = candles(t, w, m, "1H", testNow.Unix()-7*86400, testNow.Unix())
				if p := *snapshot(t, w, m).Price; p != want[m] {
					t.Errorf("%s: price %v under concurrency, want %v", m, p, want[m])
				}
				if i%10 == 0 {
					w.SetAssets(seedAssets(t))
				}
			}
		})
	}
	wg.Wait()
	if n := w.c.days.len() + w.c.flows.len(); n > 128 {
		t.Fatalf("day caches hold %d entries, bound 128", n)
	}
	if n := w.c.minutes.len() + w.c.splits.len(); n > 64 {
		t.Fatalf("hour caches hold %d entries, bound 64", n)
	}
}

func TestBase58(t *testing.T) {
	for _, m := range append(allMints(seedAssets(t)), WSOLMint, "11111111111111111111111111111111") {
		b := decode58(m)
		if len(b) != 32 {
			t.Fatalf("%s decodes to %d bytes", m, len(b))
		}
		if got := base58(b); got != m {
			t.Fatalf("round trip %s -> %s", m, got)
		}
	}
	for _, bad := range []string{"", "0OIl", "abc", strings.Repeat("z", 50)} {
		if validMint(bad) {
			t.Fatalf("%q accepted", bad)
		}
	}
	seen := map[string]bool{}
	for i := range uint64(1000) {
		a := syntheticAddress(i)
		if !validMint(a) || seen[a] {
			t.Fatalf("synthetic address %q", a)
		}
		seen[a] = true
	}
}

func TestAlignment(t *testing.T) {
	for _, s := range []string{"2025-06-09T00:00:00Z", "2025-06-11T14:37:21Z", "2025-06-15T23:59:59Z", "1969-12-30T12:00:00Z"} {
		ts, _ := time.Parse(time.RFC3339, s)
		wk := time.Unix(alignWeek(ts.Unix()), 0).UTC()
		if wk.Weekday() != time.Monday || wk.Hour() != 0 || wk.After(ts) || ts.Sub(wk) >= 7*24*time.Hour {
			t.Fatalf("%s aligned to %s", s, wk)
		}
	}
	// Weekend detection agrees with time.Weekday.
	for d := int64(-10); d < 30; d++ {
		wd := time.Unix(d*86400, 0).UTC().Weekday()
		if isWeekend(d) != (wd == time.Saturday || wd == time.Sunday) {
			t.Fatalf("day %d (%s)", d, wd)
		}
	}
}
