package metrics

import "github.com/prometheus/client_golang/prometheus"

// Advisories are the collectors of the depeg guard and the advisory
// reports (docs/advisories.md "Metrics").
type Advisories struct {
	DepegTiers    *prometheus.GaugeVec   // tier: stablecoin variants per confirmed tier
	DepegCycles   prometheus.Counter     // guard cycles run
	DepegBreaker  prometheus.Counter     // cycles the circuit breaker held
	DepegAdvisory *prometheus.CounterVec // action: set, lift
}

func newAdvisories() Advisories {
	a := Advisories{
		DepegTiers: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "assetd_depeg_stablecoins", Help: "Stablecoin variants by confirmed depeg tier (ok, watch, warning, critical) after the last guard cycle.",
		}, []string{"tier"}),
		DepegCycles: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "assetd_depeg_cycles_total", Help: "Depeg guard cycles run.",
		}),
		DepegBreaker: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "assetd_depeg_breaker_trips_total", Help: "Depeg guard cycles the circuit breaker held (too many stablecoins would change tier at once: nothing changed).",
		}),
		DepegAdvisory: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "assetd_depeg_advisory_changes_total", Help: "Caution advisories the depeg guard set or lifted, by action (set, lift).",
		}, []string{"action"}),
	}
	for _, t := range []string{"ok", "watch", "warning", "critical"} {
		a.DepegTiers.WithLabelValues(t)
	}
	for _, act := range []string{"set", "lift"} {
		a.DepegAdvisory.WithLabelValues(act)
	}
	return a
}

func (a Advisories) collectors() []prometheus.Collector {
	return []prometheus.Collector{a.DepegTiers, a.DepegCycles, a.DepegBreaker, a.DepegAdvisory}
}

// DepegCycle records one guard cycle's confirmed tiers (depeg.Metrics).
func (m *Metrics) DepegCycle(tiers map[string]int) {
	m.DepegCycles.Inc()
	for _, t := range []string{"ok", "watch", "warning", "critical"} {
		m.DepegTiers.WithLabelValues(t).Set(float64(tiers[t]))
	}
}

// DepegBreakerTripped counts one held cycle (depeg.Metrics).
func (m *Metrics) DepegBreakerTripped() { m.DepegBreaker.Inc() }

// DepegAdvisoryChange counts one guard advisory write (depeg.Metrics).
func (m *Metrics) DepegAdvisoryChange(action string) { m.DepegAdvisory.WithLabelValues(action).Inc() }
