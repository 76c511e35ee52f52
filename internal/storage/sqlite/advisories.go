package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/lists"
	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/storage/codec"
)

// SetAdvisory implements lists.AdvisoryStore.
func (s *Store) SetAdvisory(ctx context.Context, a lists.Advisory) (lists.Advisory, error) {
	out, _, err := s.SetAdvisoryOwned(ctx, a, "")
	return out, err
}

// lockFeed returns the advisory feed's head cursor. SQLite has one writer
// connection (BEGIN IMMEDIATE), so advisory writers are serialized and
// feed events commit in cursor order (0019_advisory_feed.sql).
func lockFeed(ctx context.Context, tx *sql.Tx) (int64, error) {
	var c int64
	err := tx.QueryRowContext(ctx, `SELECT cursor FROM advisory_feed_head WHERE id = 1`).Scan(&c)
	return c, err
}

// appendEvent records e with the cursor after head and advances the head.
func appendEvent(ctx context.Context, tx *sql.Tx, head int64, e lists.AdvisoryEvent) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO advisory_events(`+codec.AdvisoryEventColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, head+1, e.Mint, e.Action, e.Status, e.Reason, e.URL, e.SetBy, e.At); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `UPDATE advisory_feed_head SET cursor = ? WHERE id = 1`, head+1)
	return err
}

// currentAdvisory reads mint's flag inside tx (nil: unflagged).
func currentAdvisory(ctx context.Context, tx *sql.Tx, mint string) (*lists.Advisory, error) {
	a, err := codec.ScanAdvisory(tx.QueryRowContext(ctx, `SELECT `+codec.AdvisoryColumns+` FROM asset_advisories WHERE mint = ?`, mint))
	if errors.Is(err, sql.ErrNoRows) {
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
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		var err error
		out, ok, err = s.setAdvisoryTx(ctx, tx, a, owner)
		return err
	})
	if err != nil {
		return lists.Advisory{}, false, fmt.Errorf("sqlite: set advisory %s: %w", a.Mint, err)
	}
	return out, ok, nil
}

// setAdvisoryTx is SetAdvisoryOwned inside tx.
func (s *Store) setAdvisoryTx(ctx context.Context, tx *sql.Tx, a lists.Advisory, owner string) (lists.Advisory, bool, error) {
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
	out, err := codec.ScanAdvisory(tx.QueryRowContext(ctx, `INSERT INTO asset_advisories(`+codec.AdvisoryColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?)
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
	return out, true, s.bump(ctx, tx, storage.TopicAdvisories)
}

// CreateReport implements lists.ReportStore.
func (s *Store) CreateReport(ctx context.Context, r lists.Report) error {
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO advisory_reports(`+codec.ReportColumns+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, codec.ReportArgs(r)...)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: create report: %w", err)
	}
	return nil
}

// GetReport implements lists.ReportStore.
func (s *Store) GetReport(ctx context.Context, id string) (lists.Report, error) {
	r, err := codec.ScanReport(s.r.QueryRowContext(ctx, `SELECT `+codec.ReportColumns+` FROM advisory_reports WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		err = storage.ErrNotFound
	}
	if err != nil {
		return lists.Report{}, fmt.Errorf("sqlite: report %s: %w", id, err)
	}
	return r, nil
}

// ListReports implements lists.ReportStore.
func (s *Store) ListReports(ctx context.Context, status string) ([]lists.Report, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+codec.ReportColumns+` FROM advisory_reports WHERE ? = '' OR status = ? ORDER BY created_at, id`, status, status)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list reports: %w", err)
	}
	defer rows.Close()
	out, err := codec.ScanReports(rows)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list reports: %w", err)
	}
	return out, nil
}

// ResolveReport implements lists.ReportStore.
func (s *Store) ResolveReport(ctx context.Context, r lists.Report, adv *lists.Advisory) (lists.Report, error) {
	var out lists.Report
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		var err error
		out, err = codec.ScanReport(tx.QueryRowContext(ctx, `UPDATE advisory_reports
			SET status = ?, resolution = ?, resolution_note = ?, resolved_by = ?, resolved_at = ?
			WHERE id = ? AND status = 'pending' RETURNING `+codec.ReportColumns, r.Status, r.Resolution, r.ResolutionNote, r.ResolvedBy, r.ResolvedAt, r.ID))
		if errors.Is(err, sql.ErrNoRows) {
			var one int
			if tx.QueryRowContext(ctx, `SELECT 1 FROM advisory_reports WHERE id = ?`, r.ID).Scan(&one) == nil {
				return lists.ErrReportResolved
			}
			return storage.ErrNotFound
		}
		if err != nil || adv == nil {
			return err
		}
		_, _, err = s.setAdvisoryTx(ctx, tx, *adv, "")
		return err
	})
	if err != nil {
		return lists.Report{}, fmt.Errorf("sqlite: resolve report %s: %w", r.ID, err)
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
	err := s.withTx(ctx, func(tx *sql.Tx) error {
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
		if _, err := tx.ExecContext(ctx, `DELETE FROM asset_advisories WHERE mint = ?`, mint); err != nil {
			return err
		}
		ok = true
		if err := appendEvent(ctx, tx, head, lists.AdvisoryEvent{Mint: mint, Action: lists.ActionLifted, Advisory: prev.Advisory, SetBy: prev.SetBy, At: at}); err != nil {
			return err
		}
		return s.bump(ctx, tx, storage.TopicAdvisories)
	})
	if err != nil {
		return false, fmt.Errorf("sqlite: lift advisory %s: %w", mint, err)
	}
	return ok, nil
}

// AdvisoryEvents implements lists.AdvisoryStore.
func (s *Store) AdvisoryEvents(ctx context.Context, since int64, limit int) ([]lists.AdvisoryEvent, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+codec.AdvisoryEventColumns+` FROM advisory_events WHERE cursor > ? ORDER BY cursor LIMIT ?`, since, limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite: advisory events after %d: %w", since, err)
	}
	defer rows.Close()
	out, err := codec.ScanAdvisoryEvents(rows)
	if err != nil {
		return nil, fmt.Errorf("sqlite: advisory events after %d: %w", since, err)
	}
	return out, nil
}

// GetAdvisory implements lists.AdvisoryStore.
func (s *Store) GetAdvisory(ctx context.Context, mint string) (lists.Advisory, error) {
	a, err := codec.ScanAdvisory(s.r.QueryRowContext(ctx, `SELECT `+codec.AdvisoryColumns+` FROM asset_advisories WHERE mint = ?`, mint))
	if errors.Is(err, sql.ErrNoRows) {
		err = storage.ErrNotFound
	}
	if err != nil {
		return lists.Advisory{}, fmt.Errorf("sqlite: advisory %s: %w", mint, err)
	}
	return a, nil
}

// ListAdvisories implements lists.AdvisoryStore.
func (s *Store) ListAdvisories(ctx context.Context) ([]lists.Advisory, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+codec.AdvisoryColumns+` FROM asset_advisories ORDER BY mint`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list advisories: %w", err)
	}
	defer rows.Close()
	out, err := codec.ScanAdvisories(rows)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list advisories: %w", err)
	}
	return out, nil
}

// AdvisorySnapshot implements lists.AdvisoryStore.
func (s *Store) AdvisorySnapshot(ctx context.Context) (map[string]asset.Advisory, error) {
	return codec.AdvisorySnapshot(ctx, s.ListAdvisories)
}
