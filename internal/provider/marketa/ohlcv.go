package marketa

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/assetd/assetd/internal/bounds"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/provider/internal/upstream"
)

// ohlcvItem is one entry of /defi/v3/ohlcv data.items.
type ohlcvItem struct {
	O        upstream.Number `json:"o"`
	H        upstream.Number `json:"h"`
	L        upstream.Number `json:"l"`
	C        upstream.Number `json:"c"`
	V        upstream.Number `json:"v"`
	VUSD     upstream.Number `json:"v_usd"`
	UnixTime upstream.Number `json:"unix_time"`
}

type ohlcvData struct {
	Items []ohlcvItem `json:"items"`
}

// parseOHLCV decodes a /defi/v3/ohlcv response into candles in the
// order given. Items without a time or one of open/high/low/close are
// skipped. Volume is v_usd, else v * close, else 0. n is the number of
// items the page held (skipped ones included), for paging.
func parseOHLCV(body []byte) (candles []market.Candle, n int, err error) {
	data, err := openEnvelope(body, "v3/ohlcv")
	if err != nil || data == nil {
		return nil, 0, err
	}
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' {
		return nil, 0, upstream.Malformed(name, "v3/ohlcv", errNotObject)
	}
	var d ohlcvData
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, 0, upstream.Malformed(name, "v3/ohlcv data", err)
	}
	candles = make([]market.Candle, 0, len(d.Items))
	for _, it := range d.Items {
		t := it.UnixTime.Int64Ptr()
		if t == nil || !it.O.Valid || !it.H.Valid || !it.L.Valid || !it.C.Valid {
			continue
		}
		vol := 0.0
		switch {
		case it.VUSD.Valid:
			vol = it.VUSD.V
		case it.V.Valid:
			vol = it.V.V * it.C.V
		}
		candles = append(candles, market.Candle{Time: *t, Open: it.O.V, High: it.H.V, Low: it.L.V, Close: it.C.V, Volume: vol})
	}
	return candles, len(d.Items), nil
}

// OHLCV returns the USD candles of mint in [from, to) from /defi/v3/ohlcv
// (type = the interval, currency=usd, time_from=from, time_to=to), sorted
// ascending and deduplicated by time. A page of 5000 candles that ends
// before to is followed by another call. An unknown or malformed mint
// gives no candles; an interval outside market.Intervals is an error.
func (c *Client) OHLCV(ctx context.Context, mint string, interval market.Interval, from, to int64) ([]market.Candle, error) {
	step := int64(interval.Duration().Seconds())
	if step <= 0 {
		return nil, fmt.Errorf("%s: unsupported interval %q", name, interval)
	}
	if to <= from || !upstream.ValidMint(mint) {
		return nil, nil
	}
	var all []market.Candle
	for cur, page := from, 0; cur < to && page < maxOHLCVPages; page++ {
		q := url.Values{
			"address":   {mint},
			"type":      {string(interval)},
			"currency":  {"usd"},
			"time_from": {strconv.FormatInt(cur, 10)},
			"time_to":   {strconv.FormatInt(to, 10)},
		}
		body, err := c.http.Get(ctx, "/defi/v3/ohlcv", q)
		if upstream.IsStatus(err, http.StatusNotFound) {
			break
		}
		if err != nil {
			return nil, err
		}
		candles, n, err := parseOHLCV(body)
		if err != nil {
			return nil, err
		}
		all = append(all, candles...)
		if n < OHLCVPageSize || len(candles) == 0 {
			break
		}
		last := slices.MaxFunc(candles, func(a, b market.Candle) int { return cmp.Compare(a.Time, b.Time) }).Time
		if last+step <= cur {
			break // no progress
		}
		cur = last + step
	}
	return bounds.Candles(normalizeCandles(all, from, to), c.http.Nulled), nil
}

// normalizeCandles keeps the candles in [from, to), sorted by time, one
// per time (the first seen wins).
func normalizeCandles(cs []market.Candle, from, to int64) []market.Candle {
	out := make([]market.Candle, 0, len(cs))
	for _, c := range cs {
		if c.Time >= from && c.Time < to {
			out = append(out, c)
		}
	}
	slices.SortStableFunc(out, func(a, b market.Candle) int { return cmp.Compare(a.Time, b.Time) })
	return slices.CompactFunc(out, func(a, b market.Candle) bool { return a.Time == b.Time })
}
