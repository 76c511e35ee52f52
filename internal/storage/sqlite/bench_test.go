package sqlite_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/ingest"
	"github.com/assetd/assetd/internal/storage/sqlite"
)

// benchStore opens a migrated store in a temporary directory.
func benchStore(b *testing.B) *sqlite.Store {
	b.Helper()
	s, err := sqlite.Open(context.Background(), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	if _, err := s.Migrate(context.Background()); err != nil {
		b.Fatal(err)
	}
	return s
}

// benchTrades returns n synthetic trades over 100 mints, signatures
// synthetic-<from>..synthetic-<from+n-1>.
func benchTrades(from, n int, now time.Time) []analytics.Trade {
	out := make([]analytics.Trade, n)
	for i := range out {
		k := from + i
		out[i] = analytics.Trade{Signature: fmt.Sprintf("synthetic-%d", k), Slot: int64(k), BlockTime: now.Unix() - 3600 + int64(k%3600),
			Mint: fmt.Sprintf("SyntheticMint%03d", k%100), Side: analytics.SideBuy, TokenAmount: 10, USDAmount: 2, PriceUSD: 0.2,
			Wallet: fmt.Sprintf("SyntheticWallet%04d", k%5000), Venue: "TestVenue"}
	}
	return out
}

// BenchmarkInsertTrades: the ingest write path, one batch of 1,000 new
// trades per operation (one transaction, signatures deduplicated).
func BenchmarkInsertTrades(b *testing.B) {
	s := benchStore(b)
	now := time.Now()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		res, err := s.InsertTrades(context.Background(), benchTrades(i*1000, 1000, now), now)
		if err != nil || res.Count != 1000 {
			b.Fatal(res.Count, err)
		}
		i++
	}
}

// BenchmarkScanTrades: the rebuild read path, every one of 50,000 stored
// trades scanned in seq order.
func BenchmarkScanTrades(b *testing.B) {
	s := benchStore(b)
	now := time.Now()
	for i := range 10 {
		if _, err := s.InsertTrades(context.Background(), benchTrades(i*5000, 5000, now), now); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		if err := s.ScanTrades(context.Background(), 0, 1<<62, func(ts []ingest.StoredTrade) error { n += len(ts); return nil }); err != nil {
			b.Fatal(err)
		}
		if n != 50000 {
			b.Fatalf("scanned %d trades", n)
		}
	}
}
