package extprovider

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"

	"github.com/assetd/assetd/internal/bounds"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/provider/internal/upstream"
)

const (
	secPerDay  = 86400
	secPerWeek = 7 * secPerDay
	// mondayOffset: 1970-01-01 was a Thursday; the first Monday 00:00 UTC
	// is 4 days after the epoch.
	mondayOffset = 4 * secPerDay
)

// point is one [time, price] sample of a chart, time in unix seconds.
type point struct {
	t     int64
	price float64
}

// parseChart decodes the prices series of a /market_chart/range answer:
// [[unix ms, price], ...]. Samples without a time or a price are
// skipped; an answer without a prices array is malformed.
func parseChart(body []byte) ([]point, error) {
	var d struct {
		Prices *[][]upstream.Number `json:"prices"`
	}
	if err := json.Unmarshal(body, &d); err != nil {
		return nil, upstream.Malformed(name, "market_chart/range", err)
	}
	if d.Prices == nil {
		return nil, upstream.Malformed(name, "market_chart/range", errors.New("no prices array in the response"))
	}
	pts := make([]point, 0, len(*d.Prices))
	for _, p := range *d.Prices {
		if len(p) < 2 || !p[1].Valid {
			continue
		}
		ms := p[0].Int64Ptr()
		if ms == nil {
			continue
		}
		pts = append(pts, point{t: floorDiv(*ms, 1000), price: p[1].V})
	}
	return pts, nil
}

// CoinCandles returns USD price candles of a coin whose open time lies in
// [from, to) (unix seconds), ascending, from
// GET /coins/{id}/market_chart/range?vs_currency=usd&from&to&precision=full.
// The price points are bucketed as the package documentation describes;
// Volume is 0. An interval outside market.Intervals is an error and an
// empty window gives no candles, both without a call. An unknown id wraps
// market.ErrNotFound.
func (c *Client) CoinCandles(ctx context.Context, id string, interval market.Interval, from, to int64) ([]market.Candle, error) {
	if interval.Duration() <= 0 {
		return nil, fmt.Errorf("%s: unsupported interval %q", name, interval)
	}
	if to <= from {
		return []market.Candle{}, nil
	}
	path, err := coinPath(id, "/market_chart/range")
	if err != nil {
		return nil, err
	}
	q := url.Values{
		"vs_currency": {"usd"},
		"from":        {strconv.FormatInt(from, 10)},
		"to":          {strconv.FormatInt(to, 10)},
		"precision":   {"full"},
	}
	body, err := c.get(ctx, path, q)
	if err != nil {
		return nil, err
	}
	pts, err := parseChart(body)
	if err != nil {
		return nil, err
	}
	return bounds.Candles(bucket(pts, interval, from, to), c.http.Nulled), nil
}

// bucket folds price points into candles of interval: the points in
// [from, to), sorted by time (stable, so equal times keep the answer's
// order), grouped by their aligned bucket; buckets opening before from
// are dropped. The result is never nil.
func bucket(pts []point, interval market.Interval, from, to int64) []market.Candle {
	in := make([]point, 0, len(pts))
	for _, p := range pts {
		if p.t >= from && p.t < to {
			in = append(in, p)
		}
	}
	slices.SortStableFunc(in, func(a, b point) int { return cmp.Compare(a.t, b.t) })
	out := []market.Candle{}
	for _, p := range in {
		open := align(p.t, interval)
		if open < from {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Time == open {
			c := &out[n-1]
			c.High = max(c.High, p.price)
			c.Low = min(c.Low, p.price)
			c.Close = p.price
			continue
		}
		out = append(out, market.Candle{Time: open, Open: p.price, High: p.price, Low: p.price, Close: p.price})
	}
	return out
}

// align rounds t down to the interval's bar boundary: a multiple of the
// interval since the epoch (UTC), and Monday 00:00 UTC for 1W.
func align(t int64, interval market.Interval) int64 {
	if interval == "1W" {
		return floorDiv(t-mondayOffset, secPerWeek)*secPerWeek + mondayOffset
	}
	d := int64(interval.Duration().Seconds())
	return floorDiv(t, d) * d
}

// floorDiv is a / b rounded towards negative infinity (b > 0).
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}
