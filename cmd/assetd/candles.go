package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/market"
)

// candleStore persists the engine's candles.
type candleStore interface {
	UpsertCandles(ctx context.Context, rows []analytics.CandleUpdate) error
	LoadCandles(ctx context.Context, since int64) ([]analytics.CandleUpdate, error)
	PruneCandles(ctx context.Context, interval string, before int64) (int64, error)
}

// pruneStored applies the engine's per-interval retention
// (analytics.DefaultRetention) to the stored candles.
func pruneStored(ctx context.Context, st candleStore, now time.Time) (int64, error) {
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

// candleFlusher writes the engine's changed candles to the store, keeping
// rows whose write failed for the next attempt.
type candleFlusher struct {
	st  candleStore
	eng *analytics.Engine
	log *slog.Logger
	// mu serialises flushes: the periodic one (run) and the final one at
	// shutdown may overlap.
	mu      sync.Mutex
	pending []analytics.CandleUpdate
}

// pendingRows is how many rows wait for the next attempt.
func (f *candleFlusher) pendingRows() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.pending)
}

// flush writes what changed since the last flush.
func (f *candleFlusher) flush(ctx context.Context) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rows := append(f.pending, f.eng.DirtyCandles()...)
	f.pending = nil
	if len(rows) == 0 {
		return 0, nil
	}
	if err := f.st.UpsertCandles(ctx, rows); err != nil {
		f.pending = rows
		return 0, err
	}
	return len(rows), nil
}

// run flushes every interval and applies the retention to the store
// hourly, until ctx ends (the final flush is the caller's, after in-flight
// requests drained).
func (f *candleFlusher) run(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	prune := time.NewTicker(time.Hour)
	defer prune.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-prune.C:
			if n, err := pruneStored(ctx, f.st, now); err != nil {
				f.log.Warn("candle retention failed", "err", err)
			} else if n > 0 {
				f.log.Info("candles past retention deleted", "rows", n)
			}
		case <-t.C:
			if _, err := f.flush(ctx); err != nil && ctx.Err() == nil {
				f.log.Warn("candle flush failed; will retry", "pending", f.pendingRows(), "err", err)
			}
		}
	}
}

// loadCandles applies the retention to the store, then installs every
// stored candle into the engine. Invalid rows (see Engine.LoadCandles)
// are skipped and counted in one summary line; they never stop a start.
func loadCandles(ctx context.Context, st candleStore, eng *analytics.Engine, log *slog.Logger) (int, error) {
	if _, err := pruneStored(ctx, st, time.Now()); err != nil {
		return 0, err
	}
	rows, err := st.LoadCandles(ctx, 0)
	if err != nil {
		return 0, err
	}
	n, skipped := eng.LoadCandles(rows)
	if len(skipped) > 0 {
		log.Warn("invalid stored candles skipped", "skipped", len(skipped), "loaded", n, "first", skipped[0])
	}
	return n, nil
}

func (c *cli) ingest(ctx context.Context, args []string) error {
	_, rest, err := c.subcommand("ingest", args)
	if err != nil {
		return err
	}
	var batch int
	return c.withStore(ctx, "ingest replay", rest, func(fs *flag.FlagSet) {
		fs.IntVar(&batch, "batch", 10_000, "trades per ingest batch")
	}, func(st store, pos []string) error {
		if len(pos) != 1 {
			return usageError{"ingest replay: want exactly one NDJSON FILE"}
		}
		if batch <= 0 {
			return usageError{"ingest replay: --batch must be positive"}
		}
		return c.replay(ctx, st, pos[0], batch)
	})
}

// replay ingests an NDJSON file of trades into the store's candles.
func (c *cli) replay(ctx context.Context, st store, path string, batch int) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("ingest replay: %w", err)
	}
	defer f.Close()
	eng, err := analytics.New(analytics.Config{MaxFutureSkew: 24 * time.Hour})
	if err != nil {
		return err
	}
	n, err := loadCandles(ctx, st, eng, slog.New(slog.NewTextHandler(c.stderr, nil)))
	if err != nil {
		return fmt.Errorf("ingest replay: load candles: %w", err)
	}
	fmt.Fprintf(c.stderr, "loaded %d stored candles; replaying %s\n", n, path)
	fl := &candleFlusher{st: st, eng: eng}
	var total analytics.IngestResult
	reasons := map[string]int{}
	badJSON, lines := 0, 0
	buf := make([]analytics.Trade, 0, batch)
	start, lastReport := time.Now(), time.Now()
	ingest := func() {
		r := eng.Ingest(buf)
		total.Accepted += r.Accepted
		total.Duplicates += r.Duplicates
		total.Rejected += r.Rejected
		for k, v := range r.Reasons {
			reasons[k] += v
		}
		buf = buf[:0]
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		lines++
		var t analytics.Trade
		if err := json.Unmarshal([]byte(line), &t); err != nil {
			badJSON++
			continue
		}
		buf = append(buf, t)
		if len(buf) == batch {
			ingest()
		}
		if time.Since(lastReport) >= time.Second {
			lastReport = time.Now()
			fmt.Fprintf(c.stderr, "%d lines, %d accepted, %d duplicates, %d rejected, %.0f lines/s\n",
				lines, total.Accepted, total.Duplicates, total.Rejected, float64(lines)/time.Since(start).Seconds())
		}
		if ctx.Err() != nil {
			break
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("ingest replay: read %s at line %d: %w", path, lines, err)
	}
	ingest()
	written, err := fl.flush(context.WithoutCancel(ctx))
	if err != nil {
		return fmt.Errorf("ingest replay: write candles: %w", err)
	}
	keys := make([]string, 0, len(reasons))
	for k := range reasons {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var rs []string
	for _, k := range keys {
		rs = append(rs, fmt.Sprintf("%s=%d", k, reasons[k]))
	}
	fmt.Fprintf(c.stdout, "replayed %s: %d lines, %d accepted, %d duplicates, %d rejected (%s), %d malformed JSON lines, %d candles written in %s\n",
		path, lines, total.Accepted, total.Duplicates, total.Rejected, strings.Join(rs, " "), badJSON, written, time.Since(start).Round(time.Millisecond))
	return ctx.Err()
}
