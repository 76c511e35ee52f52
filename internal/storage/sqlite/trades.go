package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/ingest"
	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/storage/codec"
)

// tradeChunk is the number of trades per multi-row INSERT: its
// codec.TradeColumnCount columns each stay under SQLite's 32,766 bound
// variables.
const tradeChunk = 2000

// pruneChunk bounds the trades one DELETE removes, so the single writer is
// never held for long.
const pruneChunk = 20_000

var insertFull = insertTradesSQL(tradeChunk)

func insertTradesSQL(n int) string {
	row := "(" + strings.TrimSuffix(strings.Repeat("?,", codec.TradeColumnCount), ",") + ")"
	return `INSERT INTO trades(` + codec.TradeColumns + `) VALUES ` +
		strings.TrimSuffix(strings.Repeat(row+",", n), ",") + ` ON CONFLICT(signature, leg) DO NOTHING RETURNING seq, signature, leg`
}

// InsertTrades stores, in one transaction, the trades whose identity
// (signature, leg) is not stored yet, and reports which they were. now is
// the ingestion time (the trade retention counts from it). The first of
// two trades of the batch with one identity wins.
func (s *Store) InsertTrades(ctx context.Context, trades []analytics.Trade, now time.Time) (storage.TradeInsert, error) {
	return s.insertTrades(ctx, trades, now, nil)
}

// insertTrades is InsertTrades with also run first in the same transaction
// (the trade source's cursor write).
func (s *Store) insertTrades(ctx context.Context, trades []analytics.Trade, now time.Time, also func(*sql.Tx) error) (storage.TradeInsert, error) {
	res := storage.TradeInsert{Inserted: make([]bool, len(trades))}
	if len(trades) == 0 && also == nil {
		return res, nil
	}
	index := make(map[analytics.TradeID]int, len(trades))
	for i := range trades {
		if _, ok := index[trades[i].ID()]; !ok {
			index[trades[i].ID()] = i
		}
	}
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		res = storage.TradeInsert{Inserted: make([]bool, len(trades))}
		if also != nil {
			if err := also(tx); err != nil {
				return err
			}
		}
		var full *sql.Stmt
		args := make([]any, 0, tradeChunk*codec.TradeColumnCount)
		for lo := 0; lo < len(trades); lo += tradeChunk {
			chunk := trades[lo:min(lo+tradeChunk, len(trades))]
			args = args[:0]
			for i := range chunk {
				args = codec.AppendTradeArgs(args, &chunk[i])
			}
			var rows *sql.Rows
			var err error
			if len(chunk) == tradeChunk {
				if full == nil {
					if full, err = tx.PrepareContext(ctx, insertFull); err != nil {
						return err
					}
					defer full.Close()
				}
				rows, err = full.QueryContext(ctx, args...)
			} else {
				rows, err = tx.QueryContext(ctx, insertTradesSQL(len(chunk)), args...)
			}
			if err != nil {
				return err
			}
			if err := collectInserted(rows, index, &res); err != nil {
				return err
			}
		}
		if res.Count == 0 {
			return nil
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO trade_minutes(minute, seq_hi) VALUES (?, ?)
			ON CONFLICT(minute) DO UPDATE SET seq_hi = max(seq_hi, excluded.seq_hi)`, now.Unix()/60, res.Last)
		return err
	})
	if err != nil {
		return storage.TradeInsert{}, fmt.Errorf("sqlite: insert %d trades: %w", len(trades), err)
	}
	return res, nil
}

// collectInserted reads the RETURNING rows of one INSERT into res.
func collectInserted(rows *sql.Rows, index map[analytics.TradeID]int, res *storage.TradeInsert) error {
	defer rows.Close()
	var seq int64
	var id analytics.TradeID
	for rows.Next() {
		if err := rows.Scan(&seq, &id.Signature, &id.Leg); err != nil {
			return err
		}
		i, ok := index[id]
		if !ok || res.Inserted[i] {
			return fmt.Errorf("unexpected returned trade %s", id)
		}
		res.Inserted[i] = true
		res.Count++
		if res.First == 0 || seq < res.First {
			res.First = seq
		}
		res.Last = max(res.Last, seq)
	}
	return rows.Err()
}

// ScanTrades calls fn with the stored trades whose seq is in (after,
// before), ascending by seq, in chunks of at most codec.TradeBatchRows
// (before <= 0: no upper bound). fn may keep nothing of the chunk it is
// given: the slice is reused.
func (s *Store) ScanTrades(ctx context.Context, after, before int64, fn func([]ingest.StoredTrade) error) error {
	q := `SELECT seq, ` + codec.TradeColumns + ` FROM trades WHERE seq > ? AND seq < ? ORDER BY seq LIMIT ?`
	err := codec.ScanTradePages(after, before, func(after, before int64, limit int) (storage.RowIter, func(), error) {
		rows, err := s.r.QueryContext(ctx, q, after, before, limit)
		if err != nil {
			return nil, nil, err
		}
		return rows, func() { rows.Close() }, nil
	}, fn)
	if err != nil {
		return fmt.Errorf("sqlite: scan trades: %w", err)
	}
	return nil
}

// TradeSeqBefore returns the highest seq committed in a minute of
// ingestion before t's (0 if none): the trades ingested since t's minute
// have higher seqs.
func (s *Store) TradeSeqBefore(ctx context.Context, t time.Time) (int64, error) {
	var seq int64
	err := s.r.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq_hi), 0) FROM trade_minutes WHERE minute < ?`, t.Unix()/60).Scan(&seq)
	if err != nil {
		return 0, fmt.Errorf("sqlite: trade seq before %s: %w", t.UTC().Format(time.RFC3339), err)
	}
	return seq, nil
}

// PruneTrades deletes the trades ingested before t's minute whose effect
// the stored candles already hold (seq at most the candle mark), in chunks,
// and reports how many went.
func (s *Store) PruneTrades(ctx context.Context, t time.Time) (int64, error) {
	var limit, low int64
	err := s.r.QueryRowContext(ctx, `SELECT MIN(COALESCE((SELECT MAX(seq_hi) FROM trade_minutes WHERE minute < ?), 0),
		COALESCE((SELECT value FROM analytics_marks WHERE name = ?), 0)), COALESCE((SELECT MIN(seq) FROM trades), 0)`,
		t.Unix()/60, storage.MarkCandles).Scan(&limit, &low)
	if err != nil {
		return 0, fmt.Errorf("sqlite: prune trades: %w", err)
	}
	var total int64
	for low > 0 && low <= limit {
		hi := min(low+pruneChunk-1, limit)
		res, err := s.w.ExecContext(ctx, `DELETE FROM trades WHERE seq >= ? AND seq <= ?`, low, hi)
		if err != nil {
			return total, fmt.Errorf("sqlite: prune trades: %w", err)
		}
		n, _ := res.RowsAffected()
		total += n
		low = hi + 1
	}
	if _, err := s.w.ExecContext(ctx, `DELETE FROM trade_minutes WHERE minute < ? AND seq_hi <= ?`, t.Unix()/60, limit); err != nil {
		return total, fmt.Errorf("sqlite: prune trade minutes: %w", err)
	}
	return total, nil
}

// NotifyTrades bumps storage.TopicTrades.
func (s *Store) NotifyTrades(ctx context.Context) error {
	if err := s.withTx(ctx, func(tx *sql.Tx) error { return s.bump(ctx, tx, storage.TopicTrades) }); err != nil {
		return fmt.Errorf("sqlite: notify trades: %w", err)
	}
	return nil
}

// CandleState returns every stored candle and the candle mark (the seq
// through which they reflect every stored trade), read in one snapshot.
func (s *Store) CandleState(ctx context.Context) ([]analytics.CandleUpdate, int64, error) {
	return codec.CandleState(ctx, s.StreamCandleState)
}

// StreamCandleState reads the candle mark and every stored candle in one
// snapshot: it calls mark with the mark first, then load with the candles
// (by mint, interval and time) in chunks of codec.CandleChunkRows; the
// chunk is reused after load returns.
func (s *Store) StreamCandleState(ctx context.Context, mark func(int64), load func([]analytics.CandleUpdate) error) error {
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("sqlite: candle state: %w", err)
	}
	defer tx.Rollback()
	var m int64
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE((SELECT value FROM analytics_marks WHERE name = ?), 0)`, storage.MarkCandles).Scan(&m); err != nil {
		return fmt.Errorf("sqlite: candle state: %w", err)
	}
	mark(m)
	rows, err := tx.QueryContext(ctx, `SELECT `+codec.CandleColumns+` FROM candles ORDER BY mint, interval, start`)
	if err != nil {
		return fmt.Errorf("sqlite: candle state: %w", err)
	}
	defer rows.Close()
	if err := codec.StreamCandles(rows, load); err != nil {
		return fmt.Errorf("sqlite: candle state: %w", err)
	}
	return nil
}

// SaveCandles upserts rows and moves the candle mark to through, in one
// transaction, unless the stored mark is already past through (another
// process saved newer candles): then it writes nothing and reports false.
func (s *Store) SaveCandles(ctx context.Context, rows []analytics.CandleUpdate, through int64) (bool, error) {
	saved := false
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		var mark int64
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE((SELECT value FROM analytics_marks WHERE name = ?), 0)`, storage.MarkCandles).Scan(&mark); err != nil {
			return err
		}
		if mark > through {
			return nil
		}
		if err := upsertCandles(ctx, tx, rows); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO analytics_marks(name, value) VALUES (?, ?)
			ON CONFLICT(name) DO UPDATE SET value = excluded.value`, storage.MarkCandles, through); err != nil {
			return err
		}
		saved = true
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("sqlite: save %d candles through %d: %w", len(rows), through, err)
	}
	return saved, nil
}
