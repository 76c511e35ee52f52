package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/assetd/assetd/internal/catalog"
	"github.com/assetd/assetd/internal/onchain"
	"github.com/assetd/assetd/internal/refresh"
	"github.com/assetd/assetd/internal/refresh/redisshare"
)

// newOnChain builds the on-chain facts reader (docs/onchain.md): every
// registry and curated mint is read on the hourly schedule, the registry's
// with their metadata and largest accounts. caller is the --solana-rpc-url
// client (internal/solanarpc); nil serves only the stored facts (and, with
// --demo, the demo world's synthetic ones, whose scripted change the
// leader stores every minute). leader is the on-chain lease (nil: this
// replica always leads).
func newOnChain(ctx context.Context, st onchain.Store, cat *catalog.Catalog, caller onchain.Caller, demo bool, leader func() bool, log *slog.Logger) (*onchain.Service, error) {
	cfg := onchain.Config{
		Caller: caller, Store: st, Log: log, Leader: leader,
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
	}
	if demo {
		cfg.Demo = func(t time.Time) []onchain.Facts { return onchain.DemoFactsAt(cat.Snapshot().Assets(), t) }
	}
	svc := onchain.New(cfg)
	if err := svc.Load(ctx); err != nil {
		return nil, err
	}
	if demo {
		// Served at once; only what differs from the store is written, so
		// a restart (or a second replica) logs no change of its own.
		if _, err := svc.PutChanged(ctx, onchain.SourceDemo, cfg.Demo(time.Now())...); err != nil {
			return nil, err
		}
	}
	return svc, nil
}

// onChainLease is the on-chain reader's lease with --redis-url: one
// replica runs the scheduled reads (and the demo script), the others load
// its reads through the change topic (docs/onchain.md). nil without
// --redis-url: every replica leads.
type onChainLease struct {
	elector *refresh.Elector
	close   func() error
}

func newOnChainLease(ctx context.Context, cfg serveConfig, log *slog.Logger) (*onChainLease, error) {
	if cfg.redis.url == "" {
		return nil, nil
	}
	rdb, err := redisshare.Open(cfg.redis.url, cfg.redis.timeout)
	if err != nil {
		return nil, fmt.Errorf("--redis-url: %w", err)
	}
	l := &onChainLease{
		elector: refresh.NewElector(redisshare.New(rdb, cfg.redis.prefix+"onchain:"), cfg.refresh.leaseTTL, nil, log.With("component", "onchain")),
		close:   rdb.Close,
	}
	l.elector.Role = "on-chain reads"
	// Decide before the first Step, so only one replica reads at start.
	l.elector.Step(ctx)
	return l, nil
}

// leader is the reader's Leader option (nil: always).
func (l *onChainLease) leader() func() bool {
	if l == nil {
		return nil
	}
	return l.elector.Leader
}

func (l *onChainLease) run(ctx context.Context) {
	if l != nil {
		l.elector.Run(ctx)
	}
}

func (l *onChainLease) shutdown() {
	if l != nil {
		_ = l.close()
	}
}

// chainWarningCodes are the fact warnings search-tokens adds to a candidate.
func chainWarningCodes(chain *onchain.Service, cat *catalog.Catalog, mint string) []string {
	return onchain.Judgement{Facts: chain, Registry: onchain.SnapshotRegistry(cat.Snapshot)}.FactWarningCodes(mint)
}
