package analytics

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/assetd/assetd/internal/market"
)

var _ market.OHLCVProvider = (*Engine)(nil)

func TestPeriodStart(t *testing.T) {
	const sunday = monday - day // 2025-10-26
	tests := []struct {
		iv   market.Interval
		t    int64
		want int64
	}{
		{"1m", monday + 59, monday},
		{"1m", monday + 60, monday + 60},
		{"5m", monday + 299, monday},
		{"5m", monday - 1, monday - 300},
		{"15m", monday + 15*60 + 1, monday + 15*60},
		{"1H", monday + 2*hour - 1, monday + hour},
		{"4H", monday + 4*hour, monday + 4*hour},
		{"4H", monday + 4*hour - 1, monday},
		{"4H", monday + 23*hour, monday + 20*hour},
		{"1D", monday + day - 1, monday},
		{"1D", sunday + 13*hour, sunday},
		{"1W", monday, monday},
		{"1W", monday - 1, monday - 7*day},      // Sunday 23:59:59 belongs to the previous week
		{"1W", monday + 3*day + 5*hour, monday}, // Thursday
		{"1W", sunday + 23*hour, monday - 7*day},
		{"1W", monday + 7*day, monday + 7*day},
		{"1W", 4 * day, 4 * day},  // 1970-01-05, the first Monday
		{"1W", 3 * day, -3 * day}, // 1970-01-04 (Sunday) -> 1969-12-29
	}
	for _, tt := range tests {
		got, ok := PeriodStart(tt.iv, tt.t)
		if !ok || got != tt.want {
			t.Errorf("PeriodStart(%s, %d) = %d, %v; want %d", tt.iv, tt.t, got, ok, tt.want)
		}
		if wd := time.Unix(got, 0).UTC().Weekday(); tt.iv == "1W" && wd != time.Monday {
			t.Errorf("PeriodStart(1W, %d) is a %s", tt.t, wd)
		}
	}
	if _, ok := PeriodStart("2m", 0); ok {
		t.Error("PeriodStart(2m) ok")
	}
}

func row(t int64, o, h, l, c, v float64, n int64) CandleRow {
	return CandleRow{Candle: market.Candle{Time: t, Open: o, High: h, Low: l, Close: c, Volume: v}, Trades: n}
}

// TestCandlesAcrossBoundaries ingests, in shuffled order, trades around a
// Sunday/Monday midnight (a day and a week boundary) with an idle gap,
// and checks every interval against hand-computed bars.
func TestCandlesAcrossBoundaries(t *testing.T) {
	const sunday = monday - day
	trades := []Trade{
		trade("c1", mintA, sunday+20*hour+5, 10, 100, 1),   // Sun 20:00:05
		trade("c2", mintA, monday-30, 12, 50, 2),           // Sun 23:59:30
		trade("c3", mintA, monday-30, 11, 20, 3),           // same second, later slot
		trade("c4", mintA, monday+10, 9, 10, 1),            // Mon 00:00:10
		trade("c5", mintA, monday+50, 9.5, 30, 2),          // Mon 00:00:50
		trade("c6", mintA, monday+3*hour+7*60+1, 8, 40, 4), // Mon 03:07:01, after a gap
		trade("c7", mintA, monday+4*hour+59, 8.5, 5, 5),    // Mon 04:00:59
		trade("c8", mintA, monday+4*hour+1, 7, 5, 6),       // Mon 04:00:01
		trade("c9", mintA, monday+4*hour+1, 7.2, 5, 7),     // same second and slot as c8, signature "c9" > "c8"
	}
	trades[2].Slot = trades[1].Slot + 1
	trades[8].Slot = trades[7].Slot
	rng := rand.New(rand.NewPCG(1, 2))
	rng.Shuffle(len(trades), func(i, j int) { trades[i], trades[j] = trades[j], trades[i] })
	clk := newClock(monday + 5*hour)
	e := newEngine(t, clk)
	for _, tr := range trades { // one by one: every arrival order matters
		mustIngest(t, e, tr)
	}
	want := map[market.Interval][]CandleRow{
		"1m": {
			row(sunday+20*hour, 10, 10, 10, 10, 100, 1),
			row(monday-60, 12, 12, 11, 11, 70, 2),
			row(monday, 9, 9.5, 9, 9.5, 40, 2),
			row(monday+3*hour+7*60, 8, 8, 8, 8, 40, 1),
			row(monday+4*hour, 7, 8.5, 7, 8.5, 15, 3),
		},
		"5m": {
			row(sunday+20*hour, 10, 10, 10, 10, 100, 1),
			row(monday-300, 12, 12, 11, 11, 70, 2),
			row(monday, 9, 9.5, 9, 9.5, 40, 2),
			row(monday+3*hour+5*60, 8, 8, 8, 8, 40, 1),
			row(monday+4*hour, 7, 8.5, 7, 8.5, 15, 3),
		},
		"15m": {
			row(sunday+20*hour, 10, 10, 10, 10, 100, 1),
			row(monday-900, 12, 12, 11, 11, 70, 2),
			row(monday, 9, 9.5, 9, 9.5, 40, 2),
			row(monday+3*hour, 8, 8, 8, 8, 40, 1),
			row(monday+4*hour, 7, 8.5, 7, 8.5, 15, 3),
		},
		"1H": {
			row(sunday+20*hour, 10, 10, 10, 10, 100, 1),
			row(monday-hour, 12, 12, 11, 11, 70, 2),
			row(monday, 9, 9.5, 9, 9.5, 40, 2),
			row(monday+3*hour, 8, 8, 8, 8, 40, 1),
			row(monday+4*hour, 7, 8.5, 7, 8.5, 15, 3),
		},
		"4H": {
			row(sunday+20*hour, 10, 12, 10, 11, 170, 3),
			row(monday, 9, 9.5, 8, 8, 80, 3),
			row(monday+4*hour, 7, 8.5, 7, 8.5, 15, 3),
		},
		"1D": {
			row(sunday, 10, 12, 10, 11, 170, 3),
			row(monday, 9, 9.5, 7, 8.5, 95, 6),
		},
		"1W": {
			row(monday-7*day, 10, 12, 10, 11, 170, 3),
			row(monday, 9, 9.5, 7, 8.5, 95, 6),
		},
	}
	for _, iv := range market.Intervals {
		got := e.Candles(mintA, iv, 0, monday+30*day)
		if diff := cmp.Diff(want[iv], got, approx, noFirstAt); diff != "" {
			t.Errorf("%s candles (-want +got):\n%s", iv, diff)
		}
	}
	// [from, to): from inclusive, to exclusive.
	if got := e.Candles(mintA, "1H", monday, monday+4*hour); len(got) != 2 || got[0].Time != monday || got[1].Time != monday+3*hour {
		t.Errorf("Candles(1H, [monday, +4h)) = %v", got)
	}
	if got := e.Candles(mintA, "1H", monday+hour, monday+3*hour); got != nil {
		t.Errorf("Candles over the gap = %v, want none (no zero fill)", got)
	}
	if got := e.Candles(mintA, "3H", 0, monday+day); got != nil {
		t.Errorf("unknown interval: %v", got)
	}
	c, err := e.OHLCV(context.Background(), mintA, "1D", sunday, monday+day)
	if err != nil || len(c) != 2 || c[1] != want["1D"][1].Candle {
		t.Errorf("OHLCV(1D) = %v, %v", c, err)
	}
	if _, err := e.OHLCV(context.Background(), mintA, "2D", 0, 1); err == nil {
		t.Error("OHLCV(2D): nil error")
	}
}

func TestCandleRetention(t *testing.T) {
	now := int64(monday + 40*day)
	clk := newClock(now)
	e := newEngine(t, clk)
	// 8 days old: too old for 1m (7 days), kept for 5m (30 days) and up.
	mustIngest(t, e, trade("old", mintA, now-8*day, 2, 20, 1))
	if got := e.Candles(mintA, "1m", 0, now); got != nil {
		t.Errorf("1m candle of an 8-day-old trade: %v", got)
	}
	for _, iv := range []market.Interval{"5m", "15m", "1H", "4H", "1D", "1W"} {
		if got := e.Candles(mintA, iv, 0, now); len(got) != 1 {
			t.Errorf("%s candles = %v, want 1", iv, got)
		}
	}
	e.Prune(at(now + 23*day)) // 31 days: 5m and 15m go, 1H (365 days) stays
	for iv, want := range map[market.Interval]int{"5m": 0, "15m": 0, "1H": 1} {
		if got := e.Candles(mintA, iv, 0, now); len(got) != want {
			t.Errorf("%s candles after 31 days = %v, want %d", iv, got, want)
		}
	}
	e.Prune(at(now + 360*day)) // 368 days: 1H goes, 4H (730 days), 1D and 1W stay
	for iv, want := range map[market.Interval]int{"1H": 0, "4H": 1, "1D": 1, "1W": 1} {
		if got := e.Candles(mintA, iv, 0, now); len(got) != want {
			t.Errorf("%s candles after 368 days = %v, want %d", iv, got, want)
		}
	}
}

func TestDirtyCandlesAndLoad(t *testing.T) {
	now := int64(monday + hour)
	clk := newClock(now)
	e := newEngine(t, clk)
	mustIngest(t, e,
		trade("d1", mintA, monday+60, 2, 10, 1),
		trade("d2", mintA, monday+90, 3, 10, 1),
	)
	dirty := e.DirtyCandles()
	if len(dirty) != numIntervals {
		t.Fatalf("DirtyCandles = %d rows, want %d", len(dirty), numIntervals)
	}
	want1m := CandleUpdate{
		Mint: mintA, Interval: "1m", CandleRow: row(monday+60, 2, 3, 2, 3, 20, 2),
		OpenRef:  TradeRef{BlockTime: monday + 60, Slot: (monday + 60) * 2, Signature: "d1"},
		CloseRef: TradeRef{BlockTime: monday + 90, Slot: (monday + 90) * 2, Signature: "d2"},
	}
	if diff := cmp.Diff(want1m, dirty[0], noFirstAt); diff != "" {
		t.Errorf("first dirty row (-want +got):\n%s", diff)
	}
	for i, iv := range market.Intervals {
		if dirty[i].Interval != iv {
			t.Errorf("dirty[%d].Interval = %s, want %s", i, dirty[i].Interval, iv)
		}
	}
	if again := e.DirtyCandles(); len(again) != 0 {
		t.Errorf("second DirtyCandles = %v, want empty", again)
	}
	// A late trade changes the open of the 1m..1W bars it falls in; one
	// in a new minute only adds a 1m and 5m... bar and touches the rest.
	mustIngest(t, e, trade("d0", mintA, monday+61, 1.5, 1, 2))
	dirty = e.DirtyCandles()
	if len(dirty) != numIntervals || dirty[0].Open != 2 || dirty[0].Low != 1.5 {
		t.Errorf("after a late trade: %+v", dirty)
	}
	mustIngest(t, e, trade("d3", mintA, monday+120, 4, 1, 2))
	if dirty = e.DirtyCandles(); len(dirty) != numIntervals || dirty[0].Time != monday+120 {
		t.Errorf("after a new-minute trade: %+v", dirty)
	}

	// Persist everything, reload into a fresh engine, continue there: the
	// result equals the engine that saw every trade.
	var all []CandleUpdate
	for _, iv := range market.Intervals {
		for _, r := range e.Candles(mintA, iv, 0, now+day) {
			all = append(all, CandleUpdate{Mint: mintA, Interval: iv, CandleRow: r})
		}
	}
	// The refs come from the dirty stream; rebuild them from a full dump.
	e2src := newEngine(t, clk)
	mustIngest(t, e2src,
		trade("d1", mintA, monday+60, 2, 10, 1),
		trade("d2", mintA, monday+90, 3, 10, 1),
		trade("d0", mintA, monday+61, 1.5, 1, 2),
		trade("d3", mintA, monday+120, 4, 1, 2),
	)
	persisted := e2src.DirtyCandles()
	if len(persisted) != len(all) {
		t.Fatalf("persisted %d rows, engine has %d", len(persisted), len(all))
	}
	e2 := newEngine(t, clk)
	if n, skipped := e2.LoadCandles(persisted); n != len(persisted) || skipped != nil {
		t.Fatalf("LoadCandles = %d, %v", n, skipped)
	}
	if d := e2.DirtyCandles(); len(d) != 0 {
		t.Errorf("loaded candles are dirty: %v", d)
	}
	late := []Trade{
		trade("e1", mintA, monday+60, 1.9, 1, 3), // before d1 by signature? no: same second, slot, "e1" > "d1"
		trade("e2", mintA, monday+59, 2.5, 1, 3), // earlier minute
		trade("e3", mintA, monday+119, 2.2, 1, 3),
	}
	mustIngest(t, e, late...)
	mustIngest(t, e2, late...)
	for _, iv := range market.Intervals {
		if diff := cmp.Diff(e.Candles(mintA, iv, 0, now+day), e2.Candles(mintA, iv, 0, now+day), approx); diff != "" {
			t.Errorf("%s: reloaded engine differs (-continuous +reloaded):\n%s", iv, diff)
		}
	}

	// Invalid rows are skipped, each with its reason; the valid ones load.
	bad := []CandleUpdate{
		{Mint: mintB, Interval: "1H", CandleRow: row(monday, 1, 2, 0.5, 1.5, 1, 1)},
		{Mint: mintB, Interval: "1H", CandleRow: row(monday+1, 1, 2, 0.5, 1.5, 1, 1)}, // unaligned
	}
	if n, skipped := e2.LoadCandles(bad); n != 1 || len(skipped) != 1 || !strings.Contains(skipped[0].Error(), "aligned") {
		t.Errorf("LoadCandles(valid, unaligned) = %d, %v", n, skipped)
	}
	if got := e2.Candles(mintB, "1H", 0, now); len(got) != 1 || got[0].Time != monday {
		t.Errorf("valid row of a partly invalid load: %v", got)
	}
	for name, r := range map[string]CandleUpdate{
		"bad mint":  {Mint: "x", Interval: "1H", CandleRow: row(monday, 1, 2, 0.5, 1.5, 1, 1)},
		"bad iv":    {Mint: mintB, Interval: "2H", CandleRow: row(monday, 1, 2, 0.5, 1.5, 1, 1)},
		"high<open": {Mint: mintB, Interval: "1H", CandleRow: row(monday, 3, 2, 0.5, 1.5, 1, 1)},
		"low>close": {Mint: mintB, Interval: "1H", CandleRow: row(monday, 1, 2, 1.2, 1.1, 1, 1)},
		"zero":      {Mint: mintB, Interval: "1H", CandleRow: row(monday, 0, 2, 0.5, 1.5, 1, 1)},
		"neg vol":   {Mint: mintB, Interval: "1H", CandleRow: row(monday, 1, 2, 0.5, 1.5, -1, 1)},
		// What two usdAmount 1e308 trades persisted before the value
		// bounds existed: it stopped `assetd serve` from starting.
		"+Inf vol":    {Mint: mintB, Interval: "1H", CandleRow: row(monday, 1, 2, 0.5, 1.5, math.Inf(1), 2)},
		"1e308 vol":   {Mint: mintB, Interval: "1H", CandleRow: row(monday, 1, 2, 0.5, 1.5, 1e308, 1)},
		"NaN vol":     {Mint: mintB, Interval: "1H", CandleRow: row(monday, 1, 2, 0.5, 1.5, math.NaN(), 1)},
		"1e308 price": {Mint: mintB, Interval: "1H", CandleRow: row(monday, 1, 1e308, 0.5, 1.5, 1, 1)},
		"neg trades":  {Mint: mintB, Interval: "1H", CandleRow: row(monday, 1, 2, 0.5, 1.5, 1, -1)},
		"Inf open":    {Mint: mintB, Interval: "1H", CandleRow: row(monday, math.Inf(1), math.Inf(1), 0.5, 1.5, 1, 1)},
		"tiny low":    {Mint: mintB, Interval: "1H", CandleRow: row(monday, 1, 2, 1e-300, 1.5, 1, 1)},
	} {
		e4 := newEngine(t, clk)
		if n, skipped := e4.LoadCandles([]CandleUpdate{r}); n != 0 || len(skipped) != 1 {
			t.Errorf("LoadCandles(%s) = %d, %v; want it skipped", name, n, skipped)
		}
		if got := e4.Candles(mintB, "1H", 0, now); got != nil {
			t.Errorf("LoadCandles(%s) loaded %v", name, got)
		}
	}

	// Without refs, a loaded bar keeps its open and takes later trades'
	// closes.
	e3 := newEngine(t, clk)
	if _, skipped := e3.LoadCandles([]CandleUpdate{{Mint: mintC, Interval: "1H", CandleRow: row(monday, 5, 6, 4, 5.5, 100, 10)}}); skipped != nil {
		t.Fatal(skipped)
	}
	mustIngest(t, e3, trade("n1", mintC, monday+10, 7, 10, 1))
	if diff := cmp.Diff([]CandleRow{row(monday, 5, 7, 4, 7, 110, 11)}, e3.Candles(mintC, "1H", 0, now), noFirstAt); diff != "" {
		t.Errorf("ref-less loaded bar (-want +got):\n%s", diff)
	}
}
