// Command assetd is the Asset Data Service: one binary that serves the API
// (`assetd serve`) and manages its store (`migrate`, `keys`, `sessions`).
// This package is the only place that wires concrete types together.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/assetd/assetd/internal/buildinfo"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := (&cli{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}).run(ctx, os.Args[1:])
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "assetd:", err)
		var u usageError
		if errors.As(err, &u) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// cli carries the process's standard streams so tests can run commands
// in-process. Configuration comes from flags and ASSETD_* variables.
type cli struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// ready, when set, is called by serve with the bound API address.
	ready func(addr string)
}

// usageError marks a command-line mistake (exit status 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

const usageText = `assetd: the Asset Data Service

Usage:
  assetd serve [flags]                       run the API server
  assetd version                             print the version, VCS revision and commit time (also --version)
  assetd migrate [flags]                     apply database migrations and exit
  assetd keys create --project NAME [--name N] [--scopes S1,S2]
  assetd keys list
  assetd keys revoke ID
  assetd keys regenerate ID
  assetd keys rename ID --name N
  assetd keys limits ID [--rate N/WINDOW] [--quota N/month] [--clear]
  assetd keys usage ID [--days N]
  assetd sessions create --user-id U --email E [--ttl 168h]
  assetd sessions list [--user-id U]
  assetd sessions revoke ID
  assetd registry import FILE [--source NAME] [--dry-run]
  assetd registry list
  assetd advisories set MINT --status caution|compromised|blocked --reason TEXT [--url URL]
  assetd advisories clear MINT
  assetd advisories list
  assetd ingest replay FILE [--batch 10000]   NDJSON trades into the stored candles
  assetd trades decode [--all-legs] FILE...   swap legs and USD-stable trades of recorded transactions/blocks
  assetd trades backfill --solana-rpc-url URL --from-slot A --to-slot B   chain trades of a slot range
  assetd registry remove SOURCE
  assetd tokens import FILE [--source NAME] [--dry-run]   token index (CSV, token-list JSON, Jupiter array)
  assetd tokens stats
  assetd projects add-member --project P --user-id U --role owner|admin|member
  assetd projects members --project P   (or --user-id U: that user's projects)

Every command accepts --data-dir and --database-url (env ASSETD_DATA_DIR,
ASSETD_DATABASE_URL); every serve flag has an ASSETD_* equivalent
(--rate-limit: ASSETD_RATE_LIMIT). Run "assetd COMMAND -h" for a command's
description, arguments and flags.
`

// run runs one command; -h is answered on stdout and is not an error.
func (c *cli) run(ctx context.Context, args []string) error {
	if err := c.dispatch(ctx, args); !errors.Is(err, flag.ErrHelp) {
		return err
	}
	return nil
}

func (c *cli) dispatch(ctx context.Context, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(c.stderr, usageText)
		return usageError{"no command given"}
	}
	switch args[0] {
	case "serve":
		return c.serve(ctx, args[1:])
	case "migrate":
		return c.migrate(ctx, args[1:])
	case "keys":
		return c.keys(ctx, args[1:])
	case "sessions":
		return c.sessions(ctx, args[1:])
	case "projects":
		return c.projects(ctx, args[1:])
	case "registry":
		return c.registry(ctx, args[1:])
	case "advisories":
		return c.advisories(ctx, args[1:])
	case "tokens":
		return c.tokens(ctx, args[1:])
	case "ingest":
		return c.ingest(ctx, args[1:])
	case "trades":
		return c.trades(ctx, args[1:])
	case "version", "--version", "-version":
		return c.version(args[1:])
	case "help", "-h", "--help":
		fmt.Fprint(c.stdout, usageText)
		return nil
	}
	fmt.Fprint(c.stderr, usageText)
	return usageError{fmt.Sprintf("unknown command %q", args[0])}
}

// version prints the binary's build information (`assetd version`,
// `assetd --version`).
func (c *cli) version(args []string) error {
	fs := newFlagSet("version")
	if err := c.parse(fs, args, false); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("version: unexpected argument %q", fs.Arg(0))}
	}
	fmt.Fprintln(c.stdout, buildinfo.Read())
	return nil
}
