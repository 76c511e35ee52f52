package main

import (
	"context"
	"log/slog"

	"github.com/assetd/assetd/internal/catalog"
	"github.com/assetd/assetd/internal/onchain"
)

// newOnChain builds the on-chain facts reader (docs/onchain.md): every
// registry and curated mint is read on the hourly schedule, the registry's
// with their metadata and largest accounts. caller is the --solana-rpc-url
// client (internal/solanarpc); nil serves only the stored facts (and, with
// --demo, the demo world's synthetic ones).
func newOnChain(ctx context.Context, st onchain.Store, cat *catalog.Catalog, caller onchain.Caller, demo bool, log *slog.Logger) (*onchain.Service, error) {
	svc := onchain.New(onchain.Config{
		Caller: caller, Store: st, Log: log,
		Scheduled: func() []string {
			snap := cat.Snapshot()
			seen := map[string]bool{}
			out := make([]string, 0, len(snap.Mints()))
			for _, m := range snap.Mints() {
				if !seen[m] {
					seen[m] = true
					out = append(out, m)
				}
			}
			for _, l := range snap.CuratedLists() {
				for _, mb := range l.Members {
					if !seen[mb.Mint] {
						seen[mb.Mint] = true
						out = append(out, mb.Mint)
					}
				}
			}
			return out
		},
		Deep: func() []string { return cat.Snapshot().Mints() },
	})
	if err := svc.Load(ctx); err != nil {
		return nil, err
	}
	if demo {
		if err := svc.Put(ctx, onchain.SourceDemo, onchain.DemoFacts(cat.Snapshot().Assets())...); err != nil {
			return nil, err
		}
	}
	return svc, nil
}

// chainWarningCodes are the fact warnings search-tokens adds to a candidate.
func chainWarningCodes(chain *onchain.Service, cat *catalog.Catalog, mint string) []string {
	return onchain.Judgement{Facts: chain, Registry: onchain.SnapshotRegistry(cat.Snapshot)}.FactWarningCodes(mint)
}
