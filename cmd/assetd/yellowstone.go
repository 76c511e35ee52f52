package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"time"

	"github.com/assetd/assetd/internal/chainsource"
	"github.com/assetd/assetd/internal/ctxwait"
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

// ysStream is the Yellowstone subscription of serve's trade source: a
// connection and the configuration of a yellowstone.Source, one per
// leadership term, that stores through the chain source's cursor
// (yellowstone.CursorSink over a chainsource.Source with Pushed).
type ysStream struct {
	client geyserpb.GeyserClient
	cfg    yellowstone.Config
	close  func()
}

// newYellowstoneStream dials --yellowstone-url (nil without it).
func newYellowstoneStream(cfg serveConfig, rpc *solanarpc.Client, stable map[string]bool, log *slog.Logger) (*ysStream, error) {
	if cfg.yellowstone.url == "" {
		return nil, nil
	}
	var fetch yellowstone.BlockFetcher
	if rpc != nil {
		fetch = rpcBlocks{rpc: rpc, commitment: cfg.tradeSource.commitment, encoding: cfg.tradeSource.encoding}
	}
	conn, err := yellowstone.Dial(cfg.yellowstone.url)
	if err != nil {
		return nil, err
	}
	log.Info("yellowstone trade source", "url", cfg.yellowstone.url, "programs", len(yellowstone.DEXPrograms), "fill", fetch != nil)
	return &ysStream{client: geyserpb.NewGeyserClient(conn), close: func() { _ = conn.Close() },
		cfg: yellowstone.Config{
			Token:        cfg.yellowstone.token,
			MaxFillSlots: cfg.yellowstone.maxFill,
			Stable:       stable,
			Fetcher:      fetch,
			Logger:       log,
		}}, nil
}

// follow runs the subscription while this replica leads (leader nil:
// always), each term from the stored cursor: from_slot = its frontier+1.
func (y *ysStream) follow(ctx context.Context, src *chainsource.Source, leader func() bool, log *slog.Logger) {
	const recheck = time.Second // leadership is re-checked this often
	for ctx.Err() == nil {
		if leader != nil && !leader() {
			if ctxwait.Sleep(ctx, recheck) != nil {
				return
			}
			continue
		}
		term, cancel := context.WithCancel(ctx)
		if leader != nil {
			go func() {
				t := time.NewTicker(recheck)
				defer t.Stop()
				for {
					select {
					case <-term.Done():
						return
					case <-t.C:
						if !leader() {
							cancel()
							return
						}
					}
				}
			}()
		}
		from, err := src.Resume(term)
		if err != nil {
			cancel()
			log.Warn("yellowstone: cannot read the cursor; retrying", "err", err)
			if ctxwait.Sleep(ctx, recheck) != nil {
				return
			}
			continue
		}
		c := y.cfg
		c.FromSlot = from
		c.OnSessionEnd = src.NoteStreamError
		log.Info("yellowstone subscription starts", "fromSlot", from)
		_ = yellowstone.New(y.client, yellowstone.CursorSink{Cursor: src}, c).Run(term)
		cancel()
	}
}
