package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/assetd/assetd/internal/events"
)

// AppendEvents implements events.Store: one transaction that takes the
// next IDs from event_log_head (serializing appends, so ids commit in
// order), skips events whose dedupe key was appended at or after
// dedupeSince, and returns the stored events, IDs assigned.
func (s *Store) AppendEvents(ctx context.Context, evs []events.Event, dedupeSince time.Time) ([]events.Event, error) {
	var out []events.Event
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		out = out[:0]
		var last uint64
		if err := tx.QueryRowContext(ctx, `UPDATE event_log_head SET last_id = last_id WHERE id = 1 RETURNING last_id`).Scan(&last); err != nil {
			return fmt.Errorf("event head: %w", err)
		}
		for _, e := range evs {
			if e.Key != "" {
				var n int
				if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM events WHERE dedupe_key = ? AND at_ms >= ?`,
					e.Key, dedupeSince.UnixMilli()).Scan(&n); err != nil {
					return fmt.Errorf("event dedupe: %w", err)
				}
				if n > 0 {
					continue
				}
			}
			last++
			e.ID = last
			if _, err := tx.ExecContext(ctx, `INSERT INTO events(id, type, topic, at_ms, dedupe_key, data) VALUES (?, ?, ?, ?, ?, ?)`,
				e.ID, e.Type, e.Topic, e.Time.UnixMilli(), e.Key, string(e.Data)); err != nil {
				return fmt.Errorf("insert event: %w", err)
			}
			out = append(out, e)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE event_log_head SET last_id = ? WHERE id = 1`, last); err != nil {
			return fmt.Errorf("event head: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite: append events: %w", err)
	}
	return out, nil
}

// EventsSince implements events.Store: up to limit events with id > after,
// oldest first.
func (s *Store) EventsSince(ctx context.Context, after uint64, limit int) ([]events.Event, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT id, type, topic, at_ms, dedupe_key, data FROM events WHERE id > ? ORDER BY id LIMIT ?`, after, limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite: events since %d: %w", after, err)
	}
	defer rows.Close()
	var out []events.Event
	for rows.Next() {
		var e events.Event
		var ms int64
		var data string
		if err := rows.Scan(&e.ID, &e.Type, &e.Topic, &ms, &e.Key, &data); err != nil {
			return nil, fmt.Errorf("sqlite: scan event: %w", err)
		}
		e.Time = time.UnixMilli(ms).UTC()
		e.Data = []byte(data)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: events since %d: %w", after, err)
	}
	return out, nil
}

// EventHead implements events.Store: the last id ever assigned.
func (s *Store) EventHead(ctx context.Context) (uint64, error) {
	var last uint64
	if err := s.r.QueryRowContext(ctx, `SELECT last_id FROM event_log_head WHERE id = 1`).Scan(&last); err != nil {
		return 0, fmt.Errorf("sqlite: event head: %w", err)
	}
	return last, nil
}

// PruneEvents implements events.Store: deletes the events appended before
// `before` and all but the newest keep.
func (s *Store) PruneEvents(ctx context.Context, before time.Time, keep int) (int64, error) {
	var n int64
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM events WHERE at_ms < ? OR id <= (SELECT last_id FROM event_log_head WHERE id = 1) - ?`,
			before.UnixMilli(), keep)
		if err != nil {
			return err
		}
		n, _ = res.RowsAffected()
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("sqlite: prune events: %w", err)
	}
	return n, nil
}
