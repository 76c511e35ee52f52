package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/chainsource"
	"github.com/assetd/assetd/internal/ingest"
	"github.com/assetd/assetd/internal/solanarpc"
	"github.com/assetd/assetd/internal/storage/sqlite"
	"github.com/assetd/assetd/internal/swapdecode"
)

// The recorded mainnet transactions of shared/data/solana-tx (jup-ag
// getTransaction snapshots, jsonParsed); the test skips without them.
const recordedJupDir = "../../../shared/data/solana-tx/jup-ag_instruction-parser/snapshot"

// recordedNode is a JSON-RPC node serving blocks COMPOSED by the test
// from the recorded transactions: one transaction per block at slots
// 1000, 1002, … (odd slots skipped), the block times chosen by the test
// (a minute apart, ending shortly before the harness's now) so every
// trade falls inside the 1m candles' retention. The transactions, their
// fee payers, pools, mints and amounts are real; slots and times are not.
type recordedNode struct {
	mu     sync.Mutex
	head   int64
	blocks map[int64]json.RawMessage
}

func newRecordedNode(t *testing.T, now time.Time) *recordedNode {
	t.Helper()
	dirs, err := os.ReadDir(recordedJupDir)
	if err != nil {
		t.Skipf("recorded transactions absent: %v", err)
	}
	n := &recordedNode{blocks: map[int64]json.RawMessage{}}
	for i, d := range dirs {
		b, err := os.ReadFile(filepath.Join(recordedJupDir, d.Name(), "tx-"+d.Name()+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var env struct {
			Result struct {
				Transaction json.RawMessage `json:"transaction"`
				Meta        json.RawMessage `json:"meta"`
				Version     json.RawMessage `json:"version"`
			} `json:"result"`
		}
		if err := json.Unmarshal(b, &env); err != nil {
			t.Fatal(err)
		}
		slot := int64(1000 + 2*i)
		tx := map[string]json.RawMessage{"transaction": env.Result.Transaction, "meta": env.Result.Meta, "version": env.Result.Version}
		blockTime := now.Add(-time.Duration(len(dirs)-i) * time.Minute).Unix() // composed
		n.blocks[slot], _ = json.Marshal(map[string]any{"blockTime": blockTime, "parentSlot": slot - 2, "transactions": []any{tx}})
		n.head = max(n.head, slot+1)
	}
	if len(n.blocks) != 10 {
		t.Fatalf("%d recorded transactions, want 10", len(n.blocks))
	}
	return n
}

func (n *recordedNode) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		ID     uint64            `json:"id"`
		Method string            `json:"method"`
		Params []json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	var result any
	switch req.Method {
	case "getSlot":
		result = n.head
	case "getBlocks":
		var from, to int64
		_ = json.Unmarshal(req.Params[0], &from)
		_ = json.Unmarshal(req.Params[1], &to)
		slots := []int64{}
		for s := range n.blocks {
			if s >= from && s <= to {
				slots = append(slots, s)
			}
		}
		slices.Sort(slots)
		result = slots
	case "getBlock":
		var slot int64
		_ = json.Unmarshal(req.Params[0], &slot)
		result = n.blocks[slot]
	default:
		http.Error(w, "unexpected method", http.StatusBadRequest)
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
}

// TestTradeSourceCandlesThroughOHLCV: the trades the JSON-RPC source
// stores from blocks of recorded transactions (real decoder, SQLite,
// the ingest path) show as candles (1m, 1H, 1D) on GET
// /v1/assets/solana-<mint>/ohlcv; re-running the same blocks from an
// older start slot (a second cursor) stores only duplicates and leaves
// every candle as it was.
func TestTradeSourceCandlesThroughOHLCV(t *testing.T) {
	h, _, _ := marketHarness(t)
	node := newRecordedNode(t, h.now)
	srv := httptest.NewServer(node)
	t.Cleanup(srv.Close)
	ctx := context.Background()
	st, err := sqlite.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	clock := func() time.Time { return h.now }
	eng, err := analytics.New(analytics.Config{Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	in, err := ingest.New(eng, st, ingest.Config{Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	h.srv.d.Analytics = eng
	rpc := solanarpc.New(srv.URL, solanarpc.Options{RPS: -1})
	run := func(name string) chainsource.Status {
		src := chainsource.New(chainsource.Config{Name: name, RPC: rpc, Store: st, Ingest: in, Clock: clock,
			Start: 1000, Stop: node.head, Sleep: func(context.Context, time.Duration) error { return nil }})
		if err := src.Run(ctx); err != nil {
			t.Fatal(err)
		}
		return src.Status()
	}
	first := run("solana-rpc")

	// The expected trades: what the decoder makes of each recorded
	// transaction (USD-stable legs), by mint.
	want := map[string]int64{}
	var total int64
	if err := st.ScanTrades(ctx, 0, 0, func(c []ingest.StoredTrade) error {
		for _, tr := range c {
			if tr.Admission != analytics.AdmissionDust && tr.Admission != analytics.AdmissionOutlier {
				want[tr.Mint]++
			}
			total++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var decoded int64
	stable := swapdecode.DefaultStableMints()
	for _, raw := range node.blocks {
		txs, err := swapdecode.DecodeBlock(raw, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, tx := range txs {
			decoded += int64(len(swapdecode.Trades(tx, stable)))
		}
	}
	if total != decoded || first.Trades.Emitted != decoded || decoded == 0 || len(want) < 3 {
		t.Fatalf("stored %d trades over %d mints, emitted %d, decoded %d", total, len(want), first.Trades.Emitted, decoded)
	}

	type window struct {
		iv       string
		from, to int64
	}
	windows := []window{
		{"1m", h.now.Add(-time.Hour).Unix(), h.now.Unix()},
		{"1H", h.now.Add(-24 * time.Hour).Unix(), h.now.Unix() + 1},
		{"1D", h.now.Add(-7 * 24 * time.Hour).Unix(), h.now.Unix() + 1},
	}
	read := func() map[string]string {
		bodies := map[string]string{}
		for mint, n := range want {
			for _, w := range windows {
				path := fmt.Sprintf("/v1/assets/solana-%s/ohlcv?interval=%s&from=%d&to=%d&mint=%s", mint, w.iv, w.from, w.to, mint)
				r := h.get(t, path)
				if r.status != http.StatusOK {
					t.Fatalf("%s: %d %s", path, r.status, r.raw)
				}
				var out candlesResp
				decodeStrict(t, r, &out)
				var trades int64
				for _, c := range out.Candles {
					trades += c.TradeCount()
				}
				if out.Mint != mint || out.Interval != w.iv || trades != n {
					t.Errorf("%s: mint %s interval %s, %d trades in candles, want %d", path, out.Mint, out.Interval, trades, n)
				}
				if w.iv == "1m" && len(out.Candles) == 0 {
					t.Errorf("%s: no 1m candle", path)
				}
				bodies[path] = r.raw
			}
		}
		return bodies
	}
	t.Logf("trades by mint %v (stored %d)", want, total)
	before := read()

	again := run("backfill:1000")
	if again.Trades.Emitted != 0 || again.Trades.Duplicates != decoded {
		t.Fatalf("re-run from an older start: emitted %d, duplicates %d, want 0 and %d", again.Trades.Emitted, again.Trades.Duplicates, decoded)
	}
	var after int64
	if err := st.ScanTrades(ctx, 0, 0, func(c []ingest.StoredTrade) error { after += int64(len(c)); return nil }); err != nil {
		t.Fatal(err)
	}
	if after != total {
		t.Fatalf("after the re-run %d trades stored, before %d", after, total)
	}
	for path, body := range read() {
		if before[path] != body {
			t.Errorf("%s changed after the re-run:\nbefore %s\nafter  %s", path, before[path], body)
		}
	}
}
