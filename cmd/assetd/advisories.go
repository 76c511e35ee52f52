package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os/user"
	"text/tabwriter"
	"time"

	"github.com/assetd/assetd/internal/lists"
	"github.com/assetd/assetd/internal/registry"
	"github.com/assetd/assetd/internal/storage"
)

func (c *cli) advisories(ctx context.Context, args []string) error {
	sub, rest, err := c.subcommand("advisories", args)
	if err != nil {
		return err
	}
	ops := func(st store) *lists.Advisories { return lists.NewAdvisories(st, time.Now) }
	switch sub {
	case "set":
		var status, reason, url string
		return c.withStore(ctx, "advisories set", rest, func(fs *flag.FlagSet) {
			fs.StringVar(&status, "status", "", "caution, compromised or blocked")
			fs.StringVar(&reason, "reason", "", "why the mint is flagged (shown to API users)")
			fs.StringVar(&url, "url", "", "optional link with details")
		}, func(st store, pos []string) error {
			if len(pos) != 1 {
				return usageError{"advisories set: want exactly one MINT"}
			}
			if !registry.ValidMint(pos[0]) {
				return usageError{fmt.Sprintf("advisories set: %q is not a base58 32-byte mint address", pos[0])}
			}
			if status == "" || reason == "" {
				return usageError{"advisories set: --status and --reason are required"}
			}
			var u *string
			if url != "" {
				u = &url
			}
			who := ""
			if cu, err := user.Current(); err == nil {
				who = cu.Username
			}
			a, err := ops(st).Set(ctx, pos[0], status, reason, u, who)
			if err != nil {
				return err
			}
			fmt.Fprintf(c.stderr, "flagged %s as %s since %s\n", a.Mint, a.Status, time.UnixMilli(a.Since).UTC().Format(time.RFC3339))
			return nil
		})
	case "clear":
		return c.withStore(ctx, "advisories clear", rest, nil, func(st store, pos []string) error {
			if len(pos) != 1 {
				return usageError{"advisories clear: want exactly one MINT"}
			}
			if err := ops(st).Clear(ctx, pos[0]); err != nil {
				if errors.Is(err, storage.ErrNotFound) {
					return fmt.Errorf("%s is not flagged", pos[0])
				}
				return err
			}
			fmt.Fprintf(c.stderr, "cleared the advisory of %s\n", pos[0])
			return nil
		})
	case "list":
		return c.withStore(ctx, "advisories list", rest, nil, func(st store, pos []string) error {
			all, err := ops(st).List(ctx)
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
			for _, a := range all {
				url := ""
				if a.URL != nil {
					url = *a.URL
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", a.Mint, a.Status, time.UnixMilli(a.Since).UTC().Format(time.RFC3339), a.Reason, url)
			}
			return tw.Flush()
		})
	}
	return usageError{fmt.Sprintf("advisories: unknown subcommand %q", args[0])}
}
