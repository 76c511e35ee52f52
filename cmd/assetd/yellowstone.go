package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"

	"github.com/assetd/assetd/internal/ingest"
	"github.com/assetd/assetd/internal/solanarpc"
	"github.com/assetd/assetd/internal/yellowstone"
	"github.com/assetd/assetd/internal/yellowstone/geyserpb"
)

// yellowstoneFlags configure the Yellowstone gRPC trade source
// (docs/tradesource.md, "Yellowstone gRPC").
type yellowstoneFlags struct {
	url     string
	token   string
	maxFill int64
}

func addYellowstoneFlags(fs *flag.FlagSet, f *yellowstoneFlags) {
	fs.StringVar(&f.url, "yellowstone-url", "", "https://host[:port] (TLS) or http://host[:port] of a Yellowstone gRPC (Geyser) endpoint; enables the streaming trade source")
	fs.StringVar(&f.token, "yellowstone-token", "", "access token of the Yellowstone endpoint, sent as x-token metadata")
	fs.Int64Var(&f.maxFill, "yellowstone-max-fill", 1000, "most missed slots filled inline through getBlock (needs the RPC source's URL); a longer run of missed slots is recorded as a gap")
}

func (f yellowstoneFlags) validate() error {
	if f.url == "" {
		if f.token != "" {
			return errors.New("--yellowstone-token needs --yellowstone-url")
		}
		return nil
	}
	if _, _, err := yellowstone.Target(f.url); err != nil {
		return fmt.Errorf("--yellowstone-url: %w", err)
	}
	if f.maxFill < 1 {
		return fmt.Errorf("--yellowstone-max-fill must be at least 1, not %d", f.maxFill)
	}
	return nil
}

// rpcBlocks fills the stream's missed slots through getBlock on the
// --solana-rpc-url client, with the trade source's commitment and
// encoding; -32007/-32009 (skipped or missing) count as skipped.
type rpcBlocks struct {
	rpc                  *solanarpc.Client
	commitment, encoding string
}

func (b rpcBlocks) GetBlock(ctx context.Context, slot int64) (json.RawMessage, error) {
	var raw json.RawMessage
	err := b.rpc.Call(ctx, "getBlock", []any{slot, map[string]any{
		"commitment": b.commitment, "encoding": b.encoding, "transactionDetails": "full",
		"maxSupportedTransactionVersion": 0, "rewards": false}}, &raw)
	switch {
	case solanarpc.Skipped(err):
		return nil, fmt.Errorf("getBlock %d: %w: %w", slot, yellowstone.ErrSlotSkipped, err)
	case err != nil:
		return nil, err
	case len(raw) == 0 || string(raw) == "null":
		return nil, fmt.Errorf("getBlock %d: null result", slot)
	}
	return raw, nil
}

// ingestSink stores each slot's trades through the durable ingest (the
// same path as POST /v1/internal/trades, deduplicated by the store) and
// logs gaps. It keeps no cursor: a restart resumes at the live tip.
type ingestSink struct {
	trades *ingest.Ingester
	log    *slog.Logger
}

func (s ingestSink) Slot(ctx context.Context, b yellowstone.Batch) error {
	if len(b.Trades) == 0 {
		return nil
	}
	if _, err := s.trades.Ingest(ctx, b.Trades); err != nil {
		return fmt.Errorf("store trades of slot %d: %w", b.Slot, err)
	}
	return nil
}

func (s ingestSink) Gap(_ context.Context, g yellowstone.Gap) error {
	s.log.Warn("yellowstone: slots missed and not filled", "from", g.FromSlot, "to", g.ToSlot, "err", g.Err)
	return nil
}

// newYellowstoneSource returns the source and a close function, or nil
// without --yellowstone-url (or with --demo, or without an ingester).
func newYellowstoneSource(cfg serveConfig, rpc *solanarpc.Client, trades *ingest.Ingester, log *slog.Logger) (*yellowstone.Source, func(), error) {
	if cfg.yellowstone.url == "" || cfg.demo || trades == nil {
		return nil, func() {}, nil
	}
	stable, err := cfg.tradeSource.stableMints()
	if err != nil {
		return nil, nil, err
	}
	var fetch yellowstone.BlockFetcher
	if rpc != nil {
		fetch = rpcBlocks{rpc: rpc, commitment: cfg.tradeSource.commitment, encoding: cfg.tradeSource.encoding}
	}
	conn, err := yellowstone.Dial(cfg.yellowstone.url)
	if err != nil {
		return nil, nil, err
	}
	log = log.With("component", "yellowstone")
	src := yellowstone.New(geyserpb.NewGeyserClient(conn), ingestSink{trades: trades, log: log}, yellowstone.Config{
		Token:        cfg.yellowstone.token,
		MaxFillSlots: cfg.yellowstone.maxFill,
		Stable:       stable,
		Fetcher:      fetch,
		Logger:       log,
	})
	log.Info("yellowstone trade source", "url", cfg.yellowstone.url, "programs", len(yellowstone.DEXPrograms))
	return src, func() { _ = conn.Close() }, nil
}
