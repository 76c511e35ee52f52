package postgres

import (
	"context"
	"fmt"

	"github.com/assetd/assetd/internal/storage"
	"github.com/jackc/pgx/v5"
)

// PutMintFacts implements onchain.Store: the current reads replace the
// stored ones and the changes are appended, in one transaction that bumps
// storage.TopicMintFacts.
func (s *Store) PutMintFacts(ctx context.Context, rows []storage.MintFacts, changes []storage.MintChange) error {
	err := s.withTx(ctx, func(tx pgx.Tx) error {
		for _, r := range rows {
			f := r.Facts
			if f == nil {
				f = []byte{}
			}
			if _, err := tx.Exec(ctx, `INSERT INTO mint_facts(mint, status, slot, read_at, facts) VALUES ($1, $2, $3, $4, $5)
				ON CONFLICT (mint) DO UPDATE SET status = excluded.status, slot = excluded.slot, read_at = excluded.read_at, facts = excluded.facts`,
				r.Mint, r.Status, r.Slot, r.ReadAt, f); err != nil {
				return err
			}
		}
		for _, c := range changes {
			if _, err := tx.Exec(ctx, `INSERT INTO mint_changes(mint, field, old, new, slot, at, source) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
				c.Mint, c.Field, c.Old, c.New, c.Slot, c.At, c.Source); err != nil {
				return err
			}
		}
		return bump(ctx, tx, storage.TopicMintFacts)
	})
	if err != nil {
		return fmt.Errorf("postgres: put mint facts: %w", err)
	}
	return nil
}

// ListMintFacts implements onchain.Store.
func (s *Store) ListMintFacts(ctx context.Context) ([]storage.MintFacts, error) {
	rows, err := s.pool.Query(ctx, `SELECT mint, status, slot, read_at, facts FROM mint_facts ORDER BY mint`)
	if err != nil {
		return nil, fmt.Errorf("postgres: list mint facts: %w", err)
	}
	defer rows.Close()
	out, err := storage.ScanMintFacts(rows)
	if err != nil {
		return nil, fmt.Errorf("postgres: list mint facts: %w", err)
	}
	return out, nil
}

// MintChanges implements onchain.Store (see the SQLite engine).
func (s *Store) MintChanges(ctx context.Context, mints []string, since, before int64, limit int) ([]storage.MintChange, error) {
	q := `SELECT seq, mint, field, old, new, slot, at, source FROM mint_changes WHERE at >= $1 AND ($2 = 0 OR seq < $2)`
	args := []any{since, before}
	if len(mints) > 0 {
		q += ` AND mint = ANY($4)`
	} else {
		q += ` AND $4::text[] IS NULL`
	}
	q += ` ORDER BY seq DESC LIMIT $3`
	var arr []string
	if len(mints) > 0 {
		arr = mints
	}
	args = append(args, limit, arr)
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: mint changes: %w", err)
	}
	defer rows.Close()
	out, err := storage.ScanMintChanges(rows)
	if err != nil {
		return nil, fmt.Errorf("postgres: mint changes: %w", err)
	}
	return out, nil
}
