package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/lists"
	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/storage/codec"
	"github.com/jackc/pgx/v5"
)

// SetAdvisory implements lists.AdvisoryStore.
func (s *Store) SetAdvisory(ctx context.Context, a lists.Advisory) (lists.Advisory, error) {
	out, _, err := s.SetAdvisoryOwned(ctx, a, "")
	return out, err
}

// lockFeed takes the advisory feed's head row until tx ends and returns
// its cursor. Every advisory write takes it first, so advisory writers are
// serialized and feed events commit in cursor order (0019_advisory_feed.sql).
func lockFeed(ctx context.Context, tx pgx.Tx) (int64, error) {
	var c int64
	err := tx.QueryRow(ctx, `SELECT cursor FROM advisory_feed_head WHERE id = 1 FOR UPDATE`).Scan(&c)
	return c, err
}

// appendEvent records e with the cursor after head and advances the head.
func appendEvent(ctx context.Context, tx pgx.Tx, head int64, e lists.AdvisoryEvent) error {
	if _, err := tx.Exec(ctx, `INSERT INTO advisory_events(`+codec.AdvisoryEventColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, head+1, e.Mint, e.Action, e.Status, e.Reason, e.URL, e.SetBy, e.At); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, `UPDATE advisory_feed_head SET cursor = $1 WHERE id = 1`, head+1)
	return err
}

// currentAdvisory reads mint's flag inside tx (nil: unflagged).
func currentAdvisory(ctx context.Context, tx pgx.Tx, mint string) (*lists.Advisory, error) {
	a, err := codec.ScanAdvisory(tx.QueryRow(ctx, `SELECT `+codec.AdvisoryColumns+` FROM asset_advisories WHERE mint = $1`, mint))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &a, nil
}

// SetAdvisoryOwned implements lists.AdvisoryStore.
func (s *Store) SetAdvisoryOwned(ctx context.Context, a lists.Advisory, owner string) (lists.Advisory, bool, error) {
	var out lists.Advisory
	var ok bool
	err := s.withTx(ctx, func(tx pgx.Tx) error {
		var err error
		out, ok, err = setAdvisoryTx(ctx, tx, a, owner)
		return err
	})
	if err != nil {
		return lists.Advisory{}, false, fmt.Errorf("postgres: set advisory %s: %w", a.Mint, err)
	}
	return out, ok, nil
}

// setAdvisoryTx is SetAdvisoryOwned inside tx.
func setAdvisoryTx(ctx context.Context, tx pgx.Tx, a lists.Advisory, owner string) (lists.Advisory, bool, error) {
	head, err := lockFeed(ctx, tx)
	if err != nil {
		return lists.Advisory{}, false, err
	}
	prev, err := currentAdvisory(ctx, tx, a.Mint)
	if err != nil {
		return lists.Advisory{}, false, err
	}
	if owner != "" && prev != nil && prev.SetBy != owner {
		return *prev, false, nil
	}
	// Assignments see the old row, so since compares the old status.
	out, err := codec.ScanAdvisory(tx.QueryRow(ctx, `INSERT INTO asset_advisories(`+codec.AdvisoryColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (mint) DO UPDATE SET
			since = CASE WHEN asset_advisories.status = excluded.status THEN asset_advisories.since ELSE excluded.since END,
			status = excluded.status, reason = excluded.reason, url = excluded.url,
			set_by = excluded.set_by, updated_at = excluded.updated_at
		RETURNING `+codec.AdvisoryColumns, a.Mint, a.Status, a.Reason, a.URL, a.Since, a.SetBy, a.UpdatedAt))
	if err != nil {
		return lists.Advisory{}, false, err
	}
	if act := lists.FeedAction(prev, out); act != "" {
		if err := appendEvent(ctx, tx, head, lists.AdvisoryEvent{Mint: out.Mint, Action: act, Advisory: out.Advisory, SetBy: out.SetBy, At: a.UpdatedAt}); err != nil {
			return lists.Advisory{}, false, err
		}
	}
	return out, true, bump(ctx, tx, storage.TopicAdvisories)
}

// CreateReport implements lists.ReportStore.
func (s *Store) CreateReport(ctx context.Context, r lists.Report) error {
	if _, err := s.pool.Exec(ctx, `INSERT INTO advisory_reports(`+codec.ReportColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`, codec.ReportArgs(r)...); err != nil {
		return fmt.Errorf("postgres: create report: %w", err)
	}
	return nil
}

// GetReport implements lists.ReportStore.
func (s *Store) GetReport(ctx context.Context, id string) (lists.Report, error) {
	r, err := codec.ScanReport(s.pool.QueryRow(ctx, `SELECT `+codec.ReportColumns+` FROM advisory_reports WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		err = storage.ErrNotFound
	}
	if err != nil {
		return lists.Report{}, fmt.Errorf("postgres: report %s: %w", id, err)
	}
	return r, nil
}

// ListReports implements lists.ReportStore.
func (s *Store) ListReports(ctx context.Context, status string) ([]lists.Report, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+codec.ReportColumns+` FROM advisory_reports WHERE $1 = '' OR status = $1 ORDER BY created_at, id`, status)
	if err != nil {
		return nil, fmt.Errorf("postgres: list reports: %w", err)
	}
	defer rows.Close()
	out, err := codec.ScanReports(rows)
	if err != nil {
		return nil, fmt.Errorf("postgres: list reports: %w", err)
	}
	return out, nil
}

// ResolveReport implements lists.ReportStore.
func (s *Store) ResolveReport(ctx context.Context, r lists.Report, adv *lists.Advisory) (lists.Report, error) {
	var out lists.Report
	err := s.withTx(ctx, func(tx pgx.Tx) error {
		var err error
		out, err = codec.ScanReport(tx.QueryRow(ctx, `UPDATE advisory_reports
			SET status = $2, resolution = $3, resolution_note = $4, resolved_by = $5, resolved_at = $6
			WHERE id = $1 AND status = 'pending' RETURNING `+codec.ReportColumns, r.ID, r.Status, r.Resolution, r.ResolutionNote, r.ResolvedBy, r.ResolvedAt))
		if errors.Is(err, pgx.ErrNoRows) {
			var one int
			if tx.QueryRow(ctx, `SELECT 1 FROM advisory_reports WHERE id = $1`, r.ID).Scan(&one) == nil {
				return lists.ErrReportResolved
			}
			return storage.ErrNotFound
		}
		if err != nil || adv == nil {
			return err
		}
		_, _, err = setAdvisoryTx(ctx, tx, *adv, "")
		return err
	})
	if err != nil {
		return lists.Report{}, fmt.Errorf("postgres: resolve report %s: %w", r.ID, err)
	}
	return out, nil
}

// ClearAdvisory implements lists.AdvisoryStore.
func (s *Store) ClearAdvisory(ctx context.Context, mint string) error {
	_, err := s.LiftAdvisory(ctx, mint, "", time.Now().UnixMilli())
	return err
}

// LiftAdvisory implements lists.AdvisoryStore.
func (s *Store) LiftAdvisory(ctx context.Context, mint, owner string, at int64) (bool, error) {
	var ok bool
	err := s.withTx(ctx, func(tx pgx.Tx) error {
		ok = false
		head, err := lockFeed(ctx, tx)
		if err != nil {
			return err
		}
		prev, err := currentAdvisory(ctx, tx, mint)
		if err != nil || (prev != nil && owner != "" && prev.SetBy != owner) {
			return err
		}
		if prev == nil {
			if owner == "" {
				return storage.ErrNotFound
			}
			return nil
		}
		if _, err := tx.Exec(ctx, `DELETE FROM asset_advisories WHERE mint = $1`, mint); err != nil {
			return err
		}
		ok = true
		if err := appendEvent(ctx, tx, head, lists.AdvisoryEvent{Mint: mint, Action: lists.ActionLifted, Advisory: prev.Advisory, SetBy: prev.SetBy, At: at}); err != nil {
			return err
		}
		return bump(ctx, tx, storage.TopicAdvisories)
	})
	if err != nil {
		return false, fmt.Errorf("postgres: lift advisory %s: %w", mint, err)
	}
	return ok, nil
}

// AdvisoryEvents implements lists.AdvisoryStore.
func (s *Store) AdvisoryEvents(ctx context.Context, since int64, limit int) ([]lists.AdvisoryEvent, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+codec.AdvisoryEventColumns+` FROM advisory_events WHERE cursor > $1 ORDER BY cursor LIMIT $2`, since, limit)
	if err != nil {
		return nil, fmt.Errorf("postgres: advisory events after %d: %w", since, err)
	}
	defer rows.Close()
	out, err := codec.ScanAdvisoryEvents(rows)
	if err != nil {
		return nil, fmt.Errorf("postgres: advisory events after %d: %w", since, err)
	}
	return out, nil
}

// GetAdvisory implements lists.AdvisoryStore.
func (s *Store) GetAdvisory(ctx context.Context, mint string) (lists.Advisory, error) {
	a, err := codec.ScanAdvisory(s.pool.QueryRow(ctx, `SELECT `+codec.AdvisoryColumns+` FROM asset_advisories WHERE mint = $1`, mint))
	if errors.Is(err, pgx.ErrNoRows) {
		err = storage.ErrNotFound
	}
	if err != nil {
		return lists.Advisory{}, fmt.Errorf("postgres: advisory %s: %w", mint, err)
	}
	return a, nil
}

// ListAdvisories implements lists.AdvisoryStore.
func (s *Store) ListAdvisories(ctx context.Context) ([]lists.Advisory, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+codec.AdvisoryColumns+` FROM asset_advisories ORDER BY mint`)
	if err != nil {
		return nil, fmt.Errorf("postgres: list advisories: %w", err)
	}
	defer rows.Close()
	out, err := codec.ScanAdvisories(rows)
	if err != nil {
		return nil, fmt.Errorf("postgres: list advisories: %w", err)
	}
	return out, nil
}

// AdvisorySnapshot implements lists.AdvisoryStore.
func (s *Store) AdvisorySnapshot(ctx context.Context) (map[string]asset.Advisory, error) {
	return codec.AdvisorySnapshot(ctx, s.ListAdvisories)
}
