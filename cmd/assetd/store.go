package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/assetd/assetd/internal/apikey"
	"github.com/assetd/assetd/internal/ingest"
	"github.com/assetd/assetd/internal/lists"
	"github.com/assetd/assetd/internal/news"
	"github.com/assetd/assetd/internal/project"
	"github.com/assetd/assetd/internal/session"
	"github.com/assetd/assetd/internal/storage/postgres"
	"github.com/assetd/assetd/internal/storage/sqlite"
	"github.com/assetd/assetd/internal/tokenindex"
	"github.com/assetd/assetd/internal/tokenlist"
	"github.com/assetd/assetd/internal/usage"
	"github.com/assetd/assetd/internal/watch"
)

// store is everything the commands need from a storage engine.
type store interface {
	apikey.Store
	session.Store
	usage.Sink
	usageStore
	modeStore
	watch.VersionSource
	registryStore
	lists.Store
	lists.AdvisoryStore
	tokenindex.Store
	ingest.Store
	news.Store
	project.Store
	tokenlist.Store
	Migrate(ctx context.Context) (int, error)
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

func newLogger(w io.Writer, sf storeFlags) *slog.Logger {
	lvl, _ := parseLevel(sf.logLevel)
	opts := &slog.HandlerOptions{Level: lvl}
	if sf.logFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
