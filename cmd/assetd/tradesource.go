package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"

	"github.com/assetd/assetd/internal/chainsource"
	"github.com/assetd/assetd/internal/metrics"
	"github.com/assetd/assetd/internal/refresh"
	"github.com/assetd/assetd/internal/refresh/redisshare"
	"github.com/assetd/assetd/internal/solanarpc"
	"github.com/assetd/assetd/internal/solanaws"
	"github.com/assetd/assetd/internal/swapdecode"
	"github.com/prometheus/client_golang/prometheus"
)

// tradeSourceFlags configure the chain trade source (docs/tradesource.md).
type tradeSourceFlags struct {
	rpcURL     string
	wsURL      string // serve only (addTradeSourceWSFlag)
	commitment string
	encoding   string
	rps        float64
	start      string
	stable     string
}

func addTradeSourceFlags(fs *flag.FlagSet, f *tradeSourceFlags) {
	fs.StringVar(&f.rpcURL, "solana-rpc-url", "", "Solana JSON-RPC endpoint (public, a provider, or your own node); enables the chain trade source (docs/tradesource.md)")
	fs.StringVar(&f.commitment, "solana-commitment", "confirmed", "commitment of the source's calls: confirmed or finalized")
	fs.StringVar(&f.encoding, "solana-encoding", "jsonParsed", "getBlock encoding: jsonParsed or json")
	fs.Float64Var(&f.rps, "solana-rps", 10, "requests per second the trade source may send to the RPC endpoint (retries included)")
	fs.StringVar(&f.start, "solana-start-slot", "latest", "where an empty cursor starts: a slot number or latest (a stored cursor always wins)")
	fs.StringVar(&f.stable, "stable-mints", swapdecode.DefaultStableList, "comma list of USD-stable mints whose legs become trades (default USDC, USDT)")
}

// addTradeSourceWSFlag is serve's --solana-ws-url: the follower's tip
// hint (a backfill has no tip to follow).
func addTradeSourceWSFlag(fs *flag.FlagSet, f *tradeSourceFlags) {
	fs.StringVar(&f.wsURL, "solana-ws-url", "", "Solana websocket endpoint (ws:// or wss://, usually the RPC URL's host and key) for slotSubscribe: "+
		"a new slot wakes the RPC trade source at once instead of after its 400ms getSlot poll, which stays the fallback while the socket is down; needs --solana-rpc-url")
}

func (f tradeSourceFlags) validate() error {
	var errs []error
	if f.rpcURL != "" {
		if u, err := url.Parse(f.rpcURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("--solana-rpc-url must be an http(s) URL, not %q", f.rpcURL))
		}
	}
	if f.wsURL != "" {
		if err := solanaws.ValidURL(f.wsURL); err != nil {
			errs = append(errs, fmt.Errorf("--solana-ws-url must be a ws(s) URL, not %q", f.wsURL))
		} else if f.rpcURL == "" {
			errs = append(errs, errors.New("--solana-ws-url needs --solana-rpc-url (the socket only says when to read the next block through it)"))
		}
	}
	if f.commitment != "confirmed" && f.commitment != "finalized" {
		errs = append(errs, errors.New("--solana-commitment must be confirmed or finalized"))
	}
	if f.encoding != "jsonParsed" && f.encoding != "json" {
		errs = append(errs, errors.New("--solana-encoding must be jsonParsed or json"))
	}
	if f.rps <= 0 || f.rps > 10_000 {
		errs = append(errs, errors.New("--solana-rps must be within (0, 10000]"))
	}
	if _, err := f.startSlot(); err != nil {
		errs = append(errs, err)
	}
	if _, err := f.stableMints(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func (f tradeSourceFlags) startSlot() (int64, error) {
	if f.start == "" || f.start == "latest" {
		return chainsource.StartLatest, nil
	}
	n, err := strconv.ParseInt(f.start, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("--solana-start-slot must be a positive slot or latest, not %q", f.start)
	}
	return n, nil
}

func (f tradeSourceFlags) stableMints() (map[string]bool, error) {
	m, err := swapdecode.ParseStableMints(f.stable)
	if err != nil {
		return nil, fmt.Errorf("--stable-mints: %w", err)
	}
	return m, nil
}

// client is the one JSON-RPC client of --solana-rpc-url (nil without
// it): the trade source, the on-chain reader and Yellowstone's missed-slot
// fill share it and so its --solana-rps budget.
func (f tradeSourceFlags) client() *solanarpc.Client {
	if f.rpcURL == "" {
		return nil
	}
	return solanarpc.New(f.rpcURL, solanarpc.Options{RPS: f.rps})
}

// sourceConfig is the chainsource configuration of the flags over rpc,
// without the store and ingester.
func (f tradeSourceFlags) sourceConfig(rpc *solanarpc.Client) chainsource.Config {
	start, _ := f.startSlot()
	stable, _ := f.stableMints()
	return chainsource.Config{
		RPC:        rpc,
		Commitment: f.commitment, Encoding: f.encoding, Start: start, Stable: stable,
	}
}

// tradeSource is serve's chain trade source and, with --redis-url, its own
// lease (one replica runs it; another takes over from the stored cursor
// within the lease TTL).
//
// With --yellowstone-url the stream delivers the slots instead (its own
// cursor, "yellowstone", in the same table and transactions), and
// --solana-rpc-url, when set, only fills what the stream missed: inline
// (--yellowstone-max-fill) and as the cursor's gaps, retried like the RPC
// source's.
type tradeSource struct {
	src     *chainsource.Source
	elector *refresh.Elector
	stream  *ysStream
	// tip is the --solana-ws-url slotSubscribe client (nil without it).
	tip *solanaws.Client
	log *slog.Logger
}

func newTradeSource(cfg serveConfig, rpc *solanarpc.Client, st chainsource.Store, in chainsource.Ingester, log *slog.Logger) (*tradeSource, error) {
	if (rpc == nil && cfg.yellowstone.url == "") || cfg.demo {
		return nil, nil
	}
	log = log.With("component", "tradesource")
	ts := &tradeSource{log: log}
	sc := cfg.tradeSource.sourceConfig(rpc)
	if rpc == nil {
		sc.RPC = nil // no typed nil: a streaming source without RPC keeps its gaps open
	}
	sc.Store, sc.Ingest, sc.Log = st, in, log
	if cfg.yellowstone.url != "" {
		stream, err := newYellowstoneStream(cfg, rpc, sc.Stable, log.With("component", "yellowstone"))
		if err != nil {
			return nil, err
		}
		ts.stream = stream
		sc.Name, sc.Pushed = "yellowstone", true
		if cfg.tradeSource.wsURL != "" {
			log.Warn("--solana-ws-url is not used with --yellowstone-url: the stream delivers the slots")
		}
	} else if cfg.tradeSource.wsURL != "" {
		// A tip hint only: the follower still reads getSlot every step.
		ts.tip = solanaws.New(solanaws.Config{URL: cfg.tradeSource.wsURL, Log: log.With("component", "solana-ws")})
		sc.Tip = ts.tip
	}
	if cfg.redis.url != "" {
		rdb, err := redisshare.Open(cfg.redis.url, cfg.redis.timeout)
		if err != nil {
			return nil, fmt.Errorf("--redis-url: %w", err)
		}
		ts.elector = refresh.NewElector(redisshare.New(rdb, cfg.redis.prefix+"tradesource:"), cfg.refresh.leaseTTL, nil, log)
		ts.elector.Role = "chain trade source"
		sc.Leader = ts.elector.Leader
	}
	ts.src = chainsource.New(sc)
	log.Info("chain trade source configured", "source", sc.Name, "commitment", sc.Commitment, "encoding", sc.Encoding, "rps", cfg.tradeSource.rps, "lease", ts.elector != nil, "websocket", ts.tip != nil)
	return ts, nil
}

func (ts *tradeSource) run(ctx context.Context) {
	if ts == nil {
		return
	}
	var leader func() bool
	if ts.elector != nil {
		ts.elector.Step(ctx)
		go ts.elector.Run(ctx)
		leader = ts.elector.Leader
	}
	if ts.stream != nil {
		go ts.stream.follow(ctx, ts.src, leader, ts.log)
	}
	if ts.tip != nil {
		go func() { _ = ts.tip.Run(ctx) }()
	}
	_ = ts.src.Run(ctx)
}

// close releases the stream's connection.
func (ts *tradeSource) close() {
	if ts != nil && ts.stream != nil {
		ts.stream.close()
	}
}

// status is the API's view (nil: no source).
func (ts *tradeSource) status() func() chainsource.Status {
	if ts == nil {
		return nil
	}
	return ts.src.Status
}

// registerMetrics exposes the source's status as scrape-time samples.
func (ts *tradeSource) registerMetrics(m *metrics.Metrics) {
	if ts == nil || m == nil {
		return
	}
	registerTradeSourceMetrics(m, ts.src.Status)
}

func registerTradeSourceMetrics(m *metrics.Metrics, st func() chainsource.Status) {
	gauge, counter := prometheus.GaugeValue, prometheus.CounterValue
	m.Sample("assetd_tradesource_state", "The chain trade source's state (1 for the current one).", gauge, []string{"state"}, func(emit func(float64, ...string)) {
		s := st().State
		for _, x := range []string{chainsource.StateFollowing, chainsource.StateCatchingUp, chainsource.StateStalled, chainsource.StateOff} {
			emit(b2f(s == x), x)
		}
	})
	m.Sample("assetd_tradesource_slot", "Head slot and contiguousThroughSlot of the chain trade source.", gauge, []string{"slot"}, func(emit func(float64, ...string)) {
		s := st()
		emit(float64(s.HeadSlot), "head")
		emit(float64(s.ContiguousThroughSlot), "contiguous_through")
	})
	m.Sample("assetd_tradesource_websocket_connected", "Whether the --solana-ws-url slotSubscribe socket is connected (1) or not (0); absent without it.", gauge, nil, func(emit func(float64, ...string)) {
		if ws := st().Websocket; ws != "" {
			emit(b2f(ws == chainsource.WebsocketConnected))
		}
	})
	m.Sample("assetd_tradesource_lag_slots", "Slots between the head and contiguousThroughSlot.", gauge, nil, func(emit func(float64, ...string)) { emit(float64(st().LagSlots)) })
	m.Sample("assetd_tradesource_lag_seconds", "Seconds since the newest stored block's time.", gauge, nil, func(emit func(float64, ...string)) { emit(st().LagSeconds) })
	m.Sample("assetd_tradesource_gaps", "Open gaps (unfetched produced-slot ranges).", gauge, nil, func(emit func(float64, ...string)) { emit(float64(len(st().Gaps))) })
	m.Sample("assetd_tradesource_blocks_total", "Blocks by outcome: fetched, skipped (slots without a block), failed (fetch attempts).", counter, []string{"outcome"}, func(emit func(float64, ...string)) {
		s := st()
		emit(float64(s.Blocks.Fetched), "fetched")
		emit(float64(s.Blocks.Skipped), "skipped")
		emit(float64(s.Blocks.Failed), "failed")
	})
	m.Sample("assetd_tradesource_transactions_total", "Transactions seen, failed (meta.err) and with swap legs.", counter, []string{"kind"}, func(emit func(float64, ...string)) {
		s := st()
		emit(float64(s.Transactions.Seen), "seen")
		emit(float64(s.Transactions.Failed), "failed")
		emit(float64(s.Transactions.WithLegs), "with_legs")
	})
	m.Sample("assetd_tradesource_program_legs_total", "Legs per DEX program: decoded, stable (became trades), unparsed (moved tokens, not decoded).", counter, []string{"program", "kind"}, func(emit func(float64, ...string)) {
		for _, p := range st().Programs {
			emit(float64(p.Decoded), p.Program, "decoded")
			emit(float64(p.Stable), p.Program, "stable")
			emit(float64(p.Unparsed), p.Program, "unparsed")
		}
	})
	m.Sample("assetd_tradesource_trades_total", "Trades from the chain source: emitted (stored), duplicate, rejected by reason.", counter, []string{"outcome", "reason"}, func(emit func(float64, ...string)) {
		s := st()
		emit(float64(s.Trades.Emitted), "emitted", "")
		emit(float64(s.Trades.Duplicates), "duplicate", "")
		for r, n := range s.Trades.Rejected {
			emit(float64(n), "rejected", r)
		}
	})
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
