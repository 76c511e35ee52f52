package chainsource

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
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
	"github.com/assetd/assetd/internal/ingest"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/solanarpc"
	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/storage/sqlite"
	"github.com/assetd/assetd/internal/swapdecode"
	"github.com/mr-tron/base58"
)

// syntheticProgram is the fake decoder's DEX program: a well-formed
// address that is visibly no real program (trade validation wants one).
var syntheticProgram = func() string {
	sum := sha256.Sum256([]byte("assetd chainsource test: synthetic DEX program"))
	return base58.Encode(sum[:])
}()

const jupDir = "../../../shared/data/solana-tx/jup-ag_instruction-parser/snapshot"

// recordedTx is one recorded getTransaction result (jup-ag snapshots).
type recordedTx struct {
	Sig       string
	BlockTime int64
	Raw       json.RawMessage // {transaction, meta, version}
}

func loadRecorded(t testing.TB) []recordedTx {
	t.Helper()
	dirs, err := os.ReadDir(jupDir)
	if err != nil {
		t.Skipf("recorded transactions absent: %v", err)
	}
	var out []recordedTx
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(jupDir, d.Name(), "tx-"+d.Name()+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var env struct {
			Result struct {
				BlockTime   int64           `json:"blockTime"`
				Transaction json.RawMessage `json:"transaction"`
				Meta        json.RawMessage `json:"meta"`
				Version     json.RawMessage `json:"version"`
			} `json:"result"`
		}
		if err := json.Unmarshal(b, &env); err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(map[string]json.RawMessage{"transaction": env.Result.Transaction, "meta": env.Result.Meta, "version": env.Result.Version})
		out = append(out, recordedTx{Sig: d.Name(), BlockTime: env.Result.BlockTime, Raw: raw})
	}
	if len(out) != 10 {
		t.Fatalf("%d recorded transactions, want 10", len(out))
	}
	return out
}

// chain is a test JSON-RPC node: blocks composed from recorded
// transactions at test-chosen slots (the slot numbers are the test's; the
// transactions, their block times and fee payers are real), skipped slots
// in between, and injected failures.
type chain struct {
	mu      sync.Mutex
	head    int64
	blocks  map[int64][]recordedTx
	failN   map[int64]int // getBlock answers -32004 this many times
	limit   map[int64]int // getBlock answers 429 (Retry-After: 2) this many times
	calls   map[string]int
	methods map[string]bool
	cache   map[int]json.RawMessage // benchmark only: one encoding per block size
}

func (c *chain) block(slot int64) json.RawMessage {
	if b, ok := c.cache[len(c.blocks[slot])]; ok {
		// Same transactions, same bytes but for parentSlot: the replay
		// benchmark's blocks are served from one encoding.
		return b
	}
	txs := c.blocks[slot]
	var raws []json.RawMessage
	var bt int64
	for _, tx := range txs {
		raws = append(raws, tx.Raw)
		bt = max(bt, tx.BlockTime)
	}
	b, _ := json.Marshal(map[string]any{"blockTime": bt, "parentSlot": slot - 1, "transactions": raws})
	if c.cache != nil {
		c.cache[len(txs)] = b
	}
	return b
}

func (c *chain) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		ID     uint64            `json:"id"`
		Method string            `json:"method"`
		Params []json.RawMessage `json:"params"`
	}
	json.Unmarshal(body, &req)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls[req.Method]++
	reply := func(result any) {
		json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
	}
	switch req.Method {
	case "getSlot":
		reply(c.head)
	case "getBlocks":
		var from, to int64
		json.Unmarshal(req.Params[0], &from)
		json.Unmarshal(req.Params[1], &to)
		out := []int64{}
		for s := range c.blocks {
			if s >= from && s <= to && s <= c.head {
				out = append(out, s)
			}
		}
		slices.Sort(out)
		reply(out)
	case "getBlock":
		var slot int64
		json.Unmarshal(req.Params[0], &slot)
		var opts map[string]any
		json.Unmarshal(req.Params[1], &opts)
		if opts["transactionDetails"] != "full" || opts["rewards"] != false || opts["maxSupportedTransactionVersion"] != float64(0) || opts["encoding"] != "jsonParsed" || opts["commitment"] != "confirmed" {
			http.Error(w, fmt.Sprintf("bad getBlock options %v", opts), http.StatusBadRequest)
			return
		}
		if c.limit[slot] > 0 {
			c.limit[slot]--
			w.Header().Set("Retry-After", "2")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		if c.failN[slot] > 0 {
			c.failN[slot]--
			json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": -32004, "message": fmt.Sprintf("Block not available for slot %d", slot)}})
			return
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"result":%s}`, req.ID, c.block(slot))
	default:
		c.methods[req.Method] = true
		http.Error(w, "unexpected method", http.StatusBadRequest)
	}
}

// fakeDecode reads signatures, fee payers and block time from a block of
// the recorded transactions and makes one leg per transaction. The legs'
// mints and amounts are SYNTHETIC (wSOL bought with USDC at a test price):
// the real decoder lands in another branch; TestSourceRealDecoder uses it.
func fakeDecode(raw []byte, slot int64) ([]swapdecode.Tx, error) {
	var b struct {
		BlockTime    int64 `json:"blockTime"`
		Transactions []struct {
			Transaction struct {
				Signatures []string `json:"signatures"`
				Message    struct {
					AccountKeys []json.RawMessage `json:"accountKeys"`
				} `json:"message"`
			} `json:"transaction"`
		} `json:"transactions"`
	}
	if err := json.Unmarshal(raw, &b); err != nil {
		return nil, err
	}
	var out []swapdecode.Tx
	for i, tx := range b.Transactions {
		var payer string
		if err := json.Unmarshal(tx.Transaction.Message.AccountKeys[0], &payer); err != nil {
			var k struct{ Pubkey string }
			json.Unmarshal(tx.Transaction.Message.AccountKeys[0], &k)
			payer = k.Pubkey
		}
		out = append(out, swapdecode.Tx{Signature: tx.Transaction.Signatures[0], Slot: slot, BlockTime: b.BlockTime, FeePayer: payer,
			Legs: []swapdecode.Leg{{Program: syntheticProgram, Venue: "synthetic_venue", InMint: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", InAmount: uint64(100+i) * 1_000_000, InDecimals: 6,
				OutMint: wsol, OutAmount: 1_000_000_000, OutDecimals: 9}}})
	}
	return out, nil
}

const wsol = "So11111111111111111111111111111111111111112"

func fakeTrades(tx swapdecode.Tx, stable map[string]bool) []analytics.Trade {
	var out []analytics.Trade
	for _, l := range tx.Legs {
		if !stable[l.InMint] {
			continue
		}
		usd := float64(l.InAmount) / 1e6
		tok := float64(l.OutAmount) / 1e9
		out = append(out, analytics.Trade{Signature: tx.Signature, Slot: tx.Slot, BlockTime: tx.BlockTime, Mint: l.OutMint, Side: analytics.SideBuy,
			TokenAmount: tok, USDAmount: usd, PriceUSD: usd / tok, Wallet: tx.FeePayer, Venue: l.Venue, Leg: l.Index, Program: l.Program})
	}
	return out
}

type world struct {
	chain *chain
	srv   *httptest.Server
	dir   string
	clock time.Time
	slept []time.Duration
}

func newWorld(t *testing.T, txs []recordedTx) *world {
	// Layout (slots are the test's): 100 [0 1], 102 [2], 104 [3] fails 3
	// times, 105 [4 5], 109 [6] answers 429 once, 110 [7], 111 [8 9];
	// every other slot up to the head 112 is skipped.
	c := &chain{head: 112, blocks: map[int64][]recordedTx{
		100: {txs[0], txs[1]}, 102: {txs[2]}, 104: {txs[3]}, 105: {txs[4], txs[5]}, 109: {txs[6]}, 110: {txs[7]}, 111: {txs[8], txs[9]},
	}, failN: map[int64]int{104: 3}, limit: map[int64]int{109: 1}, calls: map[string]int{}, methods: map[string]bool{}}
	srv := httptest.NewServer(c)
	t.Cleanup(srv.Close)
	var bt int64
	for _, tx := range txs {
		bt = max(bt, tx.BlockTime)
	}
	return &world{chain: c, srv: srv, dir: t.TempDir(), clock: time.Unix(bt, 0).Add(time.Hour)}
}

// process is one run of the service over the world's store.
type process struct {
	st  *sqlite.Store
	eng *analytics.Engine
	in  *ingest.Ingester
	src *Source
}

func (w *world) start(t *testing.T, cfg Config) *process {
	t.Helper()
	st, err := sqlite.Open(context.Background(), w.dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	clock := func() time.Time { return w.clock }
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
	rpc := solanarpc.New(w.srv.URL, solanarpc.Options{RPS: -1, Sleep: func(ctx context.Context, d time.Duration) error {
		w.slept = append(w.slept, d)
		return nil
	}})
	cfg.RPC, cfg.Store, cfg.Ingest, cfg.Clock = rpc, st, in, clock
	if cfg.Decode == nil {
		cfg.Decode, cfg.Trades = fakeDecode, fakeTrades
	}
	cfg.Start, cfg.Batch, cfg.Window = 100, 2, 5
	return &process{st: st, eng: eng, in: in, src: New(cfg)}
}

func storedSigs(t *testing.T, st *sqlite.Store) []string {
	t.Helper()
	var out []string
	if err := st.ScanTrades(context.Background(), 0, 0, func(c []ingest.StoredTrade) error {
		for _, tr := range c {
			out = append(out, fmt.Sprintf("%s/%d", tr.Signature, tr.Leg))
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

func TestSourceGapsRetryAfterCrashAndRerun(t *testing.T) {
	txs := loadRecorded(t)
	w := newWorld(t, txs)
	var want []string
	for _, tx := range txs {
		want = append(want, tx.Sig+"/0")
	}
	slices.Sort(want)
	ctx := context.Background()

	p := w.start(t, Config{})
	// Step 1: slots 100..104: 104 fails (-32004): a gap, Through stays 103.
	if _, err := p.src.Step(ctx); err != nil {
		t.Fatal(err)
	}
	st := p.src.Status()
	if len(st.Gaps) != 1 || st.Gaps[0].FromSlot != 104 || st.Gaps[0].Attempts != 1 || st.ContiguousThroughSlot != 103 || st.HeadSlot != 112 {
		t.Fatalf("after step 1: %+v", st)
	}
	// "Crash": the process is dropped between steps, without any shutdown
	// (what is committed is all that survives, as after kill -9), and the
	// next process resumes from the stored cursor.
	p.st.Close()
	w.clock = w.clock.Add(10 * time.Second) // the gap's retry is due
	p = w.start(t, Config{})
	if _, err := p.src.Step(ctx); err != nil { // retry 104 (2nd fail), 105..109 (429 then ok)
		t.Fatal(err)
	}
	st = p.src.Status()
	if len(st.Gaps) != 1 || st.Gaps[0].Attempts != 2 || st.ContiguousThroughSlot != 103 {
		t.Fatalf("after step 2: %+v", st)
	}
	if !slices.Contains(w.slept, 2*time.Second) {
		t.Fatalf("Retry-After not honoured: slept %v", w.slept)
	}
	for i := 0; i < 4; i++ {
		w.clock = w.clock.Add(10 * time.Second)
		if _, err := p.src.Step(ctx); err != nil {
			t.Fatal(err)
		}
	}
	st = p.src.Status()
	if len(st.Gaps) != 0 || st.ContiguousThroughSlot != 112 || st.State != StateFollowing || st.LagSlots != 0 {
		t.Fatalf("after the gap filled: %+v", st)
	}
	if got := storedSigs(t, p.st); !slices.Equal(got, want) {
		t.Fatalf("stored %d trades %v\nwant %d %v", len(got), got, len(want), want)
	}
	if len(w.chain.methods) > 0 {
		t.Fatalf("methods outside getSlot/getBlocks/getBlock: %v", w.chain.methods)
	}
	// Candles of the trades (1m, 1H, 1D) are in the engine the HTTP
	// ohlcv route reads.
	for _, iv := range []market.Interval{"1m", "1H", "1D"} {
		rows := p.eng.Candles(wsol, iv, 0, w.clock.Unix()+86400)
		n := 0
		for _, r := range rows {
			n += int(r.Trades)
		}
		// The recorded block times span months: only those within the
		// interval's candle retention keep a candle.
		inRetention := 0
		for _, tx := range txs {
			if keep := analytics.DefaultRetention(iv); keep <= 0 || tx.BlockTime >= w.clock.Add(-keep).Unix() {
				inRetention++
			}
		}
		if n != inRetention || n == 0 {
			t.Errorf("%s candles hold %d trades, want %d", iv, n, inRetention)
		}
	}
	// Re-running the same blocks from an older start (a backfill under its
	// own cursor) gives only duplicates.
	w.chain.failN[104] = 0
	re := New(Config{Name: "backfill:100-112", RPC: p.src.cfg.RPC, Store: p.st, Ingest: p.in, Decode: fakeDecode, Trades: fakeTrades,
		Start: 100, Stop: 112, Clock: p.src.cfg.Clock, Sleep: func(context.Context, time.Duration) error { return nil }})
	if err := re.Run(ctx); err != nil {
		t.Fatal(err)
	}
	rs := re.Status()
	if rs.Trades.Emitted != 0 || rs.Trades.Duplicates != int64(len(want)) || rs.ContiguousThroughSlot != 112 {
		t.Fatalf("re-run: %+v", rs)
	}
	if got := storedSigs(t, p.st); !slices.Equal(got, want) {
		t.Fatalf("after re-run stored %v", got)
	}
}

func TestSourceLeaseConflict(t *testing.T) {
	txs := loadRecorded(t)
	w := newWorld(t, txs)
	w.chain.failN = map[int64]int{}
	ctx := context.Background()
	a := w.start(t, Config{})
	b := w.start(t, Config{})
	if _, err := a.src.Step(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := b.src.Step(ctx); err != nil { // b read the cursor after a's step: fine
		t.Fatal(err)
	}
	// a still holds its old version: its next write conflicts, stores
	// nothing, and it re-reads the cursor.
	if _, err := a.src.Step(ctx); !errors.Is(err, storage.ErrConflict) {
		t.Fatalf("stale replica: %v, want ErrConflict", err)
	}
	leader := false
	c := w.start(t, Config{Leader: func() bool { return leader }})
	if _, err := c.src.Step(ctx); err != nil || c.src.Status().State != StateOff {
		t.Fatalf("non-leader: %v %+v", err, c.src.Status())
	}
	leader = true
	for i := 0; i < 3; i++ {
		if _, err := c.src.Step(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if got := storedSigs(t, c.st); len(got) != 10 {
		t.Fatalf("after takeover: %d trades", len(got))
	}
}

func TestSourceRealDecoder(t *testing.T) {
	txs := loadRecorded(t)
	w := newWorld(t, txs)
	var want []string
	stable := swapdecode.DefaultStableMints()
	for _, tx := range txs {
		var full map[string]json.RawMessage
		json.Unmarshal(tx.Raw, &full)
		full["blockTime"], _ = json.Marshal(tx.BlockTime)
		raw, _ := json.Marshal(full)
		d, err := swapdecode.DecodeTransaction(raw)
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range swapdecode.Trades(d, stable) {
			want = append(want, fmt.Sprintf("%s/%d", tr.Signature, tr.Leg))
		}
	}
	slices.Sort(want)
	if len(want) == 0 {
		t.Fatal("the recorded transactions decode to no USD-stable trade")
	}
	p := w.start(t, Config{Decode: swapdecode.DecodeBlock, Trades: swapdecode.Trades})
	for i := 0; i < 8; i++ {
		w.clock = w.clock.Add(10 * time.Second)
		if _, err := p.src.Step(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if got := storedSigs(t, p.st); !slices.Equal(got, want) {
		t.Fatalf("stored %v\nwant %v", got, want)
	}
}

func TestGapList(t *testing.T) {
	var g []storage.SourceGap
	g = addGap(g, 10, "e")
	g = addGap(g, 11, "e")
	g = addGap(g, 5, "e")
	g = addGap(g, 10, "e2")
	if len(g) != 2 || g[0].FromSlot != 5 || g[1].FromSlot != 10 || g[1].ToSlot != 11 || g[1].Attempts != 2 || g[1].LastError != "e2" {
		t.Fatalf("%+v", g)
	}
	g = addGap(g, 12, "e")
	g = removeSlot(g, 11)
	if len(g) != 3 || g[1].ToSlot != 10 || g[2].FromSlot != 12 {
		t.Fatalf("split: %+v", g)
	}
	g = removeSlot(removeSlot(removeSlot(g, 5), 10), 12)
	if len(g) != 0 {
		t.Fatalf("%+v", g)
	}
}

func TestSourceStopsAtMaxGaps(t *testing.T) {
	txs := loadRecorded(t)
	w := newWorld(t, txs)
	ctx := context.Background()
	failing := func([]byte, int64) ([]swapdecode.Tx, error) { return nil, errors.New("decoder failure") }
	p := w.start(t, Config{Decode: failing, Trades: fakeTrades, MaxGaps: 2})
	if _, err := p.src.Step(ctx); err != nil { // 100, 102 fail (104 too): 3 gaps
		t.Fatal(err)
	}
	before := p.src.Status()
	if _, err := p.src.Step(ctx); err == nil {
		t.Fatal("a step past MaxGaps advanced")
	}
	after := p.src.Status()
	if len(after.Gaps) < 2 || after.ContiguousThroughSlot != 99 || after.Blocks.Fetched != before.Blocks.Fetched || after.LastError == "" {
		t.Fatalf("before %+v\nafter %+v", before, after)
	}
}

type downRPC struct{}

func (downRPC) Call(context.Context, string, []any, any) error {
	return errors.New("connection refused")
}

func TestSourceStalledWhenRPCDown(t *testing.T) {
	src := New(Config{RPC: downRPC{}, Clock: func() time.Time { return time.Unix(1_800_000_000, 0) }})
	if st := src.Status(); st.State != StateOff {
		t.Fatalf("before any step: %s", st.State)
	}
	if _, err := src.Step(context.Background()); err == nil {
		t.Fatal("step with the RPC down succeeded")
	}
	if st := src.Status(); st.State != StateStalled || st.LastError == "" {
		t.Fatalf("RPC down: %+v", st)
	}
}
