package codec

import (
	"context"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/storage"
)

// CandleColumns are the persisted candle columns, in CandleArgs order.
const CandleColumns = `mint, interval, start, open, high, low, close, volume, trades,
	open_slot, open_time, open_sig, close_slot, close_time, close_sig, rejected_dust, rejected_outlier`

// CandleColumnCount is the number of CandleColumns.
const CandleColumnCount = 17

// CandleArgs flattens a candle into CandleColumns order.
func CandleArgs(c *analytics.CandleUpdate) []any {
	return []any{c.Mint, string(c.Interval), c.Time, c.Open, c.High, c.Low, c.Close, c.Volume, c.Trades,
		c.OpenRef.Slot, c.OpenRef.BlockTime, c.OpenRef.Signature, c.CloseRef.Slot, c.CloseRef.BlockTime, c.CloseRef.Signature,
		c.Rejected.Dust, c.Rejected.PriceOutlier}
}

// ScanCandle reads one CandleColumns row.
func ScanCandle(sc storage.Scanner) (analytics.CandleUpdate, error) {
	var c analytics.CandleUpdate
	var iv string
	err := sc.Scan(&c.Mint, &iv, &c.Time, &c.Open, &c.High, &c.Low, &c.Close, &c.Volume, &c.Trades,
		&c.OpenRef.Slot, &c.OpenRef.BlockTime, &c.OpenRef.Signature, &c.CloseRef.Slot, &c.CloseRef.BlockTime, &c.CloseRef.Signature,
		&c.Rejected.Dust, &c.Rejected.PriceOutlier)
	c.Interval = market.Interval(iv)
	return c, err
}

// CandleChunkRows is how many candles StreamCandles hands over at a time.
const CandleChunkRows = 8192

// StreamCandles reads rows of CandleColumns and calls fn with them,
// CandleChunkRows at a time; the chunk is reused after fn returns.
func StreamCandles(rows storage.RowIter, fn func([]analytics.CandleUpdate) error) error {
	chunk := make([]analytics.CandleUpdate, 0, CandleChunkRows)
	for rows.Next() {
		c, err := ScanCandle(rows)
		if err != nil {
			return err
		}
		chunk = append(chunk, c)
		if len(chunk) == cap(chunk) {
			if err := fn(chunk); err != nil {
				return err
			}
			clear(chunk)
			chunk = chunk[:0]
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(chunk) > 0 {
		return fn(chunk)
	}
	return nil
}

// ScanCandles reads every storage.CandleColumns row.
func ScanCandles(rows storage.RowIter) ([]analytics.CandleUpdate, error) {
	var out []analytics.CandleUpdate
	for rows.Next() {
		c, err := ScanCandle(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// StreamCandleState is an engine's one-snapshot read of the candle mark
// (handed to mark first) and every stored candle (handed to load in
// chunks that are reused after load returns).
type StreamCandleState func(ctx context.Context, mark func(int64), load func([]analytics.CandleUpdate) error) error

// CandleState collects what stream reads: every stored candle and the
// candle mark (the seq through which they reflect every stored trade).
func CandleState(ctx context.Context, stream StreamCandleState) ([]analytics.CandleUpdate, int64, error) {
	var rows []analytics.CandleUpdate
	var mark int64
	err := stream(ctx, func(m int64) { mark = m }, func(chunk []analytics.CandleUpdate) error {
		rows = append(rows, chunk...)
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return rows, mark, nil
}
