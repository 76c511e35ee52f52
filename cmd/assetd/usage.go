package main

import (
	"context"
	"flag"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/assetd/assetd/internal/usage"
)

// usageStore is what `keys usage` reads.
type usageStore interface {
	UsageByDay(ctx context.Context, keyID string, sinceMinute int64) ([]usage.DayCount, error)
	ChargedSince(ctx context.Context, sinceMinute int64) (map[string]int64, error)
	QuotaReserved(ctx context.Context, key string, month time.Time) (int64, error)
}

// modeStore records the mode a store was first served in.
type modeStore interface {
	ClaimStoreMode(ctx context.Context, mode string) (string, error)
}

// claimMode refuses to serve a store in demo mode when it was first served
// in real mode, and the reverse, so simulated data never reaches a store
// real mode serves (docs/demo.md).
func claimMode(ctx context.Context, st modeStore, cfg serveConfig) error {
	mode := "real"
	if cfg.demo {
		mode = "demo"
	}
	got, err := st.ClaimStoreMode(ctx, mode)
	if err != nil {
		return err
	}
	if got != mode {
		where := "--data-dir " + cfg.dataDir
		if cfg.databaseURL != "" {
			where = "the --database-url database"
		}
		return fmt.Errorf("the store in %s was first served in %s mode; serving it in %s mode would mix simulated and real data: "+
			"give %s mode its own --data-dir or --database-url (--demo defaults to %s)", where, got, mode, mode, demoDataDir)
	}
	return nil
}

// maxUsageDays bounds `keys usage --days`.
const maxUsageDays = 366

func (c *cli) keysUsage(ctx context.Context, rest []string) error {
	var days int
	return c.withStore(ctx, "keys usage", rest, func(fs *flag.FlagSet) {
		fs.IntVar(&days, "days", 7, fmt.Sprintf("UTC days to show, today included (1..%d)", maxUsageDays))
	}, func(st store, pos []string) error {
		id, err := oneID("keys usage", pos)
		if err != nil {
			return err
		}
		if days < 1 || days > maxUsageDays {
			return usageError{fmt.Sprintf("keys usage: --days must be within 1..%d", maxUsageDays)}
		}
		if _, err := st.GetKey(ctx, id); err != nil {
			return notFoundHint(err, id)
		}
		now := time.Now().UTC()
		since := now.Truncate(24*time.Hour).AddDate(0, 0, -(days - 1))
		rows, err := st.UsageByDay(ctx, id, usage.MinuteOf(since))
		if err != nil {
			return err
		}
		charged, err := st.ChargedSince(ctx, usage.MinuteOf(usage.MonthStart(now)))
		if err != nil {
			return err
		}
		reserved, err := st.QuotaReserved(ctx, id, usage.MonthStart(now))
		if err != nil {
			return err
		}
		fmt.Fprintf(c.stderr, "%s: %d requests charged this month (UTC); stored counts lag a running server by up to its usage flush interval\n", id, charged[id])
		fmt.Fprintf(c.stderr, "%s: %d units of its monthly quota reserved (served, held by running servers, or lost with a crashed one)\n", id, reserved)
		tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "DAY\tROUTE\tSTATUS\tREQUESTS")
		for _, r := range rows {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\n", r.Day.Format(time.DateOnly), r.Route, r.Status, r.Requests)
		}
		return tw.Flush()
	})
}
