package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/assetd/assetd/internal/usage"
	"github.com/jackc/pgx/v5"
)

// ReserveQuota implements ratelimit.Ledger: the key's row is locked for
// the transaction, so concurrent reservations (any replica) are
// serialised.
func (s *Store) ReserveQuota(ctx context.Context, key string, month time.Time, debt, want, limit int64) (granted, used int64, err error) {
	from, to := usage.MinuteOf(month), usage.MinuteOf(month.AddDate(0, 1, 0))
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// A key's first reservation of a month starts from what the
		// stored usage charged (a store upgraded mid-month).
		if _, err := tx.Exec(ctx, `INSERT INTO quota_ledger(key_id, month, used)
			SELECT $1, $2, COALESCE(SUM(charged), 0) FROM usage_minutes WHERE key_id = $1 AND minute >= $2 AND minute < $3
			ON CONFLICT (key_id, month) DO NOTHING`, key, from, to); err != nil {
			return err
		}
		var cur int64
		if err := tx.QueryRow(ctx, `SELECT used FROM quota_ledger WHERE key_id = $1 AND month = $2 FOR UPDATE`, key, from).Scan(&cur); err != nil {
			return err
		}
		cur += debt
		granted = min(want, max(0, limit-cur))
		used = cur + granted
		_, err := tx.Exec(ctx, `UPDATE quota_ledger SET used = $3 WHERE key_id = $1 AND month = $2`, key, from, used)
		return err
	})
	if err != nil {
		return 0, 0, fmt.Errorf("postgres: reserve quota: %w", err)
	}
	return granted, used, nil
}

// ReleaseQuota implements ratelimit.Ledger.
func (s *Store) ReleaseQuota(ctx context.Context, key string, month time.Time, n int64) error {
	if _, err := s.pool.Exec(ctx, `UPDATE quota_ledger SET used = GREATEST(0, used - $3) WHERE key_id = $1 AND month = $2`,
		key, usage.MinuteOf(month), n); err != nil {
		return fmt.Errorf("postgres: release quota: %w", err)
	}
	return nil
}

// QuotaReserved returns the units of key's quota reserved in the month
// starting at month (0 when none was).
func (s *Store) QuotaReserved(ctx context.Context, key string, month time.Time) (int64, error) {
	var n int64
	err := s.pool.QueryRow(ctx, `SELECT COALESCE(SUM(used), 0) FROM quota_ledger WHERE key_id = $1 AND month = $2`,
		key, usage.MinuteOf(month)).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("postgres: quota reserved: %w", err)
	}
	return n, nil
}
