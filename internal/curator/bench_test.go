package curator

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/registry"
	"github.com/assetd/assetd/internal/tokenindex"
)

// benchIndex loads ASSETD_TOKENS_FILE (for example the 709k sonarwatch
// list), else the shared 150k CSV.
func benchIndex(b *testing.B) *tokenindex.Index {
	b.Helper()
	path := os.Getenv("ASSETD_TOKENS_FILE")
	if path == "" {
		path = dataDir + index150k
	}
	return loadTokenFile(b, path)
}

// index150k is the shared 150k sample of the sonarwatch token list.
const index150k = "token-index-sonarwatch-solana-150k.csv"

// loadTokenFile loads a token index file, skipping when it is absent.
func loadTokenFile(tb testing.TB, path string) *tokenindex.Index {
	tb.Helper()
	if _, err := os.Stat(path); err != nil {
		tb.Skip("token file absent:", err)
	}
	x, _, err := tokenindex.LoadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return x
}

// BenchQueries are the queries of the search benchmarks: ticker,
// name prefix and mint.
var BenchQueries = []struct{ Name, Query string }{
	{"ticker-USDC", "USDC"},
	{"ticker-BONK", "BONK"},
	{"name-prefix-dog-wif", "dog wif"},
	{"name-prefix-jupiter", "jupiter"},
	{"mint-USDC", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"},
}

// BenchmarkSearchTokens measures a full judged search (candidates from
// the registry and the index, judgment, ordering) and reports the p50
// and p99 of the per-call latency.
func BenchmarkSearchTokens(b *testing.B) {
	x := benchIndex(b)
	snap := seedSnapshot(b)
	svc := New(Config{Registry: func() *registry.Snapshot { return snap }, Index: func() *tokenindex.Index { return x }})
	svc.Refresh()
	benchSearch(b, svc, BenchQueries)
}

// benchSearch runs each query as a sub-benchmark, reporting allocations
// and latency percentiles.
func benchSearch(b *testing.B, svc *Service, queries []struct{ Name, Query string }) {
	for _, q := range queries {
		b.Run(q.Name, func(b *testing.B) {
			b.ReportAllocs()
			var lat []time.Duration
			for b.Loop() {
				t0 := time.Now()
				svc.Search(context.Background(), Request{Query: q.Query, Policy: PolicyStrict, Limit: DefaultLimit})
				lat = append(lat, time.Since(t0))
			}
			ReportPercentiles(b, lat)
		})
	}
}

// ReportPercentiles reports the p50 and p99 of lat in microseconds.
func ReportPercentiles(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}
