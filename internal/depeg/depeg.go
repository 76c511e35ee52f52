// Package depeg is the depeg guard: every cycle (a minute) it prices each
// stablecoin variant from the sources that have a price (median), derives
// its deviation from the peg, holds tiers for a confirmation window and
// a cooldown, and sets or lifts the `caution` advisories it owns
// (docs/advisories.md "Depeg guard"). It never touches an advisory it did
// not set, and a circuit breaker stops a cycle in which too many
// stablecoins would flip at once.
package depeg

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/lists"
)

// Tier is a stablecoin's health tier, by absolute deviation from its peg.
type Tier int

// Tiers, least severe first.
const (
	TierOK Tier = iota
	TierWatch
	TierWarning
	TierCritical
)

var tierNames = [...]string{"ok", "watch", "warning", "critical"}

func (t Tier) String() string { return tierNames[t] }

// Flagged says the tier warrants a caution advisory.
func (t Tier) Flagged() bool { return t >= TierWarning }

// Config tunes the guard. Zero values take the documented defaults.
type Config struct {
	// OKBandPct is the band (absolute deviation, %) a flagged stablecoin
	// must stay inside for Cooldown before it clears (default 0.5).
	OKBandPct float64
	// WatchPct, WarningPct and CriticalPct are the tiers' lower bounds
	// (default 1, 3 and 10 %).
	WatchPct, WarningPct, CriticalPct float64
	// Window is how long a tier must hold before it is confirmed
	// (default 10 minutes: one odd minute never flags).
	Window time.Duration
	// Cooldown is how long a flagged stablecoin must stay inside the ok
	// band before it clears (default 30 minutes).
	Cooldown time.Duration
	// MinLiquidityUSD is the thin-liquidity floor: below it the tier is
	// watch at most (default 100,000 USD).
	MinLiquidityUSD float64
	// BreakerShare is the share of stablecoins whose confirmed tier may
	// change in one cycle; above it (and with at least BreakerMin
	// changes) the cycle changes nothing (default 0.25 and 2).
	BreakerShare float64
	BreakerMin   int
	// Stale is the age of the last priced sample from which health says
	// stale (default 3 minutes).
	Stale time.Duration
	// PegUSD is the USD value of each peg currency other than USD (for
	// example {"EUR": 1.08}); a stablecoin whose peg has no rate is not
	// judged (its health says so).
	PegUSD map[string]float64
}

func (c Config) withDefaults() Config {
	def := func(v *float64, d float64) {
		if *v <= 0 || math.IsNaN(*v) {
			*v = d
		}
	}
	def(&c.OKBandPct, 0.5)
	def(&c.WatchPct, 1)
	def(&c.WarningPct, 3)
	def(&c.CriticalPct, 10)
	def(&c.MinLiquidityUSD, 100_000)
	def(&c.BreakerShare, 0.25)
	if c.Window <= 0 {
		c.Window = 10 * time.Minute
	}
	if c.Cooldown <= 0 {
		c.Cooldown = 30 * time.Minute
	}
	if c.BreakerMin <= 0 {
		c.BreakerMin = 2
	}
	if c.Stale <= 0 {
		c.Stale = 3 * time.Minute
	}
	return c
}

// classify maps an absolute deviation (%) to its tier.
func (c Config) classify(absDev float64) Tier {
	switch {
	case absDev >= c.CriticalPct:
		return TierCritical
	case absDev >= c.WarningPct:
		return TierWarning
	case absDev >= c.WatchPct:
		return TierWatch
	}
	return TierOK
}

// Coin is one stablecoin variant the guard watches.
type Coin struct {
	AssetID     string
	VariantID   string
	Mint        string
	PegCurrency string // ISO code, "USD" unless the registry says otherwise
}

// Quote is one source's view of a mint: price and, when the source knows
// it, liquidity (0: unknown).
type Quote struct {
	Source       string
	PriceUSD     float64
	LiquidityUSD float64
}

// Feed gives the current quotes of a mint (the trade engine's price and
// the market providers'); a source without a price is left out.
type Feed interface {
	Quotes(ctx context.Context, mint string) []Quote
}

// Advisories is what the guard needs of the advisory store: writes that
// only ever touch advisories the owner set (lists.Advisories).
type Advisories interface {
	SetOwned(ctx context.Context, mint, status, reason string, url *string, owner string) (lists.Advisory, bool, error)
	LiftOwned(ctx context.Context, mint, owner string) (bool, error)
	List(ctx context.Context) ([]lists.Advisory, error)
}

// Metrics hears what the guard does (nil methods are not called).
type Metrics interface {
	DepegCycle(tiers map[string]int) // stablecoins per confirmed tier name
	DepegBreakerTripped()
	DepegAdvisoryChange(action string) // "set", "lift"
}

// Health is a stablecoin variant's current judgement
// (include=stablecoinHealth).
type Health struct {
	VariantID    string
	Mint         string
	Tier         Tier
	DeviationPct *float64 // signed, price vs peg; nil when unpriced
	PriceUSD     *float64
	PegUSD       *float64 // nil: no rate for the peg currency
	PegCurrency  string
	LiquidityUSD *float64
	TierSince    time.Time
	UpdatedAt    time.Time // last priced sample (zero: never)
	Stale        bool
	Sources      []string
	Reason       string // why the tier is capped (thin liquidity, no peg rate)
}

// state is one variant's memory between cycles.
type state struct {
	confirmed Tier
	since     time.Time    // confirmed since
	held      [4]time.Time // per non-ok tier: observed at or above it continuously since (zero: not)
	below     time.Time    // observed below the confirmed tier since (zero: not)
	inBand    time.Time    // inside the ok band since (zero: not)
	owned     bool         // the guard's advisory is set
	applied   Tier         // the tier the set advisory states
	last      Health
}

// Guard is the depeg guard. Cycle (Run) must not run concurrently with
// itself; Health may be read on any goroutine.
type Guard struct {
	cfg   Config
	coins func() []Coin
	feed  Feed
	adv   Advisories
	now   func() time.Time
	log   *slog.Logger
	met   Metrics
	// Act says this replica may write advisories (the lease holder);
	// nil: always.
	act func() bool

	mu     sync.Mutex
	states map[string]*state // by mint
	seeded bool
	// gen moves after every change of states (see Generation).
	gen atomic.Uint64
}

// Options are the guard's collaborators.
type Options struct {
	Config  Config
	Coins   func() []Coin
	Feed    Feed
	Adv     Advisories
	Now     func() time.Time
	Log     *slog.Logger
	Metrics Metrics
	// Act says whether this replica writes advisories (nil: always).
	Act func() bool
}

// New returns a guard.
func New(o Options) *Guard {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return &Guard{cfg: o.Config.withDefaults(), coins: o.Coins, feed: o.Feed, adv: o.Adv, now: o.Now, log: o.Log, met: o.Metrics, act: o.Act, states: map[string]*state{}}
}

// ErrBreaker is returned by Cycle when the circuit breaker held a cycle.
var ErrBreaker = fmt.Errorf("depeg: circuit breaker: too many stablecoins would change tier in one cycle")

// Run calls Cycle every interval until ctx ends.
func (g *Guard) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if err := g.Cycle(ctx); err != nil && ctx.Err() == nil {
			g.log.Error("depeg guard cycle", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// seed adopts the guard's stored advisories (after a restart): such a
// mint starts flagged at warning since the advisory's since, so it clears
// only after a cooldown inside the ok band.
func (g *Guard) seed(ctx context.Context) error {
	all, err := g.adv.List(ctx)
	if err != nil {
		return fmt.Errorf("depeg: read advisories: %w", err)
	}
	for _, a := range all {
		if a.SetBy != lists.SetByDepegGuard {
			continue
		}
		tier := TierWarning
		if strings.Contains(a.Reason, "tier critical") {
			tier = TierCritical
		}
		g.states[a.Mint] = &state{confirmed: tier, since: time.UnixMilli(a.Since), owned: true, applied: tier}
	}
	g.seeded = true
	g.gen.Add(1)
	return nil
}

// Cycle judges every stablecoin once and applies the advisory changes.
func (g *Guard) Cycle(ctx context.Context) error {
	now := g.now()
	acting := g.act == nil || g.act()
	g.mu.Lock()
	if acting && !g.seeded {
		if err := g.seed(ctx); err != nil {
			g.mu.Unlock()
			return err
		}
	}
	coins := g.coins()
	next := make(map[string]*state, len(coins))
	changed := 0
	for _, c := range coins {
		prev := g.states[c.Mint]
		st := &state{since: now}
		if prev != nil {
			cp := *prev
			st = &cp
		}
		if g.step(ctx, c, st, now) {
			changed++
		}
		next[c.Mint] = st
	}
	tiers := map[string]int{}
	for _, st := range next {
		tiers[st.confirmed.String()]++
	}
	if changed >= g.cfg.BreakerMin && float64(changed) > g.cfg.BreakerShare*float64(len(coins)) {
		g.mu.Unlock()
		if g.met != nil {
			g.met.DepegBreakerTripped()
		}
		g.log.Error("depeg guard: circuit breaker tripped, nothing changed", "changing", changed, "stablecoins", len(coins), "share", g.cfg.BreakerShare)
		return fmt.Errorf("%w (%d of %d)", ErrBreaker, changed, len(coins))
	}
	g.states = next
	g.gen.Add(1)
	g.mu.Unlock()
	// Advisory writes run without the lock, so Health never waits on the
	// store; apply touches only owned/applied, which Health does not read,
	// and cycles run one at a time.
	var errs []error
	if acting {
		for _, c := range coins {
			if err := g.apply(ctx, c, next[c.Mint]); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if g.met != nil {
		g.met.DepegCycle(tiers)
	}
	if len(errs) > 0 {
		return fmt.Errorf("depeg: %d advisory writes failed: %w", len(errs), errs[0])
	}
	return nil
}

// step advances st by one sample at now and reports whether the
// confirmed tier changed.
func (g *Guard) step(ctx context.Context, c Coin, st *state, now time.Time) bool {
	cfg := g.cfg
	h := Health{VariantID: c.VariantID, Mint: c.Mint, PegCurrency: c.PegCurrency, UpdatedAt: st.last.UpdatedAt,
		PriceUSD: st.last.PriceUSD, DeviationPct: st.last.DeviationPct, LiquidityUSD: st.last.LiquidityUSD, Sources: st.last.Sources}
	defer func() {
		h.Tier, h.TierSince = st.confirmed, st.since
		h.Stale = h.UpdatedAt.IsZero() || now.Sub(h.UpdatedAt) >= cfg.Stale
		st.last = h
	}()
	peg, ok := pegUSD(cfg, c.PegCurrency)
	if !ok {
		h.Reason = "no USD rate configured for peg currency " + c.PegCurrency
		return false
	}
	h.PegUSD = &peg
	price, liq, sources := combine(g.feed.Quotes(ctx, c.Mint))
	if price == nil {
		h.Reason = "no source has a price"
		return false // no sample: hold everything
	}
	dev := (*price/peg - 1) * 100
	h.PriceUSD, h.DeviationPct, h.Sources, h.UpdatedAt = price, &dev, sources, now
	h.LiquidityUSD = liq
	abs := math.Abs(dev)
	obs := cfg.classify(abs)
	if obs > TierWatch && (liq == nil || *liq < cfg.MinLiquidityUSD) {
		obs = TierWatch
		h.Reason = fmt.Sprintf("thin liquidity (below %.0f USD): watch at most", cfg.MinLiquidityUSD)
	}
	for t := TierWatch; t <= TierCritical; t++ {
		switch {
		case obs < t:
			st.held[t] = time.Time{}
		case st.held[t].IsZero():
			st.held[t] = now
		}
	}
	if abs < cfg.OKBandPct {
		if st.inBand.IsZero() {
			st.inBand = now
		}
	} else {
		st.inBand = time.Time{}
	}
	if obs < st.confirmed {
		if st.below.IsZero() {
			st.below = now
		}
	} else {
		st.below = time.Time{}
	}
	// target: the most severe tier held for the window.
	target := TierOK
	for t := TierCritical; t >= TierWatch; t-- {
		if !st.held[t].IsZero() && now.Sub(st.held[t]) >= cfg.Window {
			target = t
			break
		}
	}
	old := st.confirmed
	switch {
	case target > st.confirmed:
		st.confirmed = target
	case target < st.confirmed && target > TierOK:
		if !st.below.IsZero() && now.Sub(st.below) >= cfg.Window {
			st.confirmed = target
		}
	case target == TierOK && st.confirmed > TierOK:
		if !st.inBand.IsZero() && now.Sub(st.inBand) >= cfg.Cooldown {
			st.confirmed = TierOK
		}
	}
	if st.confirmed != old {
		st.since = now
		st.below = time.Time{}
		return true
	}
	return false
}

// apply sets, updates or lifts the guard's advisory of c to match st.
func (g *Guard) apply(ctx context.Context, c Coin, st *state) error {
	if st.confirmed.Flagged() {
		reason := g.reason(st)
		if st.owned && st.applied == st.confirmed {
			return nil
		}
		a, ok, err := g.adv.SetOwned(ctx, c.Mint, asset.AdvisoryCaution, reason, nil, lists.SetByDepegGuard)
		if err != nil {
			return err
		}
		if ok && !st.owned && g.met != nil {
			g.met.DepegAdvisoryChange("set")
		}
		st.owned = ok
		if ok {
			st.applied = st.confirmed
			g.log.Info("depeg guard: caution set", "mint", c.Mint, "tier", st.confirmed.String(), "reason", a.Reason)
		}
		return nil
	}
	if !st.owned {
		return nil
	}
	lifted, err := g.adv.LiftOwned(ctx, c.Mint, lists.SetByDepegGuard)
	if err != nil {
		return err
	}
	st.owned = false
	st.applied = TierOK
	if lifted {
		if g.met != nil {
			g.met.DepegAdvisoryChange("lift")
		}
		g.log.Info("depeg guard: caution lifted", "mint", c.Mint)
	}
	return nil
}

// reason is the advisory text: tier, price, deviation, liquidity, window.
func (g *Guard) reason(st *state) string {
	h := st.last
	var b strings.Builder
	fmt.Fprintf(&b, "depeg guard: tier %s", st.confirmed)
	if h.PriceUSD != nil && h.PegUSD != nil && h.DeviationPct != nil {
		fmt.Fprintf(&b, "; price %.4f USD vs peg %.4f USD (%s), deviation %+.2f%%", *h.PriceUSD, *h.PegUSD, h.PegCurrency, *h.DeviationPct)
	}
	if h.LiquidityUSD != nil {
		fmt.Fprintf(&b, "; liquidity %.0f USD", *h.LiquidityUSD)
	}
	fmt.Fprintf(&b, "; held %s since %s", g.cfg.Window, st.since.UTC().Format(time.RFC3339))
	if len(h.Sources) > 0 {
		fmt.Fprintf(&b, "; sources %s", strings.Join(h.Sources, ", "))
	}
	return b.String()
}

// Health returns the judgement of mint (false: not a watched stablecoin,
// or no cycle ran yet).
// Generation moves whenever a cycle (or the restart seed) replaces the
// guard's judgements: what Health returns, except the Stale flag, which
// moves with the clock, holds while it does.
func (g *Guard) Generation() uint64 { return g.gen.Load() }

func (g *Guard) Health(mint string) (Health, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	st, ok := g.states[mint]
	if !ok {
		return Health{}, false
	}
	h := st.last
	h.Sources = slices.Clone(h.Sources)
	h.Stale = h.UpdatedAt.IsZero() || g.now().Sub(h.UpdatedAt) >= g.cfg.Stale
	return h, true
}

// pegUSD is the USD value of one unit of currency.
func pegUSD(cfg Config, currency string) (float64, bool) {
	if currency == "" || currency == "USD" {
		return 1, true
	}
	v, ok := cfg.PegUSD[currency]
	return v, ok && v > 0 && !math.IsInf(v, 0)
}

// combine is the median price of the quotes with a finite positive
// price, the largest known liquidity, and the sources used (sorted).
func combine(qs []Quote) (price, liq *float64, sources []string) {
	var ps []float64
	for _, q := range qs {
		if !(q.PriceUSD > 0) || math.IsInf(q.PriceUSD, 0) {
			continue
		}
		ps = append(ps, q.PriceUSD)
		sources = append(sources, q.Source)
		if q.LiquidityUSD > 0 && !math.IsInf(q.LiquidityUSD, 0) && (liq == nil || q.LiquidityUSD > *liq) {
			l := q.LiquidityUSD
			liq = &l
		}
	}
	if len(ps) == 0 {
		return nil, nil, nil
	}
	sort.Float64s(ps)
	m := ps[len(ps)/2]
	if len(ps)%2 == 0 {
		m = (ps[len(ps)/2-1] + ps[len(ps)/2]) / 2
	}
	sort.Strings(sources)
	return &m, liq, sources
}
