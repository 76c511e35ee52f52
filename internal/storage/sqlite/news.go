package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/assetd/assetd/internal/news"
	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/storage/codec"
)

// PutNews inserts the items whose canonical URL is not stored yet (stored
// rows are kept) in one transaction and returns how many were new.
func (s *Store) PutNews(ctx context.Context, items []news.Item) (int, error) {
	if len(items) == 0 {
		return 0, nil
	}
	q := `INSERT INTO news_items(` + codec.NewsColumns + `) VALUES (` + strings.TrimSuffix(strings.Repeat("?,", 12), ",") + `)
		ON CONFLICT(canonical_url) DO NOTHING`
	n := 0
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		st, err := tx.PrepareContext(ctx, q)
		if err != nil {
			return err
		}
		defer st.Close()
		for i := range items {
			res, err := st.ExecContext(ctx, codec.NewsArgs(&items[i])...)
			if err != nil {
				return err
			}
			k, _ := res.RowsAffected()
			n += int(k)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("sqlite: put %d news items: %w", len(items), err)
	}
	return n, nil
}

// LoadNews returns the items published at or after since, newest first.
func (s *Store) LoadNews(ctx context.Context, since time.Time) ([]news.Item, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+codec.NewsColumns+` FROM news_items WHERE posted_at >= ?
		ORDER BY posted_at DESC, canonical_url`, storage.Ms(since))
	if err != nil {
		return nil, fmt.Errorf("sqlite: load news: %w", err)
	}
	defer rows.Close()
	var out []news.Item
	for rows.Next() {
		it, err := codec.ScanNews(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite: load news: %w", err)
		}
		out = append(out, it)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: load news: %w", err)
	}
	return out, nil
}

// PruneNews deletes the items published before before and reports how
// many went.
func (s *Store) PruneNews(ctx context.Context, before time.Time) (int64, error) {
	res, err := s.w.ExecContext(ctx, `DELETE FROM news_items WHERE posted_at < ?`, storage.Ms(before))
	if err != nil {
		return 0, fmt.Errorf("sqlite: prune news: %w", err)
	}
	n, _ := res.RowsAffected()
	return n, nil
}
