package httpapi

import (
	"fmt"
	"testing"

	"github.com/assetd/assetd/internal/analytics"
)

// fill=previous returns every 1H period of the range up to now: empty
// ones filled with the previous close (read from before the range when
// the first is empty), trades 0 and filled, the forming one isOpen.
func TestOHLCVFillPrevious(t *testing.T) {
	h, eng, crypto := analyticsHarness(t)
	mint := crypto.Variants[0].Mint
	now := h.now.Unix() // 12:00; the harness's trades are in the 11:00 bar
	for i, at := range []struct {
		ago   int64
		price float64
	}{{10 * 3600, 4}, {6 * 3600, 4.5}} {
		tr := analytics.Trade{Signature: fmt.Sprintf("fill-%d", i), Slot: int64(10 + i), BlockTime: now - at.ago + 30, Mint: mint, Side: "buy",
			TokenAmount: 10, USDAmount: 10 * at.price, PriceUSD: at.price, Wallet: syntheticMints(1)[0], Venue: "raydium"}
		if r := eng.Ingest([]analytics.Trade{tr}); r.Accepted != 1 {
			t.Fatalf("ingest: %+v", r)
		}
	}
	for _, tc := range []struct {
		from   int64
		first  int64 // the first bar's age in hours
		filled map[int64]float64
	}{
		// Nothing before 02:00: the bars start with the first trade.
		{now - 12*3600, 10, map[int64]float64{9: 4, 8: 4, 7: 4, 5: 4.5, 4: 4.5, 3: 4.5, 2: 4.5, 0: 6.1}},
		// The first period is empty: the 02:00 close before the range fills it.
		{now - 8*3600, 8, map[int64]float64{8: 4, 7: 4, 5: 4.5, 4: 4.5, 3: 4.5, 2: 4.5, 0: 6.1}},
	} {
		var out candlesResp
		r := h.get(t, fmt.Sprintf("/v1/assets/%s/ohlcv?interval=1H&fill=previous&from=%d&to=%d", crypto.AssetID, tc.from, now+60))
		if r.status != 200 {
			t.Fatalf("%d %s", r.status, r.raw)
		}
		decodeStrict(t, r, &out)
		if want := int(tc.first + 1); len(out.Candles) != want {
			t.Fatalf("from %d: %d bars, want %d: %s", tc.from, len(out.Candles), want, r.raw)
		}
		for i, c := range out.Candles {
			age := tc.first - int64(i)
			if c.Time != now-age*3600 {
				t.Fatalf("bar %d at %d, want %d", i, c.Time, now-age*3600)
			}
			p, filled := tc.filled[age]
			if c.Filled != filled || c.IsOpen != (age == 0) {
				t.Errorf("bar %dh ago: filled %v isOpen %v", age, c.Filled, c.IsOpen)
			}
			if filled && (c.Open != p || c.High != p || c.Low != p || c.Close != p || c.Volume != 0 || c.Trades == nil || *c.Trades != 0) {
				t.Errorf("filled bar %dh ago: %+v trades %v, want %v flat, volume 0, trades 0", age, c.Candle, c.Trades, p)
			}
			if !filled && c.TradeCount() == 0 {
				t.Errorf("bar %dh ago: no trades", age)
			}
		}
	}
	// fill=none (the default) leaves empty periods out.
	var out candlesResp
	decodeStrict(t, h.get(t, fmt.Sprintf("/v1/assets/%s/ohlcv?interval=1H&fill=none&from=%d&to=%d", crypto.AssetID, now-12*3600, now+60)), &out)
	if len(out.Candles) != 3 {
		t.Errorf("fill=none: %d bars, want 3", len(out.Candles))
	}
	for _, path := range []string{"ohlcv", "price-chart"} {
		if r := h.get(t, "/v1/assets/"+crypto.AssetID+"/"+path+"?fill=zero"); r.status != 400 || errCode(r) != "invalid_param" {
			t.Errorf("%s fill=zero: %d %s", path, r.status, r.raw)
		}
	}
	var pc candlesResp
	decodeStrict(t, h.get(t, fmt.Sprintf("/v1/assets/%s/price-chart?interval=1H&fill=previous&from=%d&to=%d", crypto.AssetID, now-8*3600, now+60)), &pc)
	if len(pc.Candles) != 9 || !pc.Candles[0].Filled || pc.Candles[0].Close != 4 {
		t.Errorf("price-chart fill=previous: %+v", pc.Candles)
	}
}
