package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/assetd/assetd/internal/session"
	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/usage"
)

// CreateSession implements session.Store.
func (s *Store) CreateSession(ctx context.Context, ss session.Session) error {
	_, err := s.w.ExecContext(ctx, `INSERT INTO sessions(id, token_hash, user_id, email, created_at, expires_at)
		VALUES (?, ?, ?, ?, ?, ?)`, ss.ID, ss.TokenHash, ss.UserID, ss.Email, storage.Ms(ss.CreatedAt), storage.Ms(ss.ExpiresAt))
	if err != nil {
		return fmt.Errorf("sqlite: create session: %w", err)
	}
	return nil
}

// SessionByHash implements session.Store.
func (s *Store) SessionByHash(ctx context.Context, hash string) (session.Session, error) {
	var ss session.Session
	var created, expires int64
	err := s.r.QueryRowContext(ctx, `SELECT id, token_hash, user_id, email, created_at, expires_at FROM sessions
		WHERE token_hash = ?`, hash).Scan(&ss.ID, &ss.TokenHash, &ss.UserID, &ss.Email, &created, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return ss, fmt.Errorf("sqlite: session: %w", storage.ErrNotFound)
	}
	if err != nil {
		return ss, fmt.Errorf("sqlite: session: %w", err)
	}
	ss.CreatedAt, ss.ExpiresAt = storage.FromMs(created), storage.FromMs(expires)
	return ss, nil
}

// InsertUsage implements usage.Sink: one transaction per batch.
func (s *Store) InsertUsage(ctx context.Context, batch []usage.Record) error {
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		st, err := tx.PrepareContext(ctx, `INSERT INTO usage_events(key_id, project_id, route, status, latency_us, at)
			VALUES (?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer st.Close()
		for _, r := range batch {
			if _, err := st.ExecContext(ctx, r.KeyID, r.ProjectID, r.Route, r.Status, r.Latency.Microseconds(), storage.Ms(r.At)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqlite: insert %d usage records: %w", len(batch), err)
	}
	return nil
}

// UsageSummary returns per-route request counts of key since the given
// time (unix ms), for `assetd keys usage` and tests.
func (s *Store) UsageSummary(ctx context.Context, keyID string, sinceMs int64) (map[string]int64, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT route, COUNT(*) FROM usage_events WHERE key_id = ? AND at >= ? GROUP BY route`, keyID, sinceMs)
	if err != nil {
		return nil, fmt.Errorf("sqlite: usage summary: %w", err)
	}
	defer rows.Close()
	out, err := storage.ScanCounts(rows)
	if err != nil {
		return nil, fmt.Errorf("sqlite: usage summary: %w", err)
	}
	return out, nil
}
