package marketa

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/assetd/assetd/internal/provider/internal/providertest"
)

// TestImplausibleValuesNulled: values that were served as they came
// before the bounds (a price of 1e308, a negative liquidity, negative
// counts, a market cap of 1e300) become null and are counted; the next
// fetch after the upstream recovers carries its values again.
func TestImplausibleValuesNulled(t *testing.T) {
	good := testdata(t, "token_overview_sol.json")
	bad := good
	for _, p := range []struct {
		raw   string
		field string
	}{{"1e308", "price"}, {"-5000", "liquidity"}, {"1e300", "marketCap"}, {"-3", "trade24h"}, {"-1", "uniqueWallet1h"}, {"-1e9", "v24hUSD"}} {
		bad = providertest.Patch(t, bad, p.raw, "data", p.field)
	}
	var body atomic.Pointer[[]byte] // read by the server goroutine
	body.Store(&bad)
	var nulled providertest.Nulled
	c := newClient(t, providertest.Recorder(func() []byte { return *body.Load() }), func(cfg *Config) { cfg.Implausible = nulled.Report })
	got, err := c.Snapshots(context.Background(), []string{mintSOL})
	if err != nil {
		t.Fatal(err)
	}
	m := got[mintSOL].Market
	if m.Price != nil || m.Liquidity != nil || m.MarketCap != nil || m.Trade24h != nil || m.UniqueWallet1h != nil || m.Volume24hUSD != nil {
		t.Errorf("implausible values served: %+v", m)
	}
	if m.Trade1h == nil || *m.Trade1h != 1440761 || m.PriceChange24hPercent == nil {
		t.Errorf("plausible values lost: %+v", m)
	}
	want := map[string]int{"marketa/price": 1, "marketa/liquidity": 1, "marketa/marketCap": 1, "marketa/trade24h": 1,
		"marketa/uniqueWallet1h": 1, "marketa/volume24hUSD": 1}
	if diff := cmp.Diff(want, nulled.Counts()); diff != "" {
		t.Errorf("counted (-want +got):\n%s", diff)
	}
	body.Store(&good) // the upstream recovers: the next fetch is served as is
	got, _ = c.Snapshots(context.Background(), []string{mintSOL})
	if m := got[mintSOL].Market; m.Price == nil || *m.Price != 185.82977629057913 || m.Liquidity == nil {
		t.Errorf("after recovery: %+v", m)
	}

	// Pools and candles go through the same bounds.
	pools := providertest.Patch(t, testdata(t, "markets_jitosol.json"), "-1733225301", "data", "items", 0, "liquidity")
	c = newClient(t, providertest.JSON(200, pools), func(cfg *Config) { cfg.Implausible = nulled.Report })
	ms, err := c.Markets(context.Background(), mintJitoSOL, 10)
	if err != nil || len(ms) == 0 || ms[0].LiquidityUSD != nil && *ms[0].LiquidityUSD < 0 {
		t.Fatalf("markets: %v %+v", err, ms)
	}
	bars := providertest.Patch(t, testdata(t, "ohlcv_sol_15m.json"), "1e308", "data", "items", 0, "h")
	c = newClient(t, providertest.JSON(200, bars), func(cfg *Config) { cfg.Implausible = nulled.Report })
	cs, err := c.OHLCV(context.Background(), mintSOL, "15m", 1726670700, 1726672500)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range cs {
		if b.Time == 1726670700 {
			t.Errorf("bar with a high of 1e308 served: %+v", b)
		}
	}
	if n := nulled.Counts(); n["marketa/liquidityUsd"] != 1 || n["marketa/candle"] != 1 {
		t.Errorf("pool and candle counts: %v", n)
	}
}
