package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/ingest"
)

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

// replay stores an NDJSON file of trades: each batch is committed before
// the progress line counts it. A running server picks the trades up
// (storage.TopicTrades, and its periodic catch-up); a server started later
// derives their candles at start (internal/ingest).
func (c *cli) replay(ctx context.Context, st store, path string, batch int) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("ingest replay: %w", err)
	}
	defer f.Close()
	eng, err := analytics.New(analytics.Config{MaxFutureSkew: 24 * time.Hour, NoDedupe: true})
	if err != nil {
		return err
	}
	in, err := ingest.New(eng, st, ingest.Config{StoreOnly: true})
	if err != nil {
		return err
	}
	fmt.Fprintf(c.stderr, "replaying %s into the %s store\n", path, st.Engine())
	var total analytics.IngestResult
	reasons := map[string]int{}
	badJSON, lines := 0, 0
	buf := make([]analytics.Trade, 0, batch)
	start, lastReport := time.Now(), time.Now()
	ingestBatch := func() error {
		if len(buf) == 0 {
			return nil
		}
		r, err := in.Ingest(ctx, buf)
		if err != nil {
			return fmt.Errorf("ingest replay: store trades: %w", err)
		}
		total.Accepted += r.Accepted
		total.Duplicates += r.Duplicates
		total.Rejected += r.Rejected
		for k, v := range r.Reasons {
			reasons[k] += v
		}
		buf = buf[:0]
		return nil
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
			if err := ingestBatch(); err != nil {
				return err
			}
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
	if ctx.Err() == nil { // interrupted: the buffered rest is not acknowledged
		if err := ingestBatch(); err != nil {
			return err
		}
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
	fmt.Fprintf(c.stdout, "replayed %s: %d lines, %d accepted (stored), %d duplicates, %d rejected (%s), %d malformed JSON lines in %s\n",
		path, lines, total.Accepted, total.Duplicates, total.Rejected, strings.Join(rs, " "), badJSON, time.Since(start).Round(time.Millisecond))
	return ctx.Err()
}
