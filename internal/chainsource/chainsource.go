// Package chainsource follows the Solana chain through JSON-RPC and turns
// its confirmed blocks into trades: getSlot for the head, getBlocks for
// the produced slots of a range (a slot it does not list was skipped: not
// a gap), getBlock for each produced slot, the swap decoder for the legs
// and trades, and the ingest path to store and apply them. The cursor
// (contiguousThroughSlot, the frontier and the gaps) is written in the
// same store transaction as the trades of the blocks it covers, so a
// restart, kill -9 included, resumes exactly after the committed trades
// (docs/tradesource.md). A produced slot whose block cannot be fetched is
// a gap, retried with backoff until filled; the cursor's Through never
// passes one.
package chainsource

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"sync"
	"time"

	"encoding/json"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/ctxwait"
	"github.com/assetd/assetd/internal/ingest"
	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/swapdecode"
)

// Caller is a JSON-RPC client (solanarpc.Client).
type Caller interface {
	Call(ctx context.Context, method string, params []any, result any) error
}

// Store holds the cursor and stores trades with it in one transaction.
type Store interface {
	SourceCursor(ctx context.Context, source string) (storage.SourceCursor, bool, error)
	InsertTradesAtCursor(ctx context.Context, trades []analytics.Trade, now time.Time, cur storage.SourceCursor) (storage.TradeInsert, error)
}

// Ingester validates, stores (through the insert it is given) and applies
// trades (ingest.Ingester).
type Ingester interface {
	IngestVia(ctx context.Context, trades []analytics.Trade, insert ingest.InsertFunc) (analytics.IngestResult, error)
}

// StartLatest seeds an empty cursor at the head slot.
const StartLatest int64 = -1

// Config configures a Source. Store and Ingest are required, RPC too
// unless Pushed (a streaming source without RPC keeps its gaps open).
type Config struct {
	RPC    Caller
	Store  Store
	Ingest Ingester
	// Name is the cursor's name (default "solana-rpc"; backfills use
	// their own).
	Name string
	// Decode and Trades default to swapdecode's.
	Decode func(raw []byte, slot int64) ([]swapdecode.Tx, error)
	Trades func(tx swapdecode.Tx, stable map[string]bool) []analytics.Trade
	// Stable is the USD-stable mint set (default swapdecode.DefaultStableMints).
	Stable map[string]bool
	// Commitment (confirmed) and Encoding (jsonParsed) of the calls.
	Commitment, Encoding string
	// Start seeds an empty cursor: a slot, or StartLatest.
	Start int64
	// Stop, when > 0, ends Run once every slot <= Stop is stored or
	// skipped (a backfill); the head is then min(getSlot, Stop).
	Stop int64
	// Window is the most slots one getBlocks asks for (default 1,000;
	// the RPC allows 500,000). Batch is the most blocks committed in one
	// transaction (default 32).
	Window, Batch int
	// MaxGaps is the most open gaps: with as many, the source retries
	// them and fetches no new slot (default 256).
	MaxGaps int
	// Fetchers is how many getBlock calls run at once (default 4).
	Fetchers int
	// Poll is the pause when following at the head (default 400 ms, a
	// slot). GapBackoff is the first pause before a gap is retried,
	// doubling per attempt up to 5 minutes (default 1 s).
	Poll, GapBackoff time.Duration
	// Pushed makes a streaming source's cursor (Yellowstone): slots come
	// through StoreSlot and StoreGap, Step fetches no new slot and only
	// retries the gaps through RPC (none without RPC), and the head is
	// the newest pushed slot (stream.go).
	Pushed bool
	// Tip, when set, wakes the follower at once on a new slot (a
	// websocket's slotSubscribe) instead of after Poll; while it is not
	// connected the follower polls getSlot every Poll. TipPoll is the
	// longest pause while it is connected (default 5 s). Only the pause
	// changes: every step still reads getSlot (tip.go).
	Tip     TipNotifier
	TipPoll time.Duration
	// Leader says whether this replica runs the source (nil: always).
	Leader func() bool
	// Clock and Sleep default to the wall clock.
	Clock func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	Log   *slog.Logger
}

// Source follows the chain. Step is one pass; Run loops.
type Source struct {
	cfg Config

	// wmu serializes cursor writes (store); mu guards the fields below.
	wmu    sync.Mutex
	mu     sync.Mutex
	cur    storage.SourceCursor
	loaded bool
	active bool                // stepping as the leader (Status: not off)
	next   map[int64]time.Time // gap start -> earliest retry
	stats  Status
	lastOK time.Time
	lastBT int64 // blockTime of the newest stored block
	// streamErr is why a streaming source's subscription last ended
	// ("" once a slot is stored since).
	streamErr string
	// tipSeen is the newest slot Tip woke the follower for.
	tipSeen int64
}

// New returns a source (not running).
func New(cfg Config) *Source {
	if cfg.Name == "" {
		cfg.Name = "solana-rpc"
	}
	if cfg.Decode == nil {
		cfg.Decode = swapdecode.DecodeBlock
	}
	if cfg.Trades == nil {
		cfg.Trades = swapdecode.Trades
	}
	if cfg.Stable == nil {
		cfg.Stable = swapdecode.DefaultStableMints()
	}
	if cfg.Commitment == "" {
		cfg.Commitment = "confirmed"
	}
	if cfg.Encoding == "" {
		cfg.Encoding = "jsonParsed"
	}
	if cfg.Window <= 0 {
		cfg.Window = 1000
	}
	if cfg.Batch <= 0 {
		cfg.Batch = 32
	}
	if cfg.MaxGaps <= 0 {
		cfg.MaxGaps = 256
	}
	if cfg.Fetchers <= 0 {
		cfg.Fetchers = 4
	}
	if cfg.Poll <= 0 {
		cfg.Poll = 400 * time.Millisecond
	}
	if cfg.GapBackoff <= 0 {
		cfg.GapBackoff = time.Second
	}
	if cfg.TipPoll <= 0 {
		cfg.TipPoll = 5 * time.Second
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if cfg.Sleep == nil {
		cfg.Sleep = ctxwait.Sleep
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	s := &Source{cfg: cfg, next: map[int64]time.Time{}}
	s.stats = newStatus(cfg.Name)
	return s
}

// ErrDone is returned by Step once a bounded source (Stop) is complete.
var ErrDone = errors.New("chainsource: range complete")

// Run steps until ctx ends (nil) or a bounded source completes (nil).
// Errors of a step are counted, logged and retried after Poll.
func (s *Source) Run(ctx context.Context) error {
	failing := false // log a failure once per run of failures
	for ctx.Err() == nil {
		more, err := s.Step(ctx)
		if errors.Is(err, ErrDone) {
			return nil
		}
		switch {
		case err != nil && ctx.Err() == nil && !failing:
			s.cfg.Log.Warn("trade source step failed; retrying (logged once until a step succeeds)", "err", err)
			failing = true
		case err == nil && failing:
			s.cfg.Log.Info("trade source steps succeed again")
			failing = false
		}
		if !more || err != nil {
			if err := s.pause(ctx, err != nil); err != nil {
				return nil
			}
		}
	}
	return nil
}

// Step makes one pass: it reads the head, retries the gaps that are due,
// and fetches and commits at most one window of new slots. more reports
// whether slots below the head remain (no pause needed).
func (s *Source) Step(ctx context.Context) (more bool, err error) {
	if s.cfg.Leader != nil && !s.cfg.Leader() {
		s.mu.Lock()
		s.loaded = false // re-read the cursor on taking over
		s.active = false
		s.mu.Unlock()
		return false, nil
	}
	s.mu.Lock()
	s.active = true
	s.mu.Unlock()
	defer func() { s.noteStep(err) }()
	if s.cfg.Pushed {
		return false, s.stepPushed(ctx)
	}
	var head int64
	if err := s.cfg.RPC.Call(ctx, "getSlot", []any{map[string]any{"commitment": s.cfg.Commitment}}, &head); err != nil {
		return false, err
	}
	if s.cfg.Stop > 0 {
		head = min(head, s.cfg.Stop)
	}
	s.mu.Lock()
	s.stats.HeadSlot = head
	s.mu.Unlock()
	if err := s.load(ctx, head); err != nil {
		return false, err
	}
	if err := s.retryGaps(ctx); err != nil {
		return false, err
	}
	s.mu.Lock()
	cur := s.cur
	s.mu.Unlock()
	if len(cur.Gaps) >= s.cfg.MaxGaps {
		// Bounded memory and cursor: no new slots until gaps are filled
		// (an endpoint that serves no block, a decoder that fails).
		return false, fmt.Errorf("%d open gaps: not advancing until some are filled (last: %s)", len(cur.Gaps), cur.Gaps[len(cur.Gaps)-1].LastError)
	}
	if cur.Frontier >= head {
		if s.cfg.Stop > 0 && cur.Through >= s.cfg.Stop {
			return false, ErrDone
		}
		return false, nil
	}
	to := min(head, cur.Frontier+int64(s.cfg.Window))
	var slots []int64
	if err := s.cfg.RPC.Call(ctx, "getBlocks", []any{cur.Frontier + 1, to, map[string]any{"commitment": s.cfg.Commitment}}, &slots); err != nil {
		return false, err
	}
	slices.Sort(slots)
	slots = slices.DeleteFunc(slots, func(x int64) bool { return x <= cur.Frontier || x > to })
	s.mu.Lock()
	s.stats.Blocks.Skipped += (to - cur.Frontier) - int64(len(slots))
	s.mu.Unlock()
	for len(slots) > 0 || cur.Frontier < to {
		n := min(len(slots), s.cfg.Batch)
		batch := slots[:n]
		slots = slots[n:]
		frontier := to
		if len(slots) > 0 {
			frontier = batch[len(batch)-1]
		}
		if err := s.commit(ctx, batch, nil, frontier); err != nil {
			return false, err
		}
		s.mu.Lock()
		cur = s.cur
		s.mu.Unlock()
	}
	return to < head, nil
}

// load reads the stored cursor, or seeds it, once per leadership.
func (s *Source) load(ctx context.Context, head int64) error {
	s.mu.Lock()
	loaded := s.loaded
	s.mu.Unlock()
	if loaded {
		return nil
	}
	cur, found, err := s.cfg.Store.SourceCursor(ctx, s.cfg.Name)
	if err != nil {
		return err
	}
	if !found {
		start := s.cfg.Start
		if start == StartLatest || start <= 0 {
			start = head
		}
		cur = storage.SourceCursor{Source: s.cfg.Name, Through: start - 1, Frontier: start - 1}
		s.cfg.Log.Info("trade source starts", "source", s.cfg.Name, "slot", start)
	} else {
		s.cfg.Log.Info("trade source resumes at its stored cursor", "source", s.cfg.Name, "through", cur.Through, "frontier", cur.Frontier, "gaps", len(cur.Gaps))
	}
	s.mu.Lock()
	s.cur, s.loaded = cur, true
	s.next = map[int64]time.Time{}
	s.mu.Unlock()
	return nil
}

// fetched is one fetched block's outcome.
type fetched struct {
	slot   int64
	trades []analytics.Trade
	err    error
}

// fetch gets and decodes one block.
func (s *Source) fetch(ctx context.Context, slot int64) fetched {
	var raw json.RawMessage
	err := s.cfg.RPC.Call(ctx, "getBlock", []any{slot, map[string]any{
		"commitment": s.cfg.Commitment, "encoding": s.cfg.Encoding, "transactionDetails": "full",
		"maxSupportedTransactionVersion": 0, "rewards": false}}, &raw)
	if err == nil && (len(raw) == 0 || string(raw) == "null") {
		err = fmt.Errorf("getBlock %d: null result", slot)
	}
	if err != nil {
		s.mu.Lock()
		s.stats.Blocks.Failed++
		s.mu.Unlock()
		return fetched{slot: slot, err: err}
	}
	txs, err := s.cfg.Decode(raw, slot)
	if err != nil {
		s.mu.Lock()
		s.stats.Blocks.Failed++
		s.mu.Unlock()
		return fetched{slot: slot, err: fmt.Errorf("decode block %d: %w", slot, err)}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return fetched{slot: slot, trades: s.account(txs, nil)}
}

// account counts one block's (or streamed slot's) transactions, legs and
// trades and returns its trades: given (a streaming source decodes its
// own) or from Config.Trades. Callers hold mu.
func (s *Source) account(txs []swapdecode.Tx, given []analytics.Trade) []analytics.Trade {
	var trades []analytics.Trade
	var bt int64
	s.stats.Blocks.Fetched++
	for i := range txs {
		tx := &txs[i]
		bt = max(bt, tx.BlockTime)
		s.stats.Transactions.Seen++
		if tx.Failed {
			s.stats.Transactions.Failed++
			continue
		}
		if len(tx.Legs) > 0 {
			s.stats.Transactions.WithLegs++
		}
		for _, l := range tx.Legs {
			s.program(l.Program, l.Venue).Decoded++
		}
		for _, p := range tx.Unparsed {
			s.program(p, "").Unparsed++
		}
		if given == nil {
			trades = append(trades, s.cfg.Trades(*tx, s.cfg.Stable)...)
		}
	}
	if given != nil {
		trades = given
	}
	for _, t := range trades {
		s.program(t.Program, t.Venue).Stable++
	}
	s.lastBT = max(s.lastBT, bt)
	return trades
}

// commit fetches the blocks of slots (ascending), then stores their
// trades with the cursor moved to frontier (new slots; 0: gaps only) and
// the fetch failures recorded as gaps; the slots of fill that were
// fetched leave the gaps.
func (s *Source) commit(ctx context.Context, slots []int64, fill []int64, frontier int64) error {
	results := s.fetchAll(ctx, slots)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	trades, failed, ok := splitFetched(results)
	var filled []int64
	for _, slot := range fill {
		if ok[slot] {
			filled = append(filled, slot)
		}
	}
	return s.store(ctx, trades, failed, filled, frontier)
}

// splitFetched sorts fetch results into the trades of the fetched blocks,
// a one-slot gap per failed fetch, and the set of slots fetched.
func splitFetched(results []fetched) (trades []analytics.Trade, failed []storage.SourceGap, ok map[int64]bool) {
	ok = map[int64]bool{}
	for _, f := range results {
		if f.err != nil {
			failed = append(failed, storage.SourceGap{FromSlot: f.slot, ToSlot: f.slot, LastError: f.err.Error()})
			continue
		}
		ok[f.slot] = true
		trades = append(trades, f.trades...)
	}
	return trades, failed, ok
}

// fetchAll fetches the blocks of slots concurrently (Fetchers at a time,
// under the client's shared request budget), results in slot order.
func (s *Source) fetchAll(ctx context.Context, slots []int64) []fetched {
	results := make([]fetched, len(slots))
	var wg sync.WaitGroup
	sem := make(chan struct{}, s.cfg.Fetchers)
	for i, slot := range slots {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			results[i] = s.fetch(ctx, slot)
		})
	}
	wg.Wait()
	return results
}

// store writes trades with the next cursor in one store transaction: the
// slots of filled leave the gaps, the failed fetches become (or retry)
// gaps, and the frontier moves to frontier when that is further. Writes
// are serialized (wmu): a streaming source's slots and the gap retries
// of Run build on the same cursor.
func (s *Source) store(ctx context.Context, trades []analytics.Trade, failed []storage.SourceGap, filled []int64, frontier int64) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.mu.Lock()
	next := s.cur
	next.Gaps = slices.Clone(next.Gaps)
	s.mu.Unlock()
	for _, slot := range filled {
		next.Gaps = removeSlot(next.Gaps, slot)
	}
	for _, g := range failed {
		next.Gaps = addGapRange(next.Gaps, g.FromSlot, g.ToSlot, g.LastError, s.cfg.MaxGaps)
	}
	if frontier > next.Frontier {
		next.Frontier = frontier
	}
	next.Through = next.Frontier
	if len(next.Gaps) > 0 {
		next.Through = min(next.Frontier, next.Gaps[0].FromSlot-1)
	}
	now := s.cfg.Clock()
	res, err := s.cfg.Ingest.IngestVia(ctx, trades, func(ctx context.Context, ok []analytics.Trade, at time.Time) (storage.TradeInsert, error) {
		return s.cfg.Store.InsertTradesAtCursor(ctx, ok, at, next)
	})
	if err != nil {
		if errors.Is(err, storage.ErrConflict) {
			// Another replica moved the cursor: re-read it (and stop
			// writing unless this one still leads).
			s.mu.Lock()
			s.loaded = false
			s.mu.Unlock()
		}
		return fmt.Errorf("store blocks through slot %d: %w", max(frontier, next.Frontier), err)
	}
	next.Version++
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cur = next
	s.lastOK = now
	s.stats.Trades.Emitted += int64(res.Accepted)
	s.stats.Trades.Duplicates += int64(res.Duplicates)
	for r, n := range res.Reasons {
		s.stats.Trades.Rejected[r] += int64(n)
	}
	for _, f := range failed {
		g := gapOf(next.Gaps, f.FromSlot)
		s.next[g.FromSlot] = now.Add(backoff(s.cfg.GapBackoff, g.Attempts))
	}
	// Retry times of closed (or split) gaps go: the map holds at most one
	// entry per open gap (at most MaxGaps).
	for from := range s.next {
		if !hasGap(next.Gaps, from) {
			delete(s.next, from)
		}
	}
	return nil
}

// hasGap reports whether a gap starts at from.
func hasGap(gaps []storage.SourceGap, from int64) bool {
	for _, g := range gaps {
		if g.FromSlot == from {
			return true
		}
	}
	return false
}

// retryGaps refetches the gaps that are due; a gap is a range of produced
// slots, so getBlocks first says which of its slots exist (a slot the node
// now calls skipped closes). One pass takes at most Window slots of a gap
// and commits them Batch produced slots at a time, so a long gap (a
// streaming source's outage) is filled over several passes in bounded
// memory.
func (s *Source) retryGaps(ctx context.Context) error {
	s.mu.Lock()
	now := s.cfg.Clock()
	var due []storage.SourceGap
	for _, g := range s.cur.Gaps {
		if at, ok := s.next[g.FromSlot]; !ok || !now.Before(at) {
			due = append(due, g)
		}
	}
	s.mu.Unlock()
	for _, g := range due {
		to := min(g.ToSlot, g.FromSlot+int64(s.cfg.Window)-1)
		var slots []int64
		if err := s.cfg.RPC.Call(ctx, "getBlocks", []any{g.FromSlot, to, map[string]any{"commitment": s.cfg.Commitment}}, &slots); err != nil {
			return err
		}
		listed := map[int64]bool{}
		for _, x := range slots {
			listed[x] = true
		}
		var fetch, fill []int64
		for x := g.FromSlot; x <= to; x++ {
			fill = append(fill, x)
			if listed[x] {
				fetch = append(fetch, x)
			}
			if len(fetch) == s.cfg.Batch || x == to {
				// Unlisted slots of the gap are skipped: filled without a fetch.
				if err := s.commitGap(ctx, fetch, fill); err != nil {
					return err
				}
				fetch, fill = fetch[:0], fill[:0]
			}
		}
	}
	return nil
}

// commitGap is commit for a gap's slots: the slots of fill that are not
// in fetch (not produced: skipped) and those fetched successfully leave
// the gaps; a failed fetch stays a gap with one more attempt.
func (s *Source) commitGap(ctx context.Context, fetch, fill []int64) error {
	listed := map[int64]bool{}
	for _, x := range fetch {
		listed[x] = true
	}
	results := s.fetchAll(ctx, fetch)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	trades, failed, ok := splitFetched(results)
	var filled []int64
	for _, x := range fill {
		if !listed[x] || ok[x] {
			filled = append(filled, x)
		}
	}
	return s.store(ctx, trades, failed, filled, 0)
}

func backoff(base time.Duration, attempts int) time.Duration {
	d := base << min(max(attempts-1, 0), 20)
	return min(d, 5*time.Minute)
}

// addGap records a failed fetch of slot: a new gap, or one more attempt of
// the gap holding it (adjacent failures merge).
func addGap(gaps []storage.SourceGap, slot int64, msg string) []storage.SourceGap {
	for i := range gaps {
		g := &gaps[i]
		if slot >= g.FromSlot && slot <= g.ToSlot {
			g.Attempts++
			g.LastError = msg
			return gaps
		}
		if slot == g.ToSlot+1 {
			g.ToSlot = slot
			g.LastError = msg
			return gaps
		}
	}
	gaps = append(gaps, storage.SourceGap{FromSlot: slot, ToSlot: slot, Attempts: 1, LastError: msg})
	sort.Slice(gaps, func(i, j int) bool { return gaps[i].FromSlot < gaps[j].FromSlot })
	return gaps
}

// addGapRange records the slots from..to as a gap: one slot is addGap's;
// a range (a streaming source's missed slots, beyond the frontier) is a
// new gap. With max gaps open already, the range joins the last gap,
// which then also covers the processed slots between them: they are
// fetched again when it is retried, giving duplicates only, and the
// gap list (stored with the cursor) stays bounded.
func addGapRange(gaps []storage.SourceGap, from, to int64, msg string, maxGaps int) []storage.SourceGap {
	if from == to {
		for _, g := range gaps {
			if from >= g.FromSlot && from <= g.ToSlot+1 {
				return addGap(gaps, from, msg) // one more attempt, or extends it
			}
		}
	}
	if n := len(gaps); maxGaps > 0 && n >= maxGaps && gaps[n-1].ToSlot < from {
		gaps[n-1].ToSlot = to
		gaps[n-1].LastError = msg
		return gaps
	}
	if from == to {
		return addGap(gaps, from, msg)
	}
	gaps = append(gaps, storage.SourceGap{FromSlot: from, ToSlot: to, Attempts: 1, LastError: msg})
	sort.Slice(gaps, func(i, j int) bool { return gaps[i].FromSlot < gaps[j].FromSlot })
	return gaps
}

// removeSlot takes slot out of the gaps (splitting a range).
func removeSlot(gaps []storage.SourceGap, slot int64) []storage.SourceGap {
	for i, g := range gaps {
		if slot < g.FromSlot || slot > g.ToSlot {
			continue
		}
		switch {
		case g.FromSlot == g.ToSlot:
			return slices.Delete(gaps, i, i+1)
		case slot == g.FromSlot:
			gaps[i].FromSlot++
		case slot == g.ToSlot:
			gaps[i].ToSlot--
		default:
			right := g
			right.FromSlot = slot + 1
			gaps[i].ToSlot = slot - 1
			return slices.Insert(gaps, i+1, right)
		}
		return gaps
	}
	return gaps
}

func gapOf(gaps []storage.SourceGap, slot int64) storage.SourceGap {
	for _, g := range gaps {
		if slot >= g.FromSlot && slot <= g.ToSlot {
			return g
		}
	}
	return storage.SourceGap{FromSlot: slot, Attempts: 1}
}
