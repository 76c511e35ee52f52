package analytics

import (
	"fmt"
	"testing"

	"github.com/assetd/assetd/internal/market"
	"github.com/google/go-cmp/cmp"
)

type fixedPrice map[string]float64

func (f fixedPrice) ReferencePrice(mint string) (float64, bool) {
	p, ok := f[mint]
	return p, ok
}

// base is ten $1,000 trades of mintA at $100 in the first ten minutes of
// the hour before now, across two pools.
func admissionBase(now int64) []Trade {
	out := make([]Trade, 10)
	for i := range out {
		out[i] = trade(fmt.Sprintf("base-%d", i), mintA, now-3600+int64(60*i), 100, 1000, i)
		out[i].Pool = addr("pool", 1+i%2)
	}
	return out
}

// TestAdmissionRules: the dust and outlier rules, the confirmation of a
// repricing, and what each rejected trade leaves in the windows and
// candles.
func TestAdmissionRules(t *testing.T) {
	now := int64(monday + 12*hour)
	hourStart := now - 3600
	repricing := func(n int, pools bool, mult float64) []Trade {
		out := make([]Trade, n)
		for i := range out {
			out[i] = trade(fmt.Sprintf("pump-%d", i), mintA, now-1200+int64(30*i), 100*mult*(1+0.01*float64(i%3)), 800, 100+i)
			if pools {
				out[i].Pool = addr("pool", 1+i%2)
			}
		}
		return out
	}
	tests := []struct {
		name      string
		extra     []Trade
		fallback  fixedPrice
		noBase    bool
		price     float64 // the window price after
		high      float64 // the 1H candle's high after
		dust      int64
		outliers  int64
		trades24h int64 // window trade count (every trade)
		vol24h    float64
		adm       []Admission // the admission of each extra trade, when set
	}{
		{
			name:  "dust $0.01 at 17,000x",
			extra: []Trade{trade("dust", mintA, now-60, 100*17000, 0.01, 50)},
			price: 100, high: 100, dust: 1, trades24h: 11, vol24h: 10000.01,
			adm: []Admission{AdmissionDust},
		},
		{
			name:  "$500 at 10x",
			extra: []Trade{trade("out", mintA, now-60, 1000, 500, 51)},
			price: 100, high: 100, outliers: 1, trades24h: 11, vol24h: 10000,
			adm: []Admission{AdmissionOutlier},
		},
		{
			name:  "$500 at a tenth",
			extra: []Trade{trade("down", mintA, now-60, 10, 500, 51)},
			price: 100, high: 100, outliers: 1, trades24h: 11, vol24h: 10000,
			adm: []Admission{AdmissionOutlier},
		},
		{
			name:  "2.9x accepted but the reference holds",
			extra: []Trade{trade("big", mintA, now-120, 290, 1e7, 52), trade("after", mintA, now-60, 100, 1000, 53)},
			price: 100, high: 290, trades24h: 12, vol24h: 10000 + 1e7 + 1000,
			adm: []Admission{AdmissionAccepted, AdmissionAccepted},
		},
		{
			name:  "twenty consistent trades at 5x across two pools",
			extra: repricing(20, true, 5),
			price: 100 * 5 * 1.01, high: 100 * 5 * 1.02, outliers: ConfirmPoolTrades - 1, trades24h: 30, vol24h: 10000 + 800*(20-ConfirmPoolTrades+1),
			adm: admissions(20, ConfirmPoolTrades-1),
		},
		{
			name:  "twenty consistent trades at 5x, one pool",
			extra: repricing(20, false, 5),
			price: 100 * 5 * 1.01, high: 100 * 5 * 1.02, outliers: ConfirmTrades - 1, trades24h: 30, vol24h: 10000 + 800*(20-ConfirmTrades+1),
			adm: admissions(20, ConfirmTrades-1),
		},
		{
			name:     "fallback reference before the first trades",
			noBase:   true,
			fallback: fixedPrice{mintA: 100},
			extra:    []Trade{trade("f1", mintA, now-120, 1000, 500, 1), trade("f2", mintA, now-60, 101, 500, 2)},
			price:    101, high: 101, outliers: 1, trades24h: 2, vol24h: 500,
			adm: []Admission{AdmissionOutlier, AdmissionAccepted},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, classifyFirst := range []bool{false, true} {
				if tt.fallback != nil && !classifyFirst {
					continue // the fallback is Classify's (the stored path)
				}
				clk := newClock(now)
				e := newEngine(t, clk, func(c *Config) {
					if tt.fallback != nil {
						c.Fallback = tt.fallback
					}
				})
				var batch []Trade
				if !tt.noBase {
					batch = admissionBase(now)
				}
				batch = append(batch, tt.extra...)
				if classifyFirst {
					// As internal/ingest does: decide, then apply the decisions.
					e.Classify(batch)
					for i, a := range tt.adm {
						if got := batch[len(batch)-len(tt.extra)+i].Admission; got != a {
							t.Errorf("Classify: extra trade %d: %v, want %v", i, got, a)
						}
					}
				}
				mustIngest(t, e, batch...)
				w := e.Windows(mintA, at(now))
				if w == nil || w.Price == nil || !approxEq(*w.Price, tt.price) {
					t.Fatalf("classify=%v: price %v, want %v", classifyFirst, w, tt.price)
				}
				want := RejectedCounts{Dust: tt.dust, PriceOutlier: tt.outliers}
				if w.Rejected != want || w.Trade24h != tt.trades24h || !approxEq(w.Volume24hUSD, tt.vol24h) ||
					w.PriceTrades24h != tt.trades24h-tt.dust-tt.outliers {
					t.Errorf("classify=%v: rejected %+v, trades %d, priceTrades %d, volume %v; want %+v, %d, %d, %v", classifyFirst,
						w.Rejected, w.Trade24h, w.PriceTrades24h, w.Volume24hUSD, want, tt.trades24h, tt.trades24h-tt.dust-tt.outliers, tt.vol24h)
				}
				rows := e.Candles(mintA, "1H", hourStart-3600, now+3600)
				high, rej, accepted := 0.0, RejectedCounts{}, int64(0)
				for _, r := range rows {
					high = max(high, r.High)
					rej.Dust += r.Rejected.Dust
					rej.PriceOutlier += r.Rejected.PriceOutlier
					accepted += r.Trades
				}
				if !approxEq(high, tt.high) || rej != want || accepted != tt.trades24h-tt.dust-tt.outliers {
					t.Errorf("classify=%v: 1H high %v, rejected %+v, trades %d; want %v, %+v, %d", classifyFirst, high, rej, accepted,
						tt.high, want, tt.trades24h-tt.dust-tt.outliers)
				}
				m := e.Market(mintA, at(now))
				if tt.dust+tt.outliers > 0 && (m.Rejected == nil || m.Rejected.Dust != tt.dust || m.Rejected.PriceOutlier != tt.outliers) {
					t.Errorf("Market.Rejected = %+v", m.Rejected)
				}
			}
		})
	}
}

// admissions is n accepted admissions after k outliers.
func admissions(n, k int) []Admission {
	out := make([]Admission, n)
	for i := range out {
		out[i] = AdmissionAccepted
		if i < k {
			out[i] = AdmissionOutlier
		}
	}
	return out
}

func approxEq(a, b float64) bool {
	d := a - b
	return d < 1e-9*max(1, b) && -d < 1e-9*max(1, b)
}

// Stored decisions replayed into a fresh engine (the rebuild) give the
// same windows, candles and rejection counts as the engine that decided.
func TestAdmissionReplayIdentical(t *testing.T) {
	now := int64(monday + 12*hour)
	clk := newClock(now)
	batch := admissionBase(now)
	for i := range 30 {
		p, usd := 100.0+float64(i%5), 50.0
		switch i % 6 {
		case 1:
			p, usd = 100*float64(1000+i*500), 0.02
		case 4:
			p, usd = 100*float64(5+i), 700
		}
		tr := trade(fmt.Sprintf("mix-%d", i), mintA, now-1800+int64(40*i), p, usd, i)
		batch = append(batch, tr)
	}
	// live decides as it applies; the decisions a fresh engine's Classify
	// stores are replayed into another.
	live := newEngine(t, clk)
	mustIngest(t, live, batch...)
	decided := append([]Trade(nil), batch...)
	newEngine(t, clk).Classify(decided)

	replay := newEngine(t, clk)
	mustIngest(t, replay, decided...)
	if diff := cmp.Diff(live.Windows(mintA, at(now)), replay.Windows(mintA, at(now)), approx); diff != "" {
		t.Errorf("windows differ (-live +replay):\n%s", diff)
	}
	for _, iv := range []string{"1m", "1H", "1D"} {
		a, b := live.Candles(mintA, market.Interval(iv), 0, now+day), replay.Candles(mintA, market.Interval(iv), 0, now+day)
		if diff := cmp.Diff(a, b); diff != "" {
			t.Errorf("%s candles differ (-live +replay):\n%s", iv, diff)
		}
	}
	if live.Reference(mintA) != replay.Reference(mintA) {
		t.Errorf("reference %v, replayed %v", live.Reference(mintA), replay.Reference(mintA))
	}
	w := live.Windows(mintA, at(now))
	if w.Rejected.Dust != 5 || w.Rejected.PriceOutlier != 5 {
		t.Errorf("rejected %+v, want 5 dust and 5 outliers", w.Rejected)
	}
}

// Deciding and applying a trade allocates nothing.
func TestAdmissionStepAllocs(t *testing.T) {
	now := int64(monday + 12*hour)
	r := rules{dustUSD: DefaultDustUSD, factor: DefaultOutlierFactor}
	var st admState
	trades := admissionBase(now)
	trades = append(trades, trade("o", mintA, now, 1000, 500, 1), trade("d", mintA, now, 1000, 0.5, 1))
	allocs := testing.AllocsPerRun(100, func() {
		for i := range trades {
			r.step(&st, &trades[i], AdmissionUnset, 0)
		}
	})
	if allocs != 0 {
		t.Errorf("step allocates %v per run", allocs)
	}
}

// BenchmarkAdmissionStep is the admission's cost per trade on the ingest
// path: deciding and moving one mint's state (bench pool prices, all
// accepted: the reference is recomputed every RefEvery trades).
func BenchmarkAdmissionStep(b *testing.B) {
	p := getBenchPool()
	r := rules{dustUSD: DefaultDustUSD, factor: DefaultOutlierFactor}
	var st admState
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		r.step(&st, &p.trades[i%benchPoolSize], AdmissionUnset, 0)
		i++
	}
}
