package postgres

import (
	"context"
	"fmt"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/storage/codec"
	"github.com/jackc/pgx/v5"
)

const upsertCandlesSQL = `INSERT INTO candles(` + codec.CandleColumns + `)
	SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::float8[], $5::float8[], $6::float8[], $7::float8[],
		$8::float8[], $9::bigint[], $10::bigint[], $11::bigint[], $12::text[], $13::bigint[], $14::bigint[], $15::text[], $16::bigint[], $17::bigint[])
	ON CONFLICT (mint, interval, start) DO UPDATE SET open=EXCLUDED.open, high=EXCLUDED.high, low=EXCLUDED.low,
	close=EXCLUDED.close, volume=EXCLUDED.volume, trades=EXCLUDED.trades, open_slot=EXCLUDED.open_slot,
	open_time=EXCLUDED.open_time, open_sig=EXCLUDED.open_sig, close_slot=EXCLUDED.close_slot,
	close_time=EXCLUDED.close_time, close_sig=EXCLUDED.close_sig, rejected_dust=EXCLUDED.rejected_dust,
	rejected_outlier=EXCLUDED.rejected_outlier`

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

// upsertCandles writes rows inside tx in one statement (a later row for
// the same candle replaces an earlier one).
func upsertCandles(ctx context.Context, tx pgx.Tx, rows []analytics.CandleUpdate) error {
	// One statement may not update a row twice: keep each candle's last.
	type key struct {
		mint     string
		interval market.Interval
		start    int64
	}
	last := make(map[key]int, len(rows))
	for i := range rows {
		last[key{rows[i].Mint, rows[i].Interval, rows[i].Time}] = i
	}
	n := len(last)
	mint, iv, openSig, closeSig := make([]string, 0, n), make([]string, 0, n), make([]string, 0, n), make([]string, 0, n)
	start, trades, openSlot, openTime, closeSlot, closeTime := make([]int64, 0, n), make([]int64, 0, n), make([]int64, 0, n),
		make([]int64, 0, n), make([]int64, 0, n), make([]int64, 0, n)
	dust, outliers := make([]int64, 0, n), make([]int64, 0, n)
	o, h, l, c, v := make([]float64, 0, n), make([]float64, 0, n), make([]float64, 0, n), make([]float64, 0, n), make([]float64, 0, n)
	for i := range rows {
		r := &rows[i]
		if last[key{r.Mint, r.Interval, r.Time}] != i {
			continue
		}
		mint, iv, start = append(mint, r.Mint), append(iv, string(r.Interval)), append(start, r.Time)
		o, h, l, c, v = append(o, r.Open), append(h, r.High), append(l, r.Low), append(c, r.Close), append(v, r.Volume)
		trades = append(trades, r.Trades)
		openSlot, openTime, openSig = append(openSlot, r.OpenRef.Slot), append(openTime, r.OpenRef.BlockTime), append(openSig, r.OpenRef.Signature)
		closeSlot, closeTime, closeSig = append(closeSlot, r.CloseRef.Slot), append(closeTime, r.CloseRef.BlockTime), append(closeSig, r.CloseRef.Signature)
		dust, outliers = append(dust, r.Rejected.Dust), append(outliers, r.Rejected.PriceOutlier)
	}
	_, err := tx.Exec(ctx, upsertCandlesSQL, mint, iv, start, o, h, l, c, v, trades, openSlot, openTime, openSig, closeSlot, closeTime, closeSig, dust, outliers)
	return err
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
	rows, err := q.Query(ctx, `SELECT `+codec.CandleColumns+` FROM candles WHERE start >= $1 ORDER BY mint, interval, start`, since)
	if err != nil {
		return nil, fmt.Errorf("postgres: load candles: %w", err)
	}
	defer rows.Close()
	out, err := codec.ScanCandles(rows)
	if err != nil {
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
