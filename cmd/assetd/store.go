package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/assetd/assetd/internal/apikey"
	"github.com/assetd/assetd/internal/chainsource"
	"github.com/assetd/assetd/internal/dashboard"
	"github.com/assetd/assetd/internal/events"
	"github.com/assetd/assetd/internal/ingest"
	"github.com/assetd/assetd/internal/lists"
	"github.com/assetd/assetd/internal/natsbus"
	"github.com/assetd/assetd/internal/news"
	"github.com/assetd/assetd/internal/onchain"
	"github.com/assetd/assetd/internal/project"
	"github.com/assetd/assetd/internal/ratelimit"
	"github.com/assetd/assetd/internal/session"
	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/storage/postgres"
	"github.com/assetd/assetd/internal/storage/sqlite"
	"github.com/assetd/assetd/internal/tokenindex"
	"github.com/assetd/assetd/internal/tokenlist"
	"github.com/assetd/assetd/internal/tradestream"
	"github.com/assetd/assetd/internal/usage"
	"github.com/assetd/assetd/internal/watch"
	"github.com/assetd/assetd/internal/webhooks"
)

// store is everything the commands need from a storage engine.
type store interface {
	apikey.Store
	session.Store
	usage.Sink
	usageStore
	ratelimit.Ledger
	modeStore
	watch.VersionSource
	registryStore
	lists.Store
	lists.AdvisoryStore
	lists.ReportStore
	tokenindex.Store
	ingest.Store
	chainsource.Store
	tradestream.SignatureStore
	news.Store
	project.Store
	tokenlist.Store
	onchain.Store
	webhooks.Store
	dashboard.Flashes
	UsageBuckets(ctx context.Context, keyID string, sinceMinute, bucketMinutes int64) ([]usage.Bucket, error)
	events.Store
	Migrate(ctx context.Context) (int, error)
	// OnCommit has the store report the change topics of every committed
	// write (the change bus publishes them).
	OnCommit(fn storage.CommitHook)
	// OnFull has the store report when its writes start failing for want
	// of space and when they succeed again (once per change).
	OnFull(fn func(full bool, cause error))
	Engine() string
	Close() error
}

// openStore opens PostgreSQL when a database URL is given, else the SQLite
// file in the data directory, and applies pending migrations.
func openStore(ctx context.Context, sf storeFlags, log *slog.Logger) (store, error) {
	var s store
	if sf.databaseURL != "" {
		pg, err := postgres.Open(ctx, sf.databaseURL)
		if err != nil {
			return nil, err
		}
		s = pg
	} else {
		lite, err := sqlite.Open(ctx, sf.dataDir)
		if err != nil {
			return nil, err
		}
		s = lite
	}
	// One line per change, not per failed write: a full disk under load
	// fails hundreds of writes a second (each answered 503
	// store_unavailable, logged at debug).
	s.OnFull(func(full bool, cause error) {
		if full {
			log.Error("store full: writes fail (503 store_unavailable) until space is freed; reads go on", "engine", s.Engine(), "err", cause)
		} else {
			log.Info("store accepts writes again", "engine", s.Engine())
		}
	})
	n, err := s.Migrate(ctx)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("migrate %s store: %w", s.Engine(), err)
	}
	if n > 0 {
		log.Info("applied migrations", "engine", s.Engine(), "count", n)
	}
	return s, nil
}

// openBus connects to NATS when --nats-url is given (nil otherwise) and
// makes st publish every committed change on the change bus, so servers
// reload at once instead of at their next poll. Close it (before the
// store) with closeBus.
func openBus(ctx context.Context, sf storeFlags, st store, name string, log *slog.Logger) (*natsbus.Bus, error) {
	if sf.natsURL == "" {
		return nil, nil
	}
	bus, err := natsbus.Connect(ctx, natsbus.Config{URL: sf.natsURL, Prefix: sf.natsPrefix, Name: name, Log: log})
	if err != nil {
		return nil, err
	}
	st.OnCommit(bus.PublishChanges)
	return bus, nil
}

// closeBus flushes the change events bus published and closes it.
func closeBus(bus *natsbus.Bus, log *slog.Logger) {
	if bus == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := bus.Close(ctx); err != nil {
		log.Warn("NATS close", "err", err)
	}
}

func newLogger(w io.Writer, sf storeFlags) *slog.Logger { return slog.New(newLogHandler(w, sf)) }

func newLogHandler(w io.Writer, sf storeFlags) slog.Handler {
	lvl, _ := parseLevel(sf.logLevel)
	opts := &slog.HandlerOptions{Level: lvl}
	if sf.logFormat == "json" {
		opts.ReplaceAttr = durationSeconds
		return slog.NewJSONHandler(w, opts)
	}
	return slog.NewTextHandler(w, opts)
}

// durationSeconds writes every duration of a JSON log line as a number of
// seconds (0.0123), not slog's default integer nanoseconds; the text
// format keeps Go's "12.3ms".
func durationSeconds(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindDuration {
		a.Value = slog.Float64Value(a.Value.Duration().Seconds())
	}
	return a
}
