package demo

import (
	"math"
	"sync"
)

// Price paths.
//
// An asset-level path is a log-deviation x(t) from a reference level; the
// price of a mint is exp(lnLevel + lnFactor + bound·tanh(x/bound)), so the
// path never leaves level·factor·e^{±bound}. x is built in three layers,
// each computable for any time without replaying history:
//
//  1. Daily anchors at 00:00 UTC: a mean-reverting (AR(1)) walk, written as
//     a truncated moving average of counter-based normal shocks, so
//     x(day D) = sigmaD · Σ_{j<terms} phi^j · ε(D−j).
//  2. Hourly points: a Brownian bridge between two daily anchors with
//     per-hour variances (intraday cycle, a per-day volatility regime and
//     occasional burst hours).
//  3. Minute points: a Brownian bridge between two hourly points (60 equal
//     steps) plus a per-minute high/low wiggle.
//
// Days are cached (anchors and hourly points, plus hourly highs and lows
// once candles need them), and so are the minute points of an hour.

const (
	secPerMin  = 60
	secPerHour = 3600
	secPerDay  = 86400
	secPerWeek = 7 * secPerDay
	// mondayOffset: 1970-01-01 was a Thursday; the first Monday 00:00 UTC
	// is 4 days after the epoch.
	mondayOffset = 4 * secPerDay
)

// pathSpec describes one asset-level price path.
type pathSpec struct {
	id       string
	rnd      uint64 // randomness key (seed, id)
	cacheKey uint64 // rnd plus the parameters
	lnLevel  float64
	sigmaD   float64 // daily log volatility of the anchor walk
	phi      float64 // daily AR(1) coefficient
	terms    int     // moving-average truncation
	bound    float64 // |deviation| limit in log space
	burstP   float64 // chance that an hour is a burst hour
	diurnal  float64 // amplitude of the intraday cycle
	equity   bool    // trading-hours cycle and quiet weekends
}

func newPathSpec(seed uint64, id string, level, sigmaD, phi, bound, burstP, diurnal float64, equity bool) *pathSpec {
	terms := int(math.Ceil(math.Log(0.02) / math.Log(phi)))
	terms = max(4, min(terms, 200))
	rnd := derive(seed, tagPath, strHash(id))
	eq := uint64(0)
	if equity {
		eq = 1
	}
	return &pathSpec{
		id: id, rnd: rnd,
		cacheKey: derive(rnd, math.Float64bits(sigmaD), math.Float64bits(phi), math.Float64bits(burstP),
			math.Float64bits(diurnal), eq),
		lnLevel: math.Log(level), sigmaD: sigmaD, phi: phi, terms: terms, bound: bound,
		burstP: burstP, diurnal: diurnal, equity: equity,
	}
}

// warp maps a raw deviation into (−bound, bound).
func (ps *pathSpec) warp(x float64) float64 { return ps.bound * math.Tanh(x/ps.bound) }

// anchor is x at 00:00 UTC of day D.
func (ps *pathSpec) anchor(day int64) float64 {
	s := stream(derive(ps.rnd, tagAnchor))
	x, w := 0.0, 1.0
	for j := 0; j < ps.terms; j++ {
		x += w * s.normal(day-int64(j))
		w *= ps.phi
	}
	return ps.sigmaD * x
}

// dayEntry holds one day of a path.
type dayEntry struct {
	x     [25]float64 // at each hour boundary (x[24] is the next day's x[0])
	v     [24]float64 // variance of each hour
	boost [24]float64 // volume multiplier of each hour (moves and bursts)

	barsOnce sync.Once
	hi, lo   [24]float64 // hourly high and low (raw deviation)
}

// isWeekend reports whether the day index is a Saturday or Sunday (UTC).
func isWeekend(day int64) bool {
	wd := (day + 3) % 7 // 0 = Monday
	if wd < 0 {
		wd += 7
	}
	return wd >= 5
}

// hourShape is the intraday activity cycle at UTC hour h: peak around
// 15:00 UTC for crypto, US trading hours for equities.
func (ps *pathSpec) hourShape(day int64, h int) float64 {
	if ps.equity {
		f := 0.55
		if h >= 13 && h < 21 {
			f = 2.2
		}
		if isWeekend(day) {
			f *= 0.3
		}
		return f
	}
	return 1 + ps.diurnal*math.Cos(2*math.Pi*float64(h-15)/24)
}

func (ps *pathSpec) computeDay(day int64) *dayEntry {
	e := &dayEntry{}
	x0, x1 := ps.anchor(day), ps.anchor(day+1)
	vs := stream(derive(ps.rnd, tagDayVol))
	regime := math.Min(2.5, math.Max(0.5, math.Exp(0.35*vs.normal(day)-0.06)))
	bs := stream(derive(ps.rnd, tagBurst))
	baseVar := ps.sigmaD * ps.sigmaD / 24 * regime * regime
	total := 0.0
	var burst [24]bool
	for h := range 24 {
		v := baseVar * ps.hourShape(day, h)
		if bs.u(day*24+int64(h)) < ps.burstP {
			burst[h] = true
			v *= 9
		}
		e.v[h] = v
		total += v
	}
	// Brownian bridge with per-hour variances from x0 to x1.
	hs := stream(derive(ps.rnd, tagHourBridge))
	e.x[0] = x0
	rem := total
	for h := range 23 {
		v := e.v[h]
		prev := e.x[h]
		mean := prev + (x1-prev)*v/rem
		sd := math.Sqrt(v * (rem - v) / rem)
		e.x[h+1] = mean + sd*hs.normal(day*24+int64(h))
		rem -= v
	}
	e.x[24] = x1
	for h := range 24 {
		move := math.Abs(e.x[h+1]-e.x[h]) / math.Sqrt(e.v[h])
		b := math.Min(3, 0.75+0.25*move)
		if burst[h] {
			b *= 3.5
		}
		e.boost[h] = b
	}
	return e
}

// minutes fills vals[0..upto] with the minute-boundary points of hour h of
// the day (vals[60] is the next hour's start).
func (ps *pathSpec) minutes(e *dayEntry, day int64, h, upto int, vals *[61]float64) {
	hour := day*24 + int64(h)
	start, end := e.x[h], e.x[h+1]
	stepVar := e.v[h] / 60
	ms := stream(derive(ps.rnd, tagMinuteBridge))
	vals[0] = start
	upto = min(upto, 60)
	for j := 0; j < upto && j < 59; j++ {
		left := float64(60 - j) // steps from point j to the end
		prev := vals[j]
		mean := prev + (end-prev)/left
		sd := math.Sqrt(stepVar * (left - 1) / left)
		vals[j+1] = mean + sd*ms.normal(hour*60+int64(j))
	}
	if upto == 60 {
		vals[60] = end
	}
}

// wiggles fills the per-minute excursions of an hour above max(open,
// close) and below min(open, close).
func (ps *pathSpec) wiggles(e *dayEntry, day int64, h int, wig *[60][2]float64) {
	hour := day*24 + int64(h)
	ws := stream(derive(ps.rnd, tagWiggle))
	sd := math.Sqrt(e.v[h]/60) * 0.4
	for j := range 60 {
		u1, u2 := ws.u2(hour*60 + int64(j))
		wig[j][0] = -math.Log(u1) * sd
		wig[j][1] = -math.Log(u2) * sd
	}
}

// bars computes (once) the hourly highs and lows of the day.
func (ps *pathSpec) bars(e *dayEntry, day int64) *dayEntry {
	e.barsOnce.Do(func() {
		var vals [61]float64
		var wig [60][2]float64
		for h := range 24 {
			ps.minutes(e, day, h, 60, &vals)
			ps.wiggles(e, day, h, &wig)
			hi, lo := math.Inf(-1), math.Inf(1)
			for j := range 60 {
				a, b := vals[j], vals[j+1]
				hi = math.Max(hi, math.Max(a, b)+wig[j][0])
				lo = math.Min(lo, math.Min(a, b)-wig[j][1])
			}
			e.hi[h], e.lo[h] = hi, lo
		}
	})
	return e
}

// ckey identifies a cached item: a path or mint key and a day or hour.
type ckey struct {
	key uint64
	at  int64
}

// cache is a bounded two-generation cache: lookups promote entries from
// the old generation; when the current generation is full it becomes the
// old one and the previous old one is dropped. It holds at most max
// entries.
type cache[V any] struct {
	mu       sync.Mutex
	half     int
	cur, old map[ckey]V
}

func newCache[V any](maxEntries int) *cache[V] {
	half := max(maxEntries/2, 8)
	return &cache[V]{half: half, cur: make(map[ckey]V, 64)}
}

func (c *cache[V]) get(k ckey) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.cur[k]; ok {
		return v, true
	}
	if v, ok := c.old[k]; ok {
		c.insert(k, v)
		return v, true
	}
	var zero V
	return zero, false
}

// put stores v unless another goroutine stored the key first; it returns
// the value to use.
func (c *cache[V]) put(k ckey, v V) V {
	c.mu.Lock()
	defer c.mu.Unlock()
	if got, ok := c.cur[k]; ok {
		return got
	}
	c.insert(k, v)
	return v
}

func (c *cache[V]) insert(k ckey, v V) {
	if len(c.cur) >= c.half {
		c.old = c.cur
		c.cur = make(map[ckey]V, c.half)
	}
	c.cur[k] = v
}

func (c *cache[V]) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.cur) + len(c.old)
}

// caches are the world's bounded caches of deterministic values.
type caches struct {
	days    *cache[*dayEntry]    // path days
	minutes *cache[*[61]float64] // path hours: minute points
	flows   *cache[*flowDay]     // mint days (profile.flowKey): hourly flows
	splits  *cache[*minuteFlow]  // mint hours (profile.flowKey): minute flows
	// long-tail profiles by mint hash (the mint is checked on lookup)
	longTail *cache[*profile]
}

func newCaches(maxDays int) caches {
	return caches{
		days:     newCache[*dayEntry](maxDays),
		minutes:  newCache[*[61]float64](maxDays / 2),
		flows:    newCache[*flowDay](maxDays),
		splits:   newCache[*minuteFlow](maxDays / 2),
		longTail: newCache[*profile](maxDays / 4),
	}
}

// day returns the (cached) day of a path.
func (w *World) day(ps *pathSpec, day int64) *dayEntry {
	k := ckey{ps.cacheKey, day}
	if e, ok := w.c.days.get(k); ok {
		return e
	}
	return w.c.days.put(k, ps.computeDay(day))
}

// minutePoints returns the (cached) 61 minute points of an hour of a path.
func (w *World) minutePoints(ps *pathSpec, hour int64) *[61]float64 {
	k := ckey{ps.cacheKey, hour}
	if v, ok := w.c.minutes.get(k); ok {
		return v
	}
	day := floorDiv(hour, 24)
	v := new([61]float64)
	ps.minutes(w.day(ps, day), day, int(hour-day*24), 60, v)
	return w.c.minutes.put(k, v)
}

// xAt is the raw deviation of a path at unix second t (linear within a
// minute).
func (w *World) xAt(ps *pathSpec, t int64) float64 {
	hour := floorDiv(t, secPerHour)
	sec := t - hour*secPerHour
	j, s := sec/secPerMin, sec%secPerMin
	if j == 0 && s == 0 {
		day := floorDiv(hour, 24)
		return w.day(ps, day).x[hour-day*24]
	}
	v := w.minutePoints(ps, hour)
	return v[j] + (v[j+1]-v[j])*float64(s)/60
}
