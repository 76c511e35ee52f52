package chart

import (
	"crypto/sha256"
	"encoding/csv"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/market"
	"github.com/mr-tron/base58"
)

// solOneMinute reads the real 1-minute SOL/USDT candles of the shared
// data (skipping when absent).
func solOneMinute(t testing.TB) []market.Candle {
	t.Helper()
	var path string
	for _, dir := range []string{"../../shared/data", "../../../shared/data"} {
		if _, err := os.Stat(dir + "/ohlcv-sol-usdt-1m.csv"); err == nil {
			path = dir + "/ohlcv-sol-usdt-1m.csv"
			break
		}
	}
	if path == "" {
		t.Skip("shared data ohlcv-sol-usdt-1m.csv not found")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil || len(recs) < 2 {
		t.Fatalf("%s: %v", path, err)
	}
	var out []market.Candle
	for _, r := range recs[1:] {
		ts, err := time.Parse(time.DateTime, r[0])
		if err != nil {
			t.Fatal(err)
		}
		var v [5]float64
		for j := range v {
			if v[j], err = strconv.ParseFloat(r[j+1], 64); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, market.Candle{Time: ts.Unix(), Open: v[0], High: v[1], Low: v[2], Close: v[3], Volume: v[4]})
	}
	return out
}

func testAddr(kind string, i int) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "assetd chart test %s %d", kind, i))
	return base58.Encode(sum[:])
}

// solEngine is an engine holding trades derived from each real 1-minute
// candle (open, high, low, close, 15 s apart), as the analytics
// candle-truth test derives them.
func solEngine(t testing.TB) (*analytics.Engine, []market.Candle, string) {
	oneMin := solOneMinute(t)
	mint := testAddr("sol", 0)
	last := oneMin[len(oneMin)-1].Time
	eng, err := analytics.New(analytics.Config{Clock: func() time.Time { return time.Unix(last+120, 0) }})
	if err != nil {
		t.Fatal(err)
	}
	var trades []analytics.Trade
	for _, c := range oneMin {
		for k, p := range [4]float64{c.Open, c.High, c.Low, c.Close} {
			trades = append(trades, analytics.Trade{Signature: fmt.Sprintf("sol-%d-%d", c.Time, k), Slot: c.Time*4 + int64(k), BlockTime: c.Time + int64(15*k),
				Mint: mint, Side: analytics.SideBuy, TokenAmount: max(c.Volume/4, 1e-9), USDAmount: max(c.Volume/4, 1e-9) * p, PriceUSD: p,
				Wallet: testAddr("wallet", k), Venue: "binance-replay"})
		}
	}
	if res := eng.Ingest(trades); res.Rejected != 0 {
		t.Fatalf("ingest: %+v", res)
	}
	return eng, oneMin, mint
}

// price-at over the real candles: the exchange's close inside the range,
// no_data before it, out_of_range beyond the search width after it.
func TestPriceAtSOLUSDT(t *testing.T) {
	eng, oneMin, mint := solEngine(t)
	last := oneMin[len(oneMin)-1].Time
	s := New(eng, nil, nil, func() time.Time { return time.Unix(last+120, 0) })
	var ts []int64
	for i, c := range oneMin {
		ts = append(ts, c.Time+45+int64(i%15)) // after the bar's close trade
	}
	got := s.PriceAt(mint, ts, 0)
	for i, p := range got {
		c := oneMin[i]
		if p.Status != PriceOK || *p.Price != c.Close || *p.At != c.Time || *p.Interval != "1m" || *p.Source != analytics.SourceAnalyticsTrades {
			t.Fatalf("ts %d: %+v, want the close %v of the 1m bar at %d", ts[i], p, c.Close, c.Time)
		}
	}
	first := oneMin[0].Time
	for _, tc := range []struct {
		name  string
		ts    int64
		width int64
		want  string
	}{
		{"a day before the data", first - 86400, 0, PriceNoData},
		{"a second before the data", first - 1, 3600, PriceNoData},
		{"two days after, width 1h", last + 2*86400 + 3*3600, 3600, PriceOutOfRange},
		{"ten minutes after, width 1h", last + 600, 3600, PriceOK},
		{"ten minutes after, default width", last + 600, 0, PriceOK}, // the 1H or a coarser bar holding it
	} {
		p := s.PriceAt(mint, []int64{tc.ts}, tc.width)[0]
		if p.Status != tc.want {
			t.Errorf("%s: %+v, want %s", tc.name, p, tc.want)
		}
		if tc.want == PriceOK && *p.Price != oneMin[len(oneMin)-1].Close {
			t.Errorf("%s: price %v, want the last close %v", tc.name, *p.Price, oneMin[len(oneMin)-1].Close)
		}
	}
	t.Logf("%d timestamps priced at their 1m close", len(got))
}

// BenchmarkPriceAt100x100 prices 100 mints x 100 timestamps (the batch
// endpoint's bound) over the real SOL candles (the same engine mint for
// every query: the work per query is the same).
func BenchmarkPriceAt100x100(b *testing.B) {
	eng, oneMin, mint := solEngine(b)
	last := oneMin[len(oneMin)-1].Time
	s := New(eng, nil, nil, func() time.Time { return time.Unix(last+120, 0) })
	ts := make([]int64, 100)
	for i := range ts {
		ts[i] = oneMin[i*len(oneMin)/100].Time + 30
	}
	b.ReportAllocs()
	for b.Loop() {
		for range 100 {
			if p := s.PriceAt(mint, ts, 0); p[99].Status != PriceOK {
				b.Fatal(p[99])
			}
		}
	}
}

// A provider bar whose wick fails the outlier rule is clipped to the
// bound and marked sanitized; a sound one is left alone.
func TestSanitizeProviderWicks(t *testing.T) {
	mint := testAddr("wick", 0)
	pv := fakeProvider{mint: {
		{Time: 0, Open: 75, High: 1_296_359, Low: 74, Close: 76, Volume: 1},
		{Time: 3600, Open: 76, High: 80, Low: 0.5, Close: 77, Volume: 1},
		{Time: 7200, Open: 77, High: 200, Low: 30, Close: 78, Volume: 1},
	}}
	c := New(nil, pv, nil, func() time.Time { return time.Unix(86400, 0) }).Mint(mint, "1H", 0, 86400)
	want := []struct {
		high, low float64
		sanitized bool
	}{{76 * 3, 74, true}, {80, 76.0 / 3, true}, {200, 30, false}}
	for i, w := range want {
		got := c.Candles[i]
		if got.High != w.high || got.Low != w.low || got.Sanitized != w.sanitized {
			t.Errorf("bar %d: high %v low %v sanitized %v, want %v %v %v", i, got.High, got.Low, got.Sanitized, w.high, w.low, w.sanitized)
		}
	}
}
