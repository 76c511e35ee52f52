package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/assetd/assetd/internal/events"
	"github.com/jackc/pgx/v5"
)

// AppendEvents implements events.Store: one transaction that locks
// event_log_head first (SELECT ... FOR UPDATE, held until commit, so
// concurrent appenders are serialized and ids commit in order), skips
// events whose dedupe key was appended at or after dedupeSince, and
// returns the stored events, IDs assigned.
func (s *Store) AppendEvents(ctx context.Context, evs []events.Event, dedupeSince time.Time) ([]events.Event, error) {
	var out []events.Event
	err := s.withRetryTx(ctx, func(tx pgx.Tx) error {
		out = out[:0]
		{
			var last int64
			if err := tx.QueryRow(ctx, `SELECT last_id FROM event_log_head WHERE id = 1 FOR UPDATE`).Scan(&last); err != nil {
				return fmt.Errorf("event head: %w", err)
			}
			for _, e := range evs {
				if e.Key != "" {
					var dup bool
					if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM events WHERE dedupe_key = $1 AND at_ms >= $2)`,
						e.Key, dedupeSince.UnixMilli()).Scan(&dup); err != nil {
						return fmt.Errorf("event dedupe: %w", err)
					}
					if dup {
						continue
					}
				}
				last++
				e.ID = uint64(last)
				if _, err := tx.Exec(ctx, `INSERT INTO events(id, type, topic, at_ms, dedupe_key, data) VALUES ($1, $2, $3, $4, $5, $6)`,
					last, e.Type, e.Topic, e.Time.UnixMilli(), e.Key, string(e.Data)); err != nil {
					return fmt.Errorf("insert event: %w", err)
				}
				out = append(out, e)
			}
			_, err := tx.Exec(ctx, `UPDATE event_log_head SET last_id = $1 WHERE id = 1`, last)
			return err
		}
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: append events: %w", err)
	}
	return out, nil
}

// EventsSince implements events.Store: up to limit events with id > after,
// oldest first.
func (s *Store) EventsSince(ctx context.Context, after uint64, limit int) ([]events.Event, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, type, topic, at_ms, dedupe_key, data FROM events WHERE id > $1 ORDER BY id LIMIT $2`, int64(after), limit)
	if err != nil {
		return nil, fmt.Errorf("postgres: events since %d: %w", after, err)
	}
	defer rows.Close()
	var out []events.Event
	for rows.Next() {
		var e events.Event
		var id, ms int64
		var data string
		if err := rows.Scan(&id, &e.Type, &e.Topic, &ms, &e.Key, &data); err != nil {
			return nil, fmt.Errorf("postgres: scan event: %w", err)
		}
		e.ID = uint64(id)
		e.Time = time.UnixMilli(ms).UTC()
		e.Data = []byte(data)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: events since %d: %w", after, err)
	}
	return out, nil
}

// EventHead implements events.Store: the last id ever assigned.
func (s *Store) EventHead(ctx context.Context) (uint64, error) {
	var last int64
	if err := s.pool.QueryRow(ctx, `SELECT last_id FROM event_log_head WHERE id = 1`).Scan(&last); err != nil {
		return 0, fmt.Errorf("postgres: event head: %w", err)
	}
	return uint64(last), nil
}

// PruneEvents implements events.Store: deletes the events appended before
// `before` and all but the newest keep.
func (s *Store) PruneEvents(ctx context.Context, before time.Time, keep int) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM events WHERE at_ms < $1 OR id <= (SELECT last_id FROM event_log_head WHERE id = 1) - $2`,
		before.UnixMilli(), keep)
	if err != nil {
		return 0, fmt.Errorf("postgres: prune events: %w", err)
	}
	return tag.RowsAffected(), nil
}
