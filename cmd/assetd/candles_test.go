package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mr-tron/base58"
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
