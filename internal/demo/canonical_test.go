package demo

import (
	"context"
	"errors"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/registry"
)

// finitePos reports whether p points at a finite, positive number.
func finitePos(p *float64) bool {
	return p != nil && *p > 0 && !math.IsInf(*p, 0) && !math.IsNaN(*p)
}

// primaryProfile is the profile of an asset's primary mint: its first
// native variant, else its first variant on the asset-level path.
func primaryProfile(t *testing.T, w *World, a *registry.Asset, ps *pathSpec) *profile {
	t.Helper()
	var first *profile
	for _, v := range a.Variants {
		p := w.cat.Load().byMint[v.Mint]
		if p == nil || p.assetID != a.AssetID || p.path.cacheKey != ps.cacheKey {
			continue
		}
		if v.Kind == asset.KindNative {
			return p
		}
		if first == nil {
			first = p
		}
	}
	if first == nil {
		t.Fatalf("%s: no variant on the asset path", a.AssetID)
	}
	return first
}

// sumVolume is the total volume of candles.
func sumVolume(cs []market.Candle) float64 {
	var v float64
	for _, c := range cs {
		v += c.Volume
	}
	return v
}

func TestCoinsSeedRegistry(t *testing.T) {
	assets := seedAssets(t)
	w := New(Config{Assets: assets, Now: fixedClock(testNow)})
	coins := w.Coins()
	if coins.Source() != "extprovider" {
		t.Fatalf("coin source %q", coins.Source())
	}
	ctx := context.Background()
	sec := testNow.Unix()
	minute := testNow.Truncate(time.Minute)
	hs := w.historyStart(sec)
	n := 0
	for i := range assets {
		a := &assets[i]
		if a.CoinID == "" {
			continue
		}
		n++
		c, err := coins.Coin(ctx, a.CoinID)
		if err != nil {
			t.Fatalf("%s: %v", a.CoinID, err)
		}
		for name, p := range map[string]*float64{
			"price": c.PriceUSD, "marketCap": c.MarketCapUSD, "fdv": c.FDVUSD, "volume": c.Volume24hUSD,
			"circulating": c.CirculatingSupply, "total": c.TotalSupply, "ath": c.AllTimeHighUSD,
		} {
			if !finitePos(p) {
				t.Fatalf("%s: %s %v", a.CoinID, name, p)
			}
		}
		if c.ID != a.CoinID || c.Name == "" || c.Symbol == "" || c.ImageURL != a.ImageURL {
			t.Fatalf("%s: identity %q %q %q %q", a.CoinID, c.ID, c.Name, c.Symbol, c.ImageURL)
		}
		if !strings.Contains(strings.ToLower(c.Description), "simulated") || c.Links != (market.CoinLinks{}) {
			t.Fatalf("%s: description %q, links %+v", a.CoinID, c.Description, c.Links)
		}
		if !relClose(*c.MarketCapUSD, *c.PriceUSD**c.CirculatingSupply, 1e-12) ||
			!relClose(*c.FDVUSD, *c.PriceUSD**c.TotalSupply, 1e-12) || *c.TotalSupply < *c.CirculatingSupply {
			t.Fatalf("%s: mcap %v fdv %v for price %v circ %v total %v", a.CoinID,
				*c.MarketCapUSD, *c.FDVUSD, *c.PriceUSD, *c.CirculatingSupply, *c.TotalSupply)
		}
		if c.MaxSupply != nil && *c.MaxSupply < *c.TotalSupply {
			t.Fatalf("%s: max supply %v below total %v", a.CoinID, *c.MaxSupply, *c.TotalSupply)
		}
		if r := *c.Volume24hUSD / *c.MarketCapUSD; r < 0.001 || r > 1 {
			t.Fatalf("%s: volume/market cap %v", a.CoinID, r)
		}
		if c.PriceChange1hPercent == nil || c.PriceChange24hPercent == nil ||
			math.IsNaN(*c.PriceChange1hPercent) || math.IsNaN(*c.PriceChange24hPercent) {
			t.Fatalf("%s: changes %v %v", a.CoinID, c.PriceChange1hPercent, c.PriceChange24hPercent)
		}
		if *c.AllTimeHighUSD < *c.PriceUSD || c.AllTimeHighAt.IsZero() || c.AllTimeHighAt.After(testNow) {
			t.Fatalf("%s: ATH %v at %s, price %v", a.CoinID, *c.AllTimeHighUSD, c.AllTimeHighAt, *c.PriceUSD)
		}
		// An ATH inside the served history is at least every hourly high.
		if c.AllTimeHighAt.Unix() >= hs {
			hours, err := coins.CoinCandles(ctx, a.CoinID, "1H", hs, sec)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range hours {
				if h.High > *c.AllTimeHighUSD {
					t.Fatalf("%s: hourly high %v above ATH %v", a.CoinID, h.High, *c.AllTimeHighUSD)
				}
			}
		}
		if !c.LastUpdated.Equal(minute) {
			t.Fatalf("%s: last updated %s", a.CoinID, c.LastUpdated)
		}
		// The coin price is the asset-level price: the primary mint's
		// price divided by its small per-mint factor.
		ps := w.cat.Load().canon.coins[a.CoinID].path
		p := primaryProfile(t, w, a, ps)
		mintPx := *snapshot(t, w, p.mint).Price
		if d := math.Log(mintPx / *c.PriceUSD); math.Abs(d) > 0.005 || math.Abs(d-p.lnFactor) > 1e-9 {
			t.Fatalf("%s: coin price %v vs primary mint %s %v", a.CoinID, *c.PriceUSD, p.mint, mintPx)
		}
	}
	if n < 30 {
		t.Fatalf("only %d seed coins", n)
	}
}

func TestCoinTickers(t *testing.T) {
	assets := seedAssets(t)
	w := New(Config{Assets: assets, Now: fixedClock(testNow)})
	coins := w.Coins()
	ctx := context.Background()
	for _, a := range assets {
		if a.CoinID == "" {
			continue
		}
		c, err := coins.Coin(ctx, a.CoinID)
		if err != nil {
			t.Fatal(err)
		}
		ts, err := coins.Tickers(ctx, a.CoinID, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(ts) < CoinTickersMin || len(ts) > CoinTickersMax {
			t.Fatalf("%s: %d tickers", a.CoinID, len(ts))
		}
		var vol float64
		seen := map[string]bool{}
		for i, tk := range ts {
			vol += *tk.Volume24hUSD
			if i > 0 && *tk.Volume24hUSD > *ts[i-1].Volume24hUSD {
				t.Fatalf("%s: tickers not sorted by volume", a.CoinID)
			}
			k, ok := strings.CutPrefix(tk.MarketID, "sim-exchange-")
			if n, err := strconv.Atoi(k); !ok || err != nil || n < 1 || tk.MarketName != "Simulated Exchange "+k || seen[k] {
				t.Fatalf("%s: market %q / %q", a.CoinID, tk.MarketID, tk.MarketName)
			}
			seen[k] = true
			if tk.Target != "USDT" && tk.Target != "USDC" && tk.Target != "USD" {
				t.Fatalf("%s: target %q", a.CoinID, tk.Target)
			}
			if tk.Base != c.Symbol || tk.TradeURL != "" || tk.MarketLogo != "" || tk.IsAnomaly || tk.IsStale {
				t.Fatalf("%s: ticker %+v", a.CoinID, tk)
			}
			if !finitePos(tk.PriceUSD) || math.Abs(*tk.PriceUSD / *c.PriceUSD - 1) > TickerMaxDeviation+1e-12 {
				t.Fatalf("%s: ticker price %v vs coin %v", a.CoinID, tk.PriceUSD, *c.PriceUSD)
			}
			if !finitePos(tk.Volume24hUSD) {
				t.Fatalf("%s: ticker volume %v", a.CoinID, tk.Volume24hUSD)
			}
			if s := *tk.SpreadPercent; s < 0.01 || s > 0.5 {
				t.Fatalf("%s: spread %v%%", a.CoinID, s)
			}
			if tk.TrustScore != "green" && tk.TrustScore != "yellow" {
				t.Fatalf("%s: trust %q", a.CoinID, tk.TrustScore)
			}
			if !tk.Timestamp.Equal(c.LastUpdated) {
				t.Fatalf("%s: ticker time %s", a.CoinID, tk.Timestamp)
			}
		}
		if !relClose(vol, *c.Volume24hUSD, 1e-9) {
			t.Fatalf("%s: ticker volumes sum to %v, coin volume %v", a.CoinID, vol, *c.Volume24hUSD)
		}
		lim, err := coins.Tickers(ctx, a.CoinID, 2)
		if err != nil || len(lim) != 2 || !reflect.DeepEqual(lim, ts[:2]) {
			t.Fatalf("%s: limit 2 gave %d tickers (%v)", a.CoinID, len(lim), err)
		}
	}
}

func TestCoinCandles(t *testing.T) {
	assets := seedAssets(t)
	w := New(Config{Assets: assets, Now: fixedClock(testNow)})
	coins := w.Coins()
	ctx := context.Background()
	now := testNow.Unix()
	minute := testNow.Truncate(time.Minute).Unix()
	for _, id := range []string{"solana", "bitcoin", "bonk", "tesla-xstock", "nasdaq-xstock"} {
		ca := w.cat.Load().canon.coins[id]
		var a *registry.Asset
		for i := range assets {
			if assets[i].CoinID == id {
				a = &assets[i]
			}
		}
		p := primaryProfile(t, w, a, ca.path)
		for _, iv := range market.Intervals {
			from := now - 3*86400
			if iv == "1D" || iv == "1W" {
				from = 0
			}
			cs, err := coins.CoinCandles(ctx, id, iv, from, now+3600)
			if err != nil {
				t.Fatal(err)
			}
			if len(cs) == 0 {
				t.Fatalf("%s %s: no candles", id, iv)
			}
			checkCandles(t, id, iv, cs, max(from, w.historyStart(now)), minute)
			// Same bars as the primary mint's, without its factor.
			ms := candles(t, w, p.mint, iv, from, now+3600)
			if len(ms) != len(cs) {
				t.Fatalf("%s %s: %d coin candles, %d mint candles", id, iv, len(cs), len(ms))
			}
			f := math.Exp(p.lnFactor)
			for i := range cs {
				c, m := cs[i], ms[i]
				if c.Time != m.Time || !relClose(c.Open*f, m.Open, 1e-9) || !relClose(c.High*f, m.High, 1e-9) ||
					!relClose(c.Low*f, m.Low, 1e-9) || !relClose(c.Close*f, m.Close, 1e-9) {
					t.Fatalf("%s %s: coin candle %+v vs mint candle %+v", id, iv, c, m)
				}
			}
		}
		// Candle volume over the last 24 hours is the coin's 24h volume.
		c, err := coins.Coin(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		ms, err := coins.CoinCandles(ctx, id, "1m", minute-86400, minute)
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) != 1440 || !relClose(sumVolume(ms), *c.Volume24hUSD, 1e-9) {
			t.Fatalf("%s: %d minute candles with volume %v, coin volume %v", id, len(ms), sumVolume(ms), *c.Volume24hUSD)
		}
		// Every hour has volume.
		hs, err := coins.CoinCandles(ctx, id, "1H", 0, now)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hs {
			if h.Volume <= 0 {
				t.Fatalf("%s: hour %d without volume", id, h.Time)
			}
		}
	}
	if cs, err := coins.CoinCandles(ctx, "solana", "1H", now+10, now+7200); err != nil || len(cs) != 0 {
		t.Fatalf("future candles: %d (%v)", len(cs), err)
	}
	if _, err := coins.CoinCandles(ctx, "solana", "2H", 0, now); err == nil || errors.Is(err, market.ErrNotFound) {
		t.Fatalf("unknown interval: %v", err)
	}
}

func TestStockQuotes(t *testing.T) {
	assets := seedAssets(t)
	w := New(Config{Assets: assets, Now: fixedClock(testNow)})
	stocks := w.Stocks()
	if stocks.Source() != "analytics_stock" {
		t.Fatalf("stock source %q", stocks.Source())
	}
	ctx := context.Background()
	now := testNow.Unix()
	minute := testNow.Truncate(time.Minute).Unix()
	n := 0
	for _, a := range assets {
		if a.StockTicker == "" {
			continue
		}
		n++
		q, err := stocks.Quote(ctx, a.StockTicker)
		if err != nil {
			t.Fatalf("%s: %v", a.StockTicker, err)
		}
		if q.Ticker != a.StockTicker || !q.AsOf.Equal(time.Unix(minute, 0)) {
			t.Fatalf("%s: ticker %q as of %s", a.StockTicker, q.Ticker, q.AsOf)
		}
		for name, p := range map[string]*float64{
			"price": q.PriceUSD, "previousClose": q.PreviousCloseUSD, "volume": q.Volume24hUSD, "marketCap": q.MarketCapUSD,
		} {
			if !finitePos(p) {
				t.Fatalf("%s: %s %v", a.StockTicker, name, p)
			}
		}
		if q.PriceChange24hPercent == nil || !relClose(*q.PriceChange24hPercent, (*q.PriceUSD / *q.PreviousCloseUSD - 1)*100, 1e-9) {
			t.Fatalf("%s: change %v for %v / %v", a.StockTicker, q.PriceChange24hPercent, *q.PriceUSD, *q.PreviousCloseUSD)
		}
		if *q.MarketCapUSD < 1e8 {
			t.Fatalf("%s: market cap %v", a.StockTicker, *q.MarketCapUSD)
		}
		// Lookup ignores case.
		if lower, err := stocks.Quote(ctx, strings.ToLower(a.StockTicker)); err != nil || !reflect.DeepEqual(lower, q) {
			t.Fatalf("%s: lower-case lookup %+v (%v)", a.StockTicker, lower, err)
		}
		// The 1m candles of the last 24 hours carry the quote's volume, and
		// the quote's previous close is the path 24 hours ago.
		cs, err := stocks.StockCandles(ctx, a.StockTicker, "1m", minute-86400, minute)
		if err != nil {
			t.Fatal(err)
		}
		checkCandles(t, a.StockTicker, "1m", cs, minute-86400, minute)
		if len(cs) != 1440 || !relClose(sumVolume(cs), *q.Volume24hUSD, 1e-9) {
			t.Fatalf("%s: %d candles with volume %v, quote %v", a.StockTicker, len(cs), sumVolume(cs), *q.Volume24hUSD)
		}
		ca := w.cat.Load().canon.stocks[a.StockTicker]
		if !relClose(*q.PreviousCloseUSD, w.canonPrice(ca, now-86400), 1e-12) {
			t.Fatalf("%s: previous close %v", a.StockTicker, *q.PreviousCloseUSD)
		}
		ds, err := stocks.StockCandles(ctx, a.StockTicker, "1D", 0, now)
		if err != nil || len(ds) < 30 {
			t.Fatalf("%s: %d daily candles (%v)", a.StockTicker, len(ds), err)
		}
		checkCandles(t, a.StockTicker, "1D", ds, w.historyStart(now), minute)
	}
	if n < 20 {
		t.Fatalf("only %d seed tickers", n)
	}
}

func TestPreIPOMarks(t *testing.T) {
	assets := seedAssets(t)
	w := New(Config{Assets: assets, Now: fixedClock(testNow)})
	feed := w.PreIPO()
	if feed.Source() != "preipo" {
		t.Fatalf("pre-IPO source %q", feed.Source())
	}
	ctx := context.Background()
	sec := testNow.Unix()
	day := testNow.Truncate(24 * time.Hour)
	n := 0
	for _, a := range assets {
		if a.PreIPO == nil {
			continue
		}
		n++
		m, err := feed.Mark(ctx, a.PreIPO.Symbol)
		if err != nil {
			t.Fatalf("%s: %v", a.PreIPO.Symbol, err)
		}
		if m.Symbol != a.PreIPO.Symbol || !m.UpdatedAt.Equal(day) {
			t.Fatalf("%s: symbol %q updated %s", a.PreIPO.Symbol, m.Symbol, m.UpdatedAt)
		}
		if !finitePos(m.MarkPriceUSD) || !finitePos(m.MarkValuationUSD) {
			t.Fatalf("%s: mark %v valuation %v", a.PreIPO.Symbol, m.MarkPriceUSD, m.MarkValuationUSD)
		}
		if shares := *m.MarkValuationUSD / *m.MarkPriceUSD; shares < 1e9*(1-1e-9) || shares > 8e9*(1+1e-9) {
			t.Fatalf("%s: %v shares", a.PreIPO.Symbol, shares)
		}
		if a.PreIPO.Mint == "" {
			if m.TokenPriceUSD != nil {
				t.Fatalf("%s: token price without a mint", a.PreIPO.Symbol)
			}
			continue
		}
		if !finitePos(m.TokenPriceUSD) || *m.TokenPriceUSD != *snapshot(t, w, a.PreIPO.Mint).Price {
			t.Fatalf("%s: token price %v", a.PreIPO.Symbol, m.TokenPriceUSD)
		}
		// premium + 1 = token / mark = factor × the mint's move since
		// 00:00 UTC × its small per-mint basis (±0.3%).
		p := w.cat.Load().byMint[a.PreIPO.Mint]
		premium := *m.TokenPriceUSD / *m.MarkPriceUSD - 1
		move := w.priceAt(p, sec) / w.priceAt(p, day.Unix())
		if f := (1 + premium) / move; f < PreIPOMarkFactorMin*math.Exp(-0.003) || f > PreIPOMarkFactorMax*math.Exp(0.003) {
			t.Fatalf("%s: premium %v (move %v) outside the mark factor range", a.PreIPO.Symbol, premium, move)
		}
		if lower, err := feed.Mark(ctx, strings.ToLower(a.PreIPO.Symbol)); err != nil || !reflect.DeepEqual(lower, m) {
			t.Fatalf("%s: lower-case lookup (%v)", a.PreIPO.Symbol, err)
		}
	}
	if n < 3 {
		t.Fatalf("only %d seed pre-IPO assets", n)
	}
	// A pre-IPO asset that names no mint has no token price.
	w.SetAssets([]registry.Asset{{AssetID: "acme", Name: "Acme", Category: "equity",
		PreIPO:   &registry.PreIPO{Symbol: "ACME"},
		Variants: []registry.Variant{{Mint: mintTSLAx, Kind: asset.KindTokenizedEquity}}}})
	m, err := feed.Mark(ctx, "ACME")
	if err != nil || m.TokenPriceUSD != nil || !finitePos(m.MarkPriceUSD) {
		t.Fatalf("mark without a mint: %+v (%v)", m, err)
	}
}

func TestCanonicalNotFound(t *testing.T) {
	ctx := context.Background()
	w := New(Config{Assets: seedAssets(t), Now: fixedClock(testNow)})
	now := testNow.Unix()
	checks := map[string]func() error{
		"coin":          func() error { _, err := w.Coins().Coin(ctx, "no-such-coin"); return err },
		"coin by slug":  func() error { _, err := w.Coins().Coin(ctx, "tesla"); return err }, // asset id, not coin id
		"tickers":       func() error { _, err := w.Coins().Tickers(ctx, "no-such-coin", 5); return err },
		"coin candles":  func() error { _, err := w.Coins().CoinCandles(ctx, "no-such-coin", "1H", 0, now); return err },
		"quote":         func() error { _, err := w.Stocks().Quote(ctx, "NOPE"); return err },
		"stock candles": func() error { _, err := w.Stocks().StockCandles(ctx, "NOPE", "1D", 0, now); return err },
		"mark":          func() error { _, err := w.PreIPO().Mark(ctx, "NOPE"); return err },
		"empty mark":    func() error { _, err := w.PreIPO().Mark(ctx, ""); return err },
	}
	for name, f := range checks {
		if err := f(); !errors.Is(err, market.ErrNotFound) {
			t.Fatalf("%s: %v, want ErrNotFound", name, err)
		}
	}
	// Assets leave with a registry reload.
	if _, err := w.Coins().Coin(ctx, "solana"); err != nil {
		t.Fatal(err)
	}
	w.SetAssets(fixtureAssets()) // no coin ids
	if _, err := w.Coins().Coin(ctx, "solana"); !errors.Is(err, market.ErrNotFound) {
		t.Fatalf("coin after reload: %v", err)
	}
	if _, err := w.Stocks().Quote(ctx, "tsla"); err != nil {
		t.Fatalf("fixture ticker: %v", err)
	}
	// A cancelled context is an error of its own.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := w.Stocks().Quote(cctx, "TSLA"); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}

// canonicalDump collects every canonical figure of a world.
func canonicalDump(t *testing.T, w *World, assets []registry.Asset) map[string]any {
	t.Helper()
	ctx := context.Background()
	now := testNow.Unix()
	out := map[string]any{}
	keep := func(k string, v any, err error) {
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		out[k] = v
	}
	for _, a := range assets {
		if id := a.CoinID; id != "" {
			c, err := w.Coins().Coin(ctx, id)
			keep("coin:"+id, c, err)
			ts, err := w.Coins().Tickers(ctx, id, 0)
			keep("tickers:"+id, ts, err)
			cs, err := w.Coins().CoinCandles(ctx, id, "1H", now-2*86400, now)
			keep("coinCandles:"+id, cs, err)
		}
		if tk := a.StockTicker; tk != "" {
			q, err := w.Stocks().Quote(ctx, tk)
			keep("quote:"+tk, q, err)
			cs, err := w.Stocks().StockCandles(ctx, tk, "1D", 0, now)
			keep("stockCandles:"+tk, cs, err)
		}
		if a.PreIPO != nil {
			m, err := w.PreIPO().Mark(ctx, a.PreIPO.Symbol)
			keep("mark:"+a.PreIPO.Symbol, m, err)
		}
	}
	return out
}

func TestCanonicalDeterminism(t *testing.T) {
	assets := seedAssets(t)
	a := New(Config{Assets: assets, Now: fixedClock(testNow)})
	b := New(Config{Assets: seedAssets(t), Now: fixedClock(testNow)})
	// Warm b's caches through the mint-level API first, in reverse order.
	mints := allMints(assets)
	for i := len(mints) - 1; i >= 0; i -= 7 {
		candles(t, b, mints[i], "1H", 0, testNow.Unix())
	}
	da, db := canonicalDump(t, a, assets), canonicalDump(t, b, assets)
	if len(da) < 100 {
		t.Fatalf("only %d canonical figures", len(da))
	}
	if !reflect.DeepEqual(da, db) {
		for k := range da {
			if !reflect.DeepEqual(da[k], db[k]) {
				t.Fatalf("%s: two worlds disagree", k)
			}
		}
	}
	other := New(Config{Assets: assets, Now: fixedClock(testNow), Seed: 42})
	ca, _ := a.Coins().Coin(context.Background(), "solana")
	co, _ := other.Coins().Coin(context.Background(), "solana")
	if *ca.PriceUSD == *co.PriceUSD || *ca.CirculatingSupply == *co.CirculatingSupply {
		t.Fatal("another seed gave the same coin")
	}
}

func TestCanonicalTimeMovesOn(t *testing.T) {
	ctx := context.Background()
	a := New(Config{Assets: seedAssets(t), Now: fixedClock(testNow)})
	later := testNow.Add(5*time.Hour + 3*time.Minute)
	b := New(Config{Assets: seedAssets(t), Now: fixedClock(later)})
	from := testNow.Add(-24 * time.Hour).Truncate(time.Hour).Unix()
	to := testNow.Truncate(time.Hour).Unix()
	ca, _ := a.Coins().CoinCandles(ctx, "bitcoin", "15m", from, to)
	cb, _ := b.Coins().CoinCandles(ctx, "bitcoin", "15m", from, to)
	if len(ca) == 0 || !reflect.DeepEqual(ca, cb) {
		t.Fatal("complete coin candles changed as time moved on")
	}
	// The mark holds through the day.
	ma, _ := a.PreIPO().Mark(ctx, "SPACEX")
	mb, _ := b.PreIPO().Mark(ctx, "SPACEX")
	if *ma.MarkPriceUSD != *mb.MarkPriceUSD || !ma.UpdatedAt.Equal(mb.UpdatedAt) || *ma.TokenPriceUSD == *mb.TokenPriceUSD {
		t.Fatalf("marks %+v / %+v", ma, mb)
	}
	// An all-time high never falls as time moves on (same hour window or later).
	x, _ := a.Coins().Coin(ctx, "bonk")
	y, _ := b.Coins().Coin(ctx, "bonk")
	if *y.AllTimeHighUSD < *x.AllTimeHighUSD {
		t.Fatalf("ATH fell from %v to %v", *x.AllTimeHighUSD, *y.AllTimeHighUSD)
	}
}

func TestCanonicalConcurrentUse(t *testing.T) {
	assets := seedAssets(t)
	w := New(Config{Assets: assets, Now: fixedClock(testNow), MaxCachedDays: 64})
	ctx := context.Background()
	want, err := w.Coins().Coin(ctx, "jupiter-exchange-solana")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Go(func() {
			for i := range 10 {
				switch (g + i) % 3 {
				case 0:
					if c, err := w.Coins().Coin(ctx, "jupiter-exchange-solana"); err != nil || !reflect.DeepEqual(c, want) {
						t.Errorf("coin under concurrency: %v", err)
					}
				case 1:
					if _, err := w.Stocks().StockCandles(ctx, "NVDA", "1H", 0, testNow.Unix()); err != nil {
						t.Error(err)
					}
				default:
					if _, err := w.PreIPO().Mark(ctx, "OPENAI"); err != nil {
						t.Error(err)
					}
					w.SetAssets(assets)
				}
			}
		})
	}
	wg.Wait()
}
