package main

import (
	"context"

	"github.com/assetd/assetd/internal/catalog"
	"github.com/assetd/assetd/internal/marketcache"
	"github.com/assetd/assetd/internal/metrics"
	"github.com/assetd/assetd/internal/readiness"
	"github.com/prometheus/client_golang/prometheus"
)

// droppedCounter is the usage recorder as its metrics read it.
type droppedCounter interface {
	Dropped() int64
}

// registerOpsMetrics exposes the market cache's reads, entries, coverage
// and provider states and the usage queue's drops, read at scrape time
// (docs/metrics.md). mints lists the curated mints coverage is over.
func registerOpsMetrics(m *metrics.Metrics, cache *marketcache.Cache, mints func() []string, usage droppedCounter) {
	m.Sample("assetd_cache_reads_total", "Market cache reads by cache and outcome: hit (fresh), stale (served, refresh scheduled), miss.",
		prometheus.CounterValue, []string{"cache", "outcome"}, func(emit func(float64, ...string)) {
			for _, s := range cache.Stats() {
				emit(float64(s.Hits), s.Name, "hit")
				emit(float64(s.Stale), s.Name, "stale")
				emit(float64(s.Misses), s.Name, "miss")
			}
		})
	m.Sample("assetd_cache_entries", "Entries held by each market cache.", prometheus.GaugeValue, []string{"cache"},
		func(emit func(float64, ...string)) {
			for _, s := range cache.Stats() {
				emit(float64(s.Entries), s.Name)
			}
		})
	m.Sample("assetd_market_coverage_ratio", "Share of curated mints with a cached price: merged (source=\"any\") and per snapshot provider.",
		prometheus.GaugeValue, []string{"source"}, func(emit func(float64, ...string)) {
			anyCov, per := cache.Coverage(mints())
			emit(anyCov, "any")
			for src, v := range per {
				emit(v, src)
			}
		})
	m.Sample("assetd_provider_up", "1 while a market-data provider is up, 0 while it backs off after failures.",
		prometheus.GaugeValue, []string{"source"}, func(emit func(float64, ...string)) {
			for _, p := range cache.Providers() {
				up := 0.0
				if p.Up {
					up = 1
				}
				emit(up, p.Source)
			}
		})
	m.Sample("assetd_usage_dropped_total", "Usage records lost: the usage queue was full or a flush failed.",
		prometheus.CounterValue, nil, func(emit func(float64, ...string)) { emit(float64(usage.Dropped())) })
}

// pinger is the store as readiness probes it.
type pinger interface {
	Versions(ctx context.Context) (map[string]int64, error)
}

// newReadiness builds the /readyz checker: the store answers its change
// poll, the registry holds assets, and (with a price provider) the cache
// prices min of the curated mints.
func newReadiness(st pinger, cat *catalog.Catalog, mp *marketPipeline, min float64, source *tradeSource) *readiness.Checker {
	c := &readiness.Checker{
		Store:       func(ctx context.Context) error { _, err := st.Versions(ctx); return err },
		Assets:      func() int { return cat.Snapshot().Stats().Assets },
		MinCoverage: min,
	}
	if source != nil {
		c.TradeSource = func() readiness.TradeSourceCheck {
			s := source.src.Status()
			return readiness.TradeSourceCheck{Source: s.Source, State: s.State, LagSlots: s.LagSlots, Gaps: len(s.Gaps)}
		}
	}
	if mp.priced {
		c.Coverage = func() (float64, map[string]float64) { return mp.cache.Coverage(cat.Snapshot().Mints()) }
	}
	return c
}
