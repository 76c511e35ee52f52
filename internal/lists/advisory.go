package lists

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/assetd/assetd/internal/asset"
)

// Advisory is a stored operator flag on a mint: the wire value plus who set
// it and when it last changed. Since is the unix ms at which the mint got
// its current status; editing reason or url keeps it, a new status resets it.
type Advisory struct {
	Mint string
	asset.Advisory
	SetBy     string // operator identity, free text; "" when unknown
	UpdatedAt int64  // unix ms of the last set
}

// AdvisoryStore is what advisories need from a storage engine. Every change
// bumps storage.TopicAdvisories in its transaction.
type AdvisoryStore interface {
	// SetAdvisory creates or replaces the flag of a.Mint and returns the
	// stored row. a.Since is used when the mint was not flagged or its
	// status changes; otherwise the stored Since is kept.
	SetAdvisory(ctx context.Context, a Advisory) (Advisory, error)
	// ClearAdvisory lifts the flag. Errors: storage.ErrNotFound when the
	// mint is not flagged.
	ClearAdvisory(ctx context.Context, mint string) error
	// GetAdvisory returns one flag. Errors: storage.ErrNotFound.
	GetAdvisory(ctx context.Context, mint string) (Advisory, error)
	// ListAdvisories returns every flag ordered by mint.
	ListAdvisories(ctx context.Context) ([]Advisory, error)
	// AdvisorySnapshot returns every flag keyed by mint, for the
	// in-memory snapshot the read path annotates from.
	AdvisorySnapshot(ctx context.Context) (map[string]asset.Advisory, error)
	// SetAdvisoryOwned is SetAdvisory that only writes when the mint is
	// unflagged or its flag was set by owner (owner "": always); ok says
	// whether it wrote. A set that changes status, reason, url or setBy
	// appends a feed event in the same transaction (feed.go).
	SetAdvisoryOwned(ctx context.Context, a Advisory, owner string) (out Advisory, ok bool, err error)
	// LiftAdvisory deletes the flag of mint at unix ms at when it exists
	// and (owner != "") was set by owner, appending a "lifted" event;
	// ok says whether it did. Errors: storage.ErrNotFound when owner is ""
	// and the mint is not flagged.
	LiftAdvisory(ctx context.Context, mint, owner string, at int64) (ok bool, err error)
	// AdvisoryEvents returns up to limit feed events with a cursor above
	// since, oldest first.
	AdvisoryEvents(ctx context.Context, since int64, limit int) ([]AdvisoryEvent, error)
}

// AdvisoryStatuses lists the advisory statuses, most severe last.
var AdvisoryStatuses = []string{asset.AdvisoryCaution, asset.AdvisoryCompromised, asset.AdvisoryBlocked}

// ValidAdvisoryStatus reports whether s is an advisory status.
func ValidAdvisoryStatus(s string) bool {
	switch s {
	case asset.AdvisoryCaution, asset.AdvisoryCompromised, asset.AdvisoryBlocked:
		return true
	}
	return false
}

// Advisories sets and lifts advisories (an operator action).
type Advisories struct {
	store AdvisoryStore
	now   func() time.Time
}

// NewAdvisories returns the advisory operations over store with clock now.
func NewAdvisories(store AdvisoryStore, now func() time.Time) *Advisories {
	return &Advisories{store: store, now: now}
}

// Set flags mint. url may be nil or empty (stored as null).
func (a *Advisories) Set(ctx context.Context, mint, status, reason string, url *string, setBy string) (Advisory, error) {
	mint = strings.TrimSpace(mint)
	if mint == "" {
		return Advisory{}, ruleErr(CodeInvalidMint, "mint is required")
	}
	if !ValidAdvisoryStatus(status) {
		return Advisory{}, ruleErr(CodeInvalidStatus, "advisory status must be one of %s", strings.Join(AdvisoryStatuses, ", "))
	}
	if url != nil && strings.TrimSpace(*url) == "" {
		url = nil
	}
	now := a.now().UnixMilli()
	row := Advisory{Mint: mint, Advisory: asset.Advisory{Status: status, Reason: reason, URL: url, Since: now}, SetBy: setBy, UpdatedAt: now}
	out, err := a.store.SetAdvisory(ctx, row)
	if err != nil {
		return Advisory{}, fmt.Errorf("set advisory %s: %w", mint, err)
	}
	return out, nil
}

// Clear lifts the flag of mint (storage.ErrNotFound when not flagged).
func (a *Advisories) Clear(ctx context.Context, mint string) error {
	if _, err := a.store.LiftAdvisory(ctx, mint, "", a.now().UnixMilli()); err != nil {
		return fmt.Errorf("clear advisory %s: %w", mint, err)
	}
	return nil
}

// List returns every flag ordered by mint.
func (a *Advisories) List(ctx context.Context) ([]Advisory, error) {
	return a.store.ListAdvisories(ctx)
}

// Snapshot returns every flag keyed by mint.
func (a *Advisories) Snapshot(ctx context.Context) (map[string]asset.Advisory, error) {
	return a.store.AdvisorySnapshot(ctx)
}
