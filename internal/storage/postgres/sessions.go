package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/assetd/assetd/internal/session"
	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/usage"
	"github.com/jackc/pgx/v5"
)

// CreateSession implements session.Store.
func (s *Store) CreateSession(ctx context.Context, ss session.Session) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO sessions(id, token_hash, user_id, email, created_at, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6)`, ss.ID, ss.TokenHash, ss.UserID, ss.Email, storage.Ms(ss.CreatedAt), storage.Ms(ss.ExpiresAt))
	if err != nil {
		return fmt.Errorf("postgres: create session: %w", err)
	}
	return nil
}

// SessionByHash implements session.Store.
func (s *Store) SessionByHash(ctx context.Context, hash string) (session.Session, error) {
	var ss session.Session
	var created, expires int64
	err := s.pool.QueryRow(ctx, `SELECT id, token_hash, user_id, email, created_at, expires_at FROM sessions
		WHERE token_hash = $1`, hash).Scan(&ss.ID, &ss.TokenHash, &ss.UserID, &ss.Email, &created, &expires)
	if errors.Is(err, pgx.ErrNoRows) {
		return ss, fmt.Errorf("postgres: session: %w", storage.ErrNotFound)
	}
	if err != nil {
		return ss, fmt.Errorf("postgres: session: %w", err)
	}
	ss.CreatedAt, ss.ExpiresAt = storage.FromMs(created), storage.FromMs(expires)
	return ss, nil
}

var usageColumns = []string{"key_id", "project_id", "route", "status", "latency_us", "at"}

// InsertUsage implements usage.Sink: one COPY per batch, which is atomic.
func (s *Store) InsertUsage(ctx context.Context, batch []usage.Record) error {
	if len(batch) == 0 {
		return nil
	}
	n, err := s.pool.CopyFrom(ctx, pgx.Identifier{"usage_events"}, usageColumns,
		pgx.CopyFromSlice(len(batch), func(i int) ([]any, error) {
			r := batch[i]
			return []any{r.KeyID, r.ProjectID, r.Route, int64(r.Status), r.Latency.Microseconds(), storage.Ms(r.At)}, nil
		}))
	if err != nil {
		return fmt.Errorf("postgres: insert %d usage records: %w", len(batch), err)
	}
	if n != int64(len(batch)) {
		return fmt.Errorf("postgres: insert %d usage records: copied %d", len(batch), n)
	}
	return nil
}

// UsageSummary returns per-route request counts of key since the given
// time (unix ms), for `assetd keys usage` and tests.
func (s *Store) UsageSummary(ctx context.Context, keyID string, sinceMs int64) (map[string]int64, error) {
	rows, err := s.pool.Query(ctx, `SELECT route, COUNT(*) FROM usage_events WHERE key_id = $1 AND at >= $2 GROUP BY route`, keyID, sinceMs)
	if err != nil {
		return nil, fmt.Errorf("postgres: usage summary: %w", err)
	}
	defer rows.Close()
	out, err := storage.ScanCounts(rows)
	if err != nil {
		return nil, fmt.Errorf("postgres: usage summary: %w", err)
	}
	return out, nil
}
