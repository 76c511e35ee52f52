package chainsource

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/ingest"
	"github.com/assetd/assetd/internal/solanarpc"
	"github.com/assetd/assetd/internal/storage/postgres"
	"github.com/assetd/assetd/internal/storage/sqlite"
	"github.com/assetd/assetd/internal/swapdecode"
	"github.com/jackc/pgx/v5"
)

// benchLegs is the swap legs per block of the replay (a mainnet block
// carries roughly 100-300 DEX swaps).
const benchLegs = 200

// benchDecode parses the block (the recorded transactions, as a real
// decoder must) and returns benchLegs SYNTHETIC legs with synthetic
// signatures: a replay load for the store path, not decoded data.
func benchDecode(payer string) func(raw []byte, slot int64) ([]swapdecode.Tx, error) {
	return func(raw []byte, slot int64) ([]swapdecode.Tx, error) {
		var b struct {
			BlockTime    int64             `json:"blockTime"`
			Transactions []json.RawMessage `json:"transactions"`
		}
		if err := json.Unmarshal(raw, &b); err != nil {
			return nil, err
		}
		out := make([]swapdecode.Tx, benchLegs)
		for i := range out {
			out[i] = swapdecode.Tx{Signature: fmt.Sprintf("synthetic-bench-%d-%d", slot, i), Slot: slot, BlockTime: b.BlockTime, FeePayer: payer,
				Legs: []swapdecode.Leg{{Program: syntheticProgram, Venue: "synthetic_venue", InMint: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", InAmount: uint64(100+i) * 1_000_000, InDecimals: 6,
					OutMint: wsol, OutAmount: 1_000_000_000, OutDecimals: 9}}}
		}
		return out, nil
	}
}

type benchStore interface {
	Store
	ingest.Store
}

func benchReplay(b *testing.B, st benchStore) {
	txs := loadRecorded(b)
	blocks := map[int64][]recordedTx{}
	for i := range b.N {
		blocks[int64(1000+i)] = txs
	}
	c := &chain{head: int64(1000 + b.N - 1), blocks: blocks, failN: map[int64]int{}, limit: map[int64]int{}, calls: map[string]int{}, methods: map[string]bool{}, cache: map[int]json.RawMessage{}}
	srv := httptest.NewServer(c)
	b.Cleanup(srv.Close)
	var payer struct {
		Transaction struct {
			Message struct {
				AccountKeys []struct{ Pubkey string } `json:"accountKeys"`
			} `json:"message"`
		} `json:"transaction"`
	}
	json.Unmarshal(txs[0].Raw, &payer)
	var bt int64
	for _, tx := range txs {
		bt = max(bt, tx.BlockTime)
	}
	clock := func() time.Time { return time.Unix(bt, 0).Add(time.Hour) }
	eng, _ := analytics.New(analytics.Config{Clock: clock, NoDedupe: true})
	in, err := ingest.New(eng, st, ingest.Config{Clock: clock})
	if err != nil {
		b.Fatal(err)
	}
	src := New(Config{RPC: solanarpc.New(srv.URL, solanarpc.Options{RPS: -1}), Store: st, Ingest: in, Decode: benchDecode(payer.Transaction.Message.AccountKeys[0].Pubkey), Trades: fakeTrades,
		Start: 1000, Stop: int64(1000 + b.N - 1), Clock: clock, Sleep: func(context.Context, time.Duration) error { return nil }})
	var peak uint64
	b.ResetTimer()
	start := time.Now()
	for {
		_, err := src.Step(context.Background())
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapInuse)
		if err == ErrDone {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	el := time.Since(start)
	b.StopTimer()
	st2 := src.Status()
	if st2.Trades.Emitted != int64(b.N*benchLegs) {
		b.Fatalf("emitted %d, want %d: %+v", st2.Trades.Emitted, b.N*benchLegs, st2)
	}
	b.ReportMetric(float64(b.N*benchLegs)/el.Seconds(), "legs/s")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkReplaySQLite: blocks (b.N of them, 200 legs each) from a local
// JSON-RPC replay into SQLite, the cursor committed with every batch.
func BenchmarkReplaySQLite(b *testing.B) {
	st, err := sqlite.Open(context.Background(), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	if _, err := st.Migrate(context.Background()); err != nil {
		b.Fatal(err)
	}
	benchReplay(b, st)
}

// BenchmarkReplayPostgres: the same into PostgreSQL
// (ASSETD_TEST_DATABASE_URL, a fresh schema).
func BenchmarkReplayPostgres(b *testing.B) {
	url := os.Getenv("ASSETD_TEST_DATABASE_URL")
	if url == "" {
		b.Skip("ASSETD_TEST_DATABASE_URL not set")
	}
	var r [8]byte
	rand.Read(r[:])
	schema := "assetd_bench_" + hex.EncodeToString(r[:])
	b.Cleanup(func() {
		conn, err := pgx.Connect(context.Background(), url)
		if err == nil {
			conn.Exec(context.Background(), `DROP SCHEMA IF EXISTS `+pgx.Identifier{schema}.Sanitize()+` CASCADE`)
			conn.Close(context.Background())
		}
	})
	st, err := postgres.OpenSchema(context.Background(), url, schema)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	if _, err := st.Migrate(context.Background()); err != nil {
		b.Fatal(err)
	}
	benchReplay(b, st)
}
