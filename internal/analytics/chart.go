package analytics

import "github.com/assetd/assetd/internal/market"

// MergedSource is the `source` of a chart merged by MergeCandles from
// trade-derived bars and a provider's: "analytics_trades+" and the
// provider's source (e.g. "analytics_trades+marketdata_a").
func MergedSource(provider string) string { return SourceAnalyticsTrades + "+" + provider }

// MergeCandles is the chart rule of OHLCV and price-chart (docs/
// analytics-api.md): a range is answered from the trade-derived bars
// where trades exist and from the provider's bars before the first
// trade-derived one. trades and provider are ascending by time; the
// result is ascending, provider bars (Trades 0) first. source is
// SourceAnalyticsTrades when no provider bar was used, providerSource
// when no trade-derived bar exists, else MergedSource(providerSource).
func MergeCandles(trades []CandleRow, provider []market.Candle, providerSource string) (bars []CandleRow, source string) {
	n := len(provider)
	if len(trades) > 0 {
		first := trades[0].Time
		n = 0
		for n < len(provider) && provider[n].Time < first {
			n++
		}
	}
	switch {
	case n == 0:
		return trades, SourceAnalyticsTrades
	case len(trades) == 0:
		source = providerSource
	default:
		source = MergedSource(providerSource)
	}
	bars = make([]CandleRow, 0, n+len(trades))
	for _, c := range provider[:n] {
		bars = append(bars, CandleRow{Candle: c})
	}
	return append(bars, trades...), source
}
