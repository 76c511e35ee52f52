package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"time"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/apikey"
	"github.com/assetd/assetd/internal/catalog"
	"github.com/assetd/assetd/internal/curator"
	"github.com/assetd/assetd/internal/httpapi"
	"github.com/assetd/assetd/internal/lists"
	"github.com/assetd/assetd/internal/metrics"
	"github.com/assetd/assetd/internal/oidc"
	"github.com/assetd/assetd/internal/ratelimit"
	"github.com/assetd/assetd/internal/registry"
	"github.com/assetd/assetd/internal/session"
	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/tokenindex"
	"github.com/assetd/assetd/internal/usage"
	"github.com/assetd/assetd/internal/watch"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"golang.org/x/sync/errgroup"
)

func (c *cli) parseServe(args []string) (serveConfig, error) {
	var cfg serveConfig
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	c.addStoreFlags(fs, &cfg.storeFlags)
	fs.StringVar(&cfg.addr, "addr", c.env("ASSETD_ADDR", "127.0.0.1:8080"), "API listen address (env ASSETD_ADDR)")
	fs.StringVar(&cfg.adminAddr, "admin-addr", c.env("ASSETD_ADMIN_ADDR", ""), "metrics and pprof listen address; off when empty (env ASSETD_ADMIN_ADDR)")
	fs.BoolVar(&cfg.demo, "demo", c.envBool("ASSETD_DEMO"), "serve the built-in simulated market feed (env ASSETD_DEMO)")
	fs.StringVar(&cfg.oidcIssuer, "oidc-issuer", c.env("ASSETD_OIDC_ISSUER", ""), "OIDC issuer URL whose JWTs /v1/whoami accepts (env ASSETD_OIDC_ISSUER)")
	fs.StringVar(&cfg.oidcAudience, "oidc-audience", c.env("ASSETD_OIDC_AUDIENCE", ""), "required JWT audience (env ASSETD_OIDC_AUDIENCE)")
	fs.StringVar(&cfg.rate, "rate-limit", c.env("ASSETD_RATE_LIMIT", "100000/10s"), "default per-key rate, N/WINDOW (env ASSETD_RATE_LIMIT)")
	fs.StringVar(&cfg.quota, "quota", c.env("ASSETD_QUOTA", "1000000000/month"), "default per-key monthly quota, N/month (env ASSETD_QUOTA)")
	fs.StringVar(&cfg.market.marketAKey, "marketdata-a-key", c.env("ASSETD_MARKETDATA_A_KEY", ""), "API key of the Birdeye-compatible marketdata_a provider; enables it (env ASSETD_MARKETDATA_A_KEY)")
	fs.StringVar(&cfg.market.marketAURL, "marketdata-a-url", c.env("ASSETD_MARKETDATA_A_URL", ""), "base URL of marketdata_a (default: the vendor's public API)")
	fs.BoolVar(&cfg.market.marketB, "marketdata-b", c.env("ASSETD_MARKETDATA_B", "true") != "false", "use the keyless DexScreener-compatible marketdata_b provider (env ASSETD_MARKETDATA_B)")
	fs.StringVar(&cfg.market.marketBURL, "marketdata-b-url", c.env("ASSETD_MARKETDATA_B_URL", ""), "base URL of marketdata_b (default: the vendor's public API)")
	fs.StringVar(&cfg.market.metaURL, "token-metadata-url", c.env("ASSETD_TOKEN_METADATA_URL", ""), "base URL of a Jupiter Tokens v2 compatible metadata API; with it or a key, names unknown mints (env ASSETD_TOKEN_METADATA_URL)")
	fs.StringVar(&cfg.market.metaKey, "token-metadata-key", c.env("ASSETD_TOKEN_METADATA_KEY", ""), "API key of the token metadata API (env ASSETD_TOKEN_METADATA_KEY)")
	fs.Float64Var(&cfg.market.budget, "provider-budget", 5, "requests per second each real provider may receive")
	fs.BoolVar(&cfg.market.ext, "extprovider", c.envBool("ASSETD_EXTPROVIDER"), "use the CoinGecko-compatible external provider (keyless public API unless a key is given) for canonical market data, profiles, tickers and price charts (env ASSETD_EXTPROVIDER)")
	fs.StringVar(&cfg.market.extKey, "extprovider-key", c.env("ASSETD_EXTPROVIDER_KEY", ""), "API key of the external provider; enables it (env ASSETD_EXTPROVIDER_KEY)")
	fs.StringVar(&cfg.market.extURL, "extprovider-url", c.env("ASSETD_EXTPROVIDER_URL", ""), "base URL of the external provider (default: the vendor's public or pro API)")
	fs.BoolVar(&cfg.market.extPro, "extprovider-pro", c.envBool("ASSETD_EXTPROVIDER_PRO"), "the key is a pro key (pro base URL and header) (env ASSETD_EXTPROVIDER_PRO)")
	fs.Float64Var(&cfg.market.extBudget, "extprovider-budget", 0.4, "requests per second the external provider may receive (its free tier allows about 30 a minute); calls over it are deferred, never queued")
	fs.StringVar(&cfg.market.stockFile, "stock-file", c.env("ASSETD_STOCK_FILE", ""), "CSV of daily stock candles (ticker,date,open,high,low,close,volume) for mapped public equities (env ASSETD_STOCK_FILE)")
	fs.StringVar(&cfg.market.preIPOFile, "preipo-file", c.env("ASSETD_PREIPO_FILE", ""), "JSON file of pre-IPO reference marks (docs/providers.md) (env ASSETD_PREIPO_FILE)")
	fs.DurationVar(&cfg.market.warmInterval, "warm-interval", 30*time.Second, "how often every registry mint's market data is re-warmed")
	fs.DurationVar(&cfg.market.startupWarmup, "startup-warmup", 3*time.Second, "how long start-up may spend filling the market cache before serving")
	fs.IntVar(&cfg.lists.ListsPerProject, "lists-per-project", lists.DefaultListsPerProject, "community lists one project may own")
	fs.IntVar(&cfg.lists.MembersPerList, "list-members-max", lists.DefaultMembersPerList, "members of one community list")
	fs.IntVar(&cfg.lists.BatchSize, "list-batch-max", lists.DefaultBatchSize, "mints per bulk member add")
	fs.IntVar(&cfg.listsHTTP.LookupsPerBatch, "list-lookups-per-batch", 50, "live provider lookups per bulk member add")
	fs.IntVar(&cfg.listsHTTP.BatchBudget, "list-batch-budget", 30, "bulk member adds per key per 10 minutes")
	fs.IntVar(&cfg.listsHTTP.SearchBudget, "list-search-budget", 120, "curator searches per key per 10 minutes")
	fs.DurationVar(&cfg.listsHTTP.LookupTimeout, "list-lookup-timeout", httpapi.DefaultLookupTimeout, "longest wait for live provider lookups of one member PUT or bulk add; unresolved mints fail as unknown_mint (env ASSETD_LIST_LOOKUP_TIMEOUT)")
	fs.StringVar(&cfg.allowedDuplicates, "allowed-duplicates", c.env("ASSETD_ALLOWED_DUPLICATES", ""), "JSON allow-list of mints that legitimately share a protected symbol (curator search never flags them) (env ASSETD_ALLOWED_DUPLICATES)")
	fs.DurationVar(&cfg.shutdownGrace, "shutdown-grace", 15*time.Second, "how long shutdown waits for in-flight requests")
	c.addExecutionFlags(fs, &cfg.execution)
	c.addHTTPFlags(fs, &cfg.http)
	fs.DurationVar(&cfg.reloadInterval, "reload-interval", 500*time.Millisecond, "how often the store is polled for key, registry and advisory changes")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, usageError{fmt.Sprintf("serve: unexpected argument %q", fs.Arg(0))}
	}
	var errs []error
	if v := c.getenv("ASSETD_LIST_LOOKUP_TIMEOUT"); v != "" && !flagSet(fs, "list-lookup-timeout") {
		d, err := time.ParseDuration(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("ASSETD_LIST_LOOKUP_TIMEOUT: %w", err))
		}
		cfg.listsHTTP.LookupTimeout = d
	}
	if cfg.listsHTTP.LookupTimeout <= 0 || cfg.listsHTTP.LookupTimeout > time.Minute {
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
	if _, _, err := parseRate(cfg.rate); err != nil {
		errs = append(errs, fmt.Errorf("--rate-limit: %w", err))
	}
	if _, err := parseQuota(cfg.quota); err != nil {
		errs = append(errs, fmt.Errorf("--quota: %w", err))
	}
	if _, _, err := parseRate(cfg.execution.quoteBudget); err != nil {
		errs = append(errs, fmt.Errorf("--quote-budget: %w", err))
	}
	if cfg.shutdownGrace <= 0 || cfg.reloadInterval < 50*time.Millisecond || cfg.reloadInterval > 2*time.Second {
		errs = append(errs, errors.New("--shutdown-grace must be positive and --reload-interval within 50ms..2s"))
	}
	if cfg.market.budget <= 0 || cfg.market.extBudget <= 0 || cfg.market.warmInterval < time.Second || cfg.market.startupWarmup < 0 {
		errs = append(errs, errors.New("--provider-budget and --extprovider-budget must be positive, --warm-interval at least 1s and --startup-warmup not negative"))
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
	log := newLogger(c.stderr, cfg.storeFlags)
	st, err := openStore(ctx, cfg.storeFlags, log)
	if err != nil {
		return err
	}
	defer st.Close()

	keys := apikey.NewCache(st, log)
	snap, _, err := loadRegistry(ctx, st)
	if err != nil {
		return err
	}
	eng, err := analytics.New(analyticsConfig(cfg.demo))
	if err != nil {
		return err
	}
	m := metrics.New()
	cfg.market.implausible = func(provider, field string) { m.ProviderNulled.WithLabelValues(provider, field).Inc() }
	mp, err := newMarketPipeline(cfg, snap, eng, log)
	if err != nil {
		return err
	}
	// Candles persist across restarts, except the demo world's, which are
	// regenerated from the simulation at every start.
	var flusher *candleFlusher
	if !cfg.demo {
		n, err := loadCandles(ctx, st, eng, log)
		if err != nil {
			return fmt.Errorf("load candles: %w", err)
		}
		log.Info("candles loaded", "rows", n)
		flusher = &candleFlusher{st: st, eng: eng, log: log}
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
	cat := catalog.New(snap, mp.cache, time.Now, log)
	if feed != nil {
		feed.snap = cat.Snapshot
	}
	log.Info("registry loaded", "assets", snap.Stats().Assets, "variants", snap.Stats().Variants)
	poller := watch.NewPoller(st, cfg.reloadInterval, log)
	poller.On(storage.TopicKeys, keys.Reload)
	advisories := lists.NewAdvisoryIndex(st)
	cat.SetAdvisories(advisories.Get)
	cat.SetCanonical(mp.cache)
	poller.On(storage.TopicAdvisories, func(ctx context.Context) error {
		if err := advisories.Reload(ctx); err != nil {
			return err
		}
		cat.Rebuild()
		return nil
	})
	poller.On(storage.TopicRegistry, func(ctx context.Context) error {
		snap, _, err := loadRegistry(ctx, st)
		if err != nil {
			return err // the current snapshot stays in service
		}
		cat.SetSnapshot(snap)
		mp.setSnapshot(snap)
		log.Info("registry reloaded", "assets", snap.Stats().Assets, "variants", snap.Stats().Variants)
		return nil
	})
	// The token index loads with the first Sync and reloads on the tokens
	// topic; the curator (created below) rebuilds its protected claims.
	tokens := tokenindex.NewHolder(st, log)
	cat.SetTokens(tokens.Index)
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
	curCfg := curator.Config{Registry: cat.Snapshot, Index: tokens.Index, Markets: mp.cache, Ages: mp.cache, Advisories: advisories,
		Lists: listViews, Allow: allow, Background: ctx, Log: log}
	if mp.metadata != nil {
		curCfg.Provider = mp.metadata
	}
	cur = curator.New(curCfg)
	cur.Refresh()
	rate, window, _ := parseRate(cfg.rate)
	quota, _ := parseQuota(cfg.quota)
	exec, quoteBudget, err := newExecution(cfg, mp, cat.Snapshot, advisories)
	if err != nil {
		return err
	}
	rec := usage.NewRecorder(st, log, usage.Options{})
	api := httpapi.New(httpapi.Deps{
		Log: log, Metrics: m, Keys: keys, Limiter: ratelimit.NewMemory(), Usage: rec, Sessions: router, Catalog: cat, Markets: mp.cache,
		Canonical: mp.cache, ExternalProvider: mp.external,
		Lists: listSvc, ListViews: listViews, Advisories: advisories, Analytics: eng, Metadata: mp.metadata, ListsConfig: cfg.listsHTTP,
		Curator: cur, Tokens: tokens.Index,
		DefaultPolicy: ratelimit.Policy{Requests: rate, Window: window, QuotaPerMonth: quota},
		Simulated:     cfg.demo,
		Execution:     exec, QuoteBudget: quoteBudget,
		CORSOrigins: cfg.http.origins(), AccessLog: cfg.http.accessLog,
	})

	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.addr, err)
	}
	srv := &http.Server{Handler: api, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 60 * time.Second, IdleTimeout: 120 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	log.Info("assetd listening", "addr", ln.Addr().String(), "engine", st.Engine(), "demo", cfg.demo)
	if cfg.demo {
		log.Warn("market data is SIMULATED: --demo serves the built-in demo world, not real prices, liquidity or pools")
	}

	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { poller.Run(gctx); return nil })
	g.Go(func() error { cat.Run(gctx, time.Second); return nil })
	g.Go(func() error { mp.cache.Run(gctx); return nil })
	g.Go(func() error { mp.runWarmer(gctx, cat.Snapshot, cfg.market.warmInterval); return nil })
	g.Go(func() error { api.RunTrending(gctx, trendingInterval); return nil })
	g.Go(func() error { runPrune(gctx, eng, pruneInterval); return nil })
	// flushStopped closes when the periodic flush loop has returned: the
	// final flush must not run concurrently with it.
	flushStopped := make(chan struct{})
	if flusher != nil {
		g.Go(func() error { defer close(flushStopped); flusher.run(gctx, 5*time.Second); return nil })
	} else {
		close(flushStopped)
	}
	if feed != nil {
		start := feed.from // the rest of the backfill ends where the synchronous part began
		g.Go(func() error {
			old := &demoFeed{eng: eng, world: mp.world, snap: cat.Snapshot, ctx: gctx}
			old.backfillRange(start.Add(-(demoBackfill - demoSyncBackfill)), start, log)
			return nil
		})
		g.Go(func() error { feed.run(gctx, demoFeedInterval, log); return nil })
	}
	g.Go(func() error {
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("serve: %w", err)
		}
		return nil
	})
	var admin *http.Server
	if cfg.adminAddr != "" {
		aln, err := net.Listen("tcp", cfg.adminAddr)
		if err != nil {
			srv.Close()
			return fmt.Errorf("listen on admin %s: %w", cfg.adminAddr, err)
		}
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
		if flusher != nil {
			if n, ferr := flusher.flush(sctx); ferr != nil {
				log.Error("final candle flush failed", "err", ferr, "pending", flusher.pendingRows())
			} else {
				log.Info("candles flushed", "rows", n)
			}
		}
		if ferr := rec.Close(sctx); ferr != nil {
			log.Error("usage flush incomplete", "err", ferr, "dropped", rec.Dropped())
		}
		log.Info("shutdown complete", "usage_written", rec.Written(), "usage_dropped", rec.Dropped())
		return err
	})
	return g.Wait()
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

// flagSet reports whether the command line set flag name.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
