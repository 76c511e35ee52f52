// Package ingest makes trade ingest durable: a batch is validated, stored
// (deduplicated by identity, signature and leg, against the store, in one transaction) and
// only then applied to the in-memory analytics engine, so a trade counted
// as accepted is committed. At start the engine's state is rebuilt from the
// store: persisted candles, the candles of trades stored after the last
// candle save, and the rolling windows, trending and execution rollups of
// the last 24 h of trades. docs/analytics.md ("Durability") describes the
// guarantee.
//
// Every stored trade has a seq, its commit order (every trade with a lower
// seq committed before it). The Ingester applies stored trades to the
// engine in seq order, so "every trade with seq <= applied is in the
// engine" holds; it saves candles together with that seq (the candle mark),
// and at start re-derives the candles of the trades above the mark.
package ingest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/metrics"
	"github.com/assetd/assetd/internal/storage"
)

// StoredTrade is a trade with its commit sequence number.
type StoredTrade struct {
	Seq int64
	analytics.Trade
}

// Store is the trade and candle store.
type Store interface {
	// InsertTrades stores the trades new by identity (signature, leg) in
	// one transaction.
	InsertTrades(ctx context.Context, trades []analytics.Trade, now time.Time) (storage.TradeInsert, error)
	// ScanTrades streams the trades with seq in (after, before) by seq.
	ScanTrades(ctx context.Context, after, before int64, fn func([]StoredTrade) error) error
	// TradeSeqBefore is the highest seq ingested before t's minute.
	TradeSeqBefore(ctx context.Context, t time.Time) (int64, error)
	// PruneTrades deletes trades ingested before t that the candle mark
	// covers.
	PruneTrades(ctx context.Context, t time.Time) (int64, error)
	// NotifyTrades tells running servers that trades were stored.
	NotifyTrades(ctx context.Context) error
	// CandleState reads every stored candle and the candle mark.
	CandleState(ctx context.Context) ([]analytics.CandleUpdate, int64, error)
	// StreamCandleState reads the candle mark and every stored candle in
	// one snapshot: mark first, then the candles in chunks to load (the
	// chunk is reused after load returns).
	StreamCandleState(ctx context.Context, mark func(int64), load func([]analytics.CandleUpdate) error) error
	// SaveCandles upserts candles and sets the mark, unless the stored
	// mark is past it (false).
	SaveCandles(ctx context.Context, rows []analytics.CandleUpdate, through int64) (bool, error)
	// PruneCandles deletes the interval's candles opening before before.
	PruneCandles(ctx context.Context, interval string, before int64) (int64, error)
}

// DefaultRetention is how long stored trades are kept after ingestion: the
// longest rolling window (24 h) plus a day for late trades and restarts.
// It is also the dedupe horizon: a trade (signature, leg) re-sent within it is a
// duplicate.
const DefaultRetention = 48 * time.Hour

// MinRetention is the shortest retention allowed: the 24 h window plus the
// engine's future-skew bound and the ingestion-minute rounding.
const MinRetention = 24*time.Hour + analytics.DefaultMaxFutureSkew + 2*time.Minute

// rebuildWindow is how far back (by ingestion time) the rebuild reads
// trades for the rolling windows: the 24 h ring, plus the future skew a
// trade may have been ingested early by, plus a minute of rounding.
const rebuildWindow = 24*time.Hour + analytics.DefaultMaxFutureSkew + time.Minute

// Config configures an Ingester.
type Config struct {
	// Clock is the ingestion clock (nil: time.Now).
	Clock func() time.Time
	// Retention of stored trades (0: DefaultRetention; at least
	// MinRetention).
	Retention time.Duration
	// Log receives the rebuild summary and background failures (nil:
	// discarded).
	Log *slog.Logger
	// Metrics counts ingest outcomes (nil: not counted).
	Metrics *metrics.Metrics
	// StoreOnly makes a writer for a process without a serving engine
	// (ingest replay): trades are validated by the engine and stored, the
	// store is notified, the engine's state is not touched.
	StoreOnly bool
}

// Ingester stores trades and keeps an engine in step with the store. It
// is safe for concurrent use.
type Ingester struct {
	eng       *analytics.Engine
	st        Store
	clock     func() time.Time
	retention time.Duration
	log       *slog.Logger
	m         *metrics.Metrics
	storeOnly bool

	// mu serialises applying batches and catching up, so trades enter the
	// engine in seq order. Batches are stored outside it (the store orders
	// concurrent commits by seq), then queued in waiting until every lower
	// seq is applied; applied signals a change of applied, waiting or
	// inflight.
	mu       sync.Mutex
	applied  int64 // every stored trade with seq <= applied is in the engine
	inflight int   // this process's InsertTrades calls not yet queued or failed
	waiting  []storedBatch
	signal   *sync.Cond

	// flushMu serialises Flush.
	flushMu sync.Mutex
	pending []analytics.CandleUpdate // candles whose save failed
	saved   int64                    // the mark of the last successful save
}

// New returns an Ingester over eng and st. The engine should be built with
// analytics.Config.NoDedupe: the store deduplicates.
func New(eng *analytics.Engine, st Store, cfg Config) (*Ingester, error) {
	in := &Ingester{eng: eng, st: st, clock: cfg.Clock, retention: cfg.Retention, log: cfg.Log, m: cfg.Metrics, storeOnly: cfg.StoreOnly}
	if in.clock == nil {
		in.clock = time.Now
	}
	if in.retention == 0 {
		in.retention = DefaultRetention
	}
	if in.retention < MinRetention {
		return nil, fmt.Errorf("ingest: trade retention %s is shorter than %s", in.retention, MinRetention)
	}
	if in.log == nil {
		in.log = slog.New(slog.DiscardHandler)
	}
	in.signal = sync.NewCond(&in.mu)
	return in, nil
}

// storedBatch is a committed batch of this process waiting for its turn.
type storedBatch struct {
	first, last int64
	trades      []analytics.Trade // the newly stored trades, in seq order
}

// maxWaiting bounds the queued batches: beyond it, a gap below them is
// read from the store instead of waiting for a local batch to fill it.
const maxWaiting = 8

// Retention is the stored-trade retention (and dedupe horizon).
func (in *Ingester) Retention() time.Duration { return in.retention }

// Ingest validates trades, stores the new ones (by signature and leg) and, once
// they are committed, applies them to the engine. Accepted counts the
// stored trades; Duplicates those already stored or repeated in the batch.
// On an error nothing of the batch is acknowledged (some of it may be
// stored: a retry counts those as duplicates).
func (in *Ingester) Ingest(ctx context.Context, trades []analytics.Trade) (analytics.IngestResult, error) {
	return in.ingest(ctx, trades, in.st.InsertTrades, false)
}

// InsertFunc stores a batch of admitted trades in one transaction (the
// store's InsertTrades, or a closure over InsertTradesAtCursor that writes
// a trade source's cursor in the same transaction).
type InsertFunc func(ctx context.Context, trades []analytics.Trade, now time.Time) (storage.TradeInsert, error)

// IngestVia is Ingest with the batch stored by insert, which is called
// even when no trade of the batch is admitted (a trade source's cursor
// moves over blocks without trades). The stored trades are applied to the
// engine exactly as Ingest applies them.
func (in *Ingester) IngestVia(ctx context.Context, trades []analytics.Trade, insert InsertFunc) (analytics.IngestResult, error) {
	return in.ingest(ctx, trades, insert, true)
}

func (in *Ingester) ingest(ctx context.Context, trades []analytics.Trade, insert InsertFunc, always bool) (analytics.IngestResult, error) {
	ok, res := in.eng.Admit(trades)
	// The price rules decide each trade now, so the decision is stored
	// with it and a rebuild or another replica applies the same one.
	in.eng.Classify(ok)
	if len(ok) > 0 || always {
		ins, err := in.store(ctx, ok, insert)
		if err != nil {
			in.m.ObserveIngest(0, 0, res.Reasons)
			return analytics.IngestResult{}, err
		}
		res.Accepted = ins.Count
		res.Duplicates += len(ok) - ins.Count
	}
	in.m.ObserveIngest(res.Accepted, res.Duplicates, res.Reasons)
	return res, nil
}

// store commits the admitted trades and applies the new ones.
func (in *Ingester) store(ctx context.Context, ok []analytics.Trade, insert InsertFunc) (storage.TradeInsert, error) {
	if in.storeOnly {
		ins, err := insert(ctx, ok, in.clock())
		if err == nil && ins.Count > 0 {
			fresh := make([]analytics.Trade, 0, ins.Count)
			for i := range ok {
				if ins.Inserted[i] {
					fresh = append(fresh, ok[i])
				}
			}
			in.eng.Admitted(fresh) // later batches decide against these
			// Committed already: a failed notification only delays running
			// servers until their periodic catch-up.
			if nerr := in.st.NotifyTrades(ctx); nerr != nil {
				in.log.Warn("trade notification failed", "err", nerr)
			}
		}
		return ins, err
	}
	in.mu.Lock()
	in.inflight++
	in.mu.Unlock()
	// Concurrent batches transfer and insert in parallel; the store
	// commits them in seq order, and they are applied in that order below.
	ins, err := insert(ctx, ok, in.clock())
	in.mu.Lock()
	defer in.mu.Unlock()
	in.inflight--
	// Waiting batches re-check whether a gap below them can still be
	// filled locally; every change below wakes them again.
	in.signal.Broadcast()
	if err != nil || ins.Count == 0 {
		return ins, err
	}
	fresh := make([]analytics.Trade, 0, ins.Count)
	for i := range ok {
		if ins.Inserted[i] {
			fresh = append(fresh, ok[i])
		}
	}
	b := storedBatch{first: ins.First, last: ins.Last, trades: fresh}
	at, _ := slices.BinarySearchFunc(in.waiting, b.first, func(w storedBatch, first int64) int { return cmp.Compare(w.first, first) })
	in.waiting = slices.Insert(in.waiting, at, b)
	// Reply once the batch is in the engine, so a read after the reply
	// sees it. The batch is stored: a failure here is the engine's,
	// caught up later.
	for in.applied < b.last {
		if in.drainLocked() {
			in.signal.Broadcast()
			continue
		}
		// A gap below the oldest waiting batch: a local batch still being
		// stored fills it soon; otherwise (another process's trades, or
		// seqs a duplicate or a rollback used up) it is read from the store.
		if in.inflight > 0 && len(in.waiting) <= maxWaiting {
			in.signal.Wait()
			continue
		}
		// Seqs below a committed batch are committed or never will be, so
		// after reading them the gap is closed.
		if err := in.catchUpLocked(ctx, in.waiting[0].first); err != nil {
			in.log.Warn("catching up on stored trades failed", "err", err)
			in.applyWaitingLocked()
		} else {
			in.applied = max(in.applied, in.waiting[0].first-1)
		}
		in.signal.Broadcast()
	}
	return ins, nil
}

// drainLocked applies the waiting batches that are next in seq order and
// drops those already applied (read from the store by a catch-up). It
// reports whether it applied or dropped any. Callers hold mu.
func (in *Ingester) drainLocked() bool {
	progressed := false
	for len(in.waiting) > 0 {
		b := in.waiting[0]
		switch {
		case b.last <= in.applied:
		case b.first == in.applied+1:
			in.eng.Ingest(b.trades)
			in.applied = b.last
		default:
			return progressed
		}
		in.waiting[0] = storedBatch{}
		in.waiting = in.waiting[1:]
		progressed = true
	}
	return progressed
}

// applyWaitingLocked applies every waiting batch in seq order whatever the
// gaps (after a failed catch-up; the periodic catch-up cannot fill a gap
// below applied, as it reads above it). Callers hold mu.
func (in *Ingester) applyWaitingLocked() {
	for _, b := range in.waiting {
		if b.last > in.applied {
			in.eng.Ingest(b.trades)
			in.applied = b.last
		}
	}
	clear(in.waiting)
	in.waiting = in.waiting[:0]
}

// CatchUp applies the trades other processes stored since the last batch
// this one applied (ingest replay, other replicas). It returns how many.
func (in *Ingester) CatchUp(ctx context.Context) (int, error) {
	if in.storeOnly {
		return 0, nil
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	before := in.applied
	n := 0
	err := in.st.ScanTrades(ctx, in.applied, 0, func(chunk []StoredTrade) error {
		n += len(chunk)
		in.applyLocked(chunk)
		return nil
	})
	in.signal.Broadcast()
	if n > 0 {
		in.log.Info("applied trades stored by other processes", "trades", n, "from_seq", before+1, "to_seq", in.applied)
	}
	return n, err
}

// catchUpLocked applies the stored trades with seq in (applied, before).
// Callers hold mu.
func (in *Ingester) catchUpLocked(ctx context.Context, before int64) error {
	return in.st.ScanTrades(ctx, in.applied, before, func(chunk []StoredTrade) error {
		in.applyLocked(chunk)
		return nil
	})
}

// applyLocked ingests a chunk of stored trades (seq ascending, above
// applied) into the engine. Callers hold mu.
func (in *Ingester) applyLocked(chunk []StoredTrade) {
	buf := make([]analytics.Trade, len(chunk))
	for i := range chunk {
		buf[i] = chunk[i].Trade
	}
	in.eng.Ingest(buf)
	in.applied = chunk[len(chunk)-1].Seq
}

// Flush saves the candles changed since the last save together with the
// candle mark (the seq through which the engine holds every stored
// trade). A save refused because another process saved a later mark is
// kept and retried. It returns the candles written.
func (in *Ingester) Flush(ctx context.Context) (int, error) {
	if in.storeOnly {
		return 0, nil
	}
	in.flushMu.Lock()
	defer in.flushMu.Unlock()
	in.mu.Lock()
	rows := append(in.pending, in.eng.DirtyCandles()...)
	through := in.applied
	in.mu.Unlock()
	in.pending = nil
	if len(rows) == 0 && through == in.saved {
		return 0, nil
	}
	ok, err := in.st.SaveCandles(ctx, rows, through)
	if err != nil || !ok {
		in.pending = rows
		return 0, err
	}
	in.saved = through
	if len(rows) >= 10_000 {
		in.log.Info("candles saved", "rows", len(rows), "candle_mark", through)
	}
	return len(rows), nil
}

// Pending is the number of candles waiting for a successful save.
func (in *Ingester) Pending() int {
	in.flushMu.Lock()
	defer in.flushMu.Unlock()
	return len(in.pending)
}

// Prune deletes stored trades past the retention (only those the candle
// mark covers) and stored candles past their interval's retention
// (analytics.DefaultRetention).
func (in *Ingester) Prune(ctx context.Context) error {
	now := in.clock()
	n, err := in.st.PruneTrades(ctx, now.Add(-in.retention))
	if err != nil {
		return err
	}
	c, err := pruneCandles(ctx, in.st, now)
	if n > 0 || c > 0 {
		in.log.Info("stored trades and candles past retention deleted", "trades", n, "candles", c)
	}
	return err
}

// pruneCandles applies the engine's per-interval candle retention to the
// stored candles.
func pruneCandles(ctx context.Context, st Store, now time.Time) (int64, error) {
	var total int64
	for _, iv := range market.Intervals {
		keep := analytics.DefaultRetention(iv)
		if keep <= 0 {
			continue
		}
		n, err := st.PruneCandles(ctx, string(iv), now.Add(-keep).Unix())
		if err != nil {
			return total, err
		}
		total += n
	}
	return total, nil
}

// Run catches up on other processes' trades and saves candles every
// interval, and prunes hourly, until ctx ends. The final Flush at shutdown
// is the caller's (Flush is safe to call while Run runs).
func (in *Ingester) Run(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	prune := time.NewTicker(time.Hour)
	defer prune.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-prune.C:
			if err := in.Prune(ctx); err != nil && ctx.Err() == nil {
				in.log.Warn("trade and candle retention failed", "err", err)
			}
		case <-t.C:
			if _, err := in.CatchUp(ctx); err != nil && ctx.Err() == nil {
				in.log.Warn("catching up on stored trades failed", "err", err)
			}
			if _, err := in.Flush(ctx); err != nil && ctx.Err() == nil {
				in.log.Warn("candle save failed; will retry", "pending", in.Pending(), "err", err)
			}
		}
	}
}

// RebuildStats summarises a Rebuild.
type RebuildStats struct {
	Candles        int // persisted candles loaded
	SkippedCandles int // persisted candles skipped as invalid
	// Trades is the stored trades read; Recandled those above the candle
	// mark (re-applied to the candles too), the rest only to the windows.
	Trades, Recandled int
	// RebuiltCandles is the skipped candles rebuilt from stored trades.
	RebuiltCandles int
	Took           time.Duration
}

// Rebuild restores the engine from the store, before any Ingest: it
// applies the candle retention to the store, loads the persisted candles
// and the candle mark, then reads the trades ingested in the last 24 h
// and every trade above the mark, in seq order: those above the mark
// update candles and windows (Ingest), the others the windows, trending
// and execution rollups only (Warm). It logs a summary line.
func (in *Ingester) Rebuild(ctx context.Context) (RebuildStats, error) {
	if in.storeOnly {
		return RebuildStats{}, errors.New("ingest: Rebuild on a store-only ingester")
	}
	start := time.Now()
	now := in.clock()
	var st RebuildStats
	if _, err := pruneCandles(ctx, in.st, now); err != nil {
		return st, fmt.Errorf("rebuild: candle retention: %w", err)
	}
	// The candles load on their own goroutine while the trades below the
	// mark warm the windows (they touch no candle); trades above the mark
	// re-derive candles, so they wait for the load.
	var (
		mark        int64
		markRead    = make(chan struct{})
		candlesDone = make(chan struct{})
		candleErr   error
		skipped     []error
	)
	go func() {
		defer close(candlesDone)
		candleErr = in.st.StreamCandleState(ctx, func(m int64) {
			mark = m
			close(markRead)
		}, func(rows []analytics.CandleUpdate) error {
			n, sk := in.eng.LoadCandles(rows)
			st.Candles += n
			skipped = append(skipped, sk...)
			return nil
		})
	}()
	if err := awaitMark(markRead, candlesDone, &candleErr); err != nil {
		return st, fmt.Errorf("rebuild: %w", err)
	}
	candlesLoaded := func() error {
		<-candlesDone
		return candleErr
	}
	from, err := in.st.TradeSeqBefore(ctx, now.Add(-rebuildWindow))
	if err != nil {
		<-candlesDone
		return st, fmt.Errorf("rebuild: %w", err)
	}
	from = min(from, mark)

	// The store is read on one goroutine while the engine applies the
	// previous chunk on another.
	type chunk struct{ warm, recandle []analytics.Trade }
	ch := make(chan chunk, 4)
	done := make(chan struct{})
	var loadErr error
	go func() {
		defer close(done)
		waited := false
		for c := range ch {
			if len(c.warm) > 0 {
				in.eng.Warm(c.warm)
			}
			if len(c.recandle) > 0 && loadErr == nil {
				if !waited {
					loadErr, waited = candlesLoaded(), true
				}
				if loadErr == nil {
					in.eng.Ingest(c.recandle)
				}
			}
		}
	}()
	in.mu.Lock()
	last := from
	lastLog := time.Now()
	err = in.st.ScanTrades(ctx, from, 0, func(rows []StoredTrade) error {
		c := chunk{warm: make([]analytics.Trade, 0, len(rows))}
		if rows[len(rows)-1].Seq > mark {
			c.recandle = make([]analytics.Trade, 0, len(rows))
		}
		for i := range rows {
			if rows[i].Seq > mark {
				c.recandle = append(c.recandle, rows[i].Trade)
			} else {
				c.warm = append(c.warm, rows[i].Trade)
			}
		}
		st.Trades += len(rows)
		st.Recandled += len(c.recandle)
		last = rows[len(rows)-1].Seq
		ch <- c
		if time.Since(lastLog) >= 5*time.Second {
			lastLog = time.Now()
			in.log.Info("rebuilding analytics state", "trades", st.Trades, "took", time.Since(start).Round(time.Millisecond))
		}
		return nil
	})
	close(ch)
	<-done
	if lerr := candlesLoaded(); lerr != nil {
		err = errors.Join(err, lerr)
	}
	if len(skipped) > 0 {
		// An invalid stored row (e.g. a +Inf volume written before the
		// value bounds) is skipped and counted, never a refused start.
		in.log.Warn("invalid stored candles skipped", "skipped", len(skipped), "loaded", st.Candles, "first", skipped[0])
		if err == nil {
			var rerr error
			st.RebuiltCandles, rerr = in.recandleSkipped(ctx, skipped, mark)
			err = rerr
		}
	}
	st.SkippedCandles = len(skipped)
	in.applied = max(last, mark)
	in.mu.Unlock()
	in.flushMu.Lock()
	in.saved = mark
	in.flushMu.Unlock()
	st.Took = time.Since(start)
	if err != nil {
		return st, fmt.Errorf("rebuild: %w", err)
	}
	if in.m != nil {
		in.m.TradesRebuild.Observe(st.Took.Seconds())
	}
	in.log.Info("analytics state rebuilt from stored trades", "candles", st.Candles, "trades", st.Trades,
		"recandled", st.Recandled, "candle_mark", mark, "applied_seq", in.applied, "took", st.Took.Round(time.Millisecond))
	return st, nil
}

// recandleSkipped rebuilds the bars LoadCandles skipped from the stored
// trades at or below the candle mark (the scan of Rebuild applied those
// only to the windows; the trades above the mark already went into every
// bar, skipped ones included). The bars become dirty, so the next save
// replaces the bad rows. Bars whose trades are past the trade retention
// keep only what later trades give them. It returns how many bars were
// rebuilt. Callers hold in.mu.
func (in *Ingester) recandleSkipped(ctx context.Context, skipped []error, mark int64) (int, error) {
	bars := make(map[analytics.CandleRef]struct{}, len(skipped))
	for _, e := range skipped {
		if sc, ok := errors.AsType[*analytics.SkippedCandle](e); ok {
			bars[sc.CandleRef] = struct{}{}
		}
	}
	if len(bars) == 0 || mark <= 0 {
		return 0, nil
	}
	hit := make(map[analytics.CandleRef]struct{}, len(bars))
	buf := make([]analytics.Trade, 0, 256)
	err := in.st.ScanTrades(ctx, 0, mark+1, func(rows []StoredTrade) error {
		buf = buf[:0]
		for i := range rows {
			buf = append(buf, rows[i].Trade)
		}
		in.eng.Recandle(buf, bars, hit)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("rebuilding skipped candles: %w", err)
	}
	in.log.Info("skipped candles rebuilt from stored trades", "rebuilt", len(hit), "skipped", len(bars))
	return len(hit), nil
}

// awaitMark waits until the candle load reported the mark (markRead) or
// finished (done, with *loadErr set before done closed). Both may be
// closed by the time it looks, since an empty store reports the mark and
// finishes at once, and select then picks either case: the load failed
// only when *loadErr says so.
func awaitMark(markRead, done <-chan struct{}, loadErr *error) error {
	select {
	case <-markRead:
		return nil
	case <-done:
	}
	if *loadErr != nil {
		return *loadErr
	}
	select {
	case <-markRead:
		return nil
	default:
		return errors.New("the store reported no candle mark")
	}
}
