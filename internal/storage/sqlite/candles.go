package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/storage"
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

const upsertCandle = `INSERT INTO candles(` + storage.CandleColumns + `) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
	ON CONFLICT(mint, interval, start) DO UPDATE SET open=excluded.open, high=excluded.high, low=excluded.low,
	close=excluded.close, volume=excluded.volume, trades=excluded.trades, open_slot=excluded.open_slot,
	open_time=excluded.open_time, open_sig=excluded.open_sig, close_slot=excluded.close_slot,
	close_time=excluded.close_time, close_sig=excluded.close_sig`

// upsertCandles writes rows inside tx with one prepared statement.
func upsertCandles(ctx context.Context, tx *sql.Tx, rows []analytics.CandleUpdate) error {
	st, err := tx.PrepareContext(ctx, upsertCandle)
	if err != nil {
		return err
	}
	defer st.Close()
	for i := range rows {
		if _, err := st.ExecContext(ctx, storage.CandleArgs(&rows[i])...); err != nil {
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
	rows, err := q.QueryContext(ctx, `SELECT `+storage.CandleColumns+` FROM candles WHERE start >= ? ORDER BY mint, interval, start`, since)
	if err != nil {
		return nil, fmt.Errorf("sqlite: load candles: %w", err)
	}
	defer rows.Close()
	var out []analytics.CandleUpdate
	for rows.Next() {
		c, err := storage.ScanCandle(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite: load candles: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
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
