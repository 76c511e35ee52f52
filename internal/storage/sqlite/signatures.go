package sqlite

import (
	"context"
	"fmt"
	"strings"

	"github.com/assetd/assetd/internal/analytics"
)

// signatureChunk bounds the parameters of one lookup (SQLite's default
// limit is 32766).
const signatureChunk = 500

// StoredTradeIDs reports which of ids are stored trades (the dedupe the
// trade stream's publisher applies past the stream's own window).
func (s *Store) StoredTradeIDs(ctx context.Context, ids []analytics.TradeID) (map[analytics.TradeID]bool, error) {
	out := make(map[analytics.TradeID]bool)
	want := make(map[analytics.TradeID]bool, len(ids))
	var sigs []string
	for _, id := range ids {
		if !want[id] {
			want[id] = true
			sigs = append(sigs, id.Signature)
		}
	}
	for len(sigs) > 0 {
		n := min(len(sigs), signatureChunk)
		args := make([]any, n)
		for i := range n {
			args[i] = sigs[i]
		}
		q := `SELECT signature, leg FROM trades WHERE signature IN (?` + strings.Repeat(",?", n-1) + `)`
		if err := s.collectTradeIDs(ctx, q, args, want, out); err != nil {
			return nil, fmt.Errorf("sqlite: stored trade ids: %w", err)
		}
		sigs = sigs[n:]
	}
	return out, nil
}

func (s *Store) collectTradeIDs(ctx context.Context, q string, args []any, want, out map[analytics.TradeID]bool) error {
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id analytics.TradeID
		if err := rows.Scan(&id.Signature, &id.Leg); err != nil {
			return err
		}
		if want[id] {
			out[id] = true
		}
	}
	return rows.Err()
}
