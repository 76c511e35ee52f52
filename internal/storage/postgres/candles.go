package postgres

import (
	"context"
	"fmt"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/storage"
	"github.com/jackc/pgx/v5"
)

const upsertCandle = `INSERT INTO candles(` + storage.CandleColumns + `)
	VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15)
	ON CONFLICT (mint, interval, start) DO UPDATE SET open=EXCLUDED.open, high=EXCLUDED.high, low=EXCLUDED.low,
	close=EXCLUDED.close, volume=EXCLUDED.volume, trades=EXCLUDED.trades, open_slot=EXCLUDED.open_slot,
	open_time=EXCLUDED.open_time, open_sig=EXCLUDED.open_sig, close_slot=EXCLUDED.close_slot,
	close_time=EXCLUDED.close_time, close_sig=EXCLUDED.close_sig`

// UpsertCandles stores candles (insert or replace by mint, interval and
// start) in one transaction, batched.
func (s *Store) UpsertCandles(ctx context.Context, rows []analytics.CandleUpdate) error {
	if len(rows) == 0 {
		return nil
	}
	err := s.withTx(ctx, func(tx pgx.Tx) error { return upsertCandles(ctx, tx, rows) })
	if err != nil {
		return fmt.Errorf("postgres: upsert %d candles: %w", len(rows), err)
	}
	return nil
}

// upsertCandles writes rows inside tx in one batch.
func upsertCandles(ctx context.Context, tx pgx.Tx, rows []analytics.CandleUpdate) error {
	b := &pgx.Batch{}
	for i := range rows {
		b.Queue(upsertCandle, storage.CandleArgs(&rows[i])...)
	}
	return tx.SendBatch(ctx, b).Close()
}

// LoadCandles returns every stored candle starting at or after since
// (unix seconds), ordered by mint, interval and start.
func (s *Store) LoadCandles(ctx context.Context, since int64) ([]analytics.CandleUpdate, error) {
	return loadCandles(ctx, s.pool, since)
}

// querier is a pool, connection or transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

func loadCandles(ctx context.Context, q querier, since int64) ([]analytics.CandleUpdate, error) {
	rows, err := q.Query(ctx, `SELECT `+storage.CandleColumns+` FROM candles WHERE start >= $1 ORDER BY mint, interval, start`, since)
	if err != nil {
		return nil, fmt.Errorf("postgres: load candles: %w", err)
	}
	defer rows.Close()
	var out []analytics.CandleUpdate
	for rows.Next() {
		c, err := storage.ScanCandle(rows)
		if err != nil {
			return nil, fmt.Errorf("postgres: load candles: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: load candles: %w", err)
	}
	return out, nil
}

// PruneCandles deletes the interval's candles starting before before
// (unix seconds) and reports how many went.
func (s *Store) PruneCandles(ctx context.Context, interval string, before int64) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM candles WHERE interval = $1 AND start < $2`, interval, before)
	if err != nil {
		return 0, fmt.Errorf("postgres: prune %s candles: %w", interval, err)
	}
	return tag.RowsAffected(), nil
}
