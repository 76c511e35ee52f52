package demo

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/assetd/assetd/internal/market"
)

// OHLCV returns simulated candles of a mint whose open time lies in
// [from, to) (unix seconds), ascending. Bars are aligned to UTC boundaries
// (1W: Monday 00:00 UTC). Only complete minutes are covered: the last bar
// may be partial and ends at the last complete minute. History starts at
// now − History rounded down to a Monday. Candle volume is USD and sums to
// the snapshot's flow over the same minutes. An invalid mint gives no
// candles; an unknown interval is an error.
func (w *World) OHLCV(ctx context.Context, mint string, iv market.Interval, from, to int64) ([]market.Candle, error) {
	d := int64(iv.Duration() / time.Second)
	if d == 0 {
		return nil, errUnknownInterval(iv)
	}
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	p := w.profile(mint)
	if p == nil {
		return nil, nil
	}
	_, sec, minute := w.clock()
	return w.candles(ctx, p, p.path.lnLevel+p.lnFactor, iv, from, to, sec, minute)
}

// candles builds the candles of a profile's path priced at exp(base +
// warp(x)), with the profile's flows as volume, whose open time lies in
// [from, to) within the served history. OHLCV uses a mint's profile and
// base; the canonical feeds use an asset-level flow profile and the bare
// level (see canonical.go). iv must be a known interval; sec and minute
// are the clock (see World.clock).
func (w *World) candles(ctx context.Context, p *profile, base float64, iv market.Interval, from, to, sec, minute int64) ([]market.Candle, error) {
	d := int64(iv.Duration() / time.Second)
	start := max(from, w.historyStart(sec))
	end := min(to, minute)
	first := align(start, iv)
	if first < start {
		first += d
	}
	if first >= end {
		return []market.Candle{}, nil
	}
	c := &candler{w: w, p: p, base: base, minute: minute}
	out := make([]market.Candle, 0, (end-first+d-1)/d)
	for open := first; open < end; open += d {
		if len(out)%256 == 255 {
			if err := ctxErr(ctx); err != nil {
				return nil, err
			}
		}
		var b bar
		if d >= secPerHour {
			c.hours(&b, open, min(open+d, minute))
		} else {
			c.minutes(&b, open, min(open+d, minute))
		}
		out = append(out, c.candle(open, &b))
	}
	return out, nil
}

// errUnknownInterval is returned for an interval outside the spec's list.
func errUnknownInterval(iv market.Interval) error {
	return fmt.Errorf("demo: unknown OHLCV interval %q", iv)
}

// bar accumulates raw deviations and USD volume.
type bar struct {
	o, h, l, c, v float64
	ok            bool
}

func (b *bar) add(o, h, l, c, v float64) {
	if !b.ok {
		b.o, b.h, b.l, b.ok = o, h, l, true
	}
	b.h = math.Max(b.h, h)
	b.l = math.Min(b.l, l)
	b.c = c
	b.v += v
}

// candler builds candles of one mint, reusing the last hour it expanded.
type candler struct {
	w      *World
	p      *profile
	base   float64
	minute int64 // last complete minute boundary

	hour int64 // expanded hour (valid when vals != nil)
	vals *[61]float64
	wig  [60][2]float64
	mf   *minuteFlow // nil: no trades in the hour
}

// expand loads the minute points, wiggles and flow of an hour.
func (c *candler) expand(hour int64) {
	if c.vals != nil && c.hour == hour {
		return
	}
	day := floorDiv(hour, 24)
	h := int(hour - day*24)
	ps := c.p.path
	c.vals = c.w.minutePoints(ps, hour)
	ps.wiggles(c.w.day(ps, day), day, h, &c.wig)
	c.mf = c.w.split(c.p, hour)
	c.hour = hour
}

// hours aggregates hour bars over [a, stop) (a hour-aligned).
func (c *candler) hours(b *bar, a, stop int64) {
	for t := a; t < stop; t += secPerHour {
		hour := floorDiv(t, secPerHour)
		if t+secPerHour <= c.minute {
			day := floorDiv(hour, 24)
			h := int(hour - day*24)
			e := c.p.path.bars(c.w.day(c.p.path, day), day)
			_, v := c.w.hourFlow(c.p, hour)
			b.add(e.x[h], e.hi[h], e.lo[h], e.x[h+1], v)
			continue
		}
		c.minutes(b, t, stop)
	}
}

// minutes aggregates minute bars over [a, stop) within one hour.
func (c *candler) minutes(b *bar, a, stop int64) {
	hour := floorDiv(a, secPerHour)
	hs := hour * secPerHour
	c.expand(hour)
	for j := (a - hs) / secPerMin; j < (stop-hs)/secPerMin; j++ {
		o, cl := c.vals[j], c.vals[j+1]
		v := 0.0
		if c.mf != nil {
			v = c.mf.vol[j]
		}
		b.add(o, math.Max(o, cl)+c.wig[j][0], math.Min(o, cl)-c.wig[j][1], cl, v)
	}
}

func (c *candler) candle(open int64, b *bar) market.Candle {
	ps := c.p.path
	px := func(x float64) float64 { return math.Exp(c.base + ps.warp(x)) }
	return market.Candle{Time: open, Open: px(b.o), High: px(b.h), Low: px(b.l), Close: px(b.c), Volume: b.v}
}
