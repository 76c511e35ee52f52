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
	case "reports":
		return c.advisoryReports(ctx, rest)
	}
	return usageError{fmt.Sprintf("advisories: unknown subcommand %q", args[0])}
}

// advisoryReports is `assetd advisories reports list|accept ID|reject ID`.
func (c *cli) advisoryReports(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return usageError{"advisories reports: want list, accept ID or reject ID"}
	}
	op, rest := args[0], args[1:]
	reps := func(st store) *lists.Reports { return lists.NewReports(st, time.Now) }
	who := ""
	if cu, err := user.Current(); err == nil {
		who = cu.Username
	}
	oneID := func(pos []string) error {
		if len(pos) != 1 {
			return usageError{"advisories reports " + op + ": want exactly one report ID"}
		}
		return nil
	}
	show := func(r lists.Report) {
		fmt.Fprintf(c.stderr, "report %s (%s %s) is %s", r.ID, r.Kind, r.Mint, r.Status)
		if r.Resolution != "" {
			fmt.Fprintf(c.stderr, ": advisory %s set", r.Resolution)
		}
		fmt.Fprintln(c.stderr)
	}
	switch op {
	case "-h", "-help", "--help", "help":
		return c.withStore(ctx, "advisories reports", []string{"-h"}, nil, func(store, []string) error { return nil })
	case "list":
		status := lists.ReportPending
		return c.withStore(ctx, "advisories reports list", rest, func(fs *flag.FlagSet) {
			fs.StringVar(&status, "status", lists.ReportPending, "pending, accepted, rejected, or \"\" for every report")
		}, func(st store, pos []string) error {
			all, err := reps(st).List(ctx, status)
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tSTATUS\tKIND\tMINT\tCLAIMED\tFILED\tEVIDENCE\tNOTE")
			for _, r := range all {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%q\n", r.ID, r.Status, r.Kind, r.Mint, r.ClaimedAsset,
					time.UnixMilli(r.CreatedAt).UTC().Format(time.RFC3339), r.EvidenceURL, r.Note)
			}
			return tw.Flush()
		})
	case "accept":
		var status, reason string
		return c.withStore(ctx, "advisories reports accept", rest, func(fs *flag.FlagSet) {
			fs.StringVar(&status, "status", "", "the advisory to set: caution, compromised or blocked (required)")
			fs.StringVar(&reason, "reason", "", "the advisory's reason (default: names the report's kind, claimed asset and id)")
		}, func(st store, pos []string) error {
			if err := oneID(pos); err != nil {
				return err
			}
			if status == "" {
				return usageError{"advisories reports accept: --status is required (caution, compromised or blocked)"}
			}
			r, err := reps(st).Accept(ctx, pos[0], status, reason, who)
			if err != nil {
				return reportErr(pos[0], err)
			}
			show(r)
			return nil
		})
	case "reject":
		var note string
		return c.withStore(ctx, "advisories reports reject", rest, func(fs *flag.FlagSet) {
			fs.StringVar(&note, "note", "", "why (shown to the reporter)")
		}, func(st store, pos []string) error {
			if err := oneID(pos); err != nil {
				return err
			}
			r, err := reps(st).Reject(ctx, pos[0], note, who)
			if err != nil {
				return reportErr(pos[0], err)
			}
			show(r)
			return nil
		})
	}
	return usageError{fmt.Sprintf("advisories reports: unknown operation %q (want list, accept or reject)", op)}
}

func reportErr(id string, err error) error {
	switch {
	case errors.Is(err, storage.ErrNotFound):
		return fmt.Errorf("no report %s", id)
	case errors.Is(err, lists.ErrReportResolved):
		return fmt.Errorf("report %s was already resolved", id)
	}
	return err
}
