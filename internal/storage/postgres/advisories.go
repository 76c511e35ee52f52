package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/lists"
	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/storage/codec"
	"github.com/jackc/pgx/v5"
)

// SetAdvisory implements lists.AdvisoryStore.
func (s *Store) SetAdvisory(ctx context.Context, a lists.Advisory) (lists.Advisory, error) {
	var out lists.Advisory
	err := s.withTx(ctx, func(tx pgx.Tx) error {
		var err error
		// Assignments see the old row, so since compares the old status.
		out, err = codec.ScanAdvisory(tx.QueryRow(ctx, `INSERT INTO asset_advisories(`+codec.AdvisoryColumns+`)
			VALUES ($1, $2, $3, $4, $5, $6, $7)
			ON CONFLICT (mint) DO UPDATE SET
				since = CASE WHEN asset_advisories.status = excluded.status THEN asset_advisories.since ELSE excluded.since END,
				status = excluded.status, reason = excluded.reason, url = excluded.url,
				set_by = excluded.set_by, updated_at = excluded.updated_at
			RETURNING `+codec.AdvisoryColumns, a.Mint, a.Status, a.Reason, a.URL, a.Since, a.SetBy, a.UpdatedAt))
		if err != nil {
			return err
		}
		return bump(ctx, tx, storage.TopicAdvisories)
	})
	if err != nil {
		return lists.Advisory{}, fmt.Errorf("postgres: set advisory %s: %w", a.Mint, err)
	}
	return out, nil
}

// ClearAdvisory implements lists.AdvisoryStore.
func (s *Store) ClearAdvisory(ctx context.Context, mint string) error {
	err := s.withTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM asset_advisories WHERE mint = $1`, mint)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return storage.ErrNotFound
		}
		return bump(ctx, tx, storage.TopicAdvisories)
	})
	if err != nil {
		return fmt.Errorf("postgres: clear advisory %s: %w", mint, err)
	}
	return nil
}

// GetAdvisory implements lists.AdvisoryStore.
func (s *Store) GetAdvisory(ctx context.Context, mint string) (lists.Advisory, error) {
	a, err := codec.ScanAdvisory(s.pool.QueryRow(ctx, `SELECT `+codec.AdvisoryColumns+` FROM asset_advisories WHERE mint = $1`, mint))
	if errors.Is(err, pgx.ErrNoRows) {
		err = storage.ErrNotFound
	}
	if err != nil {
		return lists.Advisory{}, fmt.Errorf("postgres: advisory %s: %w", mint, err)
	}
	return a, nil
}

// ListAdvisories implements lists.AdvisoryStore.
func (s *Store) ListAdvisories(ctx context.Context) ([]lists.Advisory, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+codec.AdvisoryColumns+` FROM asset_advisories ORDER BY mint`)
	if err != nil {
		return nil, fmt.Errorf("postgres: list advisories: %w", err)
	}
	defer rows.Close()
	out, err := codec.ScanAdvisories(rows)
	if err != nil {
		return nil, fmt.Errorf("postgres: list advisories: %w", err)
	}
	return out, nil
}

// AdvisorySnapshot implements lists.AdvisoryStore.
func (s *Store) AdvisorySnapshot(ctx context.Context) (map[string]asset.Advisory, error) {
	return codec.AdvisorySnapshot(ctx, s.ListAdvisories)
}
