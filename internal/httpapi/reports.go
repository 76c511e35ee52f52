package httpapi

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/assetd/assetd/internal/apierr"
	"github.com/assetd/assetd/internal/lists"
	"github.com/assetd/assetd/internal/ratelimit"
	"github.com/assetd/assetd/internal/registry"
	"github.com/assetd/assetd/internal/storage"
)

// AdvisoryReports files reports and reads them back (lists.Reports).
type AdvisoryReports interface {
	File(ctx context.Context, projectID, keyID string, in lists.ReportInput) (lists.Report, error)
	Get(ctx context.Context, id string) (lists.Report, error)
}

// Report budget defaults (Deps.ReportBudget, Deps.ReportWindow).
const (
	DefaultReportBudget = 10
	DefaultReportWindow = time.Hour
)

type reportJSON struct {
	ID             string  `json:"id"`
	Mint           string  `json:"mint"`
	Kind           string  `json:"kind"`
	ClaimedAsset   *string `json:"claimedAsset"`
	EvidenceURL    *string `json:"evidenceUrl"`
	Note           *string `json:"note"`
	Status         string  `json:"status"`
	Resolution     *string `json:"resolution"`
	ResolutionNote *string `json:"resolutionNote"`
	CreatedAt      int64   `json:"createdAt"`
	ResolvedAt     *int64  `json:"resolvedAt"`
}

func optStr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func reportBody(r lists.Report) reportJSON {
	out := reportJSON{ID: r.ID, Mint: r.Mint, Kind: r.Kind, ClaimedAsset: optStr(r.ClaimedAsset), EvidenceURL: optStr(r.EvidenceURL),
		Note: optStr(r.Note), Status: r.Status, Resolution: optStr(r.Resolution), ResolutionNote: optStr(r.ResolutionNote), CreatedAt: r.CreatedAt}
	if r.ResolvedAt > 0 {
		out.ResolvedAt = &r.ResolvedAt
	}
	return out
}

// POST /v1/advisories/reports: any key files a report, within its budget.
func (s *Server) fileReport(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Mint         string `json:"mint"`
		Kind         string `json:"kind"`
		ClaimedAsset string `json:"claimedAsset"`
		EvidenceURL  string `json:"evidenceUrl"`
		Note         string `json:"note"`
	}
	if err := decodeJSON(w, r, &body); err != nil {
		return err
	}
	if !registry.ValidMint(body.Mint) {
		return apierr.New(apierr.BadRequest, "mint must be a base58 32-byte token address").
			WithDetails(apierr.Details{"code": "invalid_mint", "param": "mint", "mint": body.Mint})
	}
	k := KeyFrom(r.Context())
	n, window := s.d.ReportBudget, s.d.ReportWindow
	if n <= 0 {
		n = DefaultReportBudget
	}
	if window <= 0 {
		window = DefaultReportWindow
	}
	d, err := s.budget.Allow(r.Context(), "report:"+k.ID, ratelimit.Policy{Requests: n, Window: window}, s.d.Now())
	if err == nil && !d.Allowed {
		return apierr.Newf(apierr.RateLimited, "report budget exhausted: %d reports per %s per key", n, window).
			WithDetails(apierr.Details{"code": "rate_limited", "retryAfterSeconds": ceilSeconds(d.RetryAfter)}).
			WithRetryAfter(d.RetryAfter)
	}
	rep, err := s.d.AdvisoryReports.File(r.Context(), k.ProjectID, k.ID, lists.ReportInput{Mint: body.Mint, Kind: body.Kind,
		ClaimedAsset: body.ClaimedAsset, EvidenceURL: body.EvidenceURL, Note: body.Note})
	var fe *lists.FieldError
	if errors.As(err, &fe) {
		return apierr.New(apierr.BadRequest, fe.Message).WithDetails(apierr.Details{"code": fe.Code, "param": fe.Param})
	}
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	}{rep.ID, rep.Status})
}

// GET /v1/advisories/reports/{id}: the reporting project reads its report
// (another project's is a 404, as is an unknown id).
func (s *Server) getReport(w http.ResponseWriter, r *http.Request) error {
	rep, err := s.d.AdvisoryReports.Get(r.Context(), r.PathValue("id"))
	if errors.Is(err, storage.ErrNotFound) || err == nil && rep.ProjectID != project(r) {
		return apierr.New(apierr.NotFound, "report not found")
	}
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, reportBody(rep))
}
