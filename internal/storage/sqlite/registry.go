package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/assetd/assetd/internal/storage"
)

// PutRegistryDocument stores d under its source, replacing an earlier
// import of the same source (which then moves to the end of the overlay
// order). It reports false, and writes nothing, when the stored body of
// that source already has the same hash.
func (s *Store) PutRegistryDocument(ctx context.Context, d storage.RegistryDocument) (bool, error) {
	changed := false
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		var hash string
		err := tx.QueryRowContext(ctx, `SELECT hash FROM registry_documents WHERE source = ?`, d.Source).Scan(&hash)
		if err == nil && hash == d.Hash {
			return nil
		}
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM registry_documents WHERE source = ?`, d.Source); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO registry_documents(source, format, body, hash, imported_at) VALUES (?, ?, ?, ?, ?)`,
			d.Source, d.Format, d.Body, d.Hash, d.ImportedAt); err != nil {
			return err
		}
		changed = true
		return s.bump(ctx, tx, storage.TopicRegistry)
	})
	if err != nil {
		return false, fmt.Errorf("sqlite: put registry document %q: %w", d.Source, err)
	}
	return changed, nil
}

// DeleteRegistryDocument removes an imported source.
func (s *Store) DeleteRegistryDocument(ctx context.Context, source string) error {
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM registry_documents WHERE source = ?`, source)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return storage.ErrNotFound
		}
		return s.bump(ctx, tx, storage.TopicRegistry)
	})
	if err != nil {
		return fmt.Errorf("sqlite: delete registry document %q: %w", source, err)
	}
	return nil
}

// ListRegistryDocuments returns every imported document in overlay order.
func (s *Store) ListRegistryDocuments(ctx context.Context) ([]storage.RegistryDocument, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT seq, source, format, body, hash, imported_at FROM registry_documents ORDER BY seq`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list registry documents: %w", err)
	}
	defer rows.Close()
	var out []storage.RegistryDocument
	for rows.Next() {
		var d storage.RegistryDocument
		if err := rows.Scan(&d.Seq, &d.Source, &d.Format, &d.Body, &d.Hash, &d.ImportedAt); err != nil {
			return nil, fmt.Errorf("sqlite: list registry documents: %w", err)
		}
		out = append(out, d)
	}
	return out, rows.Err()
}
