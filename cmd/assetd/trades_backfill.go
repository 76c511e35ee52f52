package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/chainsource"
	"github.com/assetd/assetd/internal/ingest"
)

// tradesBackfill fetches slots [from, to] through the RPC source into the
// store. Its cursor is its own (named by the range), written with the
// trades, so an interrupted backfill resumes where it stopped and a
// finished one re-run stores nothing twice.
func (c *cli) tradesBackfill(ctx context.Context, args []string) error {
	var f tradeSourceFlags
	var from, to int64
	return c.withStore(ctx, "trades backfill", args, func(fs *flag.FlagSet) {
		addTradeSourceFlags(fs, &f)
		fs.Int64Var(&from, "from-slot", 0, "first slot of the range")
		fs.Int64Var(&to, "to-slot", 0, "last slot of the range")
	}, func(st store, pos []string) error {
		if len(pos) != 0 {
			return usageError{"trades backfill: unexpected argument " + pos[0]}
		}
		if f.rpcURL == "" {
			return usageError{"trades backfill: --solana-rpc-url is required"}
		}
		if from <= 0 || to < from {
			return usageError{"trades backfill: want 0 < --from-slot <= --to-slot"}
		}
		if err := f.validate(); err != nil {
			return usageError{err.Error()}
		}
		eng, err := analytics.New(analytics.Config{MaxFutureSkew: 24 * time.Hour, NoDedupe: true})
		if err != nil {
			return err
		}
		in, err := ingest.New(eng, st, ingest.Config{StoreOnly: true})
		if err != nil {
			return err
		}
		sc := f.sourceConfig(f.client())
		sc.Name = fmt.Sprintf("backfill:%d-%d", from, to)
		sc.Store, sc.Ingest, sc.Start, sc.Stop = st, in, from, to
		src := chainsource.New(sc)
		start := time.Now()
		progress := func() {
			s := src.Status()
			done := max(0, s.ContiguousThroughSlot-from+1)
			fmt.Fprintf(c.stderr, "\rbackfill %d..%d: through slot %d (%d/%d slots), blocks %d, skipped %d, gaps %d, trades %d new, %d duplicate, %s",
				from, to, s.ContiguousThroughSlot, done, to-from+1, s.Blocks.Fetched, s.Blocks.Skipped, len(s.Gaps), s.Trades.Emitted, s.Trades.Duplicates,
				time.Since(start).Round(time.Second))
		}
		for {
			_, err := src.Step(ctx)
			progress()
			if errors.Is(err, chainsource.ErrDone) {
				fmt.Fprintln(c.stderr)
				return st.NotifyTrades(ctx)
			}
			if ctx.Err() != nil {
				fmt.Fprintln(c.stderr)
				return ctx.Err()
			}
			if err != nil {
				fmt.Fprintf(c.stderr, "\n%v (retrying)\n", err)
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(time.Second):
				}
			}
		}
	})
}
