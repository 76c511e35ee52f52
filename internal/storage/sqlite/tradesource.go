package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/storage"
)

// SourceCursor reads a trade source's stored cursor (false: none yet).
func (s *Store) SourceCursor(ctx context.Context, source string) (storage.SourceCursor, bool, error) {
	c := storage.SourceCursor{Source: source}
	var gaps string
	err := s.r.QueryRowContext(ctx, `SELECT through, frontier, gaps, version FROM trade_source_cursor WHERE source = ?`, source).
		Scan(&c.Through, &c.Frontier, &gaps, &c.Version)
	if errors.Is(err, sql.ErrNoRows) {
		return c, false, nil
	}
	if err == nil {
		err = json.Unmarshal([]byte(gaps), &c.Gaps)
	}
	if err != nil {
		return c, false, fmt.Errorf("sqlite: source cursor %q: %w", source, err)
	}
	return c, true, nil
}

// InsertTradesAtCursor stores the trades new by identity and cur, in one
// transaction. cur.Version is the version the caller read (0: none
// stored); another writer's cursor in between fails it with
// storage.ErrConflict and stores nothing. On success the stored version
// is cur.Version+1.
func (s *Store) InsertTradesAtCursor(ctx context.Context, trades []analytics.Trade, now time.Time, cur storage.SourceCursor) (storage.TradeInsert, error) {
	gaps, err := json.Marshal(nonNilGaps(cur.Gaps))
	if err != nil {
		return storage.TradeInsert{}, err
	}
	return s.insertTrades(ctx, trades, now, func(tx *sql.Tx) error {
		var res sql.Result
		var err error
		if cur.Version == 0 {
			res, err = tx.ExecContext(ctx, `INSERT INTO trade_source_cursor(source, through, frontier, gaps, version, updated)
				VALUES (?, ?, ?, ?, 1, ?) ON CONFLICT(source) DO NOTHING`, cur.Source, cur.Through, cur.Frontier, string(gaps), now.Unix())
		} else {
			res, err = tx.ExecContext(ctx, `UPDATE trade_source_cursor SET through = ?, frontier = ?, gaps = ?, version = version + 1, updated = ?
				WHERE source = ? AND version = ?`, cur.Through, cur.Frontier, string(gaps), now.Unix(), cur.Source, cur.Version)
		}
		if err != nil {
			return fmt.Errorf("cursor: %w", err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return fmt.Errorf("cursor %q moved by another writer since version %d: %w", cur.Source, cur.Version, storage.ErrConflict)
		}
		return nil
	})
}

func nonNilGaps(g []storage.SourceGap) []storage.SourceGap {
	if g == nil {
		return []storage.SourceGap{}
	}
	return g
}
