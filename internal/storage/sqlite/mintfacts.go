package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/assetd/assetd/internal/storage"
)

// PutMintFacts implements onchain.Store: the current reads replace the
// stored ones and the changes are appended, in one transaction that bumps
// storage.TopicMintFacts.
func (s *Store) PutMintFacts(ctx context.Context, rows []storage.MintFacts, changes []storage.MintChange) error {
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		for _, r := range rows {
			if _, err := tx.ExecContext(ctx, `INSERT INTO mint_facts(mint, status, slot, read_at, facts) VALUES (?, ?, ?, ?, ?)
				ON CONFLICT(mint) DO UPDATE SET status = excluded.status, slot = excluded.slot, read_at = excluded.read_at, facts = excluded.facts`,
				r.Mint, r.Status, r.Slot, r.ReadAt, nonNil(r.Facts)); err != nil {
				return err
			}
		}
		for _, c := range changes {
			if _, err := tx.ExecContext(ctx, `INSERT INTO mint_changes(mint, field, old, new, slot, at, source) VALUES (?, ?, ?, ?, ?, ?, ?)`,
				c.Mint, c.Field, c.Old, c.New, c.Slot, c.At, c.Source); err != nil {
				return err
			}
		}
		return s.bump(ctx, tx, storage.TopicMintFacts)
	})
	if err != nil {
		return fmt.Errorf("sqlite: put mint facts: %w", err)
	}
	return nil
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// ListMintFacts implements onchain.Store.
func (s *Store) ListMintFacts(ctx context.Context) ([]storage.MintFacts, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT mint, status, slot, read_at, facts FROM mint_facts ORDER BY mint`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list mint facts: %w", err)
	}
	defer rows.Close()
	out, err := storage.ScanMintFacts(rows)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list mint facts: %w", err)
	}
	return out, nil
}

// MintChanges implements onchain.Store: the changes of the mints (all when
// empty) at or after since (unix ms) with Seq below before (0: no bound),
// newest first, at most limit.
func (s *Store) MintChanges(ctx context.Context, mints []string, since, before int64, limit int) ([]storage.MintChange, error) {
	q := `SELECT seq, mint, field, old, new, slot, at, source FROM mint_changes WHERE at >= ?`
	args := []any{since}
	if before > 0 {
		q += ` AND seq < ?`
		args = append(args, before)
	}
	if len(mints) > 0 {
		q += ` AND mint IN (?` + repeat(",?", len(mints)-1) + `)`
		for _, m := range mints {
			args = append(args, m)
		}
	}
	q += ` ORDER BY seq DESC LIMIT ?`
	args = append(args, limit)
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: mint changes: %w", err)
	}
	defer rows.Close()
	out, err := storage.ScanMintChanges(rows)
	if err != nil {
		return nil, fmt.Errorf("sqlite: mint changes: %w", err)
	}
	return out, nil
}

func repeat(s string, n int) string {
	out := ""
	for range n {
		out += s
	}
	return out
}
