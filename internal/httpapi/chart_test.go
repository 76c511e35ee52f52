package httpapi

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/chart"
)

// TestOHLCVMergesProviderBeforeTrades: a default 7-day 1H chart of a mint
// with 24 h of trades answers the whole window (168 bars): the provider's
// bars before the first trade-derived one, then the trade-derived bars,
// with a source naming both. (It used to return the 24 h of trades only.)
func TestOHLCVMergesProviderBeforeTrades(t *testing.T) {
	h, snap := canonicalHarness(t)
	btc, _ := snap.Asset("bitcoin")
	mint := btc.Variants[0].Mint
	eng, err := analytics.New(analytics.Config{Clock: func() time.Time { return h.now }})
	if err != nil {
		t.Fatal(err)
	}
	h.srv.d.Analytics = eng
	wallets := syntheticMints(3)
	var trades []analytics.Trade
	for i := range 24 * 4 { // every 15 minutes over the last 24 h
		trades = append(trades, analytics.Trade{Signature: fmt.Sprintf("chart-%d", i), Slot: int64(i), BlockTime: h.now.Unix() - 24*3600 + int64(i)*900 + 1,
			Mint: mint, Side: "buy", TokenAmount: 1, USDAmount: 100, PriceUSD: 100, Wallet: wallets[i%3], Venue: "raydium"})
	}
	if r := eng.Ingest(trades); r.Accepted != len(trades) {
		t.Fatalf("ingest %+v", r)
	}
	r := h.getAs(t, "read", "/v1/assets/bitcoin/ohlcv")
	if r.status != 200 {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	var out struct {
		Source  string         `json:"source"`
		From    int64          `json:"from"`
		To      int64          `json:"to"`
		Candles []chart.Candle `json:"candles"`
	}
	if err := json.Unmarshal([]byte(r.raw), &out); err != nil {
		t.Fatal(err)
	}
	if out.Source != "analytics_trades+marketdata_a" || len(out.Candles) != 168 {
		t.Fatalf("source %q, %d candles; want analytics_trades+marketdata_a, 168", out.Source, len(out.Candles))
	}
	firstTrade := h.now.Unix() - 24*3600
	for i, c := range out.Candles {
		if i > 0 && c.Time != out.Candles[i-1].Time+3600 {
			t.Fatalf("gap or disorder at %d: %d after %d", i, c.Time, out.Candles[i-1].Time)
		}
		fromTrades := c.TradeCount() > 0
		if fromTrades != (c.Time >= firstTrade) || !fromTrades && c.Close != 7 {
			t.Fatalf("bar %d at %d: trades %d close %v (first trade-derived bar at %d)", i, c.Time, c.TradeCount(), c.Close, firstTrade)
		}
	}
}
