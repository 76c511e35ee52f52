package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"time"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/apikey"
	"github.com/assetd/assetd/internal/buildinfo"
	"github.com/assetd/assetd/internal/catalog"
	"github.com/assetd/assetd/internal/chainsource"
	"github.com/assetd/assetd/internal/coalesce"
	"github.com/assetd/assetd/internal/connlimit"
	"github.com/assetd/assetd/internal/curator"
	"github.com/assetd/assetd/internal/decimals"
	"github.com/assetd/assetd/internal/demo"
	"github.com/assetd/assetd/internal/depeg"
	"github.com/assetd/assetd/internal/events"
	"github.com/assetd/assetd/internal/framing"
	"github.com/assetd/assetd/internal/httpapi"
	"github.com/assetd/assetd/internal/ingest"
	"github.com/assetd/assetd/internal/lists"
	"github.com/assetd/assetd/internal/logbuf"
	"github.com/assetd/assetd/internal/metrics"
	"github.com/assetd/assetd/internal/natsbus"
	"github.com/assetd/assetd/internal/oidc"
	"github.com/assetd/assetd/internal/onchain"
	"github.com/assetd/assetd/internal/ratelimit"
	"github.com/assetd/assetd/internal/readiness"
	"github.com/assetd/assetd/internal/redis"
	"github.com/assetd/assetd/internal/registry"
	"github.com/assetd/assetd/internal/session"
	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/tokenindex"
	"github.com/assetd/assetd/internal/tokenlist"
	"github.com/assetd/assetd/internal/tradestream"
	"github.com/assetd/assetd/internal/usage"
	"github.com/assetd/assetd/internal/watch"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"golang.org/x/sync/errgroup"
)

func (c *cli) parseServe(args []string) (serveConfig, error) {
	var cfg serveConfig
	var retention time.Duration
	fs := newFlagSet("serve")
	addStoreFlags(fs, &cfg.storeFlags, defaultStoreFlags)
	fs.Lookup("demo").Usage = "serve the built-in simulated market feed (its own default data dir, " + demoDataDir + ")"
	fs.StringVar(&cfg.addr, "addr", "127.0.0.1:8080", "API listen address")
	fs.StringVar(&cfg.adminAddr, "admin-addr", "", "metrics and pprof listen address; off when empty")
	fs.DurationVar(&cfg.demoTrades, "demo-trades-interval", demoFeedInterval, "--demo: how often the simulated world's new trades are ingested; 0 ingests only the last hour at start-up, nothing in the background (an idle server for bench/instr.sh)")
	fs.StringVar(&cfg.oidcIssuer, "oidc-issuer", "", "OIDC issuer URL whose JWTs /v1/whoami accepts")
	fs.StringVar(&cfg.oidcAudience, "oidc-audience", "", "required JWT audience")
	fs.StringVar(&cfg.rate, "rate-limit", "100000/10s", "default per-key rate, N/WINDOW")
	fs.StringVar(&cfg.quota, "quota", "1000000000/month", "default per-key monthly quota, N/month")
	fs.StringVar(&cfg.market.marketAKey, "marketdata-a-key", "", "API key of the Birdeye-compatible marketdata_a provider; enables it")
	fs.StringVar(&cfg.market.marketAURL, "marketdata-a-url", "", "base URL of marketdata_a (default: the vendor's public API)")
	fs.BoolVar(&cfg.market.marketB, "marketdata-b", true, "use the keyless DexScreener-compatible marketdata_b provider")
	fs.StringVar(&cfg.market.marketBURL, "marketdata-b-url", "", "base URL of marketdata_b (default: the vendor's public API)")
	fs.StringVar(&cfg.market.metaURL, "token-metadata-url", "", "base URL of a Jupiter Tokens v2 compatible metadata API; with it or a key, names unknown mints")
	fs.StringVar(&cfg.market.metaKey, "token-metadata-key", "", "API key of the token metadata API")
	fs.Float64Var(&cfg.market.budget, "provider-budget", 5, "requests per second each real provider may receive")
	fs.Float64Var(&cfg.dustUSD, "dust-usd", analytics.DefaultDustUSD, "trades below this USD amount are dust: counted, never setting a price (docs/prices.md)")
	fs.Float64Var(&cfg.outlierFactor, "outlier-factor", analytics.DefaultOutlierFactor, "trades priced more than this factor from the mint's reference price are price outliers (docs/prices.md)")
	fs.BoolVar(&cfg.market.ext, "extprovider", false, "use the CoinGecko-compatible external provider (keyless public API unless a key is given) for canonical market data, profiles, tickers and price charts")
	fs.StringVar(&cfg.market.extKey, "extprovider-key", "", "API key of the external provider; enables it")
	fs.StringVar(&cfg.market.extURL, "extprovider-url", "", "base URL of the external provider (default: the vendor's public or pro API)")
	fs.BoolVar(&cfg.market.extPro, "extprovider-pro", false, "the key is a pro key (pro base URL and header)")
	fs.Float64Var(&cfg.market.extBudget, "extprovider-budget", 0.4, "requests per second the external provider may receive (its free tier allows about 30 a minute); calls over it are deferred, never queued")
	fs.StringVar(&cfg.market.stockFile, "stock-file", "", "CSV of daily stock candles (ticker,date,open,high,low,close,volume) for mapped public equities")
	fs.StringVar(&cfg.market.preIPOFile, "preipo-file", "", "JSON file of pre-IPO reference marks (docs/providers.md)")
	fs.DurationVar(&cfg.market.warmInterval, "warm-interval", 30*time.Second, "how often every registry mint's market data is re-warmed")
	fs.DurationVar(&cfg.market.startupWarmup, "startup-warmup", 3*time.Second, "how long start-up may spend filling the market cache before serving")
	fs.StringVar(&cfg.depegPegUSD, "depeg-peg-usd", "", "USD value of each non-USD peg currency the depeg guard judges, e.g. EUR=1.08,CHF=1.13 (a variant tagged peg:EUR is pegged to the euro; docs/advisories.md)")
	fs.IntVar(&cfg.lists.ListsPerProject, "lists-per-project", lists.DefaultListsPerProject, "community lists one project may own")
	fs.IntVar(&cfg.lists.MembersPerList, "list-members-max", lists.DefaultMembersPerList, "members of one community list")
	fs.IntVar(&cfg.lists.BatchSize, "list-batch-max", lists.DefaultBatchSize, "mints per bulk member add")
	fs.IntVar(&cfg.listLookups.perBatch, "list-lookups-per-batch", lists.DefaultLookupsPerBatch, "live provider lookups per bulk member add")
	fs.IntVar(&cfg.listsHTTP.BatchBudget, "list-batch-budget", 30, "bulk member adds per key per 10 minutes")
	fs.IntVar(&cfg.listsHTTP.SearchBudget, "list-search-budget", 120, "curator searches per key per 10 minutes")
	fs.DurationVar(&cfg.listLookups.timeout, "list-lookup-timeout", lists.DefaultLookupTimeout, "longest wait for live provider lookups of one member PUT or bulk add; unresolved mints fail as unknown_mint")
	fs.IntVar(&cfg.providerSearches, "provider-searches", curator.DefaultProviderSearches, "curator searches' background token-metadata searches running at once (all queries together)")
	fs.IntVar(&cfg.providerSearchQueue, "provider-search-queue", curator.DefaultProviderQueue, "background token-metadata searches waiting for a running one; beyond it a search is skipped (sources.provider degraded)")
	fs.StringVar(&cfg.allowedDuplicates, "allowed-duplicates", "", "JSON allow-list of mints that legitimately share a protected symbol (curator search never flags them)")
	fs.Float64Var(&cfg.readyMinCoverage, "ready-min-coverage", readiness.DefaultMinCoverage, "share of curated mints the market cache must price before /readyz answers 200 (when a price provider is configured)")
	fs.DurationVar(&retention, "usage-retention", usage.DefaultRetention, "how long per-minute usage counts are kept (at least 744h, a month, which quotas count from; 0 keeps them forever)")
	fs.Var(&cfg.news.feeds, "news-feed", "RSS/Atom news feed URL (http(s):// or file://), repeatable or a comma list; none disables; default: the built-in outlet list")
	fs.Var(&cfg.news.social, "social-feed", "public social account or hashtag RSS/Atom feed URL, repeatable or a comma list; default none")
	fs.DurationVar(&cfg.shutdownGrace, "shutdown-grace", 15*time.Second, "how long shutdown waits for in-flight requests")
	addExecutionFlags(fs, &cfg.execution)
	addHTTPFlags(fs, &cfg.http)
	addRedisFlags(fs, &cfg.redis)
	addRefreshFlags(fs, &cfg.refresh)
	addYellowstoneFlags(fs, &cfg.yellowstone)
	addTradeSourceFlags(fs, &cfg.tradeSource)
	addTradeSourceWSFlag(fs, &cfg.tradeSource)
	addWebhookFlags(fs, &cfg.webhooks)
	addEventFlags(fs, &cfg.events)
	fs.DurationVar(&cfg.reloadInterval, "reload-interval", 500*time.Millisecond, "how often the store is polled for key, registry and advisory changes (with --nats-url, the fallback to change events: default 5s)")
	if err := c.parse(fs, args, true); err != nil {
		return cfg, err
	}
	if cfg.natsURL != "" && !provided(fs)["reload-interval"] {
		cfg.reloadInterval = natsReloadInterval
	}
	cfg.resolveDemo(provided(fs))
	if fs.NArg() > 0 {
		return cfg, usageError{fmt.Sprintf("serve: unexpected argument %q", fs.Arg(0))}
	}
	var errs []error
	if cfg.providerSearches < 1 || cfg.providerSearchQueue < 0 {
		errs = append(errs, errors.New("--provider-searches must be at least 1 and --provider-search-queue not negative"))
	}
	if cfg.listLookups.timeout <= 0 || cfg.listLookups.timeout > time.Minute {
		errs = append(errs, errors.New("--list-lookup-timeout (ASSETD_LIST_LOOKUP_TIMEOUT) must be within 1ns..1m"))
	}
	if err := cfg.storeFlags.validate(); err != nil {
		errs = append(errs, err)
	}
	if err := validAddr("--addr", cfg.addr); err != nil {
		errs = append(errs, err)
	}
	if cfg.adminAddr != "" {
		if err := validAddr("--admin-addr", cfg.adminAddr); err != nil {
			errs = append(errs, err)
		}
	}
	if err := cfg.http.validate(); err != nil {
		errs = append(errs, err)
	}
	if err := cfg.refresh.validate(); err != nil {
		errs = append(errs, err)
	}
	if err := cfg.yellowstone.validate(); err != nil {
		errs = append(errs, err)
	}
	if err := cfg.tradeSource.validate(); err != nil {
		errs = append(errs, err)
	}
	if err := cfg.redis.validate(); err != nil {
		errs = append(errs, err)
	}
	if err := cfg.events.validate(); err != nil {
		errs = append(errs, err)
	}
	if _, _, err := parseRate(cfg.rate); err != nil {
		errs = append(errs, fmt.Errorf("--rate-limit: %w", err))
	}
	if _, err := parseQuota(cfg.quota); err != nil {
		errs = append(errs, fmt.Errorf("--quota: %w", err))
	}
	if _, _, err := parseRate(cfg.execution.quoteBudget); err != nil {
		errs = append(errs, fmt.Errorf("--quote-budget: %w", err))
	}
	if !(cfg.dustUSD >= 0) || cfg.dustUSD > analytics.MaxUSDAmount || !(cfg.outlierFactor > 1) || cfg.outlierFactor > 1e6 {
		errs = append(errs, errors.New("--dust-usd must be 0 or more and --outlier-factor above 1"))
	}
	if cfg.shutdownGrace <= 0 || cfg.reloadInterval < 50*time.Millisecond || cfg.reloadInterval > natsReloadInterval {
		errs = append(errs, errors.New("--shutdown-grace must be positive and --reload-interval within 50ms..5s"))
	}
	if cfg.market.budget <= 0 || cfg.market.extBudget <= 0 || cfg.market.warmInterval < time.Second || cfg.market.startupWarmup < 0 {
		errs = append(errs, errors.New("--provider-budget and --extprovider-budget must be positive, --warm-interval at least 1s and --startup-warmup not negative"))
	}
	switch {
	case retention == 0:
		cfg.usageRetention = -1 // forever
	case retention < 31*24*time.Hour:
		errs = append(errs, fmt.Errorf("--usage-retention must be 0 (forever) or at least 744h (31 days), not %s", retention))
	default:
		cfg.usageRetention = retention
	}
	if !(cfg.readyMinCoverage > 0 && cfg.readyMinCoverage <= 1) {
		errs = append(errs, fmt.Errorf("--ready-min-coverage must be within (0, 1], not %v", cfg.readyMinCoverage))
	}
	if err := cfg.news.validate(); err != nil {
		errs = append(errs, err)
	}
	cfg.lists = cfg.lists.WithDefaults()
	if err := cfg.lists.Validate(); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return cfg, usageError{errors.Join(errs...).Error()}
	}
	return cfg, nil
}

func (c *cli) serve(ctx context.Context, args []string) error {
	cfg, err := c.parseServe(args)
	if err != nil {
		return err
	}
	// Log lines are buffered (internal/logbuf: flushed by size, every
	// 250 ms and at return); warnings and errors are written at once.
	lw := logbuf.New(c.stderr, logbuf.Options{})
	lctx, stopLog := context.WithCancel(context.WithoutCancel(ctx))
	logDone := make(chan struct{})
	go func() { lw.Run(lctx); close(logDone) }()
	defer func() {
		stopLog()
		<-logDone
		if err := lw.Close(); err != nil {
			fmt.Fprintln(c.stderr, "assetd: log output:", err)
		}
	}()
	log := slog.New(logbuf.NewHandler(lw, slog.LevelWarn, func(w io.Writer) slog.Handler { return newLogHandler(w, cfg.storeFlags) }))
	// Bind first, so a taken port is reported at once rather than after
	// the store, registry and market warm-up; connections wait in the
	// backlog until serving starts.
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.addr, err)
	}
	defer ln.Close()
	var aln net.Listener
	if cfg.adminAddr != "" {
		if aln, err = net.Listen("tcp", cfg.adminAddr); err != nil {
			return fmt.Errorf("listen on admin %s: %w", cfg.adminAddr, err)
		}
		defer aln.Close()
	}
	st, err := openStore(ctx, cfg.storeFlags, log)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := claimMode(ctx, st, cfg); err != nil {
		return err
	}
	bus, err := openBus(ctx, cfg.storeFlags, st, "assetd serve "+cfg.addr, log)
	if err != nil {
		return err
	}
	defer closeBus(bus, log)

	keys := apikey.NewCache(st, log)
	regs := &registryLoader{st: st, versions: st}
	if cfg.demo {
		regs.extra = []registry.Document{demo.SyntheticStablecoin()}
	}
	snap, _, err := regs.load(ctx)
	if err != nil {
		return err
	}
	fallback := &lateReference{}
	eng, err := analytics.New(analyticsConfig(cfg, fallback))
	if err != nil {
		return err
	}
	m := metrics.New()
	cfg.market.implausible = func(provider, field string) { m.ProviderNulled.WithLabelValues(provider, field).Inc() }
	ref, err := newRefresher(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer ref.close()
	mp, err := newMarketPipeline(cfg, snap, eng, m, log, ref)
	if err != nil {
		return err
	}
	fallback.cache.Store(mp.cache)
	// Trades are stored before they are acknowledged and the analytics
	// state is rebuilt from the store at start (internal/ingest), except
	// in the demo, whose world is regenerated at every start.
	var trades *ingest.Ingester
	if !cfg.demo {
		if trades, err = ingest.New(eng, st, ingest.Config{Log: log, Metrics: m}); err != nil {
			return err
		}
		if _, err := trades.Rebuild(ctx); err != nil {
			return err
		}
	}
	var feed *demoFeed
	if mp.world != nil {
		// The last hour synchronously (about 1 s), the rest of the 24 h in
		// the background (about 15 s for the seed registry).
		feed = &demoFeed{eng: eng, world: mp.world}
		feed.snap = func() *registry.Snapshot { return snap }
		feed.backfill(time.Now(), demoSyncBackfill, log)
	}
	mp.warmup(ctx, snap, cfg.market.startupWarmup, log)
	advisories := lists.NewAdvisoryIndex(st)
	// The token index loads with the first Sync and reloads on the tokens
	// topic; the curator (created below) rebuilds its protected claims.
	tokens := tokenindex.NewHolder(st, log)
	cat := catalog.NewWith(snap, mp.cache, time.Now, log, catalog.Options{Advisories: advisories.Get, Canonical: mp.cache, Tokens: tokens.Index})
	if feed != nil {
		feed.snap = cat.Snapshot
	}
	log.Info("registry loaded", "assets", snap.Stats().Assets, "variants", snap.Stats().Variants)
	newsSvc, err := newNewsService(cfg, snap, st, m, log, ref.leader())
	if err != nil {
		return err
	}
	if err := newsSvc.Load(ctx); err != nil {
		return err
	}
	poller := watch.NewPoller(st, cfg.reloadInterval, log)
	poller.Observe(m.Reload)
	poller.On(storage.TopicKeys, keys.Reload)
	poller.On(storage.TopicAdvisories, func(ctx context.Context) error {
		if err := advisories.Reload(ctx); err != nil {
			return err
		}
		cat.AdvisoriesChanged()
		return nil
	})
	poller.On(storage.TopicRegistry, func(ctx context.Context) error {
		snap, _, err := regs.load(ctx)
		if errors.Is(err, errRegistryUnchanged) {
			return nil // the first Sync: the documents loaded above
		}
		if err != nil {
			return err // the current snapshot stays in service
		}
		cat.SetSnapshot(snap)
		mp.setSnapshot(snap)
		newsSvc.SetAssets(snap.Assets())
		log.Info("registry reloaded", "assets", snap.Stats().Assets, "variants", snap.Stats().Variants)
		return nil
	})
	var cur *curator.Service
	refreshCurator := func(context.Context) error {
		if cur != nil {
			cur.Refresh()
		}
		return nil
	}
	poller.On(storage.TopicTokens, tokens.Reload)
	poller.On(storage.TopicTokens, refreshCurator)
	poller.On(storage.TopicRegistry, refreshCurator)
	if err := poller.Sync(ctx); err != nil {
		return fmt.Errorf("initial load (keys, registry, advisories, token index): %w", err)
	}
	if bus != nil {
		// A change event from any replica or CLI polls the store now; after
		// a reconnection too, for the events missed meanwhile.
		unsubscribe, err := bus.SubscribeChanges(func(string) { poller.Kick() })
		if err != nil {
			return err
		}
		defer unsubscribe()
		bus.OnReconnect(poller.Kick)
	}

	router := session.Router{Local: session.Local{Store: st, Now: time.Now}}
	if cfg.oidcIssuer != "" {
		v, err := oidc.New(ctx, oidc.Config{Issuer: cfg.oidcIssuer, Audience: cfg.oidcAudience, Logger: log})
		if err != nil {
			return fmt.Errorf("oidc: %w", err)
		}
		router.JWT = v
	}

	listSvc, err := lists.New(st, cfg.lists, time.Now)
	if err != nil {
		return err
	}
	listViews := lists.NewViews(st, cfg.lists.MembersPerList)
	if err := listViews.Reload(ctx); err != nil {
		return err
	}
	poller.On(storage.TopicLists, listViews.Reload)
	allow, err := loadAllowList(cfg.allowedDuplicates, log)
	if err != nil {
		return err
	}
	// One --solana-rpc-url client (internal/solanarpc) for the trade
	// source, the on-chain reader and Yellowstone's missed-slot fill, so
	// they share one --solana-rps budget. Without it the on-chain reader
	// only serves stored facts.
	// The demo world's mints carry synthetic facts: a chain read would
	// overwrite them (and log the difference), so --demo reads no chain.
	rpc := cfg.tradeSource.client()
	var chainCaller onchain.Caller
	if rpc != nil && !cfg.demo {
		chainCaller = rpc
	}
	// With --redis-url one replica (the on-chain lease) runs the scheduled
	// reads; the others load them through the change topic.
	chainLease, err := newOnChainLease(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer chainLease.shutdown()
	chain, err := newOnChain(ctx, st, cat, chainCaller, cfg.demo, chainLease.leader(), log)
	if err != nil {
		return err
	}
	poller.On(storage.TopicMintFacts, chain.Load)
	curCfg := curator.Config{Registry: cat.Snapshot, Index: tokens.Index, Markets: mp.cache, Ages: mp.cache, Advisories: advisories,
		Lists: listViews, Allow: allow, Background: ctx, Log: log,
		ProviderSearches: cfg.providerSearches, ProviderQueue: cmp.Or(cfg.providerSearchQueue, -1)} // 0 waiting: none
	if mp.metadata != nil {
		curCfg.Provider = mp.metadata
	}
	curCfg.FactWarnings = func(mint string) []string { return chainWarningCodes(chain, cat, mint) }
	curCfg.ChainSymbols = chain // a symbol change on chain feeds the claim judgment
	cur = curator.New(curCfg)
	// One read model of every list surface, for the API and the dashboard.
	listReader := &lists.Reader{Catalog: cat, Views: listViews, Advisories: advisories, Tokens: tokens.Index, Identities: mp.cache,
		Metadata: mp.metadata, Curator: cur, LookupsPerBatch: cfg.listLookups.perBatch, LookupTimeout: cfg.listLookups.timeout, Log: log}
	// Its protected-claim index (seconds of work for a large registry) is
	// built in the background; a curator search before it is done waits.
	// Once it and the catalog's search index are built, start-up's
	// garbage goes back to the system.
	go func() {
		cur.Refresh()
		select {
		case <-cat.SearchIndexBuilt():
			releaseStartupMemory(log)
		case <-ctx.Done():
		}
	}()
	if trades != nil {
		poller.On(storage.TopicTrades, func(ctx context.Context) error { _, err := trades.CatchUp(ctx); return err })
	}
	// With NATS, trade ingest goes through the durable stream: any
	// replica publishes and acknowledges after the stream's ack, one
	// replica's worker stores each message, and every engine follows the
	// store (internal/tradestream).
	tradeIngest := tradeIngester(trades)
	var tradeWorker func(context.Context)
	var sourceIngest chainsource.Ingester = trades
	if bus != nil && trades != nil {
		pub := tradestream.NewPublisher(bus.JetStream(), bus.Connected, bus.Prefix(), eng, st)
		pub.Observe(m.ObserveIngest)
		tradeIngest = pub
		// The chain source publishes its block ranges through the stream
		// too, and moves its cursor after the PubAcks: one ingest path.
		sourceIngest = chainsource.StreamIngester{Publish: pub}
		// The stream is ensured before serving when NATS is up, so the
		// first batches are not refused; otherwise the worker retries.
		var streams tradestream.Streams
		if bus.Connected() {
			ectx, cancel := context.WithTimeout(ctx, 5*time.Second)
			streams, err = tradestream.Ensure(ectx, bus.JetStream(), tradestream.Config{Prefix: bus.Prefix()})
			cancel()
			if err != nil {
				log.Warn("trade stream not ready at start; retrying in the background", "err", err)
			}
		}
		tradeWorker = func(ctx context.Context) { runTradeWorker(ctx, bus, streams, trades, st, log) }
	}
	// The chain trade source (--solana-rpc-url) stores through the same
	// ingest path as POST /v1/internal/trades: the ingester, or with NATS
	// the trade stream (docs/tradesource.md).
	var source *tradeSource
	if trades != nil {
		if source, err = newTradeSource(cfg, rpc, st, sourceIngest, log); err != nil {
			return err
		}
		defer source.close()
		source.registerMetrics(m)
	}
	rate, window, _ := parseRate(cfg.rate)
	quota, _ := parseQuota(cfg.quota)
	defaults := ratelimit.Policy{Requests: rate, Window: window, QuotaPerMonth: quota}
	// Decimals resolve registry → chain facts → token index → market cache
	// for every consumer (internal/decimals).
	dec := &decimals.Resolver{Registry: cat.Snapshot, Chain: chain, Tokens: cat.TokenIndex, Markets: mp.cache}
	listReader.Decimals = dec.Decimals
	exec, quoteBudget, err := newExecution(cfg, mp, cat.Snapshot, advisories, dec)
	if err != nil {
		return err
	}
	// Monthly quotas are reserved in the store's ledger ahead of use, in
	// blocks, with or without Redis, so a crash never lets a key past its
	// quota (docs/ratelimits.md, "Quotas and crashes"). The rate limit is
	// the in-process limiter's without --redis-url; with it, Redis's, and
	// the in-process one is the fail-open fallback.
	local := ratelimit.NewMemory()
	var rates, budget ratelimit.Limiter = local, nil
	rc, err := openRedis(ctx, cfg.redis, m, log)
	if err != nil {
		return err
	}
	if rc != nil {
		defer rc.Close()
		rates = redis.NewLimiter(rc, local, nil, "limits")
		budget = redis.NewLimiter(rc, ratelimit.NewMemory(), nil, "budgets")
		quoteBudget.Shared = redis.NewBucket(rc)
	}
	quotas := ratelimit.NewQuotas(rates, st, log, ratelimit.QuotaOptions{})
	var limiter ratelimit.Limiter = quotas
	pegRates, err := parsePegRates(cfg.depegPegUSD)
	if err != nil {
		return err
	}
	// The depeg guard judges on every replica (stablecoin health) and
	// writes advisories only on the lease holder (docs/advisories.md).
	guard := depeg.New(depeg.Options{
		Config: depeg.Config{PegUSD: pegRates},
		Coins:  func() []depeg.Coin { return depeg.Coins(cat.Snapshot()) },
		Feed:   depegFeed{eng: eng, cache: mp.cache, now: time.Now},
		Adv:    lists.NewAdvisories(st, time.Now), Log: log, Metrics: m, Act: ref.leader(),
	})
	// The event log (docs/events.md): JetStream with --nats-url, the
	// store's events table otherwise; the hub fans it out to streams.
	evLog, err := openEventLog(ctx, cfg.events, st, bus, log)
	if err != nil {
		return err
	}
	hub := events.NewHub(evLog, events.HubOptions{Buffer: cfg.events.buffer, ConnsPerKey: cfg.events.connsPerKey,
		TopicsPerKey: cfg.events.topicsPerKey, Log: log})
	hooks, err := newWebhooks(cfg.webhooks, st, evLog, m, log)
	if err != nil {
		return err
	}
	rec := usage.NewRecorder(st, log, usage.Options{Retention: cfg.usageRetention})
	registerOpsMetrics(m, mp.cache, func() []string { return cat.Snapshot().Mints() }, rec)
	registerAdmissionMetrics(m, eng)
	api := httpapi.New(httpapi.Deps{
		Log: log, Metrics: m, Keys: keys, Limiter: limiter, Budget: budget, Usage: rec, Sessions: router, Catalog: cat, Markets: mp.cache,
		Canonical: mp.cache, ExternalProvider: mp.external,
		News:  newsSvc,
		Lists: listSvc, ListViews: listViews, Advisories: advisories, Analytics: eng, ListsConfig: cfg.listsHTTP,
		Curator: cur, ListReader: listReader, Webhooks: hooks.service,
		AdvisoryFeed: lists.NewAdvisories(st, time.Now), StablecoinHealth: guard, AdvisoryReports: lists.NewReports(st, time.Now),
		Trades:        tradeIngest,
		TradeSource:   source.status(),
		DefaultPolicy: defaults,
		Simulated:     cfg.demo,
		Execution:     exec, QuoteBudget: quoteBudget,
		Readiness:   newReadiness(st, cat, mp, cfg.readyMinCoverage, source),
		TokenLists:  &tokenlist.Exporter{Store: st, Now: time.Now},
		Dashboard:   newDashboard(log, st, router, listSvc, listViews, listReader, hooks.service, defaults, cfg.storeHint()),
		CORSOrigins: cfg.http.origins(), AccessLog: cfg.http.accessLog,
		OnChain: chain,
		Store:   cfg.storeHint(), Version: buildinfo.Read().Version,
		Stream: hub,
	})
	// Every replica compares state; the refresher lease holder (every
	// replica without Redis: the logs' dedupe keys then drop the copies)
	// appends the events.
	observe := registerEventMetrics(m, evLog, hub)
	pin := &producerInputs{cache: mp.cache, advisories: advisories, views: listViews, trending: api.TrendingMints,
		guard: guard, snapshot: cat.Snapshot, leader: ref.leader()}
	producer := events.NewProducer(pin.inputs(), evLog, events.ProducerOptions{PriceStep: cfg.events.priceStep, Log: log, Observe: observe})
	// The baseline before serving: a change made once the server answers
	// is an event.
	if err := producer.Tick(ctx); err != nil {
		return err
	}

	// coalesce: a response's headers and body leave in one write
	// (internal/httpapi writeBody holds the connection around them).
	// connlimit: at most --max-conns connections open (docs/http.md).
	conns := connlimit.New(cfg.http.maxConns)
	srv := &http.Server{Handler: api, ReadHeaderTimeout: cfg.http.readHeaderTimeout, ReadTimeout: 30 * time.Second,
		WriteTimeout: 60 * time.Second, IdleTimeout: cfg.http.idleTimeout, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		ConnContext: coalesce.ConnContext, ConnState: conns.ConnState}
	log.Info("assetd listening", "addr", ln.Addr().String(), "engine", st.Engine(), "demo", cfg.demo, "max_conns", conns.Max())
	if cfg.demo {
		log.Warn("market data is SIMULATED: --demo serves the built-in demo world, not real prices, liquidity or pools")
	}

	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { poller.Run(gctx); return nil })
	g.Go(func() error { rec.Run(gctx); return nil })
	g.Go(func() error { cat.Run(gctx, time.Second); return nil })
	g.Go(func() error { mp.cache.Run(gctx); return nil })
	g.Go(func() error { mp.runWarmer(gctx, cat.Snapshot, cfg.market.warmInterval, log); return nil })
	g.Go(func() error { api.RunTrending(gctx, trendingInterval); return nil })
	g.Go(func() error { runPrune(gctx, eng, pruneInterval); return nil })
	g.Go(func() error { newsSvc.Run(gctx); return nil })
	g.Go(func() error { return chain.Run(gctx) })
	g.Go(func() error { chainLease.run(gctx); return nil })
	g.Go(func() error { ref.run(gctx); return nil })
	g.Go(func() error { guard.Run(gctx, depegInterval); return nil })
	g.Go(func() error { source.run(gctx); return nil })
	g.Go(func() error { return hooks.dispatcher.Run(gctx) })
	g.Go(func() error { evLog.Run(gctx); return nil })
	g.Go(func() error { hub.Run(gctx); return nil })
	g.Go(func() error { producer.Run(gctx, events.DefaultProduceEvery); return nil })
	// flushStopped closes when the periodic candle save loop has returned:
	// the final save must not run concurrently with it, nor before it.
	flushStopped := make(chan struct{})
	if tradeWorker != nil {
		g.Go(func() error { tradeWorker(gctx); return nil })
	}
	if trades != nil {
		g.Go(func() error { defer close(flushStopped); trades.Run(gctx, candleSaveInterval); return nil })
	} else {
		close(flushStopped)
	}
	if feed != nil && cfg.demoTrades > 0 {
		start := feed.from // the rest of the backfill ends where the synchronous part began
		g.Go(func() error {
			old := &demoFeed{eng: eng, world: mp.world, snap: cat.Snapshot, ctx: gctx}
			old.backfillRange(start.Add(-(demoBackfill - demoSyncBackfill)), start, log)
			return nil
		})
		g.Go(func() error { feed.run(gctx, cfg.demoTrades, log); return nil })
	}
	g.Go(func() error {
		// framing: heads with both Content-Length and Transfer-Encoding
		// are marked, and answered 400 (internal/httpapi withFraming);
		// conns holds connections beyond --max-conns.
		if err := srv.Serve(coalesce.Listen(framing.Listen(conns.Listen(ln)))); !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("serve: %w", err)
		}
		return nil
	})
	var admin *http.Server
	if aln != nil {
		admin = &http.Server{Handler: adminMux(m), ReadHeaderTimeout: 10 * time.Second}
		log.Info("admin listening", "addr", aln.Addr().String())
		g.Go(func() error {
			if err := admin.Serve(aln); !errors.Is(err, http.ErrServerClosed) {
				return fmt.Errorf("admin: %w", err)
			}
			return nil
		})
	}
	if c.ready != nil {
		c.ready(ln.Addr().String())
	}
	g.Go(func() error {
		<-gctx.Done()
		log.Info("shutting down: draining in-flight requests", "grace", cfg.shutdownGrace)
		sctx, cancel := context.WithTimeout(context.Background(), cfg.shutdownGrace)
		defer cancel()
		err := srv.Shutdown(sctx)
		if admin != nil {
			_ = admin.Shutdown(sctx)
		}
		<-flushStopped
		if trades != nil {
			// Its own deadline: a save after a long rebuild may take a while,
			// and a failed one only makes the next start re-derive candles.
			fctx, fcancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
			n, ferr := trades.Flush(fctx)
			fcancel()
			if ferr != nil {
				log.Error("final candle flush failed (the candles are re-derived from the stored trades at the next start)", "err", ferr, "pending", trades.Pending())
			} else {
				log.Info("candles flushed", "rows", n)
			}
		}
		// Units reserved and not granted go back to the ledger: a graceful
		// restart costs no key any of its quota.
		qctx, qcancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		qerr := quotas.Close(qctx)
		qcancel()
		if qerr != nil {
			log.Error("quota units held could not be given back (the keys lose them this month)", "err", qerr)
		}
		if ferr := rec.Close(sctx); ferr != nil {
			log.Error("usage flush incomplete", "err", ferr, "dropped", rec.Dropped())
		}
		return err
	})
	err = g.Wait()
	// Every worker has returned: this is the last line serve logs.
	log.Info("shutdown complete", "usage_written", rec.Written(), "usage_dropped", rec.Dropped())
	return err
}

// natsReloadInterval is the store poll interval when change events arrive
// over NATS: only the fallback for events lost while NATS was away.
const natsReloadInterval = 5 * time.Second

// candleSaveInterval is how often candles are saved (with the candle
// mark); trades stored since are re-applied to the candles at start.
const candleSaveInterval = 5 * time.Second

// runTradeWorker creates the trade stream unless given (retrying while
// NATS is away) and stores its messages until ctx ends.
func runTradeWorker(ctx context.Context, bus *natsbus.Bus, streams tradestream.Streams, trades *ingest.Ingester, st store, log *slog.Logger) {
	cfg := tradestream.Config{Prefix: bus.Prefix()}
	for warned := false; ; {
		var err error
		if !streams.Ready() {
			streams, err = tradestream.Ensure(ctx, bus.JetStream(), cfg)
		}
		if err == nil {
			log.Info("trade stream ready", "stream", tradestream.BatchStreamName(cfg.Prefix), "subject", tradestream.BatchSubject(cfg.Prefix),
				"legacy_stream", tradestream.StreamName(cfg.Prefix), "duplicate_window", tradestream.DefaultDuplicateWindow)
			tradestream.NewWorker(streams, trades, st, log).Run(ctx)
			return
		}
		if !warned {
			log.Warn("trade stream unavailable; ingest answers 503 until it is", "err", err)
			warned = true
		}
		t := time.NewTimer(2 * time.Second)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// tradeIngester keeps a nil *ingest.Ingester a nil interface.
func tradeIngester(in *ingest.Ingester) httpapi.TradeIngester {
	if in == nil {
		return nil
	}
	return in
}

func adminMux(m *metrics.Metrics) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	return mux
}

// loadAllowList reads the curator allow-list file (none when path is "").
func loadAllowList(path string, log *slog.Logger) (map[string]bool, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--allowed-duplicates: %w", err)
	}
	defer f.Close()
	allow, skipped, err := curator.ParseAllowList(f)
	if err != nil {
		return nil, fmt.Errorf("--allowed-duplicates %s: %w", path, err)
	}
	log.Info("curator allow-list loaded", "mints", len(allow), "skipped", skipped)
	return allow, nil
}
