package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/storage/codec"
	"github.com/assetd/assetd/internal/usage"
)

// AddUsage implements usage.Sink: one transaction per batch, each
// aggregate added to its stored row.
func (s *Store) AddUsage(ctx context.Context, batch []usage.Aggregate) error {
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		st, err := tx.PrepareContext(ctx, `INSERT INTO usage_minutes(key_id, project_id, route, status, minute, requests, charged, latency_us)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT(key_id, minute, route, status) DO UPDATE SET requests = requests + excluded.requests,
				charged = charged + excluded.charged, latency_us = latency_us + excluded.latency_us`)
		if err != nil {
			return err
		}
		defer st.Close()
		for _, a := range batch {
			if _, err := st.ExecContext(ctx, a.KeyID, a.ProjectID, a.Route, a.Status, a.Minute, a.Requests, a.Charged, a.LatencyUS); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqlite: add %d usage aggregates: %w", len(batch), err)
	}
	return nil
}

// PruneUsage implements usage.Sink.
func (s *Store) PruneUsage(ctx context.Context, beforeMinute int64) (int64, error) {
	res, err := s.w.ExecContext(ctx, `DELETE FROM usage_minutes WHERE minute < ?`, beforeMinute)
	if err != nil {
		return 0, fmt.Errorf("sqlite: prune usage: %w", err)
	}
	return res.RowsAffected()
}

// UsageByDay returns keyID's requests per UTC day, route and status from
// sinceMinute on, newest day first, busiest first within a day.
func (s *Store) UsageByDay(ctx context.Context, keyID string, sinceMinute int64) ([]usage.DayCount, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT minute / 1440 AS day, route, status, SUM(requests) AS n FROM usage_minutes
		WHERE key_id = ? AND minute >= ? GROUP BY day, route, status ORDER BY day DESC, n DESC, route, status`, keyID, sinceMinute)
	if err != nil {
		return nil, fmt.Errorf("sqlite: usage by day: %w", err)
	}
	defer rows.Close()
	out, err := codec.ScanDayCounts(rows)
	if err != nil {
		return nil, fmt.Errorf("sqlite: usage by day: %w", err)
	}
	return out, nil
}

// ChargedSince returns, per key, the requests the limiter charged from
// sinceMinute on (what restores monthly quotas at start-up).
func (s *Store) ChargedSince(ctx context.Context, sinceMinute int64) (map[string]int64, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT key_id, SUM(charged) FROM usage_minutes WHERE minute >= ? GROUP BY key_id`, sinceMinute)
	if err != nil {
		return nil, fmt.Errorf("sqlite: charged usage: %w", err)
	}
	defer rows.Close()
	out, err := storage.ScanCounts(rows)
	if err != nil {
		return nil, fmt.Errorf("sqlite: charged usage: %w", err)
	}
	return out, nil
}

// ClaimStoreMode records mode as the store's mode when it has none and
// returns the recorded one (storage.StoreMode).
func (s *Store) ClaimStoreMode(ctx context.Context, mode string) (string, error) {
	if _, err := s.w.ExecContext(ctx, `INSERT INTO store_meta(name, value) VALUES ('mode', ?) ON CONFLICT(name) DO NOTHING`, mode); err != nil {
		return "", fmt.Errorf("sqlite: claim store mode: %w", err)
	}
	var got string
	err := s.w.QueryRowContext(ctx, `SELECT value FROM store_meta WHERE name = 'mode'`).Scan(&got)
	if err != nil {
		return "", fmt.Errorf("sqlite: claim store mode: %w", err)
	}
	return got, nil
}
