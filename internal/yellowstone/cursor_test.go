package yellowstone

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/chainsource"
	"github.com/assetd/assetd/internal/ingest"
	"github.com/assetd/assetd/internal/solanarpc"
	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/storage/postgres"
	"github.com/assetd/assetd/internal/storage/sqlite"
	"github.com/assetd/assetd/internal/storage/storetest"
	"github.com/assetd/assetd/internal/swapdecode"
	"github.com/assetd/assetd/internal/yellowstone/geyserpb"
)

// The durable path: the recorded stream with the recorded transactions
// composed into its slots (see newWorld), decoded by the real decoder,
// stored through chainsource's cursor (CursorSink over a Pushed source)
// into SQLite.

// wantTrades is the (signature, leg) set of the USD-stable trades of
// every composed transaction.
func wantTrades(t *testing.T, w *world) []string {
	t.Helper()
	stable := swapdecode.DefaultStableMints()
	var out []string
	for _, recs := range w.txs {
		for _, r := range recs {
			tx, err := swapdecode.DecodeTransaction(r.raw)
			if err != nil {
				t.Fatalf("%s: %v", r.name, err)
			}
			for _, tr := range swapdecode.Trades(tx, stable) {
				out = append(out, fmt.Sprintf("%s/%d", tr.Signature, tr.Leg))
			}
		}
	}
	slices.Sort(out)
	if len(out) == 0 {
		t.Fatal("the composed transactions decode to no USD-stable trade")
	}
	return out
}

// nodeStore is what a process needs of the store (both engines).
type nodeStore interface {
	ingest.Store
	chainsource.Store
	Close() error
}

// engines opens the test's store: SQLite in a directory, and PostgreSQL
// in a fresh schema when ASSETD_TEST_DATABASE_URL is set. Each call of
// the returned function is one process's connection to the same data.
func engines(t *testing.T) map[string]func(t *testing.T) func() nodeStore {
	out := map[string]func(t *testing.T) func() nodeStore{
		"sqlite": func(t *testing.T) func() nodeStore {
			dir := t.TempDir()
			return func() nodeStore {
				st, err := sqlite.Open(context.Background(), dir)
				if err != nil {
					t.Fatal(err)
				}
				return migrated(t, st)
			}
		},
	}
	url := os.Getenv("ASSETD_TEST_DATABASE_URL")
	if url == "" {
		t.Log("ASSETD_TEST_DATABASE_URL not set: PostgreSQL skipped")
		return out
	}
	out["postgres"] = func(t *testing.T) func() nodeStore {
		schema := storetest.PostgresSchema(t, url)
		return func() nodeStore {
			st, err := postgres.OpenSchema(context.Background(), url, schema)
			if err != nil {
				t.Fatal(err)
			}
			return migrated(t, st)
		}
	}
	return out
}

func migrated[S interface {
	nodeStore
	Migrate(context.Context) (int, error)
}](t *testing.T, st S) nodeStore {
	t.Helper()
	t.Cleanup(func() { _ = st.Close() })
	if _, err := st.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return st
}

// node is one process of the service over the store: the store, the
// ingester and the stream's cursor.
type node struct {
	st  nodeStore
	src *chainsource.Source
}

func startNode(t *testing.T, w *world, open func() nodeStore, name string, start int64, rpc chainsource.Caller) *node {
	t.Helper()
	ctx := context.Background()
	st := open()
	var last int64
	for _, m := range w.metas {
		last = max(last, m.GetBlockTime().GetTimestamp())
	}
	clock := func() time.Time { return time.Unix(last, 0).Add(time.Hour) }
	eng, err := analytics.New(analytics.Config{Clock: clock, NoDedupe: true})
	if err != nil {
		t.Fatal(err)
	}
	in, err := ingest.New(eng, st, ingest.Config{Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := in.Rebuild(ctx); err != nil {
		t.Fatal(err)
	}
	return &node{st: st, src: chainsource.New(chainsource.Config{Name: name, Pushed: true, RPC: rpc, Store: st, Ingest: in,
		Start: start, Clock: clock, GapBackoff: time.Nanosecond})}
}

func (n *node) stored(t *testing.T) []string {
	t.Helper()
	var out []string
	if err := n.st.ScanTrades(context.Background(), 0, 0, func(c []ingest.StoredTrade) error {
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

// crashSink passes slots to the cursor until the one of crashAt is
// committed; then the process "dies": it stops the source and stores
// nothing more (what is committed is all that survives, as after kill -9).
// done closes when the slot of last is stored.
type crashSink struct {
	inner         Sink
	crashAt, last int64
	stop          context.CancelFunc
	mu            sync.Mutex
	dead          bool
	done          chan struct{}
}

var errCrashed = errors.New("test: process crashed")

func (c *crashSink) Slot(ctx context.Context, b Batch) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dead {
		return errCrashed
	}
	if err := c.inner.Slot(ctx, b); err != nil {
		return err
	}
	if b.Slot == c.crashAt {
		c.dead = true
		c.stop()
	}
	if b.Slot == c.last {
		close(c.done)
	}
	return nil
}

func (c *crashSink) Gap(ctx context.Context, g Gap) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dead {
		return errCrashed
	}
	if err := c.inner.Gap(ctx, g); err != nil {
		return err
	}
	if g.ToSlot >= c.last {
		close(c.done)
	}
	return nil
}

// stream runs a Source over the cursor from its Resume slot until the
// sink has the last confirmed slot or crashes at crashAt (0: never).
func stream(t *testing.T, w *world, n *node, msgs func(from int64) []*geyserpb.SubscribeUpdate, crashAt int64, cfg Config) (from int64, src *Source) {
	t.Helper()
	from, err := n.src.Resume(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeGeyser{script: func(_ int, req *geyserpb.SubscribeRequest) ([]*geyserpb.SubscribeUpdate, error) {
		return msgs(int64(req.GetFromSlot())), nil
	}}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	sink := &crashSink{inner: CursorSink{Cursor: n.src}, crashAt: crashAt, last: w.confirmed[len(w.confirmed)-1], stop: cancel, done: make(chan struct{})}
	cfg.FromSlot, cfg.Sleep = from, noSleep
	src = New(startServer(t, f), sink, cfg)
	errc := make(chan error, 1)
	go func() { errc <- src.Run(ctx) }()
	select {
	case <-sink.done:
		cancel()
	case <-ctx.Done(): // crashed
	case <-time.After(2 * time.Minute): // a hang guard, not a speed assertion
		t.Fatal("the stream never reached its last slot")
	}
	<-errc
	return from, src
}

// TestCursorSinkRestartResumesFromCursor: a process stores the stream
// through the cursor and dies after a committed slot; the next one
// resumes at from_slot = cursor + 1 and the stored trades are exactly the
// expected set; re-running every slot from an older start (its own
// cursor) gives only duplicates.
func TestCursorSinkRestartResumesFromCursor(t *testing.T) {
	for name, engine := range engines(t) {
		t.Run(name, func(t *testing.T) { testRestartResumesFromCursor(t, engine(t)) })
	}
}

func testRestartResumesFromCursor(t *testing.T, dir func() nodeStore) {
	w := newWorld(t)
	want := wantTrades(t, w)
	crashAt := w.confirmed[4]

	a := startNode(t, w, dir, "yellowstone", 0, nil)
	from, _ := stream(t, w, a, w.from, crashAt, Config{})
	if from != 0 {
		t.Fatalf("an empty cursor resumed at %d, want the live tip (0)", from)
	}
	storedA := a.stored(t)
	if len(storedA) == 0 || len(storedA) >= len(want) {
		t.Fatalf("before the crash %d of %d trades stored; the test wants some, not all", len(storedA), len(want))
	}
	a.st.Close()

	b := startNode(t, w, dir, "yellowstone", 0, nil)
	var sent []int64
	from, _ = stream(t, w, b, func(from int64) []*geyserpb.SubscribeUpdate {
		sent = append(sent, from)
		return w.from(from)
	}, 0, Config{})
	if from != crashAt+1 || !slices.Equal(sent, []int64{crashAt + 1}) {
		t.Fatalf("resumed at %d (from_slot sent %v), want %d", from, sent, crashAt+1)
	}
	if got := b.stored(t); !slices.Equal(got, want) {
		t.Fatalf("stored %d trades, want %d:\n%s", len(got), len(want), cmp.Diff(want, got))
	}
	st := b.src.Status()
	last := w.confirmed[len(w.confirmed)-1]
	if st.Source != "yellowstone" || st.ContiguousThroughSlot != last || len(st.Gaps) != 0 || st.Trades.Duplicates != 0 ||
		st.Trades.Emitted != int64(len(want)-len(storedA)) || st.State != chainsource.StateFollowing || st.HeadSlot != last {
		t.Fatalf("after the restart: %+v", st)
	}

	// Every slot again from the first (a second cursor from an older
	// start): only duplicates, the stored set unchanged.
	c := startNode(t, w, dir, "yellowstone-rerun", w.confirmed[0], nil)
	stream(t, w, c, w.from, 0, Config{})
	rs := c.src.Status()
	if rs.Trades.Emitted != 0 || rs.Trades.Duplicates != int64(len(want)) {
		t.Fatalf("re-run: emitted %d, duplicates %d, want 0 and %d", rs.Trades.Emitted, rs.Trades.Duplicates, len(want))
	}
	if got := c.stored(t); !slices.Equal(got, want) {
		t.Fatalf("after the re-run stored %v", got)
	}
}

// rpcNode serves getBlocks and getBlock of the composed world (JSON-RPC).
type rpcNode struct {
	t     *testing.T
	w     *world
	mu    sync.Mutex
	calls map[string]int
}

func (r *rpcNode) ServeHTTP(rw http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	var call struct {
		ID     uint64            `json:"id"`
		Method string            `json:"method"`
		Params []json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(body, &call); err != nil {
		http.Error(rw, err.Error(), http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	r.calls[call.Method]++
	r.mu.Unlock()
	var result any
	switch call.Method {
	case "getBlocks":
		var from, to int64
		_ = json.Unmarshal(call.Params[0], &from)
		_ = json.Unmarshal(call.Params[1], &to)
		slots := []int64{}
		for s := range r.w.metas {
			if s >= from && s <= to {
				slots = append(slots, s)
			}
		}
		slices.Sort(slots)
		result = slots
	case "getBlock":
		var slot int64
		_ = json.Unmarshal(call.Params[0], &slot)
		result = r.w.block(r.t, slot)
	default:
		http.Error(rw, "unexpected method "+call.Method, http.StatusBadRequest)
		return
	}
	_ = json.NewEncoder(rw).Encode(map[string]any{"jsonrpc": "2.0", "id": call.ID, "result": result})
}

// TestCursorSinkGapsSurviveRestartAndFillThroughGetBlock: slots the
// stream misses without a fetcher become the cursor's gaps, stored with
// it; after a restart they are still open (and reported), and the
// source's gap retries fill them through getBlocks/getBlock like the RPC
// source's, completing the expected set exactly.
func TestCursorSinkGapsSurviveRestartAndFillThroughGetBlock(t *testing.T) {
	for name, engine := range engines(t) {
		t.Run(name, func(t *testing.T) { testGapsSurviveRestart(t, engine(t)) })
	}
}

func testGapsSurviveRestart(t *testing.T, dir func() nodeStore) {
	w := newWorld(t)
	want := wantTrades(t, w)
	// Miss the first and the last slot holding a USD-stable trade.
	var withTrades []int64
	for _, slot := range w.confirmed {
		for _, r := range w.txs[slot] {
			tx, _ := swapdecode.DecodeTransaction(r.raw)
			if len(swapdecode.Trades(tx, swapdecode.DefaultStableMints())) > 0 {
				withTrades = append(withTrades, slot)
				break
			}
		}
	}
	if len(withTrades) < 2 || withTrades[0] == w.confirmed[0] {
		t.Fatalf("slots with trades %v: the test wants two, after the first slot", withTrades)
	}
	x, y := withTrades[0], withTrades[len(withTrades)-1]
	msgs := dropSlots(w.msgs, map[int64]bool{x: true}, map[int64]bool{y: true})

	a := startNode(t, w, dir, "yellowstone", w.confirmed[0], nil)
	stream(t, w, a, func(int64) []*geyserpb.SubscribeUpdate { return msgs }, 0, Config{})
	gapsOf := func(gs []storage.SourceGap) [][2]int64 {
		var out [][2]int64
		for _, g := range gs {
			out = append(out, [2]int64{g.FromSlot, g.ToSlot})
		}
		return out
	}
	st := a.src.Status()
	if d := cmp.Diff([][2]int64{{x, x}, {y, y}}, gapsOf(st.Gaps)); d != "" || st.ContiguousThroughSlot != x-1 {
		t.Fatalf("gaps (-want +got):\n%s\nthrough %d", d, st.ContiguousThroughSlot)
	}
	if got := a.stored(t); len(got) >= len(want) {
		t.Fatalf("with two slots missed all %d trades are stored", len(got))
	}
	a.st.Close()

	node := &rpcNode{t: t, w: w, calls: map[string]int{}}
	srv := httptest.NewServer(node)
	t.Cleanup(srv.Close)
	b := startNode(t, w, dir, "yellowstone", 0, solanarpc.New(srv.URL, solanarpc.Options{RPS: -1}))
	from, err := b.src.Resume(context.Background())
	if err != nil || from != w.confirmed[len(w.confirmed)-1]+1 {
		t.Fatalf("resume at %d (%v)", from, err)
	}
	if d := cmp.Diff([][2]int64{{x, x}, {y, y}}, gapsOf(b.src.Status().Gaps)); d != "" {
		t.Fatalf("gaps after the restart (-want +got):\n%s", d)
	}
	for i := 0; i < 3 && len(b.src.Status().Gaps) > 0; i++ {
		if _, err := b.src.Step(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	st = b.src.Status()
	if len(st.Gaps) != 0 || st.ContiguousThroughSlot != w.confirmed[len(w.confirmed)-1] {
		t.Fatalf("after the retries: %+v", st)
	}
	if got := b.stored(t); !slices.Equal(got, want) {
		t.Fatalf("stored %d trades, want %d:\n%s", len(got), len(want), cmp.Diff(want, got))
	}
	if node.calls["getBlock"] != 2 {
		t.Errorf("getBlock calls %d, want 2 (the two gaps)", node.calls["getBlock"])
	}
}

// TestPendingSlotsAreBounded: a stream whose slots never complete (no
// confirmation, no block metadata) holds at most MaxPendingSlots of them;
// past that the session ends and the source resubscribes from its last
// handed-over slot.
func TestPendingSlotsAreBounded(t *testing.T) {
	recs := recordedJSONTxs(t)
	info := protoFromRPC(t, recs[0].raw)
	var msgs []*geyserpb.SubscribeUpdate
	for slot := uint64(1000); slot < 1020; slot++ {
		msgs = append(msgs, &geyserpb.SubscribeUpdate{UpdateOneof: &geyserpb.SubscribeUpdate_Transaction{
			Transaction: &geyserpb.SubscribeUpdateTransaction{Transaction: info, Slot: slot}}})
	}
	f := &fakeGeyser{script: func(int, *geyserpb.SubscribeRequest) ([]*geyserpb.SubscribeUpdate, error) { return msgs, nil }}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var ended error
	src := New(startServer(t, f), newSink(0), Config{MaxPendingSlots: 8, Sleep: func(ctx context.Context, _ time.Duration) error {
		cancel() // the first session's end is what the test waits for
		return ctx.Err()
	}, OnSessionEnd: func(err error) { ended = err }})
	_ = src.Run(ctx)
	if !errors.Is(ended, ErrPendingFull) {
		t.Errorf("OnSessionEnd told %v, want ErrPendingFull", ended)
	}
	st := src.Stats()
	if st.Reconnects != 1 || !strings.Contains(st.LastError, ErrPendingFull.Error()) {
		t.Fatalf("reconnects %d, last error %q", st.Reconnects, st.LastError)
	}
	// The session ended at the first slot past the bound: 20 were sent.
	if n := len(src.pending); n != 8+1 {
		t.Fatalf("%d slots pending when the session ended, want MaxPendingSlots+1 = 9", n)
	}
}
