package ingest_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/ingest"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/storage/postgres"
	"github.com/assetd/assetd/internal/storage/storetest"
	"github.com/google/go-cmp/cmp"
)

// engines opens a fresh store per engine: SQLite always, PostgreSQL (a
// fresh schema) when ASSETD_TEST_DATABASE_URL is set, as the storage
// conformance suites do. open returns a new handle on the same store.
func engines(t *testing.T) map[string]func(t *testing.T) func() ingest.Store {
	out := map[string]func(t *testing.T) func() ingest.Store{
		"sqlite": func(t *testing.T) func() ingest.Store {
			dir := t.TempDir()
			return func() ingest.Store { return openStore(t, dir) }
		},
	}
	url := os.Getenv("ASSETD_TEST_DATABASE_URL")
	if url == "" {
		t.Log("ASSETD_TEST_DATABASE_URL not set: PostgreSQL skipped")
		return out
	}
	out["postgres"] = func(t *testing.T) func() ingest.Store {
		schema := storetest.PostgresSchema(t, url)
		return func() ingest.Store {
			s, err := postgres.OpenSchema(context.Background(), url, schema)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			if _, err := s.Migrate(context.Background()); err != nil {
				t.Fatal(err)
			}
			return s
		}
	}
	return out
}

func serverOn(t *testing.T, st ingest.Store) (*analytics.Engine, *ingest.Ingester) {
	t.Helper()
	eng, err := analytics.New(analytics.Config{Clock: clock, NoDedupe: true})
	if err != nil {
		t.Fatal(err)
	}
	in, err := ingest.New(eng, st, ingest.Config{Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := in.Rebuild(context.Background()); err != nil {
		t.Fatal(err)
	}
	return eng, in
}

// poisoned is a mint's trades at $100 over the last 20 minutes with dust
// at 17,000x and outliers at 10x (alternately above and below) mixed in, then a confirmed 5x repricing
// across two pools.
func poisoned(prefix string, mint string) (out []analytics.Trade, dust, outliers int64) {
	for i := range 200 {
		tr := analytics.Trade{Signature: fmt.Sprintf("%s-%d", prefix, i), Slot: int64(i + 1), BlockTime: now.Unix() - 1200 + int64(i*5),
			Mint: mint, Side: analytics.SideBuy, USDAmount: 250, PriceUSD: 100 + float64(i%7)/10,
			Wallet: address("wallet", i%13), Venue: "TestVenue", Pool: address("pool", i%2)}
		switch {
		case i >= 180:
			tr.PriceUSD = 500 + float64(i%3)
			if i < 180+analytics.ConfirmPoolTrades-1 {
				outliers++ // before the confirmation
			}
		case i%17 == 5:
			tr.PriceUSD, tr.USDAmount = 1.7e6, 0.01
			dust++
		case i%23 == 11:
			tr.PriceUSD, tr.USDAmount = [2]float64{1000, 10}[(i/23)%2], 500 // alternately 10x above and below
			outliers++
		}
		tr.TokenAmount = tr.USDAmount / tr.PriceUSD
		out = append(out, tr)
	}
	return out, dust, outliers
}

type engineState struct {
	Windows *analytics.WindowMetrics
	Candles map[market.Interval][]analytics.CandleRow
}

func stateOf(eng *analytics.Engine, mint string) engineState {
	s := engineState{Windows: eng.Windows(mint, now), Candles: map[market.Interval][]analytics.CandleRow{}}
	for _, iv := range market.Intervals {
		s.Candles[iv] = eng.Candles(mint, iv, 0, now.Unix()+86400)
	}
	return s
}

// The decisions are stored with the trades: a restart (with and without
// a candle save first) rebuilds identical windows, candles and rejection
// counts, on both engines.
func TestAdmissionRebuildIdentical(t *testing.T) {
	mint := address("mint", 29)
	for name, fresh := range engines(t) {
		t.Run(name, func(t *testing.T) {
			open := fresh(t)
			eng, in := serverOn(t, open())
			batch, dust, outliers := poisoned("adm", mint)
			for lo := 0; lo < len(batch); lo += 37 {
				mustIngest(t, in, batch[lo:min(lo+37, len(batch))])
			}
			live := stateOf(eng, mint)
			want := analytics.RejectedCounts{Dust: dust, PriceOutlier: outliers}
			if live.Windows == nil || live.Windows.Rejected != want || *live.Windows.Price < 450 {
				t.Fatalf("live windows %+v, want rejected %+v and the repriced price", live.Windows, want)
			}
			eng2, in2 := serverOn(t, open()) // no candle save: everything from the trades
			if diff := cmp.Diff(live, stateOf(eng2, mint)); diff != "" {
				t.Errorf("after restart (-live +rebuilt):\n%s", diff)
			}
			if _, err := in2.Flush(context.Background()); err != nil {
				t.Fatal(err)
			}
			eng3, _ := serverOn(t, open()) // from the saved candles
			if diff := cmp.Diff(live, stateOf(eng3, mint)); diff != "" {
				t.Errorf("after save and restart (-live +rebuilt):\n%s", diff)
			}
			var rej analytics.RejectedCounts
			for _, c := range live.Candles["1D"] {
				rej.Dust += c.Rejected.Dust
				rej.PriceOutlier += c.Rejected.PriceOutlier
			}
			if rej != want {
				t.Errorf("1D candles rejected %+v, want %+v", rej, want)
			}
			t.Logf("%s: %d trades, rejected %+v, price %v", name, len(batch), live.Windows.Rejected, *live.Windows.Price)
		})
	}
}

// A store-only writer (ingest replay) decides each batch against the
// references its earlier batches built; a server started on the store
// applies the stored decisions.
func TestReplayDecidesAcrossBatches(t *testing.T) {
	dir := t.TempDir()
	_, w := storeOnlyWriter(t, dir)
	mint := address("mint", 30)
	mk := func(sig string, i int, price, usd float64) analytics.Trade {
		return analytics.Trade{Signature: sig, Slot: int64(i + 1), BlockTime: now.Unix() - 600 + int64(i), Mint: mint, Side: analytics.SideBuy,
			TokenAmount: usd / price, USDAmount: usd, PriceUSD: price, Wallet: address("wallet", i), Venue: "TestVenue"}
	}
	var first []analytics.Trade
	for i := range 10 {
		first = append(first, mk(fmt.Sprintf("replay-%d", i), i, 100, 300))
	}
	mustIngest(t, w, first)
	mustIngest(t, w, []analytics.Trade{mk("replay-out", 20, 1000, 500)})
	eng, _ := server(t, dir)
	wm := eng.Windows(mint, now)
	if wm == nil || wm.Rejected.PriceOutlier != 1 || *wm.Price != 100 {
		t.Fatalf("after replay: %+v, want one price_outlier and price 100", wm)
	}
}
