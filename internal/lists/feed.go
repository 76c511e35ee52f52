package lists

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/assetd/assetd/internal/asset"
)

// Feed event actions.
const (
	ActionSet     = "set"     // a mint without an advisory got one
	ActionChanged = "changed" // status, reason, url or setter changed
	ActionLifted  = "lifted"  // the advisory was removed
)

// Advisory sources, derived from who set it (SourceOf).
const (
	SourceOperator   = "operator"
	SourceDepegGuard = "depeg_guard"
	SourceReport     = "report"
)

// SetByDepegGuard is the setter of the depeg guard's advisories; a report's
// advisory is set by ReportSetter(id).
const SetByDepegGuard = "depeg_guard"

// ReportSetter is the setter recorded for the advisory an accepted report
// created, which links the advisory to the report.
func ReportSetter(reportID string) string { return "report:" + reportID }

// SourceOf names who set an advisory from its SetBy.
func SourceOf(setBy string) string {
	switch {
	case setBy == SetByDepegGuard:
		return SourceDepegGuard
	case strings.HasPrefix(setBy, "report:"):
		return SourceReport
	}
	return SourceOperator
}

// AdvisoryEvent is one entry of the append-only advisory feed. Cursor is
// strictly increasing in commit order (both engines serialize advisory
// writers, docs/advisories.md); Status, Reason and URL are the advisory
// after the change, or the lifted one's for ActionLifted.
type AdvisoryEvent struct {
	Cursor int64
	Mint   string
	Action string
	asset.Advisory
	SetBy string
	At    int64 // unix ms of the change
}

// Source names who made the change.
func (e AdvisoryEvent) Source() string { return SourceOf(e.SetBy) }

// MaxFeedPage bounds one feed read.
const MaxFeedPage = 1000

// Events returns up to limit (1..MaxFeedPage) feed events after cursor
// since, oldest first, and the cursor to resume from (the last event's,
// or since when there is none).
func (a *Advisories) Events(ctx context.Context, since int64, limit int) ([]AdvisoryEvent, int64, error) {
	if since < 0 {
		since = 0
	}
	limit = max(1, min(limit, MaxFeedPage))
	evs, err := a.store.AdvisoryEvents(ctx, since, limit)
	if err != nil {
		return nil, since, fmt.Errorf("advisory feed after %d: %w", since, err)
	}
	next := since
	if len(evs) > 0 {
		next = evs[len(evs)-1].Cursor
	}
	return evs, next, nil
}

// SetOwned sets a flag on behalf of owner (SetByDepegGuard, a report
// setter): it writes only while the mint is unflagged or flagged by owner,
// so automation never overrides an operator. ok says whether it wrote.
func (a *Advisories) SetOwned(ctx context.Context, mint, status, reason string, url *string, owner string) (Advisory, bool, error) {
	if owner == "" {
		return Advisory{}, false, errors.New("set owned advisory: owner is required")
	}
	if !ValidAdvisoryStatus(status) {
		return Advisory{}, false, ruleErr(CodeInvalidStatus, "advisory status must be one of %s", strings.Join(AdvisoryStatuses, ", "))
	}
	now := a.now().UnixMilli()
	row := Advisory{Mint: mint, Advisory: asset.Advisory{Status: status, Reason: reason, URL: url, Since: now}, SetBy: owner, UpdatedAt: now}
	out, ok, err := a.store.SetAdvisoryOwned(ctx, row, owner)
	if err != nil {
		return Advisory{}, false, fmt.Errorf("set advisory %s: %w", mint, err)
	}
	return out, ok, nil
}

// LiftOwned lifts the flag of mint only when owner set it.
func (a *Advisories) LiftOwned(ctx context.Context, mint, owner string) (bool, error) {
	if owner == "" {
		return false, errors.New("lift owned advisory: owner is required")
	}
	ok, err := a.store.LiftAdvisory(ctx, mint, owner, a.now().UnixMilli())
	if err != nil {
		return false, fmt.Errorf("lift advisory %s: %w", mint, err)
	}
	return ok, nil
}

// FeedAction is the event a write from prev (nil: unflagged) to next
// records, "" when nothing visible changed (an identical re-set).
func FeedAction(prev *Advisory, next Advisory) string {
	if prev == nil {
		return ActionSet
	}
	if prev.Status == next.Status && prev.Reason == next.Reason && prev.SetBy == next.SetBy && eqURL(prev.URL, next.URL) {
		return ""
	}
	return ActionChanged
}

func eqURL(a, b *string) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}
