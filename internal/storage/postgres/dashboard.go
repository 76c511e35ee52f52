package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/storage/codec"
	"github.com/assetd/assetd/internal/usage"
	"github.com/jackc/pgx/v5"
)

// UsageBuckets returns keyID's requests per bucket of bucketMinutes
// (aligned on the unix epoch: 60 gives UTC hours, 1440 UTC days), route
// and status from sinceMinute on, oldest bucket first, busiest first
// within a bucket.
func (s *Store) UsageBuckets(ctx context.Context, keyID string, sinceMinute, bucketMinutes int64) ([]usage.Bucket, error) {
	if bucketMinutes <= 0 {
		return nil, fmt.Errorf("postgres: usage buckets: bucket of %d minutes", bucketMinutes)
	}
	rows, err := s.pool.Query(ctx, `SELECT minute / $1 AS b, route, status, SUM(requests)::bigint AS n, SUM(charged)::bigint, MAX(minute)
		FROM usage_minutes WHERE key_id = $2 AND minute >= $3 GROUP BY b, route, status ORDER BY b, n DESC, route, status`,
		bucketMinutes, keyID, sinceMinute)
	if err != nil {
		return nil, fmt.Errorf("postgres: usage buckets: %w", err)
	}
	defer rows.Close()
	out, err := codec.ScanBuckets(rows, bucketMinutes)
	if err != nil {
		return nil, fmt.Errorf("postgres: usage buckets: %w", err)
	}
	return out, nil
}

// PutFlash stores a dashboard flash until expires, and deletes the ones
// expired before now.
func (s *Store) PutFlash(ctx context.Context, id string, payload []byte, now, expires time.Time) error {
	err := s.withTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM dashboard_flashes WHERE expires_at < $1`, storage.Ms(now)); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO dashboard_flashes(id, payload, expires_at) VALUES ($1, $2, $3)`, id, payload, storage.Ms(expires))
		return err
	})
	if err != nil {
		return fmt.Errorf("postgres: put flash: %w", err)
	}
	return nil
}

// TakeFlash returns and deletes the flash id; storage.ErrNotFound when it
// does not exist, was taken already or expired before now.
func (s *Store) TakeFlash(ctx context.Context, id string, now time.Time) ([]byte, error) {
	var payload []byte
	var expires int64
	err := s.pool.QueryRow(ctx, `DELETE FROM dashboard_flashes WHERE id = $1 RETURNING payload, expires_at`, id).Scan(&payload, &expires)
	if errors.Is(err, pgx.ErrNoRows) || err == nil && expires < storage.Ms(now) {
		return nil, fmt.Errorf("postgres: flash: %w", storage.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: take flash: %w", err)
	}
	return payload, nil
}
