package analytics

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/assetd/assetd/internal/market"
)

func TestMergeCandles(t *testing.T) {
	tr := func(ts ...int64) []CandleRow {
		var out []CandleRow
		for _, x := range ts {
			out = append(out, CandleRow{Candle: market.Candle{Time: x, Open: 1, High: 1, Low: 1, Close: 1, Volume: 5}, Trades: 2})
		}
		return out
	}
	pv := func(ts ...int64) []market.Candle {
		var out []market.Candle
		for _, x := range ts {
			out = append(out, market.Candle{Time: x, Open: 7, High: 7, Low: 7, Close: 7})
		}
		return out
	}
	times := func(bars []CandleRow) []int64 {
		out := []int64{}
		for _, b := range bars {
			out = append(out, b.Time)
		}
		return out
	}
	tests := []struct {
		name      string
		trades    []CandleRow
		provider  []market.Candle
		want      []int64
		source    string
		fromTrade int
	}{
		{"trades only", tr(3, 4), nil, []int64{3, 4}, "analytics_trades", 2},
		{"provider only", nil, pv(1, 2), []int64{1, 2}, "marketdata_a", 0},
		{"provider before the first trade bar", tr(3, 5), pv(1, 2, 3, 4, 5, 6), []int64{1, 2, 3, 5}, "analytics_trades+marketdata_a", 2},
		{"provider all after", tr(1), pv(2, 3), []int64{1}, "analytics_trades", 1},
		{"neither", nil, nil, []int64{}, "analytics_trades", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bars, src := MergeCandles(tt.trades, tt.provider, "marketdata_a")
			if diff := cmp.Diff(tt.want, times(bars)); diff != "" || src != tt.source {
				t.Fatalf("source %q (want %q), times (-want +got):\n%s", src, tt.source, diff)
			}
			n := 0
			for _, b := range bars {
				if b.Trades > 0 {
					n++
				}
			}
			if n != tt.fromTrade {
				t.Errorf("%d trade-derived bars, want %d", n, tt.fromTrade)
			}
		})
	}
}
