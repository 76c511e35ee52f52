package chainsource

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/ingest"
	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/swapdecode"
)

// The follower's memory is bounded by its configuration, not by the
// chain: these tests check the bounds structurally (what is requested and
// held at once), not by measuring memory.

// memStore is an in-memory cursor store that counts the getBlock calls
// each commit covers.
type memStore struct {
	mu        sync.Mutex
	cur       storage.SourceCursor
	found     bool
	commits   int
	rpc       *countingRPC
	perCommit []int
}

func (m *memStore) SourceCursor(context.Context, string) (storage.SourceCursor, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cur, m.found, nil
}

func (m *memStore) InsertTradesAtCursor(_ context.Context, trades []analytics.Trade, _ time.Time, cur storage.SourceCursor) (storage.TradeInsert, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	cur.Version++
	m.cur, m.found = cur, true
	m.commits++
	if m.rpc != nil {
		m.perCommit = append(m.perCommit, m.rpc.sinceCommit())
	}
	return storage.TradeInsert{Count: len(trades), Inserted: make([]bool, len(trades))}, nil
}

type passIngest struct{}

func (passIngest) IngestVia(ctx context.Context, trades []analytics.Trade, insert ingest.InsertFunc) (analytics.IngestResult, error) {
	ins, err := insert(ctx, trades, time.Time{})
	return analytics.IngestResult{Accepted: ins.Count}, err
}

// countingRPC is a chain where every slot up to head has an empty block.
type countingRPC struct {
	head int64

	mu              sync.Mutex
	inflight, maxIn int
	blocks          int
	widest          int64
}

func (c *countingRPC) sinceCommit() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.blocks
	c.blocks = 0
	return n
}

func (c *countingRPC) Call(_ context.Context, method string, params []any, result any) error {
	switch method {
	case "getSlot":
		*result.(*int64) = c.head
	case "getBlocks":
		from, to := params[0].(int64), params[1].(int64)
		c.mu.Lock()
		c.widest = max(c.widest, to-from+1)
		c.mu.Unlock()
		out := []int64{}
		for s := from; s <= to; s++ {
			out = append(out, s)
		}
		*result.(*[]int64) = out
	case "getBlock":
		c.mu.Lock()
		c.inflight++
		c.maxIn = max(c.maxIn, c.inflight)
		c.blocks++
		c.mu.Unlock()
		*result.(*json.RawMessage) = json.RawMessage(`{"transactions":[]}`)
		c.mu.Lock()
		c.inflight--
		c.mu.Unlock()
	default:
		return fmt.Errorf("unexpected %s", method)
	}
	return nil
}

func TestFollowerHoldsAtMostABatch(t *testing.T) {
	rpc := &countingRPC{head: 1_000}
	st := &memStore{rpc: rpc}
	src := New(Config{RPC: rpc, Store: st, Ingest: passIngest{}, Start: 1, Window: 100, Batch: 8, Fetchers: 3,
		Decode: func([]byte, int64) ([]swapdecode.Tx, error) { return nil, nil }})
	for i := 0; i < 20; i++ {
		if _, err := src.Step(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if st.cur.Through != 1_000 {
		t.Fatalf("through %d, want 1000", st.cur.Through)
	}
	if rpc.widest > 100 {
		t.Errorf("getBlocks asked for %d slots at once, Window is 100", rpc.widest)
	}
	if rpc.maxIn > 3 {
		t.Errorf("%d getBlock calls at once, Fetchers is 3", rpc.maxIn)
	}
	for i, n := range st.perCommit {
		if n > 8 {
			t.Errorf("commit %d covers %d fetched blocks, Batch is 8", i, n)
		}
	}
}

func TestStreamGapsAndCountsAreBounded(t *testing.T) {
	st := &memStore{}
	src := New(Config{Pushed: true, Store: st, Ingest: passIngest{}, MaxGaps: 4, Start: 100})
	ctx := context.Background()
	// Ten disjoint missed ranges with stored slots between them.
	for i := int64(0); i < 10; i++ {
		base := 100 + i*10
		if err := src.StoreGap(ctx, base, base+2, "missed"); err != nil {
			t.Fatal(err)
		}
		if err := src.StoreSlot(ctx, base+5, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	s := src.Status()
	if len(s.Gaps) > 4 || len(st.cur.Gaps) > 4 {
		t.Fatalf("%d gaps open (%d stored), MaxGaps is 4: %+v", len(s.Gaps), len(st.cur.Gaps), s.Gaps)
	}
	// Every missed slot is still covered by a gap (the last one absorbed
	// the ranges past the bound, stored slots included: duplicates only
	// when refetched).
	for i := int64(0); i < 10; i++ {
		for x := 100 + i*10; x <= 102+i*10; x++ {
			if !covered(s.Gaps, x) {
				t.Errorf("slot %d missed but in no gap", x)
			}
		}
	}
	src.mu.Lock()
	if len(src.next) > len(src.cur.Gaps) {
		t.Errorf("%d retry times for %d gaps", len(src.next), len(src.cur.Gaps))
	}
	src.mu.Unlock()

	// Programs: the unparsed ones past MaxPrograms share one row.
	var txs []swapdecode.Tx
	for i := 0; i < MaxPrograms+50; i++ {
		txs = append(txs, swapdecode.Tx{Signature: fmt.Sprint("synthetic-", i), Unparsed: []string{fmt.Sprint("synthetic-program-", i)}})
	}
	if err := src.StoreSlot(ctx, 300, txs, nil); err != nil {
		t.Fatal(err)
	}
	progs := src.Status().Programs
	if len(progs) > MaxPrograms+1 {
		t.Fatalf("%d program rows, MaxPrograms is %d", len(progs), MaxPrograms)
	}
	var other int64
	for _, p := range progs {
		if p.Program == OtherPrograms {
			other = p.Unparsed
		}
	}
	if other != 50 {
		t.Errorf("other programs counted %d unparsed, want 50", other)
	}
}

func covered(gaps []storage.SourceGap, x int64) bool {
	for _, g := range gaps {
		if x >= g.FromSlot && x <= g.ToSlot {
			return true
		}
	}
	return false
}

func TestStreamErrorShowsUntilASlotIsStored(t *testing.T) {
	src := New(Config{Pushed: true, Store: &memStore{}, Ingest: passIngest{}, Start: 10})
	src.NoteStreamError(errors.New("yellowstone: receive: connection reset"))
	if st := src.Status(); st.LastError != "yellowstone: receive: connection reset" {
		t.Fatalf("lastError %q", st.LastError)
	}
	if err := src.StoreSlot(context.Background(), 10, nil, nil); err != nil {
		t.Fatal(err)
	}
	if st := src.Status(); st.LastError != "" {
		t.Fatalf("lastError %q after a stored slot", st.LastError)
	}
}
