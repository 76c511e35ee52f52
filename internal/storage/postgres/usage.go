package postgres

import (
	"context"
	"fmt"

	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/storage/codec"
	"github.com/assetd/assetd/internal/usage"
)

// AddUsage implements usage.Sink: one statement per batch (atomic), each
// aggregate added to its stored row. The batch holds each row once (the
// recorder aggregates), in one order, so concurrent servers do not
// deadlock.
func (s *Store) AddUsage(ctx context.Context, batch []usage.Aggregate) error {
	if len(batch) == 0 {
		return nil
	}
	n := len(batch)
	keys, projects, routes := make([]string, n), make([]string, n), make([]string, n)
	statuses, minutes, requests, charged, latency := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	for i, a := range batch {
		keys[i], projects[i], routes[i] = a.KeyID, a.ProjectID, a.Route
		statuses[i], minutes[i], requests[i], charged[i], latency[i] = int64(a.Status), a.Minute, a.Requests, a.Charged, a.LatencyUS
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO usage_minutes(key_id, project_id, route, status, minute, requests, charged, latency_us)
		SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[])
		ON CONFLICT (key_id, minute, route, status) DO UPDATE SET requests = usage_minutes.requests + EXCLUDED.requests,
			charged = usage_minutes.charged + EXCLUDED.charged, latency_us = usage_minutes.latency_us + EXCLUDED.latency_us`,
		keys, projects, routes, statuses, minutes, requests, charged, latency)
	if err != nil {
		return fmt.Errorf("postgres: add %d usage aggregates: %w", n, err)
	}
	return nil
}

// PruneUsage implements usage.Sink.
func (s *Store) PruneUsage(ctx context.Context, beforeMinute int64) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM usage_minutes WHERE minute < $1`, beforeMinute)
	if err != nil {
		return 0, fmt.Errorf("postgres: prune usage: %w", err)
	}
	return tag.RowsAffected(), nil
}

// UsageByDay returns keyID's requests per UTC day, route and status from
// sinceMinute on, newest day first, busiest first within a day.
func (s *Store) UsageByDay(ctx context.Context, keyID string, sinceMinute int64) ([]usage.DayCount, error) {
	rows, err := s.pool.Query(ctx, `SELECT minute / 1440 AS day, route, status, SUM(requests)::bigint AS n FROM usage_minutes
		WHERE key_id = $1 AND minute >= $2 GROUP BY day, route, status ORDER BY day DESC, n DESC, route, status`, keyID, sinceMinute)
	if err != nil {
		return nil, fmt.Errorf("postgres: usage by day: %w", err)
	}
	defer rows.Close()
	out, err := codec.ScanDayCounts(rows)
	if err != nil {
		return nil, fmt.Errorf("postgres: usage by day: %w", err)
	}
	return out, nil
}

// ChargedSince returns, per key, the requests the limiter charged from
// sinceMinute on (what restores monthly quotas at start-up).
func (s *Store) ChargedSince(ctx context.Context, sinceMinute int64) (map[string]int64, error) {
	rows, err := s.pool.Query(ctx, `SELECT key_id, SUM(charged)::bigint FROM usage_minutes WHERE minute >= $1 GROUP BY key_id`, sinceMinute)
	if err != nil {
		return nil, fmt.Errorf("postgres: charged usage: %w", err)
	}
	defer rows.Close()
	out, err := storage.ScanCounts(rows)
	if err != nil {
		return nil, fmt.Errorf("postgres: charged usage: %w", err)
	}
	return out, nil
}

// ClaimStoreMode records mode as the store's mode when it has none and
// returns the recorded one.
func (s *Store) ClaimStoreMode(ctx context.Context, mode string) (string, error) {
	if _, err := s.pool.Exec(ctx, `INSERT INTO store_meta(name, value) VALUES ('mode', $1) ON CONFLICT (name) DO NOTHING`, mode); err != nil {
		return "", fmt.Errorf("postgres: claim store mode: %w", err)
	}
	var got string
	if err := s.pool.QueryRow(ctx, `SELECT value FROM store_meta WHERE name = 'mode'`).Scan(&got); err != nil {
		return "", fmt.Errorf("postgres: claim store mode: %w", err)
	}
	return got, nil
}
