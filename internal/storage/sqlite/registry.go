package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/klauspost/compress/zstd"

	"github.com/assetd/assetd/internal/storage"
)

// compressBodyAt is the body size from which a registry document is
// stored as a zstd frame (encoding "zstd"). Reading a value makes SQLite
// assemble it whole in memory that its allocator (modernc.org/memory)
// keeps for reuse and does not return: a 35 MB document of 150,000 assets
// stayed resident, outside the Go heap, for the life of the server.
// Compressed, the same document is about a tenth of that.
const compressBodyAt = 64 << 10

// encodeBody returns how to store a body and the bytes to store.
func encodeBody(body []byte) (encoding string, stored []byte, err error) {
	if len(body) < compressBodyAt {
		return "", body, nil
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	if err != nil {
		return "", nil, err
	}
	defer enc.Close()
	return "zstd", enc.EncodeAll(body, make([]byte, 0, len(body)/4)), nil
}

// decodeBody returns the body stored with encoding.
func decodeBody(encoding string, stored []byte) ([]byte, error) {
	switch encoding {
	case "":
		return stored, nil
	case "zstd":
		dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxBody))
		if err != nil {
			return nil, err
		}
		defer dec.Close()
		return dec.DecodeAll(stored, nil)
	}
	return nil, fmt.Errorf("unknown body encoding %q", encoding)
}

// compressRegistryBodies stores as zstd frames the large bodies that an
// earlier version stored as imported. Reading each costs this process
// the retained memory once; later starts read the compressed form.
func (s *Store) compressRegistryBodies(ctx context.Context) error {
	return s.withTx(ctx, func(tx *sql.Tx) error {
		// length() of a blob reads no overflow pages.
		rows, err := tx.QueryContext(ctx, `SELECT seq FROM registry_documents WHERE encoding = '' AND length(body) >= ?`, compressBodyAt)
		if err != nil {
			return err
		}
		var seqs []int64
		for rows.Next() {
			var seq int64
			if err := rows.Scan(&seq); err != nil {
				rows.Close()
				return err
			}
			seqs = append(seqs, seq)
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return err
		}
		for _, seq := range seqs {
			var body []byte
			if err := tx.QueryRowContext(ctx, `SELECT body FROM registry_documents WHERE seq = ?`, seq).Scan(&body); err != nil {
				return err
			}
			encoding, stored, err := encodeBody(body)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `UPDATE registry_documents SET body = ?, encoding = ? WHERE seq = ?`, stored, encoding, seq); err != nil {
				return err
			}
		}
		return nil
	})
}

// maxBody bounds a decoded body (a frame that claims more is refused).
const maxBody = 1 << 30

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
		encoding, body, err := encodeBody(d.Body)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO registry_documents(source, format, body, encoding, hash, imported_at) VALUES (?, ?, ?, ?, ?, ?)`,
			d.Source, d.Format, body, encoding, d.Hash, d.ImportedAt); err != nil {
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
	rows, err := s.r.QueryContext(ctx, `SELECT seq, source, format, body, encoding, hash, imported_at FROM registry_documents ORDER BY seq`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list registry documents: %w", err)
	}
	defer rows.Close()
	var out []storage.RegistryDocument
	for rows.Next() {
		var d storage.RegistryDocument
		var encoding string
		if err := rows.Scan(&d.Seq, &d.Source, &d.Format, &d.Body, &encoding, &d.Hash, &d.ImportedAt); err != nil {
			return nil, fmt.Errorf("sqlite: list registry documents: %w", err)
		}
		if d.Body, err = decodeBody(encoding, d.Body); err != nil {
			return nil, fmt.Errorf("sqlite: registry document %q: %w", d.Source, err)
		}
		out = append(out, d)
	}
	return out, rows.Err()
}
