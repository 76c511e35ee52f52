package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/assetd/assetd/internal/session"
	"github.com/assetd/assetd/internal/storage"
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
