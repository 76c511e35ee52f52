package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/assetd/assetd/internal/apikey"
	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/storage/codec"
)

// ListKeys implements apikey.Lister.
func (s *Store) ListKeys(ctx context.Context) ([]apikey.Key, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+codec.KeyColumns+` FROM api_keys k JOIN projects p ON p.id = k.project_id
		ORDER BY k.created_at, k.id`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list keys: %w", err)
	}
	defer rows.Close()
	var out []apikey.Key
	for rows.Next() {
		k, err := codec.ScanKey(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite: list keys: %w", err)
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// GetKey implements apikey.Store.
func (s *Store) GetKey(ctx context.Context, id string) (apikey.Key, error) {
	k, err := codec.ScanKey(s.r.QueryRowContext(ctx, `SELECT `+codec.KeyColumns+` FROM api_keys k JOIN projects p ON p.id = k.project_id
		WHERE k.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return k, fmt.Errorf("sqlite: key %s: %w", id, storage.ErrNotFound)
	}
	if err != nil {
		return k, fmt.Errorf("sqlite: key %s: %w", id, err)
	}
	return k, nil
}

// CreateKey implements apikey.Store.
func (s *Store) CreateKey(ctx context.Context, project string, k apikey.Key) (apikey.Key, error) {
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		pid, err := ensureProject(ctx, tx, project, k.CreatedAt)
		if err != nil {
			return err
		}
		k.ProjectID, k.Project = pid, project
		if err := insertKey(ctx, tx, k); err != nil {
			return err
		}
		return s.bump(ctx, tx, storage.TopicKeys)
	})
	if err != nil {
		return k, fmt.Errorf("sqlite: create key for %q: %w", project, err)
	}
	return k, nil
}

func ensureProject(ctx context.Context, tx *sql.Tx, name string, now time.Time) (string, error) {
	var id string
	err := tx.QueryRowContext(ctx, `SELECT id FROM projects WHERE name = ?`, name).Scan(&id)
	if err == nil {
		return id, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return "", err
	}
	id = apikey.NewID("prj_")
	_, err = tx.ExecContext(ctx, `INSERT INTO projects(id, name, created_at) VALUES (?, ?, ?)`, id, name, storage.Ms(now))
	return id, err
}

func insertKey(ctx context.Context, tx *sql.Tx, k apikey.Key) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO api_keys(id, project_id, key_hash, scopes, rate_requests, rate_window_ms,
		quota_per_month, created_at, name) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		k.ID, k.ProjectID, k.Hash, storage.JoinList(k.Scopes), k.Limits.RateRequests, k.Limits.RateWindow.Milliseconds(),
		k.Limits.QuotaPerMonth, storage.Ms(k.CreatedAt), k.Name)
	if err != nil && strings.Contains(err.Error(), "UNIQUE") {
		return fmt.Errorf("%w: %v", storage.ErrConflict, err)
	}
	return err
}

// RevokeKey implements apikey.Store.
func (s *Store) RevokeKey(ctx context.Context, id string, at time.Time) error {
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		if err := revoke(ctx, tx, id, at); err != nil {
			return err
		}
		return s.bump(ctx, tx, storage.TopicKeys)
	})
	if err != nil {
		return fmt.Errorf("sqlite: revoke key %s: %w", id, err)
	}
	return nil
}

func revoke(ctx context.Context, tx *sql.Tx, id string, at time.Time) error {
	res, err := tx.ExecContext(ctx, `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?`, storage.Ms(at), id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return storage.ErrNotFound
	}
	return nil
}

// RotateKey implements apikey.Store.
func (s *Store) RotateKey(ctx context.Context, old string, next apikey.Key, at time.Time) error {
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		if err := revoke(ctx, tx, old, at); err != nil {
			return err
		}
		if err := insertKey(ctx, tx, next); err != nil {
			return err
		}
		return s.bump(ctx, tx, storage.TopicKeys)
	})
	if err != nil {
		return fmt.Errorf("sqlite: rotate key %s: %w", old, err)
	}
	return nil
}

// SetKeyLimits implements apikey.Store.
func (s *Store) SetKeyLimits(ctx context.Context, id string, l apikey.Limits) error {
	return s.updateKey(ctx, "limits", `UPDATE api_keys SET rate_requests = ?, rate_window_ms = ?, quota_per_month = ? WHERE id = ?`,
		l.RateRequests, l.RateWindow.Milliseconds(), l.QuotaPerMonth, id)
}

// SetKeyScopes implements apikey.Store: it replaces a key's scopes.
func (s *Store) SetKeyScopes(ctx context.Context, id string, scopes []string) error {
	return s.updateKey(ctx, "scopes", `UPDATE api_keys SET scopes = ? WHERE id = ?`, storage.JoinList(scopes), id)
}

// SetKeyName implements apikey.Store: it replaces a key's display name.
func (s *Store) SetKeyName(ctx context.Context, id, name string) error {
	return s.updateKey(ctx, "name", `UPDATE api_keys SET name = ? WHERE id = ?`, name, id)
}

// updateKey runs one UPDATE of a key's row (its last argument the id)
// and announces the key change; what names the change in the error.
func (s *Store) updateKey(ctx context.Context, what, query string, args ...any) error {
	id := args[len(args)-1]
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, query, args...)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return storage.ErrNotFound
		}
		return s.bump(ctx, tx, storage.TopicKeys)
	})
	if err != nil {
		return fmt.Errorf("sqlite: set %s of key %s: %w", what, id, err)
	}
	return nil
}
