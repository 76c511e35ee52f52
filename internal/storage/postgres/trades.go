package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/storage"
	"github.com/jackc/pgx/v5"
)

// Advisory lock classes (first half of the two-part key; the second is
// hashtext(current schema)). Trade writers serialise on tradeLockClass so
// seqs commit in ascending order (a reader that saw seq n has seen every
// lower one); candle savers on candleLockClass.
const (
	tradeLockClass  int32 = 0x74726164 // "trad"
	candleLockClass int32 = 0x63616e64 // "cand"
)

const lockSQL = `SELECT pg_advisory_xact_lock($1, hashtext(current_schema()))`

const insertTrades = `INSERT INTO trades(` + storage.TradeColumns + `)
	SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bytea[])
	ON CONFLICT (signature) DO NOTHING RETURNING seq, signature`

// pruneChunk bounds the trades one DELETE removes.
const pruneChunk = 50_000

// tradeColumns is a batch of trades as column arrays, for unnest.
type tradeColumns struct {
	sig, mint []string
	blockTime []int64
	data      [][]byte
}

func columnsOf(trades []analytics.Trade) *tradeColumns {
	n := len(trades)
	c := &tradeColumns{sig: make([]string, n), mint: make([]string, n), blockTime: make([]int64, n), data: make([][]byte, n)}
	buf := make([]byte, 0, n*128)
	for i := range trades {
		t := &trades[i]
		c.sig[i], c.mint[i], c.blockTime[i] = t.Signature, t.Mint, t.BlockTime
		start := len(buf)
		buf = storage.EncodeTradeData(buf, t)
		c.data[i] = buf[start:len(buf):len(buf)]
	}
	return c
}

// InsertTrades stores, in one transaction, the trades whose signature is
// not stored yet, and reports which they were. now is the ingestion time
// (the trade retention counts from it). The first of two trades of the
// batch with one signature wins.
func (s *Store) InsertTrades(ctx context.Context, trades []analytics.Trade, now time.Time) (storage.TradeInsert, error) {
	res := storage.TradeInsert{Inserted: make([]bool, len(trades))}
	if len(trades) == 0 {
		return res, nil
	}
	index := make(map[string]int, len(trades))
	for i := range trades {
		if _, ok := index[trades[i].Signature]; !ok {
			index[trades[i].Signature] = i
		}
	}
	c := columnsOf(trades)
	err := s.withTx(ctx, func(tx pgx.Tx) error {
		res = storage.TradeInsert{Inserted: make([]bool, len(trades))}
		if _, err := tx.Exec(ctx, lockSQL, tradeLockClass); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, insertTrades, c.sig, c.mint, c.blockTime, c.data)
		if err != nil {
			return err
		}
		var seq int64
		var sig string
		_, err = pgx.ForEachRow(rows, []any{&seq, &sig}, func() error {
			i, ok := index[sig]
			if !ok || res.Inserted[i] {
				return fmt.Errorf("unexpected returned signature %q", sig)
			}
			res.Inserted[i] = true
			res.Count++
			if res.First == 0 || seq < res.First {
				res.First = seq
			}
			res.Last = max(res.Last, seq)
			return nil
		})
		if err != nil || res.Count == 0 {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO trade_minutes(minute, seq_hi) VALUES ($1, $2)
			ON CONFLICT (minute) DO UPDATE SET seq_hi = GREATEST(trade_minutes.seq_hi, EXCLUDED.seq_hi)`, now.Unix()/60, res.Last)
		return err
	})
	if err != nil {
		return storage.TradeInsert{}, fmt.Errorf("postgres: insert %d trades: %w", len(trades), err)
	}
	return res, nil
}

// ScanTrades calls fn with the stored trades whose seq is in (after,
// before), ascending by seq, in chunks of at most storage.TradeBatchRows
// (before <= 0: no upper bound). fn may keep nothing of the chunk it is
// given: the slice is reused.
func (s *Store) ScanTrades(ctx context.Context, after, before int64, fn func([]storage.StoredTrade) error) error {
	q := `SELECT seq, ` + storage.TradeColumns + ` FROM trades WHERE seq > $1 AND seq < $2 ORDER BY seq LIMIT $3`
	err := storage.ScanTradePages(after, before, func(after, before int64, limit int) (storage.Rows, func(), error) {
		rows, err := s.pool.Query(ctx, q, after, before, limit)
		if err != nil {
			return nil, nil, err
		}
		return rows, rows.Close, nil
	}, fn)
	if err != nil {
		return fmt.Errorf("postgres: scan trades: %w", err)
	}
	return nil
}

// TradeSeqBefore returns the highest seq committed in a minute of
// ingestion before t's (0 if none): the trades ingested since t's minute
// have higher seqs.
func (s *Store) TradeSeqBefore(ctx context.Context, t time.Time) (int64, error) {
	var seq int64
	err := s.pool.QueryRow(ctx, `SELECT COALESCE(MAX(seq_hi), 0) FROM trade_minutes WHERE minute < $1`, t.Unix()/60).Scan(&seq)
	if err != nil {
		return 0, fmt.Errorf("postgres: trade seq before %s: %w", t.UTC().Format(time.RFC3339), err)
	}
	return seq, nil
}

// PruneTrades deletes the trades ingested before t's minute whose effect
// the stored candles already hold (seq at most the candle mark), in chunks,
// and reports how many went.
func (s *Store) PruneTrades(ctx context.Context, t time.Time) (int64, error) {
	var limit, low int64
	err := s.pool.QueryRow(ctx, `SELECT LEAST(COALESCE((SELECT MAX(seq_hi) FROM trade_minutes WHERE minute < $1), 0),
		COALESCE((SELECT value FROM analytics_marks WHERE name = $2), 0)), COALESCE((SELECT MIN(seq) FROM trades), 0)`,
		t.Unix()/60, storage.MarkCandles).Scan(&limit, &low)
	if err != nil {
		return 0, fmt.Errorf("postgres: prune trades: %w", err)
	}
	var total int64
	for low > 0 && low <= limit {
		hi := min(low+pruneChunk-1, limit)
		tag, err := s.pool.Exec(ctx, `DELETE FROM trades WHERE seq >= $1 AND seq <= $2`, low, hi)
		if err != nil {
			return total, fmt.Errorf("postgres: prune trades: %w", err)
		}
		total += tag.RowsAffected()
		low = hi + 1
	}
	if _, err := s.pool.Exec(ctx, `DELETE FROM trade_minutes WHERE minute < $1 AND seq_hi <= $2`, t.Unix()/60, limit); err != nil {
		return total, fmt.Errorf("postgres: prune trade minutes: %w", err)
	}
	return total, nil
}

// NotifyTrades bumps storage.TopicTrades.
func (s *Store) NotifyTrades(ctx context.Context) error {
	if err := s.withTx(ctx, func(tx pgx.Tx) error { return bump(ctx, tx, storage.TopicTrades) }); err != nil {
		return fmt.Errorf("postgres: notify trades: %w", err)
	}
	return nil
}

const selectCandleMark = `SELECT COALESCE((SELECT value FROM analytics_marks WHERE name = $1), 0)`

// CandleState returns every stored candle and the candle mark (the seq
// through which they reflect every stored trade), read in one snapshot.
func (s *Store) CandleState(ctx context.Context) ([]analytics.CandleUpdate, int64, error) {
	var rows []analytics.CandleUpdate
	var mark int64
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, selectCandleMark, storage.MarkCandles).Scan(&mark); err != nil {
			return err
		}
		var err error
		rows, err = loadCandles(ctx, tx, 0)
		return err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("postgres: candle state: %w", err)
	}
	return rows, mark, nil
}

// SaveCandles upserts rows and moves the candle mark to through, in one
// transaction, unless the stored mark is already past through (another
// process saved newer candles): then it writes nothing and reports false.
func (s *Store) SaveCandles(ctx context.Context, rows []analytics.CandleUpdate, through int64) (bool, error) {
	saved := false
	err := s.withTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, lockSQL, candleLockClass); err != nil {
			return err
		}
		var mark int64
		if err := tx.QueryRow(ctx, selectCandleMark, storage.MarkCandles).Scan(&mark); err != nil {
			return err
		}
		if mark > through {
			return nil
		}
		if len(rows) > 0 {
			if err := upsertCandles(ctx, tx, rows); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `INSERT INTO analytics_marks(name, value) VALUES ($1, $2)
			ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value`, storage.MarkCandles, through); err != nil {
			return err
		}
		saved = true
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("postgres: save %d candles through %d: %w", len(rows), through, err)
	}
	return saved, nil
}
