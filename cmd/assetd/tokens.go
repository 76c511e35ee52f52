package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/tokenindex"
)

func (c *cli) tokens(ctx context.Context, args []string) error {
	sub, rest, err := c.subcommand("tokens", args)
	if err != nil {
		return err
	}
	switch sub {
	case "import":
		return c.importCommand(ctx, "tokens import", rest, func(st store, path, source string, dryRun bool) error {
			return c.importTokens(ctx, st, path, source, dryRun)
		})
	case "stats":
		return c.withStore(ctx, "tokens stats", rest, nil, func(st store, pos []string) error {
			src, err := st.TokenSources(ctx)
			if err != nil {
				return err
			}
			total := 0
			for _, s := range src {
				total += s.Tokens
				fmt.Fprintf(c.stdout, "%s\t%d tokens\timported %s\n", s.Source, s.Tokens, storage.FromMs(s.ImportedAt).Format(time.RFC3339))
			}
			start := time.Now()
			x, err := tokenindex.Load(ctx, st)
			if err != nil {
				return err
			}
			s := x.Stats()
			fmt.Fprintf(c.stdout, "total\t%d tokens (%d with a coingecko id)\n", total, s.WithCoingecko)
			fmt.Fprintf(c.stdout, "index\tbuilt in %s: %d name words, %d trigrams, %d postings, %d arena bytes\n",
				time.Since(start).Round(time.Millisecond), s.NameWords, s.Trigrams, s.Postings, s.ArenaBytes)
			return nil
		})
	}
	return usageError{fmt.Sprintf("tokens: unknown subcommand %q", args[0])}
}

// importTokens parses FILE (CSV, token-list JSON or a Jupiter-style
// array), cleans every token and stores them as one source.
func (c *cli) importTokens(ctx context.Context, st store, path, source string, dryRun bool) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("tokens import: %w", err)
	}
	defer f.Close()
	fmt.Fprintf(c.stderr, "parsing %s\n", path)
	byMint := map[string]int{}
	var toks []tokenindex.Token
	changed := 0
	rep, err := tokenindex.Parse(f, func(t tokenindex.Token) {
		ct := t.Clean()
		if !ct.Equal(t) {
			changed++
		}
		if i, ok := byMint[ct.Mint]; ok {
			toks[i] = ct // the later entry wins
			return
		}
		byMint[ct.Mint] = len(toks)
		toks = append(toks, ct)
	}, func(n int) { fmt.Fprintf(c.stderr, "  %d entries read\n", n) })
	if err != nil {
		return fmt.Errorf("tokens import %s: %w", path, err)
	}
	withCG := 0
	for _, t := range toks {
		if t.CoingeckoID != "" {
			withCG++
		}
	}
	fmt.Fprintf(c.stderr, "format %s: %d entries, %d tokens (%d with a coingecko id), %d skipped, %d repeated mints, %d cleaned\n",
		rep.Format, rep.Read, len(toks), withCG, rep.Skipped, rep.Repeated, changed)
	if dryRun {
		fmt.Fprintln(c.stdout, "dry run: nothing stored")
		return nil
	}
	if source == "" {
		source = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	start := time.Now()
	n, err := st.ReplaceTokenSource(ctx, source, toks, time.Now())
	if err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "stored %d tokens as source %s in %s\n", n, source, time.Since(start).Round(time.Millisecond))
	return nil
}
