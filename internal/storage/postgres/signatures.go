package postgres

import (
	"context"
	"fmt"

	"github.com/assetd/assetd/internal/analytics"
)

// StoredTradeIDs reports which of ids are stored trades (the dedupe the
// trade stream's publisher applies past the stream's own window).
func (s *Store) StoredTradeIDs(ctx context.Context, ids []analytics.TradeID) (map[analytics.TradeID]bool, error) {
	out := make(map[analytics.TradeID]bool)
	if len(ids) == 0 {
		return out, nil
	}
	want := make(map[analytics.TradeID]bool, len(ids))
	sigs := make([]string, 0, len(ids))
	for _, id := range ids {
		if !want[id] {
			want[id] = true
			sigs = append(sigs, id.Signature)
		}
	}
	rows, err := s.pool.Query(ctx, `SELECT signature, leg FROM trades WHERE signature = ANY($1)`, sigs)
	if err != nil {
		return nil, fmt.Errorf("postgres: stored trade ids: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id analytics.TradeID
		if err := rows.Scan(&id.Signature, &id.Leg); err != nil {
			return nil, fmt.Errorf("postgres: stored trade ids: %w", err)
		}
		if want[id] {
			out[id] = true
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: stored trade ids: %w", err)
	}
	return out, nil
}
