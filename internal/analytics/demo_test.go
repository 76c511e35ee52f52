package analytics

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/demo"
)

// fromSim converts a demo trade to a Trade (the demo stream has no fee or
// flow source).
func fromSim(s *demo.SimTrade) Trade {
	return Trade{
		Signature: s.Signature, Slot: int64(s.Slot), BlockTime: s.BlockTime, Mint: s.Mint, Side: s.Side,
		TokenAmount: s.TokenAmount, USDAmount: s.USDAmount, PriceUSD: s.PriceUSD,
		Wallet: s.Wallet, Venue: s.Venue, IsBot: s.IsBot,
	}
}

// TestDemoTradeStream ingests two hours of the demo world's trades for a
// long-tail mint: every trade validates, and per minute the engine's 1m
// candle volumes equal the demo's own 1m candles (which the demo builds
// from the same flow).
func TestDemoTradeStream(t *testing.T) {
	now := time.Unix(monday+3*day, 0).UTC()
	w := demo.New(demo.Config{Now: func() time.Time { return now }, History: 7 * 24 * time.Hour})
	mint := mintA
	from, to := now.Add(-2*time.Hour), now.Add(-time.Minute)
	sims := w.Trades(mint, from, to)
	if len(sims) == 0 {
		t.Skip("the demo world has no trades for this mint")
	}
	trades := make([]Trade, len(sims))
	for i := range sims {
		trades[i] = fromSim(&sims[i])
	}
	e := newEngine(t, newClock(now.Unix()))
	res := e.Ingest(trades)
	if res.Accepted != len(trades) {
		t.Fatalf("Ingest = %+v of %d demo trades", res, len(trades))
	}
	want, err := w.OHLCV(context.Background(), mint, "1m", from.Unix(), to.Unix())
	if err != nil {
		t.Fatal(err)
	}
	got := map[int64]CandleRow{}
	for _, r := range e.Candles(mint, "1m", from.Unix(), to.Unix()) {
		got[r.Time] = r
	}
	compared := 0
	for _, c := range want {
		g, ok := got[c.Time]
		if c.Volume == 0 {
			if ok {
				t.Errorf("%d: engine has a bar, demo has no volume", c.Time)
			}
			continue
		}
		compared++
		if !ok || math.Abs(g.Volume-c.Volume) > 1e-6*c.Volume {
			t.Errorf("%d: volume %v, demo %v", c.Time, g.Volume, c.Volume)
		}
	}
	if compared == 0 {
		t.Error("no minute compared")
	}
	t.Logf("%d demo trades, %d minutes compared", len(trades), compared)
	if m := e.Market(mint, now); m == nil || *m.Trade1h == 0 {
		t.Errorf("Market = %+v", m)
	}
}
