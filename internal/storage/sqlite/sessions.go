package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/assetd/assetd/internal/session"
	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/storage/codec"
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
	ss, err := codec.ScanSession(s.r.QueryRowContext(ctx, `SELECT `+codec.SessionColumns+` FROM sessions WHERE token_hash = ?`, hash))
	if errors.Is(err, sql.ErrNoRows) {
		return ss, fmt.Errorf("sqlite: session: %w", storage.ErrNotFound)
	}
	if err != nil {
		return ss, fmt.Errorf("sqlite: session: %w", err)
	}
	return ss, nil
}

// RevokeSession implements session.Store.
func (s *Store) RevokeSession(ctx context.Context, id string, at time.Time) error {
	res, err := s.w.ExecContext(ctx, `UPDATE sessions SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?`, storage.Ms(at), id)
	if err != nil {
		return fmt.Errorf("sqlite: revoke session %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("sqlite: revoke session %s: %w", id, storage.ErrNotFound)
	}
	return nil
}

// ListSessions implements session.Store.
func (s *Store) ListSessions(ctx context.Context, userID string) ([]session.Session, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+codec.SessionColumns+` FROM sessions
		WHERE ? = '' OR user_id = ? ORDER BY created_at DESC, id`, userID, userID)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list sessions: %w", err)
	}
	defer rows.Close()
	out, err := codec.ScanSessions(rows)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list sessions: %w", err)
	}
	return out, nil
}
