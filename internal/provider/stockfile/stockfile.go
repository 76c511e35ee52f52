// Package stockfile is a market.StockProvider (spec source
// "analytics_stock") over operator-supplied daily stock candles in CSV.
//
// The file has the header
//
//	ticker,date,open,high,low,close,volume
//
// and one row per ticker and trading day: date is YYYY-MM-DD, prices are
// USD per share and volume is a number of shares (the layout of the shared
// ohlcv-equities-mag7-1d-2013-2023.csv). Rows may come in any order; they
// are sorted by ticker and date on load. Tickers are case-insensitive.
//
// The data is daily only: quotes are derived from the last two sessions
// and intraday candle intervals come back empty. docs/providers.md
// describes the derivation.
package stockfile

import (
	"bufio"
	"cmp"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/market"
)

// Header is the required header row (column names are matched
// case-insensitively, surrounding spaces ignored).
const Header = "ticker,date,open,high,low,close,volume"

const numColumns = 7

// CloseHourUTC is the hour (UTC) of a session's AsOf time: the US market
// closes at 16:00 New York time, which is 20:00 UTC under daylight saving
// time (21:00 UTC in winter). The file has no time of day, so every
// session is stamped 20:00 UTC.
const CloseHourUTC = 20

const day = 24 * 60 * 60 // seconds

// bar is one daily row. Time is the date at 00:00 UTC, unix seconds;
// Volume is shares.
type bar struct {
	Time                   int64
	Open, High, Low, Close float64
	Volume                 float64
	line                   int
}

// Source serves the candles of one loaded file. It is immutable after
// Load and safe for concurrent use.
type Source struct {
	series map[string][]bar // upper-case ticker → bars ascending by date
}

var _ market.StockProvider = (*Source)(nil)

// Open loads the CSV file at path.
func Open(path string) (*Source, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("stockfile: %w", err)
	}
	defer f.Close()
	s, err := Load(bufio.NewReaderSize(f, 64<<10))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// Load parses a CSV document (see the package comment). Errors name the
// offending line. A document with no data row is an error.
func Load(r io.Reader) (*Source, error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	cr.FieldsPerRecord = numColumns
	rec, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, errors.New("stockfile: empty document, want header " + Header)
	}
	if err != nil {
		return nil, fmt.Errorf("stockfile: header: %w", err)
	}
	if err := checkHeader(rec); err != nil {
		return nil, fmt.Errorf("stockfile: line 1: %w", err)
	}
	series := map[string][]bar{}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("stockfile: %w", err) // csv.ParseError names the line
		}
		line, _ := cr.FieldPos(0)
		ticker, b, err := parseRow(rec)
		if err != nil {
			return nil, fmt.Errorf("stockfile: line %d: %w", line, err)
		}
		b.line = line
		series[ticker] = append(series[ticker], b)
	}
	if len(series) == 0 {
		return nil, errors.New("stockfile: no data rows")
	}
	for ticker, bars := range series {
		slices.SortStableFunc(bars, func(a, b bar) int { return cmp.Compare(a.Time, b.Time) })
		for i := 1; i < len(bars); i++ {
			if bars[i].Time == bars[i-1].Time {
				return nil, fmt.Errorf("stockfile: line %d: %s %s repeats line %d", bars[i].line, ticker,
					time.Unix(bars[i].Time, 0).UTC().Format(time.DateOnly), bars[i-1].line)
			}
		}
	}
	return &Source{series: series}, nil
}

func checkHeader(rec []string) error {
	for i, want := range strings.Split(Header, ",") {
		got := strings.ToLower(strings.TrimSpace(rec[i]))
		if i == 0 {
			got = strings.TrimPrefix(got, "\ufeff")
		}
		if got != want {
			return fmt.Errorf("header column %d is %q, want %q (header %s)", i+1, rec[i], want, Header)
		}
	}
	return nil
}

// parseRow validates one data row: a non-empty ticker, a YYYY-MM-DD date,
// finite prices > 0 with low <= high, and a finite volume >= 0.
func parseRow(rec []string) (string, bar, error) {
	ticker := normalize(rec[0])
	if ticker == "" {
		return "", bar{}, errors.New("empty ticker")
	}
	d, err := time.Parse(time.DateOnly, strings.TrimSpace(rec[1]))
	if err != nil {
		return "", bar{}, fmt.Errorf("date %q: want YYYY-MM-DD", rec[1])
	}
	cols := [...]string{"open", "high", "low", "close", "volume"}
	var v [len(cols)]float64
	for i, col := range cols {
		x, err := strconv.ParseFloat(strings.TrimSpace(rec[2+i]), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return "", bar{}, fmt.Errorf("%s %q is not a finite number", col, rec[2+i])
		}
		if col == "volume" && x < 0 {
			return "", bar{}, fmt.Errorf("volume %q is negative", rec[2+i])
		}
		if col != "volume" && x <= 0 {
			return "", bar{}, fmt.Errorf("%s %q is not positive", col, rec[2+i])
		}
		v[i] = x
	}
	b := bar{Time: d.Unix(), Open: v[0], High: v[1], Low: v[2], Close: v[3], Volume: v[4]}
	if b.Low > b.High {
		return "", bar{}, fmt.Errorf("low %v above high %v", b.Low, b.High)
	}
	return ticker, b, nil
}

func normalize(ticker string) string { return strings.ToUpper(strings.TrimSpace(ticker)) }

// Source is the spec's source name "analytics_stock".
func (s *Source) Source() string { return asset.SourceAnalyticsStock }

// Tickers lists the loaded tickers (upper case), sorted.
func (s *Source) Tickers() []string {
	out := make([]string, 0, len(s.series))
	for t := range s.series {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

func (s *Source) bars(ctx context.Context, ticker string) ([]bar, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("stockfile %q: %w", ticker, err)
	}
	bars, ok := s.series[normalize(ticker)]
	if !ok {
		return nil, fmt.Errorf("stockfile: ticker %q: %w", ticker, market.ErrNotFound)
	}
	return bars, nil
}

// Quote derives the latest quote from the last two sessions of ticker:
// PriceUSD is the last close, PreviousCloseUSD the close before it (nil
// with a single session), PriceChange24hPercent the change between them,
// Volume24hUSD the last session's shares × close, MarketCapUSD nil (the
// file has no share count) and AsOf the last date at CloseHourUTC. An
// unknown ticker wraps market.ErrNotFound.
func (s *Source) Quote(ctx context.Context, ticker string) (market.StockQuote, error) {
	bars, err := s.bars(ctx, ticker)
	if err != nil {
		return market.StockQuote{}, err
	}
	last := bars[len(bars)-1]
	q := market.StockQuote{
		Ticker:       normalize(ticker),
		PriceUSD:     ptr(last.Close),
		Volume24hUSD: ptr(last.Volume * last.Close),
		AsOf:         time.Unix(last.Time, 0).UTC().Add(CloseHourUTC * time.Hour),
	}
	if len(bars) > 1 {
		prev := bars[len(bars)-2].Close
		q.PreviousCloseUSD = ptr(prev)
		q.PriceChange24hPercent = ptr((last.Close/prev - 1) * 100)
	}
	return q, nil
}

// StockCandles returns ticker's candles whose open time lies in
// [from, to) (unix seconds), ascending, with Volume in USD:
//   - "1D": one candle per session, Time the date at 00:00 UTC, Volume
//     shares × close;
//   - "1W": sessions grouped by week starting Monday 00:00 UTC (Time),
//     open of the first session, close of the last, high/low the extremes
//     and Volume the sum of the daily USD volumes;
//   - intraday intervals (1m … 4H): an empty slice, the file holding daily
//     data only.
//
// An unknown ticker wraps market.ErrNotFound; an interval outside
// market.Intervals is a plain error.
func (s *Source) StockCandles(ctx context.Context, ticker string, interval market.Interval, from, to int64) ([]market.Candle, error) {
	if interval.Duration() == 0 {
		return nil, fmt.Errorf("stockfile: unsupported interval %q", interval)
	}
	bars, err := s.bars(ctx, ticker)
	if err != nil {
		return nil, err
	}
	out := []market.Candle{}
	switch interval {
	case "1D":
		i, _ := slices.BinarySearchFunc(bars, from, func(b bar, t int64) int { return cmp.Compare(b.Time, t) })
		for ; i < len(bars) && bars[i].Time < to; i++ {
			b := bars[i]
			out = append(out, market.Candle{Time: b.Time, Open: b.Open, High: b.High, Low: b.Low, Close: b.Close, Volume: b.Volume * b.Close})
		}
	case "1W":
		i, _ := slices.BinarySearchFunc(bars, from, func(b bar, t int64) int { return cmp.Compare(weekStart(b.Time), t) })
		for ; i < len(bars) && weekStart(bars[i].Time) < to; i++ {
			b, w := bars[i], weekStart(bars[i].Time)
			if n := len(out); n > 0 && out[n-1].Time == w {
				c := &out[n-1]
				c.High, c.Low, c.Close = max(c.High, b.High), min(c.Low, b.Low), b.Close
				c.Volume += b.Volume * b.Close
				continue
			}
			out = append(out, market.Candle{Time: w, Open: b.Open, High: b.High, Low: b.Low, Close: b.Close, Volume: b.Volume * b.Close})
		}
	}
	return out, nil
}

// weekStart returns the Monday 00:00 UTC on or before t (unix seconds).
// 1970-01-01 was a Thursday, three days after a Monday.
func weekStart(t int64) int64 {
	days := floorDiv(t, day)
	return (days - floorMod(days+3, 7)) * day
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

func ptr(v float64) *float64 { return &v }
