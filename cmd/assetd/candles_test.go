package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mr-tron/base58"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/market"
)

// syntheticWallet is a well-formed address that is visibly no real wallet.
func syntheticWallet(i int) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("assetd test wallet %d", i)))
	return base58.Encode(sum[:])
}

// TestReplayPersistsCandles replays NDJSON trades with the CLI and reads
// the candles back through a server started afterwards on the same store.
func TestReplayPersistsCandles(t *testing.T) {
	for _, e := range engines(t) {
		t.Run(e.name, func(t *testing.T) {
			const usdc = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
			hour := time.Now().UTC().Truncate(time.Hour).Add(-2 * time.Hour).Unix()
			var b strings.Builder
			prices := []float64{1.0, 1.02, 0.98, 1.01}
			for i, p := range prices {
				fmt.Fprintf(&b, `{"signature":"replay-sig-%d","slot":%d,"blockTime":%d,"mint":%q,"side":"buy","tokenAmount":100,"usdAmount":%g,"priceUsd":%g,"wallet":%q,"venue":"TestVenue"}`+"\n",
					i, 1000+i, hour+int64(i*60), usdc, 100*p, p, syntheticWallet(i))
			}
			b.WriteString("not json\n")
			b.WriteString(strings.SplitAfter(b.String(), "\n")[0]) // the first trade again: a duplicate
			file := filepath.Join(t.TempDir(), "trades.ndjson")
			if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
				t.Fatal(err)
			}
			out := mustCLI(t, append([]string{"ingest", "replay", file}, e.flags...)...)
			if !strings.Contains(out, "4 accepted") || !strings.Contains(out, "1 duplicates") || !strings.Contains(out, "1 malformed JSON") {
				t.Fatalf("replay summary: %q", out)
			}
			key := strings.TrimSpace(mustCLI(t, append([]string{"keys", "create", "--project", "p"}, e.flags...)...))
			s := startServer(t, e.flags...)
			_, _, body := s.get(t, fmt.Sprintf("/v1/assets/usd/ohlcv?mint=%s&interval=1H&from=%d&to=%d", usdc, hour-3600, hour+7200), map[string]string{"X-Api-Key": key})
			candles, _ := body["candles"].([]any)
			if len(candles) != 1 {
				t.Fatalf("ohlcv after replay: %v", body)
			}
			c := candles[0].(map[string]any)
			if c["open"] != 1.0 || c["high"] != 1.02 || c["low"] != 0.98 || c["close"] != 1.01 || c["time"] != float64(hour) {
				t.Fatalf("candle %v; want open 1 high 1.02 low 0.98 close 1.01 at %d", c, hour)
			}
		})
	}
}

// fakeCandleStore serves fixed rows.
type fakeCandleStore struct{ rows []analytics.CandleUpdate }

func (f fakeCandleStore) UpsertCandles(context.Context, []analytics.CandleUpdate) error { return nil }
func (f fakeCandleStore) LoadCandles(context.Context, int64) ([]analytics.CandleUpdate, error) {
	return f.rows, nil
}
func (f fakeCandleStore) PruneCandles(context.Context, string, int64) (int64, error) { return 0, nil }

// TestLoadCandlesSkipsInvalidRows: a persisted +Inf volume (what two
// usdAmount 1e308 trades left before the value bounds) no longer stops
// the start: the row is skipped, counted in one summary line, and the
// valid rows load.
func TestLoadCandlesSkipsInvalidRows(t *testing.T) {
	const usdc = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
	hour := time.Now().UTC().Truncate(time.Hour).Add(-time.Hour).Unix()
	row := func(t int64, vol float64) analytics.CandleUpdate {
		return analytics.CandleUpdate{Mint: usdc, Interval: "1H", CandleRow: analytics.CandleRow{
			Candle: market.Candle{Time: t, Open: 1, High: 1, Low: 1, Close: 1, Volume: vol}, Trades: 2}}
	}
	st := fakeCandleStore{rows: []analytics.CandleUpdate{row(hour-3600, 10), row(hour, math.Inf(1)), row(hour+3600, 1e308)}}
	eng, err := analytics.New(analytics.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	n, err := loadCandles(context.Background(), st, eng, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil || n != 1 {
		t.Fatalf("loadCandles = %d, %v", n, err)
	}
	if !strings.Contains(logs.String(), "invalid stored candles skipped") || !strings.Contains(logs.String(), "skipped=2") {
		t.Errorf("summary line missing:\n%s", logs.String())
	}
	if got := eng.Candles(usdc, "1H", 0, hour+7200); len(got) != 1 || got[0].Volume != 10 {
		t.Errorf("loaded %v", got)
	}
}
