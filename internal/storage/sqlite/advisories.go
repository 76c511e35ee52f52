package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/lists"
	"github.com/assetd/assetd/internal/storage"
)

const advisoryColumns = `mint, status, reason, url, since, set_by, updated_at`

func scanAdvisory(sc interface{ Scan(...any) error }) (lists.Advisory, error) {
	var a lists.Advisory
	err := sc.Scan(&a.Mint, &a.Status, &a.Reason, &a.URL, &a.Since, &a.SetBy, &a.UpdatedAt)
	return a, err
}

// SetAdvisory implements lists.AdvisoryStore.
func (s *Store) SetAdvisory(ctx context.Context, a lists.Advisory) (lists.Advisory, error) {
	var out lists.Advisory
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		var err error
		// Assignments see the old row, so since compares the old status.
		out, err = scanAdvisory(tx.QueryRowContext(ctx, `INSERT INTO asset_advisories(`+advisoryColumns+`)
			VALUES (?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT(mint) DO UPDATE SET
				since = CASE WHEN asset_advisories.status = excluded.status THEN asset_advisories.since ELSE excluded.since END,
				status = excluded.status, reason = excluded.reason, url = excluded.url,
				set_by = excluded.set_by, updated_at = excluded.updated_at
			RETURNING `+advisoryColumns, a.Mint, a.Status, a.Reason, a.URL, a.Since, a.SetBy, a.UpdatedAt))
		if err != nil {
			return err
		}
		return s.bump(ctx, tx, storage.TopicAdvisories)
	})
	if err != nil {
		return lists.Advisory{}, fmt.Errorf("sqlite: set advisory %s: %w", a.Mint, err)
	}
	return out, nil
}

// ClearAdvisory implements lists.AdvisoryStore.
func (s *Store) ClearAdvisory(ctx context.Context, mint string) error {
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM asset_advisories WHERE mint = ?`, mint)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return storage.ErrNotFound
		}
		return s.bump(ctx, tx, storage.TopicAdvisories)
	})
	if err != nil {
		return fmt.Errorf("sqlite: clear advisory %s: %w", mint, err)
	}
	return nil
}

// GetAdvisory implements lists.AdvisoryStore.
func (s *Store) GetAdvisory(ctx context.Context, mint string) (lists.Advisory, error) {
	a, err := scanAdvisory(s.r.QueryRowContext(ctx, `SELECT `+advisoryColumns+` FROM asset_advisories WHERE mint = ?`, mint))
	if errors.Is(err, sql.ErrNoRows) {
		err = storage.ErrNotFound
	}
	if err != nil {
		return lists.Advisory{}, fmt.Errorf("sqlite: advisory %s: %w", mint, err)
	}
	return a, nil
}

// ListAdvisories implements lists.AdvisoryStore.
func (s *Store) ListAdvisories(ctx context.Context) ([]lists.Advisory, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+advisoryColumns+` FROM asset_advisories ORDER BY mint`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list advisories: %w", err)
	}
	defer rows.Close()
	var out []lists.Advisory
	for rows.Next() {
		a, err := scanAdvisory(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite: list advisories: %w", err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: list advisories: %w", err)
	}
	return out, nil
}

// AdvisorySnapshot implements lists.AdvisoryStore.
func (s *Store) AdvisorySnapshot(ctx context.Context) (map[string]asset.Advisory, error) {
	all, err := s.ListAdvisories(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]asset.Advisory, len(all))
	for _, a := range all {
		out[a.Mint] = a.Advisory
	}
	return out, nil
}
