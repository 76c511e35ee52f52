package lists

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/metadata"
)

// Report kinds.
var ReportKinds = []string{"impersonation", "compromised", "scam", "other"}

// Report statuses.
const (
	ReportPending  = "pending"
	ReportAccepted = "accepted"
	ReportRejected = "rejected"
)

// ReportStatuses lists the report statuses.
var ReportStatuses = []string{ReportPending, ReportAccepted, ReportRejected}

// Report field limits.
const (
	ReportClaimedAssetLen = 64
	ReportURLLen          = 512
	ReportNoteLen         = 1000
)

// Report is a user's report of a suspicious mint (docs/advisories.md
// "Reports"). Resolution is the advisory status an accepted report set.
type Report struct {
	ID             string
	ProjectID      string // the reporting project: the only one that reads it over the API
	KeyID          string
	Mint           string
	Kind           string
	ClaimedAsset   string
	EvidenceURL    string
	Note           string
	Status         string
	Resolution     string
	ResolutionNote string
	ResolvedBy     string
	CreatedAt      int64 // unix ms
	ResolvedAt     int64 // unix ms; 0 while pending
}

// ReportStore is what reports need from a storage engine.
type ReportStore interface {
	// CreateReport stores a new pending report.
	CreateReport(ctx context.Context, r Report) error
	// GetReport returns one report. Errors: storage.ErrNotFound.
	GetReport(ctx context.Context, id string) (Report, error)
	// ListReports returns the reports with status (every one for ""),
	// oldest first.
	ListReports(ctx context.Context, status string) ([]Report, error)
	// ResolveReport moves a pending report to r.Status with r's
	// resolution fields and, when adv is not nil, sets that advisory
	// (any owner's flag replaced, a feed event appended) in the same
	// transaction. Errors: storage.ErrNotFound, ErrReportResolved.
	ResolveReport(ctx context.Context, r Report, adv *Advisory) (Report, error)
}

// ErrReportResolved: the report was accepted or rejected already.
var ErrReportResolved = errors.New("report already resolved")

// Reports files and resolves reports.
type Reports struct {
	store ReportStore
	now   func() time.Time
}

// NewReports returns the report operations over store with clock now.
func NewReports(store ReportStore, now func() time.Time) *Reports {
	return &Reports{store: store, now: now}
}

// ReportInput is a report as filed (POST /v1/advisories/reports).
type ReportInput struct {
	Mint, Kind, ClaimedAsset, EvidenceURL, Note string
}

// FieldError is an invalid report field: a 400 whose Code is the
// details.code (invalid_mint, invalid_param, invalid_note) and Param the
// body member.
type FieldError struct {
	Code, Param, Message string
}

func (e *FieldError) Error() string { return "report: " + e.Param + ": " + e.Message }

func fieldErr(code, param, format string, args ...any) *FieldError {
	return &FieldError{Code: code, Param: param, Message: fmt.Sprintf(format, args...)}
}

// cleanText checks an optional free-text field: valid UTF-8, at most max
// runes, no control, bidi or invisible characters except newlines in
// notes.
func cleanText(s string, max int, newlines bool) (string, bool) {
	s = strings.TrimSpace(s)
	if !utf8.ValidString(s) || utf8.RuneCountInString(s) > max {
		return "", false
	}
	bad := strings.IndexFunc(s, func(r rune) bool {
		if newlines && (r == '\n' || r == '\t') {
			return false
		}
		return metadata.Unsafe(r)
	})
	return s, bad < 0
}

// File validates in and stores it as a pending report of project's key.
// The caller checked the mint's base58 form.
func (rs *Reports) File(ctx context.Context, projectID, keyID string, in ReportInput) (Report, error) {
	r := Report{ProjectID: projectID, KeyID: keyID, Status: ReportPending, CreatedAt: rs.now().UnixMilli()}
	if r.Mint = strings.TrimSpace(in.Mint); !validMint(r.Mint) {
		return Report{}, fieldErr(CodeInvalidMint, "mint", "mint must be a base58 token address")
	}
	if r.Kind = in.Kind; !slices.Contains(ReportKinds, r.Kind) {
		return Report{}, fieldErr("invalid_param", "kind", "kind must be one of %s", strings.Join(ReportKinds, ", "))
	}
	var ok bool
	if r.ClaimedAsset, ok = cleanText(in.ClaimedAsset, ReportClaimedAssetLen, false); !ok {
		return Report{}, fieldErr("invalid_param", "claimedAsset", "claimedAsset must be at most %d characters without control, bidi or invisible characters", ReportClaimedAssetLen)
	}
	if r.EvidenceURL, ok = cleanText(in.EvidenceURL, ReportURLLen, false); !ok || !httpURL(r.EvidenceURL) {
		return Report{}, fieldErr("invalid_param", "evidenceUrl", "evidenceUrl must be an absolute http(s) URL of at most %d characters", ReportURLLen)
	}
	if r.Note, ok = cleanText(in.Note, ReportNoteLen, true); !ok {
		return Report{}, fieldErr(CodeInvalidNote, "note", "note must be at most %d characters without control, bidi or invisible characters", ReportNoteLen)
	}
	r.ID = newID("rep_")
	if err := rs.store.CreateReport(ctx, r); err != nil {
		return Report{}, fmt.Errorf("file report: %w", err)
	}
	return r, nil
}

// httpURL accepts "" or an absolute http(s) URL with a host.
func httpURL(s string) bool {
	if s == "" {
		return true
	}
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.User == nil
}

// Get returns one report.
func (rs *Reports) Get(ctx context.Context, id string) (Report, error) {
	return rs.store.GetReport(ctx, id)
}

// List returns the reports with status ("" for all), oldest first.
func (rs *Reports) List(ctx context.Context, status string) ([]Report, error) {
	if status != "" && !slices.Contains(ReportStatuses, status) {
		return nil, ruleErr(CodeInvalidStatus, "report status must be one of %s", strings.Join(ReportStatuses, ", "))
	}
	return rs.store.ListReports(ctx, status)
}

// Accept resolves report id as accepted and sets the advisory it asks for
// (status caution, compromised or blocked; reason defaults to one naming
// the report), linked to the report by its setter, in one transaction.
func (rs *Reports) Accept(ctx context.Context, id, status, reason, by string) (Report, error) {
	if !ValidAdvisoryStatus(status) {
		return Report{}, ruleErr(CodeInvalidStatus, "advisory status must be one of %s", strings.Join(AdvisoryStatuses, ", "))
	}
	cur, err := rs.store.GetReport(ctx, id)
	if err != nil {
		return Report{}, fmt.Errorf("report %s: %w", id, err)
	}
	if reason == "" {
		reason = fmt.Sprintf("reported as %s (report %s)", cur.Kind, id)
		if cur.ClaimedAsset != "" {
			reason = fmt.Sprintf("reported as %s of %s (report %s)", cur.Kind, cur.ClaimedAsset, id)
		}
	}
	now := rs.now().UnixMilli()
	var u *string
	if cur.EvidenceURL != "" {
		u = &cur.EvidenceURL
	}
	adv := Advisory{Mint: cur.Mint, Advisory: asset.Advisory{Status: status, Reason: reason, URL: u, Since: now}, SetBy: ReportSetter(id), UpdatedAt: now}
	out, err := rs.store.ResolveReport(ctx, Report{ID: id, Status: ReportAccepted, Resolution: status, ResolutionNote: reason, ResolvedBy: by, ResolvedAt: now}, &adv)
	if err != nil {
		return Report{}, fmt.Errorf("accept report %s: %w", id, err)
	}
	return out, nil
}

// Reject resolves report id as rejected with an optional note.
func (rs *Reports) Reject(ctx context.Context, id, note, by string) (Report, error) {
	out, err := rs.store.ResolveReport(ctx, Report{ID: id, Status: ReportRejected, ResolutionNote: note, ResolvedBy: by, ResolvedAt: rs.now().UnixMilli()}, nil)
	if err != nil {
		return Report{}, fmt.Errorf("reject report %s: %w", id, err)
	}
	return out, nil
}
