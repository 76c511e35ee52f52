package demo

import "math"

// Trading flow. The primitive is the hourly trade count of a mint: its
// expected value follows the 24h volume level, the intraday cycle, a daily
// and an hourly log-normal factor and the asset path's hourly move (big
// moves and burst hours bring volume). Hourly USD volume is the trade
// count times the mint's mean trade size (with a small hourly jitter).
// Within an hour, trades are spread over minutes by skewed weights with
// cumulative rounding, so every minute with volume has trades and the
// minute figures sum exactly to the hour's. Thin markets therefore have
// empty minutes and empty hours (quiet tails).

// flowDay is a mint's hourly trade counts and USD volumes over one UTC day.
type flowDay struct {
	n   [24]int64
	vol [24]float64
}

// flowDay returns the (cached) hourly flows of a mint's day.
func (w *World) flowDay(p *profile, day int64) *flowDay {
	k := ckey{p.flowKey, day}
	if f, ok := w.c.flows.get(k); ok {
		return f
	}
	f := &flowDay{}
	e := w.day(p.path, day)
	dayMul := lognormal1(p.s.dayFlow.normal(day), 0.3)
	base := p.vol24 / 24 / p.avgTrade * dayMul
	for h := range 24 {
		hour := day*24 + int64(h)
		x := base * p.path.hourShape(day, h) * lognormal1(p.s.hourFlow.normal(hour), 0.45) * e.boost[h]
		n := int64(math.Floor(x + p.s.hourCount.u(hour)))
		if n > 0 {
			f.n[h] = n
			f.vol[h] = float64(n) * p.avgTrade * lognormal1(p.s.hourSize.normal(hour), 0.25)
		}
	}
	return w.c.flows.put(k, f)
}

// hourFlow is the trade count and USD volume of a mint in an hour.
func (w *World) hourFlow(p *profile, hour int64) (int64, float64) {
	day := floorDiv(hour, 24)
	f := w.flowDay(p, day)
	h := hour - day*24
	return f.n[h], f.vol[h]
}

// minuteFlow is an hour's flow per minute.
type minuteFlow struct {
	n   [60]int64
	vol [60]float64
}

// split returns the (cached) per-minute flow of a mint's hour, nil when
// the hour has no trades: the hour's trades spread by skewed weights with
// cumulative rounding, volume by trades × weight, so minute figures sum
// exactly to the hour's.
func (w *World) split(p *profile, hour int64) *minuteFlow {
	n, vol := w.hourFlow(p, hour)
	if n <= 0 {
		return nil
	}
	k := ckey{p.flowKey, hour}
	if f, ok := w.c.splits.get(k); ok {
		return f
	}
	out := &minuteFlow{}
	var wt [60]float64
	total := 0.0
	for j := range 60 {
		u := p.s.minuteWeight.u(hour*60 + int64(j))
		wt[j] = u * u
		total += wt[j]
	}
	cum, prev := 0.0, int64(0)
	cw := 0.0
	for j := range 60 {
		cum += wt[j]
		c := int64(math.Round(float64(n) * cum / total))
		if j == 59 {
			c = n
		}
		out.n[j] = c - prev
		prev = c
		cw += float64(out.n[j]) * wt[j]
	}
	for j := range 60 {
		if out.n[j] > 0 {
			out.vol[j] = vol * float64(out.n[j]) * wt[j] / cw
		}
	}
	return w.c.splits.put(k, out)
}

// flow sums trades and USD volume of complete minutes in [a, b) (unix
// seconds, minute-aligned).
func (w *World) flow(p *profile, a, b int64) (int64, float64) {
	var n int64
	var vol float64
	var fd *flowDay
	fdDay := int64(math.MinInt64)
	for t := a; t < b; {
		hour := floorDiv(t, secPerHour)
		hs, he := hour*secPerHour, (hour+1)*secPerHour
		if t == hs && b >= he {
			day := floorDiv(hour, 24)
			if day != fdDay {
				fd, fdDay = w.flowDay(p, day), day
			}
			n += fd.n[hour-day*24]
			vol += fd.vol[hour-day*24]
			t = he
			continue
		}
		stop := min(b, he)
		mf := w.split(p, hour)
		for j := (t - hs) / secPerMin; mf != nil && j < (stop-hs)/secPerMin; j++ {
			n += mf.n[j]
			vol += mf.vol[j]
		}
		t = stop
	}
	return n, vol
}

// lastSecond is the second (0..59) of the last of c trades in minute m
// (minute index, unix/60).
func (p *profile) lastSecond(m, c int64) int64 {
	s := 59 - int64(p.s.lastSecond.u(m)*60/float64(c+1))
	return max(s, 0)
}

// lastTrade is the unix second of the mint's last trade before b (minute
// aligned), searching back 48 hours; 0 when there is none.
func (w *World) lastTrade(p *profile, b int64) int64 {
	t := b
	for range 48 {
		hour := floorDiv(t-1, secPerHour)
		hs := hour * secPerHour
		if n, _ := w.hourFlow(p, hour); n > 0 {
			mf := w.split(p, hour)
			for j := (t-hs)/secPerMin - 1; j >= 0; j-- {
				if mf.n[j] > 0 {
					m := hs/secPerMin + j
					return m*secPerMin + p.lastSecond(m, mf.n[j])
				}
			}
		}
		t = hs
	}
	return 0
}

// uniqueWallets is the expected number of distinct wallets among n trades
// when bots draw uniformly from botPool wallets and humans from walletPool
// (the model Trades follows).
func (p *profile) uniqueWallets(n int64) float64 {
	if n <= 0 {
		return 0
	}
	bots := float64(n) * p.botShare
	humans := float64(n) - bots
	u := distinct(p.botPool, bots) + distinct(p.walletPool, humans)
	return math.Max(1, math.Min(math.Round(u), float64(n)))
}

func distinct(pool, draws float64) float64 {
	if pool <= 0 || draws <= 0 {
		return 0
	}
	return pool * -math.Expm1(-draws/pool)
}
