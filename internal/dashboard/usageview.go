package dashboard

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/assetd/assetd/internal/apikey"
	"github.com/assetd/assetd/internal/ratelimit"
	"github.com/assetd/assetd/internal/usage"
)

// Spans of the usage charts.
const (
	usageDays  = 30
	usageHours = 48
)

// statusClass sorts a status into the chart's series.
func statusClass(status int) string {
	switch {
	case status >= 500:
		return "5xx"
	case status >= 400:
		return "4xx"
	default:
		return "ok"
	}
}

// counts are requests by status class; C4xx includes C429.
type counts struct {
	Total, OK, C4xx, C429, C5xx int64
}

func (c *counts) add(status int, n int64) {
	c.Total += n
	switch statusClass(status) {
	case "5xx":
		c.C5xx += n
	case "4xx":
		c.C4xx += n
		if status == 429 {
			c.C429 += n
		}
	default:
		c.OK += n
	}
}

// seg is one status class of a chart bar (SVG units).
type seg struct {
	Class string
	Y, H  int
}

// bar is one bucket of a chart.
type bar struct {
	Title  string // "2026-11-20: 40 (4xx 2, 5xx 0)"
	Label  string // axis label, "" between ticks
	X, W   int
	Segs   []seg
	Counts counts
	Start  time.Time
}

// chartView is a stacked bar chart drawn as an SVG whose viewBox scales
// with the page (width 100%).
type chartView struct {
	ID     string
	Title  string
	Bars   []bar
	Width  int
	Counts counts
	Max    int64
}

// chartHeight is the bars' area; labels go below it.
const chartHeight = 140

// buildChart lays out n buckets of size step from from; buckets outside
// are ignored, missing ones are zero. Every tick-th bar gets a label.
func buildChart(id, title string, buckets []usage.Bucket, from time.Time, step time.Duration, n, barWidth, tick int, label func(time.Time) string) chartView {
	per := make([]counts, n)
	for _, b := range buckets {
		i := int(b.Start.Sub(from) / step)
		if b.Start.Before(from) || i >= n {
			continue
		}
		per[i].add(b.Status, b.Requests)
	}
	c := chartView{ID: id, Title: title, Width: n * barWidth, Bars: make([]bar, n)}
	for _, p := range per {
		c.Counts.Total += p.Total
		c.Counts.OK += p.OK
		c.Counts.C4xx += p.C4xx
		c.Counts.C429 += p.C429
		c.Counts.C5xx += p.C5xx
		c.Max = max(c.Max, p.Total)
	}
	for i, p := range per {
		start := from.Add(time.Duration(i) * step)
		b := bar{X: i * barWidth, W: max(barWidth-2, 1), Counts: p, Start: start,
			Title: fmt.Sprintf("%s: %d requests (4xx %d, of which 429 %d; 5xx %d)", label(start), p.Total, p.C4xx, p.C429, p.C5xx)}
		if i%tick == 0 {
			b.Label = label(start)
		}
		y := chartHeight
		for _, s := range []struct {
			class string
			n     int64
		}{{"ok", p.OK}, {"4xx", p.C4xx}, {"5xx", p.C5xx}} {
			if s.n == 0 || c.Max == 0 {
				continue
			}
			h := max(int(s.n*chartHeight/c.Max), 1)
			y -= h
			b.Segs = append(b.Segs, seg{Class: s.class, Y: y, H: h})
		}
		c.Bars[i] = b
	}
	return c
}

// routeRow is one route and status of the breakdown table.
type routeRow struct {
	Route    string
	Status   int
	Class    string
	Requests int64
}

// breakdown sums buckets from from on per route and status, busiest
// first.
func breakdown(buckets []usage.Bucket, from time.Time) []routeRow {
	type rk struct {
		route  string
		status int
	}
	sum := map[rk]int64{}
	for _, b := range buckets {
		if !b.Start.Before(from) {
			sum[rk{b.Route, b.Status}] += b.Requests
		}
	}
	out := make([]routeRow, 0, len(sum))
	for k, n := range sum {
		out = append(out, routeRow{Route: k.route, Status: k.status, Class: statusClass(k.status), Requests: n})
	}
	slices.SortFunc(out, func(a, b routeRow) int {
		if c := cmp.Compare(b.Requests, a.Requests); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Route, b.Route); c != 0 {
			return c
		}
		return cmp.Compare(a.Status, b.Status)
	})
	return out
}

// lastUsed is the start of the latest minute with a request in buckets.
func lastUsed(buckets []usage.Bucket) time.Time {
	var last time.Time
	for _, b := range buckets {
		if b.Last.After(last) {
			last = b.Last
		}
	}
	return last
}

// lastUsedText says when a key created at created was last used: the
// minute (UTC) and how long ago, "never" for a key younger than the usage
// window without a request.
func lastUsedText(last, created, now time.Time) string {
	if last.IsZero() {
		if created.After(now.AddDate(0, 0, -usageDays)) {
			return "never"
		}
		return fmt.Sprintf("not in the last %d days", usageDays)
	}
	return last.UTC().Format("2006-01-02 15:04") + " UTC (" + ago(now.Sub(last)) + ")"
}

func ago(d time.Duration) string {
	switch {
	case d < 2*time.Minute:
		return "just now"
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + " min ago"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d/time.Hour)) + " h ago"
	default:
		return strconv.Itoa(int(d/(24*time.Hour))) + " days ago"
	}
}

// limitsView is a key's effective limits: its overrides over the
// server's defaults.
type limitsView struct {
	Rate        string // "600 requests per 60 s"
	RateSource  string // "this key" or "server default"
	Quota       int64  // 0: no monthly quota
	QuotaSource string
	Used        int64 // requests charged this UTC month
	Percent     int   // of Quota, capped at 100
	Left        int64
	MonthStart  string
	// Defaults for the limits form's placeholders.
	DefaultRequests, DefaultWindow, DefaultQuota string
}

func effectiveLimits(k apikey.Limits, def ratelimit.Policy) limitsView {
	v := limitsView{RateSource: "server default", QuotaSource: "server default", Quota: def.QuotaPerMonth}
	req, win := def.Requests, def.Window
	if k.RateRequests > 0 && k.RateWindow > 0 {
		req, win, v.RateSource = k.RateRequests, k.RateWindow, "this key"
	}
	if req > 0 && win > 0 {
		v.Rate = fmt.Sprintf("%d requests per %d s", req, int64(win/time.Second))
	} else {
		v.Rate = "no rate limit"
	}
	if k.QuotaPerMonth > 0 {
		v.Quota, v.QuotaSource = k.QuotaPerMonth, "this key"
	}
	v.DefaultRequests, v.DefaultWindow, v.DefaultQuota = "none", "none", "none"
	if def.Requests > 0 && def.Window > 0 {
		v.DefaultRequests, v.DefaultWindow = strconv.Itoa(def.Requests), strconv.FormatInt(int64(def.Window/time.Second), 10)
	}
	if def.QuotaPerMonth > 0 {
		v.DefaultQuota = strconv.FormatInt(def.QuotaPerMonth, 10)
	}
	return v
}

// setUsed fills the quota meter from the charged requests since the
// month's start.
func (v *limitsView) setUsed(buckets []usage.Bucket, monthStart time.Time) {
	v.MonthStart = monthStart.Format("2006-01-02")
	for _, b := range buckets {
		if !b.Start.Before(monthStart) {
			v.Used += b.Charged
		}
	}
	if v.Quota > 0 {
		v.Percent = int(min(v.Used*100/v.Quota, 100))
		v.Left = max(v.Quota-v.Used, 0)
	}
}
