package analytics

import (
	"crypto/sha256"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mr-tron/base58"
)

// Fixed times used by the tests.
const (
	// monday is 2025-10-27T00:00:00Z, a Monday.
	monday = 1_761_523_200
	day    = 86_400
	hour   = 3_600
)

const b58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// b58 encodes b in base58 (Bitcoin alphabet).
func b58(b []byte) string { return base58.Encode(b) }

// addr is a deterministic valid Solana address for (kind, i).
func addr(kind string, i int) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s/%d", kind, i))
	return b58(sum[:])
}

var (
	mintA = addr("mint", 1)
	mintB = addr("mint", 2)
	mintC = addr("mint", 3)
	mintD = addr("mint", 4)
	mintE = addr("mint", 5)
)

func wallet(i int) string { return addr("wallet", i) }

// fakeClock is a settable clock.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock(unix int64) *fakeClock { return &fakeClock{t: time.Unix(unix, 0).UTC()} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Set(unix int64) {
	c.mu.Lock()
	c.t = time.Unix(unix, 0).UTC()
	c.mu.Unlock()
}

func newEngine(t testing.TB, clk *fakeClock, mod ...func(*Config)) *Engine {
	t.Helper()
	cfg := Config{Clock: clk.Now, Shards: 8}
	for _, f := range mod {
		f(&cfg)
	}
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// trade builds a valid buy of mint at block time bt; usd / price tokens.
func trade(sig, mint string, bt int64, price, usd float64, w int) Trade {
	return Trade{
		Signature:   sig,
		Slot:        bt * 2,
		BlockTime:   bt,
		Mint:        mint,
		Side:        SideBuy,
		TokenAmount: usd / price,
		USDAmount:   usd,
		PriceUSD:    price,
		Wallet:      wallet(w),
		Venue:       "raydium",
	}
}

func at(unix int64) time.Time { return time.Unix(unix, 0).UTC() }

func mustIngest(t testing.TB, e *Engine, trades ...Trade) {
	t.Helper()
	res := e.Ingest(trades)
	if res.Rejected != 0 || res.Duplicates != 0 || res.Accepted != len(trades) {
		t.Fatalf("Ingest = %+v, want all %d accepted", res, len(trades))
	}
}
