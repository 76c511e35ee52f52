package marketcache

import (
	"context"
	"errors"
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
	it := st.get(key, now)
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

// seriesSpan is how much history one cached candle series holds per
// interval; requests read their window out of it.
func seriesSpan(iv market.Interval) time.Duration {
	switch iv {
	case "1m":
		return 24 * time.Hour
	case "5m":
		return 3 * 24 * time.Hour
	case "15m":
		return 7 * 24 * time.Hour
	case "1H":
		return 31 * 24 * time.Hour
	case "4H":
		return 90 * 24 * time.Hour
	case "1D":
		return 2 * 365 * 24 * time.Hour
	}
	return 5 * 365 * 24 * time.Hour
}

// seriesTTL: a series is refreshed after one interval, between 2 and 30
// minutes.
func seriesTTL(iv market.Interval) time.Duration {
	return min(max(iv.Duration(), 2*time.Minute), 30*time.Minute)
}

// window filters an ascending series to open times in [from, to).
func window(all []market.Candle, from, to int64) []market.Candle {
	out := make([]market.Candle, 0)
	for _, k := range all {
		if k.Time >= from && k.Time < to {
			out = append(out, k)
		}
	}
	return out
}

// CoinCandles returns the coin's cached USD candles with open time in
// [from, to). The cache holds one series per coin and interval covering
// seriesSpan before its fetch; ok is false when none is cached yet (a
// refresh is then scheduled).
func (c *Cache) CoinCandles(id string, iv market.Interval, from, to int64) ([]market.Candle, bool) {
	if c.o.Coins == nil || id == "" || iv.Duration() == 0 {
		return nil, false
	}
	p := c.o.Coins
	all, _, ok := read(refreshOne(c, c.series, "cc:"+id+"|"+string(iv), seriesTTL(iv), p.Source(), func(ctx context.Context) ([]market.Candle, error) {
		now := c.o.Now()
		return p.CoinCandles(ctx, id, iv, now.Add(-seriesSpan(iv)).Unix(), now.Unix()+1)
	}))
	if !ok {
		return nil, false
	}
	return window(all, from, to), true
}

// StockCandles returns the ticker's cached candles with open time in
// [from, to), like CoinCandles.
func (c *Cache) StockCandles(ticker string, iv market.Interval, from, to int64) ([]market.Candle, bool) {
	if c.o.Stocks == nil || ticker == "" || iv.Duration() == 0 {
		return nil, false
	}
	ticker = strings.ToUpper(ticker)
	p := c.o.Stocks
	all, _, ok := read(refreshOne(c, c.series, "sc:"+ticker+"|"+string(iv), seriesTTL(iv), p.Source(), func(ctx context.Context) ([]market.Candle, error) {
		now := c.o.Now()
		return p.StockCandles(ctx, ticker, iv, now.Add(-seriesSpan(iv)).Unix(), now.Unix()+1)
	}))
	if !ok {
		return nil, false
	}
	return window(all, from, to), true
}

// WarmCanonical schedules refreshes of the canonical data of the given
// coin ids (coin and tickers), stock tickers and pre-IPO symbols.
func (c *Cache) WarmCanonical(coinIDs, tickers, symbols []string) {
	for _, id := range coinIDs {
		c.Coin(id)
		c.Tickers(id)
	}
	for _, t := range tickers {
		c.StockQuote(t)
	}
	for _, s := range symbols {
		c.PreIPOMark(s)
	}
}
