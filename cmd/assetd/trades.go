package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/assetd/assetd/internal/swapdecode"
)

// trades runs the trades command group.
func (c *cli) trades(ctx context.Context, args []string) error {
	sub, rest, err := c.subcommand("trades", args)
	if err != nil {
		return err
	}
	switch sub {
	case "decode":
		return c.tradesDecode(ctx, rest)
	case "backfill":
		return c.tradesBackfill(ctx, rest)
	}
	return usageError{fmt.Sprintf("trades: unknown subcommand %q", sub)}
}

// legEvent is one leg as `trades decode --all-legs` prints it; raw
// amounts are decimal strings (they exceed 2^53).
type legEvent struct {
	Signature   string `json:"signature"`
	Slot        int64  `json:"slot"`
	BlockTime   int64  `json:"blockTime"`
	Leg         int    `json:"leg"`
	Venue       string `json:"venue"`
	Program     string `json:"program"`
	Pool        string `json:"pool"`
	Wallet      string `json:"wallet"`
	InMint      string `json:"inMint"`
	InAmount    string `json:"inAmount"`
	InDecimals  int    `json:"inDecimals"`
	OutMint     string `json:"outMint"`
	OutAmount   string `json:"outAmount"`
	OutDecimals int    `json:"outDecimals"`
}

// tradesDecode prints, as NDJSON on stdout, the trade events of the
// USD-stable legs of recorded getTransaction/getBlock responses (or every
// leg with --all-legs), and a summary per file on stderr.
func (c *cli) tradesDecode(ctx context.Context, args []string) error {
	fs := newFlagSet("trades decode")
	allLegs := fs.Bool("all-legs", false, "print every swap leg (raw amounts), not only the USD-stable trades")
	stableList := fs.String("stable-mints", "", "comma-separated USD-stable mints (default USDC and USDT)")
	if err := c.parse(fs, args, false); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageError{"trades decode: want at least one FILE"}
	}
	stable := swapdecode.DefaultStableMints()
	if strings.TrimSpace(*stableList) != "" {
		var err error
		if stable, err = swapdecode.ParseStableMints(*stableList); err != nil {
			return usageError{"trades decode: --stable-mints: " + err.Error()}
		}
	}
	out := bufio.NewWriter(c.stdout)
	enc := json.NewEncoder(out)
	for _, path := range fs.Args() {
		if err := ctx.Err(); err != nil {
			return err
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("trades decode: %w", err)
		}
		txs, err := swapdecode.DecodeResponse(raw)
		if err != nil {
			return fmt.Errorf("trades decode: %s: %w", path, err)
		}
		var nLegs, nTrades, nFailed int
		var unparsed []string
		for _, tx := range txs {
			if tx.Failed {
				nFailed++
			}
			nLegs += len(tx.Legs)
			unparsed = append(unparsed, tx.Unparsed...)
			trades := swapdecode.Trades(tx, stable)
			nTrades += len(trades)
			if *allLegs {
				for _, l := range tx.Legs {
					err = enc.Encode(legEvent{
						Signature: tx.Signature, Slot: tx.Slot, BlockTime: tx.BlockTime, Leg: l.Index,
						Venue: l.Venue, Program: l.Program, Pool: l.Pool, Wallet: tx.FeePayer,
						InMint: l.InMint, InAmount: strconv.FormatUint(l.InAmount, 10), InDecimals: l.InDecimals,
						OutMint: l.OutMint, OutAmount: strconv.FormatUint(l.OutAmount, 10), OutDecimals: l.OutDecimals,
					})
					if err != nil {
						return err
					}
				}
				continue
			}
			for _, t := range trades {
				if err := enc.Encode(t); err != nil {
					return err
				}
			}
		}
		fmt.Fprintf(c.stderr, "%s: %d transactions (%d failed), %d legs, %d stable trades", path, len(txs), nFailed, nLegs, nTrades)
		if len(unparsed) > 0 {
			fmt.Fprintf(c.stderr, ", unparsed programs: %s", strings.Join(unparsed, ","))
		}
		fmt.Fprintln(c.stderr)
	}
	return out.Flush()
}
