// Package metrics defines the service's Prometheus collectors on a registry
// of its own (no global default registry).
package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Metrics are the collectors the HTTP layer and workers update.
type Metrics struct {
	Registry  *prometheus.Registry
	Requests  *prometheus.CounterVec   // route, code
	Latency   *prometheus.HistogramVec // route
	InFlight  prometheus.Gauge
	Limiter   *prometheus.CounterVec // decision: allowed, rate, quota, error
	Panics    prometheus.Counter
	AuthFails *prometheus.CounterVec // reason: missing, invalid, scope
	// Includes counts asset detail include blocks by block and outcome
	// ("ok" or the block's reason: forbidden, timeout, not_available, ...).
	Includes *prometheus.CounterVec
	// ProviderNulled counts upstream values a provider adapter nulled as
	// implausible (internal/bounds), by provider and field.
	ProviderNulled *prometheus.CounterVec
	// Trade ingest (POST /v1/internal/trades, ingest replay): trades
	// stored, duplicates of stored ones, rejected by reason code; and the
	// duration of the start-up rebuild of the analytics state.
	TradesAccepted   prometheus.Counter
	TradesDuplicates prometheus.Counter
	TradesRejected   *prometheus.CounterVec // reason
	TradesRebuild    prometheus.Histogram
	// Ops: providers and reloads (ops.go).
	Ops
	// Redis: the shared limits' state and fallbacks (redis.go).
	Redis
	// Advisories: the depeg guard (advisories.go).
	Advisories
	// NewsFetches counts news source fetches by feed source and outcome
	// (ok, not_modified, timeout, rate_limited, malformed, upstream_error).
	NewsFetches *prometheus.CounterVec
	// NewsDeduplicated counts new news items dropped as duplicates by
	// reason (url, title).
	NewsDeduplicated *prometheus.CounterVec
	// NewsItems is the number of items the news feed serves, by feed source.
	NewsItems *prometheus.GaugeVec
}

// New creates and registers the collectors, plus the Go and process
// collectors, on a fresh registry.
func New() *Metrics {
	m := &Metrics{
		Registry: prometheus.NewRegistry(),
		Requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "assetd_http_requests_total", Help: "HTTP requests by route pattern and status code.",
		}, []string{"route", "code"}),
		Latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "assetd_http_request_duration_seconds", Help: "HTTP request latency by route pattern.",
			Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
		}, []string{"route"}),
		InFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "assetd_http_in_flight_requests", Help: "Requests being served.",
		}),
		Limiter: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "assetd_ratelimit_decisions_total", Help: "Rate limiter decisions.",
		}, []string{"decision"}),
		Panics: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "assetd_http_panics_total", Help: "Handler panics recovered.",
		}),
		AuthFails: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "assetd_auth_failures_total", Help: "Refused authentications by reason.",
		}, []string{"reason"}),
		Includes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "assetd_include_blocks_total", Help: "Asset detail include blocks by block and outcome.",
		}, []string{"block", "outcome"}),
		ProviderNulled: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "assetd_provider_values_nulled_total", Help: "Implausible upstream values (negative, non-finite, above the ceilings) served as null, by provider and field.",
		}, []string{"provider", "field"}),
		TradesAccepted: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "assetd_trades_accepted_total", Help: "Trades stored by ingest (acknowledged).",
		}),
		TradesDuplicates: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "assetd_trades_duplicate_total", Help: "Ingested trades whose signature was already stored.",
		}),
		TradesRejected: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "assetd_trades_rejected_total", Help: "Ingested trades rejected, by reason code.",
		}, []string{"reason"}),
		TradesRebuild: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "assetd_analytics_rebuild_seconds", Help: "Duration of the start-up rebuild of the analytics state from stored trades.",
			Buckets: []float64{.01, .1, .5, 1, 2, 5, 10, 20, 60},
		}),
		NewsFetches: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "assetd_news_fetches_total", Help: "News source fetches by feed source and outcome.",
		}, []string{"feed_source", "outcome"}),
		NewsDeduplicated: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "assetd_news_deduplicated_total", Help: "New news items dropped as duplicates, by reason (url, title).",
		}, []string{"reason"}),
		NewsItems: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "assetd_news_items", Help: "News feed items served from memory, by feed source.",
		}, []string{"feed_source"}),
		Ops:        newOps(),
		Redis:      newRedis(),
		Advisories: newAdvisories(),
	}
	m.Registry.MustRegister(m.Requests, m.Latency, m.InFlight, m.Limiter, m.Panics, m.AuthFails, m.Includes, m.ProviderNulled,
		m.TradesAccepted, m.TradesDuplicates, m.TradesRejected, m.TradesRebuild,
		m.ProviderCalls, m.ProviderLatency, m.ProviderDeferrals, m.Reloads,
		m.NewsFetches, m.NewsDeduplicated, m.NewsItems,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.Registry.MustRegister(m.RedisState, m.RedisFallbacks)
	m.Registry.MustRegister(m.Advisories.collectors()...)
	return m
}

// ObserveIngest counts one ingest call's outcome; rejected maps reason
// codes to counts. A nil *Metrics counts nothing.
func (m *Metrics) ObserveIngest(accepted, duplicates int, rejected map[string]int) {
	if m == nil {
		return
	}
	m.TradesAccepted.Add(float64(accepted))
	m.TradesDuplicates.Add(float64(duplicates))
	for reason, n := range rejected {
		m.TradesRejected.WithLabelValues(reason).Add(float64(n))
	}
}
