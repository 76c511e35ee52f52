// Package readiness decides whether the service is ready to take traffic:
// its store answers, its registry is loaded and the market cache prices
// enough of the curated mints. /v1/health stays the spec's liveness
// answer; readiness is what a load balancer or an operator probes.
package readiness

import (
	"context"
	"time"
)

// DefaultMinCoverage is the share of curated mints that must be priced.
const DefaultMinCoverage = 0.5

// Checker holds the probes; Store and Assets are required.
type Checker struct {
	// Store pings the store (bounded by StoreTimeout, default 2s).
	Store        func(ctx context.Context) error
	StoreTimeout time.Duration
	// Assets is the number of assets in the loaded registry.
	Assets func() int
	// Coverage is the share of curated mints priced, over all providers
	// merged (any) and per snapshot provider. Nil when no snapshot
	// provider is configured: the market check then passes with nothing
	// to wait for.
	Coverage func() (any float64, per map[string]float64)
	// TradeSource reports the chain trade source (nil: none configured).
	TradeSource func() TradeSourceCheck
	// MinCoverage is the share of curated mints the merged cache must
	// price (default DefaultMinCoverage).
	MinCoverage float64
}

// Report is the readiness answer.
type Report struct {
	Ready    bool          `json:"ready"`
	Store    StoreCheck    `json:"store"`
	Registry RegistryCheck `json:"registry"`
	Markets  MarketCheck   `json:"markets"`
	// TradeSource reports the chain trade source when one is configured;
	// it informs and does not gate readiness (the API serves without it).
	TradeSource *TradeSourceCheck `json:"tradeSource,omitempty"`
}

// TradeSourceCheck is the chain trade source's state and lag.
type TradeSourceCheck struct {
	Source   string `json:"source"`
	State    string `json:"state"`
	LagSlots int64  `json:"lagSlots"`
	Gaps     int    `json:"gaps"`
}

// StoreCheck: the store answered a cheap query.
type StoreCheck struct {
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
}

// RegistryCheck: the registry holds at least one asset.
type RegistryCheck struct {
	OK     bool `json:"ok"`
	Assets int  `json:"assets"`
}

// MarketCheck: the share of curated mints priced, merged ("any") and per
// provider, against the minimum.
type MarketCheck struct {
	OK          bool               `json:"ok"`
	Configured  bool               `json:"configured"`
	MinCoverage float64            `json:"minCoverage"`
	Coverage    map[string]float64 `json:"coverage"`
}

// Check runs every probe.
func (c *Checker) Check(ctx context.Context) Report {
	var r Report
	timeout := c.StoreTimeout
	if timeout <= 0 {
		timeout = 2 * time.Second
	}
	sctx, cancel := context.WithTimeout(ctx, timeout)
	err := c.Store(sctx)
	cancel()
	r.Store = StoreCheck{OK: err == nil}
	if err != nil {
		r.Store.Error = err.Error()
	}
	n := c.Assets()
	r.Registry = RegistryCheck{OK: n > 0, Assets: n}
	r.Markets = c.markets()
	r.Ready = r.Store.OK && r.Registry.OK && r.Markets.OK
	if c.TradeSource != nil {
		ts := c.TradeSource()
		r.TradeSource = &ts
	}
	return r
}

func (c *Checker) markets() MarketCheck {
	min := c.MinCoverage
	if min <= 0 {
		min = DefaultMinCoverage
	}
	m := MarketCheck{MinCoverage: min, Coverage: map[string]float64{}}
	if c.Coverage == nil {
		m.OK = true
		return m
	}
	anyCov, per := c.Coverage()
	m.Configured = true
	m.Coverage["any"] = anyCov
	for src, v := range per {
		m.Coverage[src] = v
	}
	m.OK = anyCov >= min
	return m
}
