package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/storage/codec"
)

// UpsertCandles stores candles (insert or replace by mint, interval and
// start) in one transaction.
func (s *Store) UpsertCandles(ctx context.Context, rows []analytics.CandleUpdate) error {
	if len(rows) == 0 {
		return nil
	}
	err := s.withTx(ctx, func(tx *sql.Tx) error { return upsertCandles(ctx, tx, rows) })
	if err != nil {
		return fmt.Errorf("sqlite: upsert %d candles: %w", len(rows), err)
	}
	return nil
}

// candleChunk is the number of candles per multi-row upsert: 17 columns
// each stays under SQLite's 32,766 bound variables.
const candleChunk = 1900

func upsertCandlesSQL(n int) string {
	row := "(" + strings.TrimSuffix(strings.Repeat("?,", codec.CandleColumnCount), ",") + ")"
	return `INSERT INTO candles(` + codec.CandleColumns + `) VALUES ` + strings.TrimSuffix(strings.Repeat(row+",", n), ",") + `
	ON CONFLICT(mint, interval, start) DO UPDATE SET open=excluded.open, high=excluded.high, low=excluded.low,
	close=excluded.close, volume=excluded.volume, trades=excluded.trades, open_slot=excluded.open_slot,
	open_time=excluded.open_time, open_sig=excluded.open_sig, close_slot=excluded.close_slot,
	close_time=excluded.close_time, close_sig=excluded.close_sig, rejected_dust=excluded.rejected_dust,
	rejected_outlier=excluded.rejected_outlier`
}

// upsertCandles writes rows inside tx, in multi-row statements (a later
// row for the same candle replaces an earlier one).
func upsertCandles(ctx context.Context, tx *sql.Tx, rows []analytics.CandleUpdate) error {
	var full *sql.Stmt
	args := make([]any, 0, min(len(rows), candleChunk)*codec.CandleColumnCount)
	for lo := 0; lo < len(rows); lo += candleChunk {
		chunk := rows[lo:min(lo+candleChunk, len(rows))]
		args = args[:0]
		for i := range chunk {
			args = append(args, codec.CandleArgs(&chunk[i])...)
		}
		var err error
		if len(chunk) == candleChunk {
			if full == nil {
				if full, err = tx.PrepareContext(ctx, upsertCandlesSQL(candleChunk)); err != nil {
					return err
				}
				defer full.Close()
			}
			_, err = full.ExecContext(ctx, args...)
		} else {
			_, err = tx.ExecContext(ctx, upsertCandlesSQL(len(chunk)), args...)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// LoadCandles returns every stored candle starting at or after since
// (unix seconds), ordered by mint, interval and start.
func (s *Store) LoadCandles(ctx context.Context, since int64) ([]analytics.CandleUpdate, error) {
	return loadCandles(ctx, s.r, since)
}

// queryer is a *sql.DB or *sql.Tx.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func loadCandles(ctx context.Context, q queryer, since int64) ([]analytics.CandleUpdate, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+codec.CandleColumns+` FROM candles WHERE start >= ? ORDER BY mint, interval, start`, since)
	if err != nil {
		return nil, fmt.Errorf("sqlite: load candles: %w", err)
	}
	defer rows.Close()
	out, err := codec.ScanCandles(rows)
	if err != nil {
		return nil, fmt.Errorf("sqlite: load candles: %w", err)
	}
	return out, nil
}

// PruneCandles deletes the interval's candles starting before before
// (unix seconds) and reports how many went.
func (s *Store) PruneCandles(ctx context.Context, interval string, before int64) (int64, error) {
	res, err := s.w.ExecContext(ctx, `DELETE FROM candles WHERE interval = ? AND start < ?`, interval, before)
	if err != nil {
		return 0, fmt.Errorf("sqlite: prune %s candles: %w", interval, err)
	}
	n, _ := res.RowsAffected()
	return n, nil
}
