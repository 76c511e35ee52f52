package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Ops are the collectors of the background workers: market-data provider
// calls, store reloads. Values that live elsewhere (cache reads, coverage,
// usage queue drops) are read at scrape time through Sample.
type Ops struct {
	ProviderCalls     *prometheus.CounterVec   // source, outcome: ok, error
	ProviderLatency   *prometheus.HistogramVec // source
	ProviderDeferrals *prometheus.CounterVec   // source, reason: budget, backoff, retry_after, pending
	Reloads           *prometheus.CounterVec   // topic, outcome: ok, error
}

func newOps() Ops {
	return Ops{
		ProviderCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "assetd_provider_calls_total", Help: "Market-data provider calls made, by source and outcome (ok, error).",
		}, []string{"source", "outcome"}),
		ProviderLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "assetd_provider_call_duration_seconds", Help: "Market-data provider call latency by source.",
			Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 15},
		}, []string{"source"}),
		ProviderDeferrals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "assetd_provider_deferred_total", Help: "Market-data provider calls not made, by source and reason (budget, backoff, retry_after, pending).",
		}, []string{"source", "reason"}),
		Reloads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "assetd_reloads_total", Help: "Reloads of in-memory views after a store change, by topic and outcome (ok, error).",
		}, []string{"topic", "outcome"}),
	}
}

// ProviderCall records one provider call (marketcache.Observer).
func (m *Metrics) ProviderCall(source string, took time.Duration, err error) {
	outcome := "ok"
	if err != nil {
		outcome = "error"
	}
	m.ProviderCalls.WithLabelValues(source, outcome).Inc()
	m.ProviderLatency.WithLabelValues(source).Observe(took.Seconds())
}

// ProviderDeferred records a provider call not made (marketcache.Observer).
func (m *Metrics) ProviderDeferred(source, reason string) {
	m.ProviderDeferrals.WithLabelValues(source, reason).Inc()
}

// Reload records one reload of topic.
func (m *Metrics) Reload(topic string, err error) {
	outcome := "ok"
	if err != nil {
		outcome = "error"
	}
	m.Reloads.WithLabelValues(topic, outcome).Inc()
}

// Sample registers a metric family whose values collect emits at scrape
// time, one call of emit per series with its label values in the order
// of labels. kind is prometheus.CounterValue or prometheus.GaugeValue.
func (m *Metrics) Sample(name, help string, kind prometheus.ValueType, labels []string, collect func(emit func(v float64, labelValues ...string))) {
	m.Registry.MustRegister(&sampled{desc: prometheus.NewDesc(name, help, labels, nil), kind: kind, collect: collect})
}

type sampled struct {
	desc    *prometheus.Desc
	kind    prometheus.ValueType
	collect func(emit func(v float64, labelValues ...string))
}

func (s *sampled) Describe(ch chan<- *prometheus.Desc) { ch <- s.desc }
func (s *sampled) Collect(ch chan<- prometheus.Metric) {
	s.collect(func(v float64, lvs ...string) {
		ch <- prometheus.MustNewConstMetric(s.desc, s.kind, v, lvs...)
	})
}
