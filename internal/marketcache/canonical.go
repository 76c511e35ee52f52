package marketcache

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/assetd/assetd/internal/market"
)

// Fresh TTLs of the canonical (asset-level) data. As everywhere in the
// cache, older values keep being served until a refresh replaces them.
const (
	CoinFreshTTL    = 5 * time.Minute
	TickersFreshTTL = 30 * time.Minute
	StockFreshTTL   = time.Minute
	PreIPOFreshTTL  = 5 * time.Minute
	// MaxTickersPerCoin is how many exchange tickers are cached per coin.
	MaxTickersPerCoin = 200
)

// entry is a cached provider answer; found is false when the provider said
// it does not know the key (cached like a value, so a read does not call
// the provider again before the TTL).
type entry[V any] struct {
	val   V
	found bool
}

// refreshOne returns the cached entry of key in st and schedules one
// background fetch when it is missing or older than ttl. A fetch that
// fails with market.ErrNotFound stores "not found"; any other failure
// keeps the last good value (retried after RetryBackoff).
func refreshOne[V any](c *Cache, st *store[entry[V]], key string, ttl time.Duration, source string,
	fetch func(ctx context.Context) (V, error)) *item[entry[V]] {
	now := c.o.Now()
	it := st.read(key, now, ttl)
	if (it == nil || now.Sub(it.fetchedAt) >= ttl) && c.claim(key) {
		c.submit(job{keys: []string{key}, run: func(ctx context.Context) error {
			var v V
			err := c.call(ctx, source, func(ctx context.Context) error {
				var err error
				v, err = fetch(ctx)
				return err
			})
			switch {
			case errors.Is(err, market.ErrNotFound):
				st.put(key, entry[V]{}, c.o.Now())
				return nil
			case err != nil:
				return err
			}
			st.put(key, entry[V]{val: v, found: true}, c.o.Now())
			return nil
		}})
	}
	return it
}

// read unpacks an item of refreshOne.
func read[V any](it *item[entry[V]]) (V, time.Time, bool) {
	if it == nil || !it.val.found {
		var zero V
		if it != nil {
			return zero, it.fetchedAt, false
		}
		return zero, time.Time{}, false
	}
	return it.val.val, it.fetchedAt, true
}

// Coin returns the external provider's cached coin (profile and market
// stats) and when it was fetched; ok is false when nothing is cached, the
// provider does not know the id, or no provider is configured.
func (c *Cache) Coin(id string) (market.Coin, time.Time, bool) {
	if c.o.Coins == nil || id == "" {
		return market.Coin{}, time.Time{}, false
	}
	p := c.o.Coins
	return read(refreshOne(c, c.coins, "c:"+id, CoinFreshTTL, p.Source(), func(ctx context.Context) (market.Coin, error) {
		return p.Coin(ctx, id)
	}))
}

// Tickers returns the coin's cached exchange tickers (largest volume
// first, at most MaxTickersPerCoin) and when they were fetched.
func (c *Cache) Tickers(id string) ([]market.Ticker, time.Time, bool) {
	if c.o.Coins == nil || id == "" {
		return nil, time.Time{}, false
	}
	p := c.o.Coins
	return read(refreshOne(c, c.tickers, "x:"+id, TickersFreshTTL, p.Source(), func(ctx context.Context) ([]market.Ticker, error) {
		return p.Tickers(ctx, id, MaxTickersPerCoin)
	}))
}

// StockQuote returns the cached quote of a listing ticker and when it was
// fetched.
func (c *Cache) StockQuote(ticker string) (market.StockQuote, time.Time, bool) {
	if c.o.Stocks == nil || ticker == "" {
		return market.StockQuote{}, time.Time{}, false
	}
	ticker = strings.ToUpper(ticker)
	p := c.o.Stocks
	return read(refreshOne(c, c.quotes, "q:"+ticker, StockFreshTTL, p.Source(), func(ctx context.Context) (market.StockQuote, error) {
		return p.Quote(ctx, ticker)
	}))
}

// PreIPOMark returns the cached reference mark of a pre-IPO symbol and
// when it was fetched.
func (c *Cache) PreIPOMark(symbol string) (market.PreIPOMark, time.Time, bool) {
	if c.o.PreIPO == nil || symbol == "" {
		return market.PreIPOMark{}, time.Time{}, false
	}
	symbol = strings.ToUpper(symbol)
	p := c.o.PreIPO
	return read(refreshOne(c, c.marks, "p:"+symbol, PreIPOFreshTTL, p.Source(), func(ctx context.Context) (market.PreIPOMark, error) {
		return p.Mark(ctx, symbol)
	}))
}

// seriesSpan is the length of one cached candle window per interval.
// Windows are aligned to multiples of the span since the epoch; a request
// reads the windows its range touches (at most maxSeriesWindows).
func seriesSpan(iv market.Interval) time.Duration {
	switch iv {
	case "1m":
		return 24 * time.Hour
	case "5m":
		return 3 * 24 * time.Hour
	case "15m":
		return 7 * 24 * time.Hour
	case "1H":
		return 30 * 24 * time.Hour
	case "4H":
		return 90 * 24 * time.Hour
	case "1D":
		return 730 * 24 * time.Hour
	}
	return 1820 * 24 * time.Hour // 1W: 260 weeks
}

// maxSeriesWindows bounds the windows one read touches (the most recent
// ones of the range).
const maxSeriesWindows = 3

// ClosedSeriesTTL is the fresh TTL of a candle window that ended before
// now: history rarely changes.
const ClosedSeriesTTL = 24 * time.Hour

// seriesTTL: the window holding now is refreshed after one interval,
// between 2 and 30 minutes.
func seriesTTL(iv market.Interval) time.Duration {
	return min(max(iv.Duration(), 2*time.Minute), 30*time.Minute)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// candleSeries returns the cached candles of key with open time in [from, to),
// scheduling a fetch of every missing or stale window; ok is false when
// none of the windows is cached yet.
func (c *Cache) candleSeries(prefix string, iv market.Interval, from, to int64, source string,
	fetch func(ctx context.Context, from, to int64) ([]market.Candle, error)) ([]market.Candle, bool) {
	span := int64(seriesSpan(iv) / time.Second)
	now := c.o.Now().Unix()
	k0, k1 := floorDiv(from, span), floorDiv(max(to-1, from), span)
	k0 = max(k0, k1-maxSeriesWindows+1)
	out := make([]market.Candle, 0)
	found := false
	for k := k0; k <= k1; k++ {
		start, end := k*span, (k+1)*span
		ttl := seriesTTL(iv)
		if end <= now {
			ttl = ClosedSeriesTTL
		}
		key := prefix + "|" + string(iv) + "|" + strconv.FormatInt(k, 10)
		all, _, ok := read(refreshOne(c, c.series, key, ttl, source, func(ctx context.Context) ([]market.Candle, error) {
			return fetch(ctx, start, end)
		}))
		if !ok {
			continue
		}
		found = true
		out = append(out, window(all, from, to)...)
	}
	return out, found
}

// window filters an ascending series to open times in [from, to).
func window(all []market.Candle, from, to int64) []market.Candle {
	lo, _ := slices.BinarySearchFunc(all, from, func(k market.Candle, t int64) int { return cmp.Compare(k.Time, t) })
	hi, _ := slices.BinarySearchFunc(all, to, func(k market.Candle, t int64) int { return cmp.Compare(k.Time, t) })
	return all[lo:max(lo, hi)]
}

// CoinCandles returns the coin's cached USD candles with open time in
// [from, to); ok is false when nothing is cached for the range yet (a
// refresh is then scheduled).
func (c *Cache) CoinCandles(id string, iv market.Interval, from, to int64) ([]market.Candle, bool) {
	if c.o.Coins == nil || id == "" || iv.Duration() == 0 {
		return nil, false
	}
	p := c.o.Coins
	return c.candleSeries("cc:"+id, iv, from, to, p.Source(), func(ctx context.Context, from, to int64) ([]market.Candle, error) {
		return p.CoinCandles(ctx, id, iv, from, to)
	})
}

// MintCandles returns the mint's cached candles from the market-data
// provider (Options.OHLCV) with open time in [from, to), like
// CoinCandles; ok is false when none are cached for the range yet or no
// provider serves candles. Trade-derived candles (the analytics engine)
// are separate: this is the fallback for mints without trades.
func (c *Cache) MintCandles(mint string, iv market.Interval, from, to int64) ([]market.Candle, string, bool) {
	if c.o.OHLCV == nil || mint == "" || iv.Duration() == 0 {
		return nil, "", false
	}
	p := c.o.OHLCV
	out, ok := c.candleSeries("mc:"+mint, iv, from, to, p.Source(), func(ctx context.Context, from, to int64) ([]market.Candle, error) {
		return p.OHLCV(ctx, mint, iv, from, to)
	})
	return out, p.Source(), ok
}

// StockCandles returns the ticker's cached candles with open time in
// [from, to), like CoinCandles.
func (c *Cache) StockCandles(ticker string, iv market.Interval, from, to int64) ([]market.Candle, bool) {
	if c.o.Stocks == nil || ticker == "" || iv.Duration() == 0 {
		return nil, false
	}
	ticker = strings.ToUpper(ticker)
	p := c.o.Stocks
	return c.candleSeries("sc:"+ticker, iv, from, to, p.Source(), func(ctx context.Context, from, to int64) ([]market.Candle, error) {
		return p.StockCandles(ctx, ticker, iv, from, to)
	})
}

// WarmCanonical schedules refreshes of the canonical data of the given
// coin ids (coin and 1H candles), stock tickers (quote and 1H candles) and
// pre-IPO symbols. Tickers and other intervals are fetched on demand.
func (c *Cache) WarmCanonical(coinIDs, tickers, symbols []string) {
	now := c.o.Now().Unix()
	for _, id := range coinIDs {
		c.Coin(id)
		c.CoinCandles(id, "1H", now, now)
	}
	for _, t := range tickers {
		c.StockQuote(t)
		c.StockCandles(t, "1H", now, now)
	}
	for _, s := range symbols {
		c.PreIPOMark(s)
	}
}
