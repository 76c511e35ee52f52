package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/assetd/assetd/internal/news"
	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/storage/codec"
	"github.com/jackc/pgx/v5"
)

const insertNews = `INSERT INTO news_items(` + codec.NewsColumns + `)
	VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12)
	ON CONFLICT (canonical_url) DO NOTHING`

// PutNews inserts the items whose canonical URL is not stored yet (stored
// rows are kept) in one batched transaction and returns how many were
// new.
func (s *Store) PutNews(ctx context.Context, items []news.Item) (int, error) {
	if len(items) == 0 {
		return 0, nil
	}
	n := 0
	err := s.withTx(ctx, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		for i := range items {
			b.Queue(insertNews, codec.NewsArgs(&items[i])...)
		}
		br := tx.SendBatch(ctx, b)
		for range items {
			tag, err := br.Exec()
			if err != nil {
				br.Close()
				return err
			}
			n += int(tag.RowsAffected())
		}
		return br.Close()
	})
	if err != nil {
		return 0, fmt.Errorf("postgres: put %d news items: %w", len(items), err)
	}
	return n, nil
}

// LoadNews returns the items published at or after since, newest first.
func (s *Store) LoadNews(ctx context.Context, since time.Time) ([]news.Item, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+codec.NewsColumns+` FROM news_items WHERE posted_at >= $1
		ORDER BY posted_at DESC, canonical_url`, storage.Ms(since))
	if err != nil {
		return nil, fmt.Errorf("postgres: load news: %w", err)
	}
	defer rows.Close()
	var out []news.Item
	for rows.Next() {
		it, err := codec.ScanNews(rows)
		if err != nil {
			return nil, fmt.Errorf("postgres: load news: %w", err)
		}
		out = append(out, it)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: load news: %w", err)
	}
	return out, nil
}

// PruneNews deletes the items published before before and reports how
// many went.
func (s *Store) PruneNews(ctx context.Context, before time.Time) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM news_items WHERE posted_at < $1`, storage.Ms(before))
	if err != nil {
		return 0, fmt.Errorf("postgres: prune news: %w", err)
	}
	return tag.RowsAffected(), nil
}
