package sqlite

import (
	"context"
	"fmt"
	"strings"
)

// signatureChunk bounds the parameters of one lookup (SQLite's default
// limit is 32766).
const signatureChunk = 500

// StoredSignatures reports which of sigs are stored trades (the dedupe the
// trade stream's publisher applies past the stream's own window).
func (s *Store) StoredSignatures(ctx context.Context, sigs []string) (map[string]bool, error) {
	out := make(map[string]bool)
	for len(sigs) > 0 {
		n := min(len(sigs), signatureChunk)
		args := make([]any, n)
		for i := range n {
			args[i] = sigs[i]
		}
		q := `SELECT signature FROM trades WHERE signature IN (?` + strings.Repeat(",?", n-1) + `)`
		if err := s.collectSignatures(ctx, q, args, out); err != nil {
			return nil, fmt.Errorf("sqlite: stored signatures: %w", err)
		}
		sigs = sigs[n:]
	}
	return out, nil
}

func (s *Store) collectSignatures(ctx context.Context, q string, args []any, out map[string]bool) error {
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var sig string
		if err := rows.Scan(&sig); err != nil {
			return err
		}
		out[sig] = true
	}
	return rows.Err()
}
