package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/assetd/assetd/internal/apikey"
	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/storage/codec"
	"github.com/jackc/pgx/v5"
)

// ListKeys implements apikey.Lister.
func (s *Store) ListKeys(ctx context.Context) ([]apikey.Key, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+codec.KeyColumns+` FROM api_keys k JOIN projects p ON p.id = k.project_id
		ORDER BY k.created_at, k.id`)
	if err != nil {
		return nil, fmt.Errorf("postgres: list keys: %w", err)
	}
	defer rows.Close()
	var out []apikey.Key
	for rows.Next() {
		k, err := codec.ScanKey(rows)
		if err != nil {
			return nil, fmt.Errorf("postgres: list keys: %w", err)
		}
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: list keys: %w", err)
	}
	return out, nil
}

// GetKey implements apikey.Store.
func (s *Store) GetKey(ctx context.Context, id string) (apikey.Key, error) {
	k, err := codec.ScanKey(s.pool.QueryRow(ctx, `SELECT `+codec.KeyColumns+` FROM api_keys k JOIN projects p ON p.id = k.project_id
		WHERE k.id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return k, fmt.Errorf("postgres: key %s: %w", id, storage.ErrNotFound)
	}
	if err != nil {
		return k, fmt.Errorf("postgres: key %s: %w", id, err)
	}
	return k, nil
}

// CreateKey implements apikey.Store.
func (s *Store) CreateKey(ctx context.Context, project string, k apikey.Key) (apikey.Key, error) {
	err := s.withTx(ctx, func(tx pgx.Tx) error {
		pid, err := ensureProject(ctx, tx, project, k.CreatedAt)
		if err != nil {
			return err
		}
		k.ProjectID, k.Project = pid, project
		if err := insertKey(ctx, tx, k); err != nil {
			return err
		}
		return bump(ctx, tx, storage.TopicKeys)
	})
	if err != nil {
		return k, fmt.Errorf("postgres: create key for %q: %w", project, err)
	}
	return k, nil
}

// ensureProject returns the id of the project named name, creating it.
// Under READ COMMITTED a concurrent creator of the same name waits on the
// unique index, then skips its insert; the SELECT, a new statement, sees
// the winner's committed row.
func ensureProject(ctx context.Context, tx pgx.Tx, name string, now time.Time) (string, error) {
	if _, err := tx.Exec(ctx, `INSERT INTO projects(id, name, created_at) VALUES ($1, $2, $3)
		ON CONFLICT (name) DO NOTHING`, apikey.NewID("prj_"), name, storage.Ms(now)); err != nil {
		return "", err
	}
	var id string
	err := tx.QueryRow(ctx, `SELECT id FROM projects WHERE name = $1`, name).Scan(&id)
	return id, err
}

func insertKey(ctx context.Context, tx pgx.Tx, k apikey.Key) error {
	_, err := tx.Exec(ctx, `INSERT INTO api_keys(id, project_id, key_hash, scopes, rate_requests, rate_window_ms,
		quota_per_month, created_at, name) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		k.ID, k.ProjectID, k.Hash, storage.JoinList(k.Scopes), k.Limits.RateRequests, k.Limits.RateWindow.Milliseconds(),
		k.Limits.QuotaPerMonth, storage.Ms(k.CreatedAt), k.Name)
	if isUniqueViolation(err) {
		return fmt.Errorf("%w: %w", storage.ErrConflict, err)
	}
	return err
}

// RevokeKey implements apikey.Store.
func (s *Store) RevokeKey(ctx context.Context, id string, at time.Time) error {
	err := s.withTx(ctx, func(tx pgx.Tx) error {
		if err := revoke(ctx, tx, id, at); err != nil {
			return err
		}
		return bump(ctx, tx, storage.TopicKeys)
	})
	if err != nil {
		return fmt.Errorf("postgres: revoke key %s: %w", id, err)
	}
	return nil
}

// revoke sets revoked_at unless already set: the first revocation wins.
func revoke(ctx context.Context, tx pgx.Tx, id string, at time.Time) error {
	tag, err := tx.Exec(ctx, `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $1) WHERE id = $2`, storage.Ms(at), id)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return storage.ErrNotFound
	}
	return nil
}

// RotateKey implements apikey.Store.
func (s *Store) RotateKey(ctx context.Context, old string, next apikey.Key, at time.Time) error {
	err := s.withTx(ctx, func(tx pgx.Tx) error {
		if err := revoke(ctx, tx, old, at); err != nil {
			return err
		}
		if err := insertKey(ctx, tx, next); err != nil {
			return err
		}
		return bump(ctx, tx, storage.TopicKeys)
	})
	if err != nil {
		return fmt.Errorf("postgres: rotate key %s: %w", old, err)
	}
	return nil
}

// SetKeyLimits implements apikey.Store.
func (s *Store) SetKeyLimits(ctx context.Context, id string, l apikey.Limits) error {
	return s.updateKey(ctx, "limits", `UPDATE api_keys SET rate_requests = $1, rate_window_ms = $2, quota_per_month = $3 WHERE id = $4`,
		l.RateRequests, l.RateWindow.Milliseconds(), l.QuotaPerMonth, id)
}

// SetKeyScopes implements apikey.Store: it replaces a key's scopes.
func (s *Store) SetKeyScopes(ctx context.Context, id string, scopes []string) error {
	return s.updateKey(ctx, "scopes", `UPDATE api_keys SET scopes = $1 WHERE id = $2`, storage.JoinList(scopes), id)
}

// SetKeyName implements apikey.Store: it replaces a key's display name.
func (s *Store) SetKeyName(ctx context.Context, id, name string) error {
	return s.updateKey(ctx, "name", `UPDATE api_keys SET name = $1 WHERE id = $2`, name, id)
}

// updateKey runs one UPDATE of a key's row (its last argument the id)
// and announces the key change; what names the change in the error.
func (s *Store) updateKey(ctx context.Context, what, query string, args ...any) error {
	id := args[len(args)-1]
	err := s.withTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, query, args...)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return storage.ErrNotFound
		}
		return bump(ctx, tx, storage.TopicKeys)
	})
	if err != nil {
		return fmt.Errorf("postgres: set %s of key %s: %w", what, id, err)
	}
	return nil
}
