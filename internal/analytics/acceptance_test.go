package analytics

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/market"
)

// sharedDataDirs are where the shared data sets may sit relative to the
// package directory (the repository's sibling "shared" checkout, or one
// inside the repository).
var sharedDataDirs = []string{"../../shared/data", "../../../shared/data"}

func findSharedFile(t *testing.T, name string) string {
	t.Helper()
	for _, d := range sharedDataDirs {
		p := filepath.Join(d, name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Skipf("shared data %s not found in %v", name, sharedDataDirs)
	return ""
}

// readOHLCV reads a Binance candle CSV: header
// "datetime,open,high,low,close,volume", datetime UTC as
// "2006-01-02 15:04:05" (or a bare date for 1d/1w), volume in base units.
func readOHLCV(t *testing.T, path string) []market.Candle {
	t.Helper()
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("%s absent", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	want := []string{"datetime", "open", "high", "low", "close", "volume"}
	if len(recs) == 0 || fmt.Sprint(recs[0]) != fmt.Sprint(want) {
		t.Fatalf("%s: header %v, want %v", path, recs[0], want)
	}
	var out []market.Candle
	for i, r := range recs[1:] {
		ts, err := time.Parse(time.DateTime, r[0])
		if err != nil {
			ts, err = time.Parse(time.DateOnly, r[0])
		}
		if err != nil {
			t.Fatalf("%s row %d: %v", path, i+2, err)
		}
		var v [5]float64
		for j := range v {
			if v[j], err = strconv.ParseFloat(r[j+1], 64); err != nil {
				t.Fatalf("%s row %d: %v", path, i+2, err)
			}
		}
		out = append(out, market.Candle{Time: ts.Unix(), Open: v[0], High: v[1], Low: v[2], Close: v[3], Volume: v[4]})
	}
	return out
}

// TestReplaySOLUSDT1m replays trades synthesised from the real 1m
// SOL/USDT candles (open, high, low, close per minute, in that order,
// with increasing slots), shuffled, and checks that the engine's 4H and
// 1D candles equal the real 4H and 1D candles over every period the 1m
// file covers completely.
func TestReplaySOLUSDT1m(t *testing.T) {
	oneMin := readOHLCV(t, findSharedFile(t, "ohlcv-sol-usdt-1m.csv"))
	if len(oneMin) == 0 {
		t.Skip("no 1m candles")
	}
	sol := addr("sol-usdt", 0)
	var trades []Trade
	slot := int64(300_000_000)
	for _, c := range oneMin {
		for k, p := range [4]float64{c.Open, c.High, c.Low, c.Close} {
			slot++
			trades = append(trades, Trade{
				Signature:   fmt.Sprintf("sol-%d-%d", c.Time, k),
				Slot:        slot,
				BlockTime:   c.Time + int64(15*k),
				Mint:        sol,
				Side:        [2]string{SideBuy, SideSell}[k%2],
				TokenAmount: max(c.Volume/4, 1e-9),
				USDAmount:   max(c.Volume/4, 1e-9) * p,
				PriceUSD:    p,
				Wallet:      wallet(k),
				Venue:       "binance-replay",
			})
		}
	}
	rng := rand.New(rand.NewPCG(2025, 10))
	rng.Shuffle(len(trades), func(i, j int) { trades[i], trades[j] = trades[j], trades[i] })

	first, last := oneMin[0].Time, oneMin[len(oneMin)-1].Time
	clk := newClock(last + 60)
	e := newEngine(t, clk)
	for b := 0; b < len(trades); b += 997 {
		res := e.Ingest(trades[b:min(b+997, len(trades))])
		if res.Rejected != 0 || res.Duplicates != 0 {
			t.Fatalf("Ingest: %+v", res)
		}
	}
	// The 1m file has no gaps; check, since "covered" relies on it.
	if n := int64(len(oneMin)); last-first != (n-1)*60 {
		t.Fatalf("1m file has gaps: %d rows over %d minutes", n, (last-first)/60+1)
	}

	for _, tc := range []struct {
		iv   market.Interval
		file string
	}{{"4H", "ohlcv-sol-usdt-4h.csv"}, {"1D", "ohlcv-sol-usdt-1d.csv"}} {
		ref := readOHLCV(t, findSharedFile(t, tc.file))
		d := int64(market.Interval(tc.iv).Duration() / time.Second)
		got := map[int64]CandleRow{}
		for _, r := range e.Candles(sol, tc.iv, first-d, last+d) {
			got[r.Time] = r
		}
		compared := 0
		for _, want := range ref {
			if want.Time < first || want.Time+d > last+60 {
				continue // not fully covered by the 1m file
			}
			compared++
			g, ok := got[want.Time]
			if !ok {
				t.Errorf("%s %s: missing candle", tc.iv, time.Unix(want.Time, 0).UTC())
				continue
			}
			if g.Open != want.Open || g.High != want.High || g.Low != want.Low || g.Close != want.Close {
				t.Errorf("%s %s: OHLC %v %v %v %v, want %v %v %v %v", tc.iv, time.Unix(want.Time, 0).UTC(),
					g.Open, g.High, g.Low, g.Close, want.Open, want.High, want.Low, want.Close)
			}
			if g.Trades != 4*d/60 {
				t.Errorf("%s %s: %d trades, want %d", tc.iv, time.Unix(want.Time, 0).UTC(), g.Trades, 4*d/60)
			}
		}
		// 2025-10-23 11:09 .. 2025-10-30 10:08: 41 full 4H bars, 6 full days.
		t.Logf("%s: compared %d full periods", tc.iv, compared)
		if compared == 0 {
			t.Errorf("%s: no full period compared", tc.iv)
		}
	}
}
