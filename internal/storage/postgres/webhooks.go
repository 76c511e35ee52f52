package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/webhooks"
	"github.com/jackc/pgx/v5"
)

// Webhooks (migration 0021, internal/webhooks). Times are unix ms.

const webhookCols = `id, project_id, url, events, filters, secret, enabled, cross_state, created_at, updated_at`

func unixMS(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func fromUnixMS(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return time.UnixMilli(v).UTC()
}

func scanWebhook(sc interface{ Scan(...any) error }) (webhooks.Endpoint, error) {
	var e webhooks.Endpoint
	var events, filters string
	var created, updated int64
	if err := sc.Scan(&e.ID, &e.ProjectID, &e.URL, &events, &filters, &e.Secret, &e.Enabled, &e.CrossState, &created, &updated); err != nil {
		return e, err
	}
	if err := json.Unmarshal([]byte(events), &e.Events); err != nil {
		return e, fmt.Errorf("events: %w", err)
	}
	f, err := webhooks.DecodeFilters([]byte(filters))
	if err != nil {
		return e, fmt.Errorf("filters: %w", err)
	}
	e.Filters, e.CreatedAt, e.UpdatedAt = f, fromUnixMS(created), fromUnixMS(updated)
	return e, nil
}

func webhookDocs(e webhooks.Endpoint) (string, string, error) {
	ev, err := json.Marshal(e.Events)
	if err != nil {
		return "", "", err
	}
	f, err := json.Marshal(e.Filters)
	return string(ev), string(f), err
}

// CreateWebhook implements webhooks.Store.
func (s *Store) CreateWebhook(ctx context.Context, e webhooks.Endpoint) error {
	ev, f, err := webhookDocs(e)
	if err != nil {
		return fmt.Errorf("postgres: create webhook: %w", err)
	}
	err = s.withTx(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO webhooks(`+webhookCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
			e.ID, e.ProjectID, e.URL, ev, f, e.Secret, e.Enabled, e.CrossState, unixMS(e.CreatedAt), unixMS(e.UpdatedAt))
		return err
	})
	if err != nil {
		return fmt.Errorf("postgres: create webhook %s: %w", e.ID, err)
	}
	return nil
}

// Webhook implements webhooks.Store.
func (s *Store) Webhook(ctx context.Context, id string) (webhooks.Endpoint, error) {
	e, err := scanWebhook(s.pool.QueryRow(ctx, `SELECT `+webhookCols+` FROM webhooks WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return e, fmt.Errorf("postgres: webhook %s: %w", id, storage.ErrNotFound)
	}
	if err != nil {
		return e, fmt.Errorf("postgres: webhook %s: %w", id, err)
	}
	return e, nil
}

// Webhooks implements webhooks.Store.
func (s *Store) Webhooks(ctx context.Context, projectID string) ([]webhooks.Endpoint, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+webhookCols+` FROM webhooks WHERE $1::text = '' OR project_id = $2 ORDER BY created_at, id`, projectID, projectID)
	if err != nil {
		return nil, fmt.Errorf("postgres: webhooks of %q: %w", projectID, err)
	}
	defer rows.Close()
	out := []webhooks.Endpoint{}
	for rows.Next() {
		e, err := scanWebhook(rows)
		if err != nil {
			return nil, fmt.Errorf("postgres: webhooks of %q: %w", projectID, err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: webhooks of %q: %w", projectID, err)
	}
	return out, nil
}

// UpdateWebhook implements webhooks.Store.
func (s *Store) UpdateWebhook(ctx context.Context, e webhooks.Endpoint, resetCross bool) error {
	ev, f, err := webhookDocs(e)
	if err != nil {
		return fmt.Errorf("postgres: update webhook: %w", err)
	}
	err = s.withTx(ctx, func(tx pgx.Tx) error {
		res, err := tx.Exec(ctx, `UPDATE webhooks SET url = $1, events = $2, filters = $3, secret = $4, enabled = $5,
			cross_state = CASE WHEN $6::boolean THEN '' ELSE cross_state END, updated_at = $7 WHERE id = $8`,
			e.URL, ev, f, e.Secret, e.Enabled, resetCross, unixMS(e.UpdatedAt), e.ID)
		if err != nil {
			return err
		}
		if n := res.RowsAffected(); n == 0 {
			return storage.ErrNotFound
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("postgres: update webhook %s: %w", e.ID, err)
	}
	return nil
}

// DeleteWebhook implements webhooks.Store.
func (s *Store) DeleteWebhook(ctx context.Context, id string) error {
	err := s.withTx(ctx, func(tx pgx.Tx) error {
		res, err := tx.Exec(ctx, `DELETE FROM webhooks WHERE id = $1`, id)
		if err != nil {
			return err
		}
		if n := res.RowsAffected(); n == 0 {
			return storage.ErrNotFound
		}
		for _, q := range []string{`DELETE FROM webhook_deliveries WHERE webhook_id = $1`, `DELETE FROM webhook_attempts WHERE webhook_id = $1`,
			`DELETE FROM webhook_leases WHERE name = 'endpoint:' || $1::text`} {
			if _, err := tx.Exec(ctx, q, id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("postgres: delete webhook %s: %w", id, err)
	}
	return nil
}

const webhookCursorName = "dispatcher"

// WebhookCursor implements webhooks.Store.
func (s *Store) WebhookCursor(ctx context.Context) (uint64, bool, error) {
	var v int64
	err := s.pool.QueryRow(ctx, `SELECT event_id FROM webhook_cursor WHERE name = $1`, webhookCursorName).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("postgres: webhook cursor: %w", err)
	}
	return uint64(v), true, nil
}

// EnqueueWebhookDeliveries implements webhooks.Store.
func (s *Store) EnqueueWebhookDeliveries(ctx context.Context, cursor uint64, ds []webhooks.Delivery, crossStates map[string]string) error {
	err := s.withTx(ctx, func(tx pgx.Tx) error {
		for _, d := range ds {
			if _, err := tx.Exec(ctx, `INSERT INTO webhook_deliveries(id, webhook_id, event_id, event_type, payload, status, attempts, created_at, window_start, next_at, last_at)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT(id) DO NOTHING`,
				d.ID, d.EndpointID, int64(d.EventID), d.EventType, d.Payload, d.Status, d.Attempts, unixMS(d.CreatedAt), unixMS(d.WindowStart), unixMS(d.NextAt), unixMS(d.LastAt)); err != nil {
				return fmt.Errorf("delivery %s: %w", d.ID, err)
			}
		}
		for id, st := range crossStates {
			if _, err := tx.Exec(ctx, `UPDATE webhooks SET cross_state = $1 WHERE id = $2`, st, id); err != nil {
				return fmt.Errorf("cross state of %s: %w", id, err)
			}
		}
		_, err := tx.Exec(ctx, `INSERT INTO webhook_cursor(name, event_id) VALUES ($1, $2)
			ON CONFLICT(name) DO UPDATE SET event_id = excluded.event_id`, webhookCursorName, int64(cursor))
		return err
	})
	if err != nil {
		return fmt.Errorf("postgres: enqueue webhook deliveries through %d: %w", cursor, err)
	}
	return nil
}

// DueWebhookEndpoints implements webhooks.Store.
func (s *Store) DueWebhookEndpoints(ctx context.Context, now time.Time, limit int) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT d.webhook_id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
		WHERE d.status = 'pending' AND d.next_at <= $1 AND w.enabled GROUP BY d.webhook_id ORDER BY min(d.next_at), d.webhook_id LIMIT $2`, unixMS(now), limit)
	if err != nil {
		return nil, fmt.Errorf("postgres: due webhooks: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("postgres: due webhooks: %w", err)
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

const deliveryCols = `id, webhook_id, event_id, event_type, payload, status, attempts, created_at, window_start, next_at, last_at`

func scanDelivery(sc interface{ Scan(...any) error }) (webhooks.Delivery, error) {
	var d webhooks.Delivery
	var ev, created, window, next, last int64
	err := sc.Scan(&d.ID, &d.EndpointID, &ev, &d.EventType, &d.Payload, &d.Status, &d.Attempts, &created, &window, &next, &last)
	d.EventID = uint64(ev)
	d.CreatedAt, d.WindowStart, d.NextAt, d.LastAt = fromUnixMS(created), fromUnixMS(window), fromUnixMS(next), fromUnixMS(last)
	return d, err
}

// DueWebhookDeliveries implements webhooks.Store.
func (s *Store) DueWebhookDeliveries(ctx context.Context, endpointID string, now time.Time, limit int) ([]webhooks.Delivery, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+deliveryCols+` FROM webhook_deliveries
		WHERE webhook_id = $1 AND status = 'pending' AND next_at <= $2 ORDER BY created_at, event_id LIMIT $3`, endpointID, unixMS(now), limit)
	if err != nil {
		return nil, fmt.Errorf("postgres: due deliveries of %s: %w", endpointID, err)
	}
	defer rows.Close()
	var out []webhooks.Delivery
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return nil, fmt.Errorf("postgres: due deliveries of %s: %w", endpointID, err)
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// RecordWebhookAttempt implements webhooks.Store.
func (s *Store) RecordWebhookAttempt(ctx context.Context, d webhooks.Delivery, a webhooks.Attempt) error {
	err := s.withTx(ctx, func(tx pgx.Tx) error {
		res, err := tx.Exec(ctx, `UPDATE webhook_deliveries SET status = $1, attempts = $2, next_at = $3, last_at = $4 WHERE id = $5`,
			d.Status, d.Attempts, unixMS(d.NextAt), unixMS(d.LastAt), d.ID)
		if err != nil {
			return err
		}
		if n := res.RowsAffected(); n == 0 {
			return storage.ErrNotFound // the endpoint was deleted meanwhile
		}
		_, err = tx.Exec(ctx, `INSERT INTO webhook_attempts(delivery_id, webhook_id, event_id, event_type, attempt, at, outcome, latency_ms, response_code, error)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, a.DeliveryID, a.EndpointID, int64(a.EventID), a.EventType, a.Attempt, unixMS(a.At), a.Outcome, a.LatencyMS, a.ResponseCode, a.Error)
		return err
	})
	if err != nil {
		return fmt.Errorf("postgres: record webhook attempt of %s: %w", d.ID, err)
	}
	return nil
}

// WebhookDelivery implements webhooks.Store.
func (s *Store) WebhookDelivery(ctx context.Context, id string) (webhooks.Delivery, error) {
	d, err := scanDelivery(s.pool.QueryRow(ctx, `SELECT `+deliveryCols+` FROM webhook_deliveries WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return d, fmt.Errorf("postgres: webhook delivery %s: %w", id, storage.ErrNotFound)
	}
	if err != nil {
		return d, fmt.Errorf("postgres: webhook delivery %s: %w", id, err)
	}
	return d, nil
}

// WebhookAttempts implements webhooks.Store.
func (s *Store) WebhookAttempts(ctx context.Context, endpointID string, since time.Time, limit int) ([]webhooks.Attempt, error) {
	rows, err := s.pool.Query(ctx, `SELECT delivery_id, webhook_id, event_id, event_type, attempt, at, outcome, latency_ms, response_code, error
		FROM webhook_attempts WHERE webhook_id = $1 AND at >= $2 ORDER BY at DESC, id DESC LIMIT $3`, endpointID, unixMS(since), limit)
	if err != nil {
		return nil, fmt.Errorf("postgres: webhook attempts of %s: %w", endpointID, err)
	}
	defer rows.Close()
	out := []webhooks.Attempt{}
	for rows.Next() {
		var a webhooks.Attempt
		var ev, at int64
		if err := rows.Scan(&a.DeliveryID, &a.EndpointID, &ev, &a.EventType, &a.Attempt, &at, &a.Outcome, &a.LatencyMS, &a.ResponseCode, &a.Error); err != nil {
			return nil, fmt.Errorf("postgres: webhook attempts of %s: %w", endpointID, err)
		}
		a.EventID, a.At = uint64(ev), fromUnixMS(at)
		out = append(out, a)
	}
	return out, rows.Err()
}

// RedeliverWebhook implements webhooks.Store.
func (s *Store) RedeliverWebhook(ctx context.Context, id string, now time.Time) error {
	err := s.withTx(ctx, func(tx pgx.Tx) error {
		res, err := tx.Exec(ctx, `UPDATE webhook_deliveries SET status = 'pending', next_at = $1, window_start = $2 WHERE id = $3`, unixMS(now), unixMS(now), id)
		if err != nil {
			return err
		}
		if n := res.RowsAffected(); n == 0 {
			return storage.ErrNotFound
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("postgres: redeliver %s: %w", id, err)
	}
	return nil
}

// PruneWebhookLog implements webhooks.Store.
func (s *Store) PruneWebhookLog(ctx context.Context, before time.Time) (int64, error) {
	var n int64
	err := s.withTx(ctx, func(tx pgx.Tx) error {
		res, err := tx.Exec(ctx, `DELETE FROM webhook_attempts WHERE at < $1`, unixMS(before))
		if err != nil {
			return err
		}
		n = res.RowsAffected()
		_, err = tx.Exec(ctx, `DELETE FROM webhook_deliveries WHERE status <> 'pending' AND last_at < $1`, unixMS(before))
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("postgres: prune webhook log: %w", err)
	}
	return n, nil
}

// WebhookBacklog implements webhooks.Store.
func (s *Store) WebhookBacklog(ctx context.Context) (int64, error) {
	var n int64
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM webhook_deliveries WHERE status = 'pending'`).Scan(&n); err != nil {
		return 0, fmt.Errorf("postgres: webhook backlog: %w", err)
	}
	return n, nil
}

// AcquireWebhookLease implements webhooks.Store: one conditional upsert on
// the single writer.
func (s *Store) AcquireWebhookLease(ctx context.Context, name, holder string, now, until time.Time) (bool, error) {
	var held bool
	err := s.withTx(ctx, func(tx pgx.Tx) error {
		res, err := tx.Exec(ctx, `INSERT INTO webhook_leases(name, holder, expires_at) VALUES ($1, $2, $3)
			ON CONFLICT(name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
			WHERE webhook_leases.holder = excluded.holder OR webhook_leases.expires_at <= $4`, name, holder, unixMS(until), unixMS(now))
		if err != nil {
			return err
		}
		n := res.RowsAffected()
		held = n == 1
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("postgres: webhook lease %s: %w", name, err)
	}
	return held, nil
}

// ReleaseWebhookLease implements webhooks.Store.
func (s *Store) ReleaseWebhookLease(ctx context.Context, name, holder string) error {
	err := s.withTx(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `DELETE FROM webhook_leases WHERE name = $1 AND holder = $2`, name, holder)
		return err
	})
	if err != nil {
		return fmt.Errorf("postgres: release webhook lease %s: %w", name, err)
	}
	return nil
}
