package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/assetd/assetd/internal/session"
	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/storage/codec"
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
	ss, err := codec.ScanSession(s.pool.QueryRow(ctx, `SELECT `+codec.SessionColumns+` FROM sessions WHERE token_hash = $1`, hash))
	if errors.Is(err, pgx.ErrNoRows) {
		return ss, fmt.Errorf("postgres: session: %w", storage.ErrNotFound)
	}
	if err != nil {
		return ss, fmt.Errorf("postgres: session: %w", err)
	}
	return ss, nil
}

// RevokeSession implements session.Store.
func (s *Store) RevokeSession(ctx context.Context, id string, at time.Time) error {
	tag, err := s.pool.Exec(ctx, `UPDATE sessions SET revoked_at = COALESCE(revoked_at, $1) WHERE id = $2`, storage.Ms(at), id)
	if err != nil {
		return fmt.Errorf("postgres: revoke session %s: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("postgres: revoke session %s: %w", id, storage.ErrNotFound)
	}
	return nil
}

// ListSessions implements session.Store.
func (s *Store) ListSessions(ctx context.Context, userID string) ([]session.Session, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+codec.SessionColumns+` FROM sessions
		WHERE $1 = '' OR user_id = $1 ORDER BY created_at DESC, id`, userID)
	if err != nil {
		return nil, fmt.Errorf("postgres: list sessions: %w", err)
	}
	defer rows.Close()
	out, err := codec.ScanSessions(rows)
	if err != nil {
		return nil, fmt.Errorf("postgres: list sessions: %w", err)
	}
	return out, nil
}
