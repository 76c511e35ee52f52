package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/jackc/pgx/v5"
	"time"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/storage"
)

// SourceCursor reads a trade source's stored cursor (false: none yet).
func (s *Store) SourceCursor(ctx context.Context, source string) (storage.SourceCursor, bool, error) {
	c := storage.SourceCursor{Source: source}
	var gaps string
	err := s.pool.QueryRow(ctx, `SELECT through, frontier, gaps, version FROM trade_source_cursor WHERE source = $1`, source).
		Scan(&c.Through, &c.Frontier, &gaps, &c.Version)
	if errors.Is(err, pgx.ErrNoRows) {
		return c, false, nil
	}
	if err == nil {
		err = json.Unmarshal([]byte(gaps), &c.Gaps)
	}
	if err != nil {
		return c, false, fmt.Errorf("postgres: source cursor %q: %w", source, err)
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
	return s.insertTrades(ctx, trades, now, func(tx pgx.Tx) error {
		var n int64
		if cur.Version == 0 {
			tag, err := tx.Exec(ctx, `INSERT INTO trade_source_cursor(source, through, frontier, gaps, version, updated)
				VALUES ($1, $2, $3, $4, 1, $5) ON CONFLICT(source) DO NOTHING`, cur.Source, cur.Through, cur.Frontier, string(gaps), now.Unix())
			if err != nil {
				return fmt.Errorf("cursor: %w", err)
			}
			n = tag.RowsAffected()
		} else {
			tag, err := tx.Exec(ctx, `UPDATE trade_source_cursor SET through = $1, frontier = $2, gaps = $3, version = version + 1, updated = $4
				WHERE source = $5 AND version = $6`, cur.Through, cur.Frontier, string(gaps), now.Unix(), cur.Source, cur.Version)
			if err != nil {
				return fmt.Errorf("cursor: %w", err)
			}
			n = tag.RowsAffected()
		}
		if n != 1 {
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
