package codec

import (
	"context"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/storage"
)

// ScanCandles reads every storage.CandleColumns row.
func ScanCandles(rows storage.RowIter) ([]analytics.CandleUpdate, error) {
	var out []analytics.CandleUpdate
	for rows.Next() {
		c, err := storage.ScanCandle(rows)
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
