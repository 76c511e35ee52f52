package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/webhooks"
)

// Webhooks (migration 0021, internal/webhooks). Times are unix ms.

const webhookCols = `id, project_id, url, events, filters, secret, enabled, cross_state, created_at, updated_at`

func ms(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func fromMS(v int64) time.Time {
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
	e.Filters, e.CreatedAt, e.UpdatedAt = f, fromMS(created), fromMS(updated)
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
		return fmt.Errorf("sqlite: create webhook: %w", err)
	}
	err = s.withTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO webhooks(`+webhookCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			e.ID, e.ProjectID, e.URL, ev, f, e.Secret, e.Enabled, e.CrossState, ms(e.CreatedAt), ms(e.UpdatedAt))
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: create webhook %s: %w", e.ID, err)
	}
	return nil
}

// Webhook implements webhooks.Store.
func (s *Store) Webhook(ctx context.Context, id string) (webhooks.Endpoint, error) {
	e, err := scanWebhook(s.r.QueryRowContext(ctx, `SELECT `+webhookCols+` FROM webhooks WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return e, fmt.Errorf("sqlite: webhook %s: %w", id, storage.ErrNotFound)
	}
	if err != nil {
		return e, fmt.Errorf("sqlite: webhook %s: %w", id, err)
	}
	return e, nil
}

// Webhooks implements webhooks.Store.
func (s *Store) Webhooks(ctx context.Context, projectID string) ([]webhooks.Endpoint, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+webhookCols+` FROM webhooks WHERE ? = '' OR project_id = ? ORDER BY created_at, id`, projectID, projectID)
	if err != nil {
		return nil, fmt.Errorf("sqlite: webhooks of %q: %w", projectID, err)
	}
	defer rows.Close()
	out := []webhooks.Endpoint{}
	for rows.Next() {
		e, err := scanWebhook(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite: webhooks of %q: %w", projectID, err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: webhooks of %q: %w", projectID, err)
	}
	return out, nil
}

// UpdateWebhook implements webhooks.Store.
func (s *Store) UpdateWebhook(ctx context.Context, e webhooks.Endpoint, resetCross bool) error {
	ev, f, err := webhookDocs(e)
	if err != nil {
		return fmt.Errorf("sqlite: update webhook: %w", err)
	}
	err = s.withTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE webhooks SET url = ?, events = ?, filters = ?, secret = ?, enabled = ?,
			cross_state = CASE WHEN ? THEN '' ELSE cross_state END, updated_at = ? WHERE id = ?`,
			e.URL, ev, f, e.Secret, e.Enabled, resetCross, ms(e.UpdatedAt), e.ID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return storage.ErrNotFound
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqlite: update webhook %s: %w", e.ID, err)
	}
	return nil
}

// DeleteWebhook implements webhooks.Store.
func (s *Store) DeleteWebhook(ctx context.Context, id string) error {
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM webhooks WHERE id = ?`, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return storage.ErrNotFound
		}
		for _, q := range []string{`DELETE FROM webhook_deliveries WHERE webhook_id = ?`, `DELETE FROM webhook_attempts WHERE webhook_id = ?`,
			`DELETE FROM webhook_leases WHERE name = 'endpoint:' || ?`} {
			if _, err := tx.ExecContext(ctx, q, id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqlite: delete webhook %s: %w", id, err)
	}
	return nil
}

const webhookCursorName = "dispatcher"

// WebhookCursor implements webhooks.Store.
func (s *Store) WebhookCursor(ctx context.Context) (uint64, bool, error) {
	var v int64
	err := s.r.QueryRowContext(ctx, `SELECT event_id FROM webhook_cursor WHERE name = ?`, webhookCursorName).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("sqlite: webhook cursor: %w", err)
	}
	return uint64(v), true, nil
}

// EnqueueWebhookDeliveries implements webhooks.Store.
func (s *Store) EnqueueWebhookDeliveries(ctx context.Context, cursor uint64, ds []webhooks.Delivery, crossStates map[string]string) error {
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		for _, d := range ds {
			if _, err := tx.ExecContext(ctx, `INSERT INTO webhook_deliveries(id, webhook_id, event_id, event_type, payload, status, attempts, created_at, window_start, next_at, last_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO NOTHING`,
				d.ID, d.EndpointID, int64(d.EventID), d.EventType, d.Payload, d.Status, d.Attempts, ms(d.CreatedAt), ms(d.WindowStart), ms(d.NextAt), ms(d.LastAt)); err != nil {
				return fmt.Errorf("delivery %s: %w", d.ID, err)
			}
		}
		for id, st := range crossStates {
			if _, err := tx.ExecContext(ctx, `UPDATE webhooks SET cross_state = ? WHERE id = ?`, st, id); err != nil {
				return fmt.Errorf("cross state of %s: %w", id, err)
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO webhook_cursor(name, event_id) VALUES (?, ?)
			ON CONFLICT(name) DO UPDATE SET event_id = excluded.event_id`, webhookCursorName, int64(cursor))
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: enqueue webhook deliveries through %d: %w", cursor, err)
	}
	return nil
}

// DueWebhookEndpoints implements webhooks.Store.
func (s *Store) DueWebhookEndpoints(ctx context.Context, now time.Time, limit int) ([]string, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT d.webhook_id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
		WHERE d.status = 'pending' AND d.next_at <= ? AND w.enabled GROUP BY d.webhook_id ORDER BY min(d.next_at), d.webhook_id LIMIT ?`, ms(now), limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite: due webhooks: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("sqlite: due webhooks: %w", err)
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
	d.CreatedAt, d.WindowStart, d.NextAt, d.LastAt = fromMS(created), fromMS(window), fromMS(next), fromMS(last)
	return d, err
}

// DueWebhookDeliveries implements webhooks.Store.
func (s *Store) DueWebhookDeliveries(ctx context.Context, endpointID string, now time.Time, limit int) ([]webhooks.Delivery, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+deliveryCols+` FROM webhook_deliveries
		WHERE webhook_id = ? AND status = 'pending' AND next_at <= ? ORDER BY created_at, event_id LIMIT ?`, endpointID, ms(now), limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite: due deliveries of %s: %w", endpointID, err)
	}
	defer rows.Close()
	var out []webhooks.Delivery
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite: due deliveries of %s: %w", endpointID, err)
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// RecordWebhookAttempt implements webhooks.Store.
func (s *Store) RecordWebhookAttempt(ctx context.Context, d webhooks.Delivery, a webhooks.Attempt) error {
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE webhook_deliveries SET status = ?, attempts = ?, next_at = ?, last_at = ? WHERE id = ?`,
			d.Status, d.Attempts, ms(d.NextAt), ms(d.LastAt), d.ID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return storage.ErrNotFound // the endpoint was deleted meanwhile
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO webhook_attempts(delivery_id, webhook_id, event_id, event_type, attempt, at, outcome, latency_ms, response_code, error)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, a.DeliveryID, a.EndpointID, int64(a.EventID), a.EventType, a.Attempt, ms(a.At), a.Outcome, a.LatencyMS, a.ResponseCode, a.Error)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: record webhook attempt of %s: %w", d.ID, err)
	}
	return nil
}

// WebhookDelivery implements webhooks.Store.
func (s *Store) WebhookDelivery(ctx context.Context, id string) (webhooks.Delivery, error) {
	d, err := scanDelivery(s.r.QueryRowContext(ctx, `SELECT `+deliveryCols+` FROM webhook_deliveries WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return d, fmt.Errorf("sqlite: webhook delivery %s: %w", id, storage.ErrNotFound)
	}
	if err != nil {
		return d, fmt.Errorf("sqlite: webhook delivery %s: %w", id, err)
	}
	return d, nil
}

// WebhookAttempts implements webhooks.Store.
func (s *Store) WebhookAttempts(ctx context.Context, endpointID string, since time.Time, limit int) ([]webhooks.Attempt, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT delivery_id, webhook_id, event_id, event_type, attempt, at, outcome, latency_ms, response_code, error
		FROM webhook_attempts WHERE webhook_id = ? AND at >= ? ORDER BY at DESC, id DESC LIMIT ?`, endpointID, ms(since), limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite: webhook attempts of %s: %w", endpointID, err)
	}
	defer rows.Close()
	out := []webhooks.Attempt{}
	for rows.Next() {
		var a webhooks.Attempt
		var ev, at int64
		if err := rows.Scan(&a.DeliveryID, &a.EndpointID, &ev, &a.EventType, &a.Attempt, &at, &a.Outcome, &a.LatencyMS, &a.ResponseCode, &a.Error); err != nil {
			return nil, fmt.Errorf("sqlite: webhook attempts of %s: %w", endpointID, err)
		}
		a.EventID, a.At = uint64(ev), fromMS(at)
		out = append(out, a)
	}
	return out, rows.Err()
}

// RedeliverWebhook implements webhooks.Store.
func (s *Store) RedeliverWebhook(ctx context.Context, id string, now time.Time) error {
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE webhook_deliveries SET status = 'pending', next_at = ?, window_start = ? WHERE id = ?`, ms(now), ms(now), id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return storage.ErrNotFound
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqlite: redeliver %s: %w", id, err)
	}
	return nil
}

// PruneWebhookLog implements webhooks.Store.
func (s *Store) PruneWebhookLog(ctx context.Context, before time.Time) (int64, error) {
	var n int64
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM webhook_attempts WHERE at < ?`, ms(before))
		if err != nil {
			return err
		}
		n, _ = res.RowsAffected()
		_, err = tx.ExecContext(ctx, `DELETE FROM webhook_deliveries WHERE status <> 'pending' AND last_at < ?`, ms(before))
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("sqlite: prune webhook log: %w", err)
	}
	return n, nil
}

// WebhookBacklog implements webhooks.Store.
func (s *Store) WebhookBacklog(ctx context.Context) (int64, error) {
	var n int64
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM webhook_deliveries WHERE status = 'pending'`).Scan(&n); err != nil {
		return 0, fmt.Errorf("sqlite: webhook backlog: %w", err)
	}
	return n, nil
}

// AcquireWebhookLease implements webhooks.Store: one conditional upsert on
// the single writer.
func (s *Store) AcquireWebhookLease(ctx context.Context, name, holder string, now, until time.Time) (bool, error) {
	var held bool
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO webhook_leases(name, holder, expires_at) VALUES (?, ?, ?)
			ON CONFLICT(name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
			WHERE webhook_leases.holder = excluded.holder OR webhook_leases.expires_at <= ?`, name, holder, ms(until), ms(now))
		if err != nil {
			return err
		}
		n, _ := res.RowsAffected()
		held = n == 1
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("sqlite: webhook lease %s: %w", name, err)
	}
	return held, nil
}

// ReleaseWebhookLease implements webhooks.Store.
func (s *Store) ReleaseWebhookLease(ctx context.Context, name, holder string) error {
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM webhook_leases WHERE name = ? AND holder = ?`, name, holder)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: release webhook lease %s: %w", name, err)
	}
	return nil
}
