package catalog

import (
	"os"
	"slices"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/tokenindex"
)

// BenchmarkSearchWithIndex measures v1 search over the seed registry and
// the token index of ASSETD_TOKENS_FILE (else the shared 150k CSV), with
// the p50 and p99 of the per-call latency.
func BenchmarkSearchWithIndex(b *testing.B) {
	path := os.Getenv("ASSETD_TOKENS_FILE")
	if path == "" {
		path = "../../../shared/data/token-index-sonarwatch-solana-150k.csv"
	}
	if _, err := os.Stat(path); err != nil {
		b.Skip("token file absent:", err)
	}
	x, _, err := tokenindex.LoadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	c, _ := newSeedCatalog(b, "")
	c.SetTokens(func() *tokenindex.Index { return x })
	for _, q := range []struct{ name, q string }{
		{"ticker-BONK", "BONK"}, {"ticker-USDC", "USDC"}, {"name-prefix-dog-wif", "dog wif"},
		{"mint-singleton", "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263"},
	} {
		b.Run(q.name, func(b *testing.B) {
			b.ReportAllocs()
			var lat []time.Duration
			for b.Loop() {
				t0 := time.Now()
				c.Search(SearchOptions{Query: q.q, Limit: 20, Strategy: asset.StrategyLiquidity})
				lat = append(lat, time.Since(t0))
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		})
	}
}
