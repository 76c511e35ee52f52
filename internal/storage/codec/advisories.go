package codec

import (
	"context"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/lists"
	"github.com/assetd/assetd/internal/storage"
)

// AdvisoryColumns are the persisted advisory columns, in ScanAdvisory order.
const AdvisoryColumns = `mint, status, reason, url, since, set_by, updated_at`

// ScanAdvisory reads one AdvisoryColumns row.
func ScanAdvisory(sc storage.Scanner) (lists.Advisory, error) {
	var a lists.Advisory
	err := sc.Scan(&a.Mint, &a.Status, &a.Reason, &a.URL, &a.Since, &a.SetBy, &a.UpdatedAt)
	return a, err
}

// ScanAdvisories reads every AdvisoryColumns row (nil when there is none).
func ScanAdvisories(rows storage.RowIter) ([]lists.Advisory, error) {
	var out []lists.Advisory
	for rows.Next() {
		a, err := ScanAdvisory(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// AdvisorySnapshot keys every flag list (an engine's ListAdvisories) reads
// by mint.
func AdvisorySnapshot(ctx context.Context, list func(context.Context) ([]lists.Advisory, error)) (map[string]asset.Advisory, error) {
	all, err := list(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]asset.Advisory, len(all))
	for _, a := range all {
		out[a.Mint] = a.Advisory
	}
	return out, nil
}

// AdvisoryEventColumns are the advisory feed columns, in ScanAdvisoryEvent
// order.
const AdvisoryEventColumns = `cursor, mint, action, status, reason, url, set_by, at`

// ScanAdvisoryEvents reads every AdvisoryEventColumns row (nil when there
// is none).
func ScanAdvisoryEvents(rows storage.RowIter) ([]lists.AdvisoryEvent, error) {
	var out []lists.AdvisoryEvent
	for rows.Next() {
		var e lists.AdvisoryEvent
		if err := rows.Scan(&e.Cursor, &e.Mint, &e.Action, &e.Status, &e.Reason, &e.URL, &e.SetBy, &e.At); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// ReportColumns are the advisory report columns, in ScanReport order.
const ReportColumns = `id, project_id, key_id, mint, kind, claimed_asset, evidence_url, note, status, resolution, resolution_note, resolved_by, created_at, resolved_at`

// ReportArgs are r's values in ReportColumns order.
func ReportArgs(r lists.Report) []any {
	return []any{r.ID, r.ProjectID, r.KeyID, r.Mint, r.Kind, r.ClaimedAsset, r.EvidenceURL, r.Note, r.Status, r.Resolution, r.ResolutionNote, r.ResolvedBy, r.CreatedAt, r.ResolvedAt}
}

// ScanReport reads one ReportColumns row.
func ScanReport(sc storage.Scanner) (lists.Report, error) {
	var r lists.Report
	err := sc.Scan(&r.ID, &r.ProjectID, &r.KeyID, &r.Mint, &r.Kind, &r.ClaimedAsset, &r.EvidenceURL, &r.Note, &r.Status, &r.Resolution, &r.ResolutionNote, &r.ResolvedBy, &r.CreatedAt, &r.ResolvedAt)
	return r, err
}

// ScanReports reads every ReportColumns row (nil when there is none).
func ScanReports(rows storage.RowIter) ([]lists.Report, error) {
	var out []lists.Report
	for rows.Next() {
		r, err := ScanReport(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}
