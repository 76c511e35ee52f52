package postgres

import (
	"context"
	"fmt"
)

// StoredSignatures reports which of sigs are stored trades (the dedupe the
// trade stream's publisher applies past the stream's own window).
func (s *Store) StoredSignatures(ctx context.Context, sigs []string) (map[string]bool, error) {
	out := make(map[string]bool)
	if len(sigs) == 0 {
		return out, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT signature FROM trades WHERE signature = ANY($1)`, sigs)
	if err != nil {
		return nil, fmt.Errorf("postgres: stored signatures: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var sig string
		if err := rows.Scan(&sig); err != nil {
			return nil, fmt.Errorf("postgres: stored signatures: %w", err)
		}
		out[sig] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: stored signatures: %w", err)
	}
	return out, nil
}
