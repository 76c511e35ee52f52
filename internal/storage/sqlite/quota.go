package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/assetd/assetd/internal/usage"
)

// ReserveQuota implements ratelimit.Ledger: one transaction on the one
// writer connection, so reservations of every process are serialised.
func (s *Store) ReserveQuota(ctx context.Context, key string, month time.Time, debt, want, limit int64) (granted, used int64, err error) {
	from, to := usage.MinuteOf(month), usage.MinuteOf(month.AddDate(0, 1, 0))
	err = s.withTx(ctx, func(tx *sql.Tx) error {
		// A key's first reservation of a month starts from what the
		// stored usage charged (a store upgraded mid-month).
		if _, err := tx.ExecContext(ctx, `INSERT INTO quota_ledger(key_id, month, used)
			SELECT ?, ?, COALESCE(SUM(charged), 0) FROM usage_minutes WHERE key_id = ? AND minute >= ? AND minute < ?
			ON CONFLICT(key_id, month) DO NOTHING`, key, from, key, from, to); err != nil {
			return err
		}
		var cur int64
		if err := tx.QueryRowContext(ctx, `SELECT used FROM quota_ledger WHERE key_id = ? AND month = ?`, key, from).Scan(&cur); err != nil {
			return err
		}
		cur += debt
		granted = min(want, max(0, limit-cur))
		used = cur + granted
		_, err := tx.ExecContext(ctx, `UPDATE quota_ledger SET used = ? WHERE key_id = ? AND month = ?`, used, key, from)
		return err
	})
	if err != nil {
		return 0, 0, fmt.Errorf("sqlite: reserve quota: %w", err)
	}
	return granted, used, nil
}

// ReleaseQuota implements ratelimit.Ledger.
func (s *Store) ReleaseQuota(ctx context.Context, key string, month time.Time, n int64) error {
	if _, err := s.w.ExecContext(ctx, `UPDATE quota_ledger SET used = MAX(0, used - ?) WHERE key_id = ? AND month = ?`,
		n, key, usage.MinuteOf(month)); err != nil {
		return fmt.Errorf("sqlite: release quota: %w", err)
	}
	return nil
}

// QuotaReserved returns the units of key's quota reserved in the month
// starting at month (0 when none was).
func (s *Store) QuotaReserved(ctx context.Context, key string, month time.Time) (int64, error) {
	var n int64
	err := s.r.QueryRowContext(ctx, `SELECT COALESCE(SUM(used), 0) FROM quota_ledger WHERE key_id = ? AND month = ?`,
		key, usage.MinuteOf(month)).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("sqlite: quota reserved: %w", err)
	}
	return n, nil
}
