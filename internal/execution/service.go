package execution

import (
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/registry"
)

// MarketReader is the cached market data the endpoints read (memory only).
type MarketReader interface {
	Market(mint string) *asset.Market
	ExecutionQuality(mint string) *asset.ExecutionQuality
}

// AdvisorySource is the in-memory advisory index. Loaded is false until
// the index has been read once; execution gates fail closed on it.
type AdvisorySource interface {
	Get(mint string) *asset.Advisory
	Loaded() bool
}

// Service answers the execution endpoints.
type Service struct {
	// Registry returns the current registry snapshot.
	Registry func() *registry.Snapshot
	// Markets is the market cache (liquidity, fill quality).
	Markets MarketReader
	// Advisories is the advisory index.
	Advisories AdvisorySource
	// Decimals resolves the decimals of a variant the registry gives none
	// for (internal/decimals: chain facts, token index, market cache); nil
	// uses the registry's only.
	Decimals func(mint string) (int, bool)
	// Providers are the quote providers in tie-break order (earlier wins).
	Providers []Provider
	// QuoteBudget bounds one fan-out (default DefaultQuoteBudget).
	QuoteBudget time.Duration
	// IconBase makes relative venue icons absolute (default
	// DefaultIconBase).
	IconBase string
	// Now is the clock of the answers (generatedAt, market hours);
	// default time.Now.
	Now func() time.Time
	// QuoteClock measures the quote budget and stamps quotes (default
	// time.Now; call deadlines are real time, so a test clock stopped in
	// the past belongs in Now, not here).
	QuoteClock func() time.Time
}

// decimalsOf returns v's decimals: the registry's, else the resolver's.
func (s *Service) decimalsOf(v *registry.Variant) (int, bool) {
	if v.Decimals != nil && *v.Decimals >= 0 && *v.Decimals <= 18 {
		return *v.Decimals, true
	}
	if s.Decimals != nil {
		if d, ok := s.Decimals(v.Mint); ok && d >= 0 && d <= 18 {
			return d, true
		}
	}
	return 0, false
}

func (s *Service) now() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}

// ProviderIDs lists the configured provider ids in tie-break order.
func (s *Service) ProviderIDs() []string {
	out := make([]string, len(s.Providers))
	for i, p := range s.Providers {
		out[i] = p.ID()
	}
	return out
}

// providers returns the configured providers named in ids (nil: all), in
// configured order.
func (s *Service) providers(ids []string) []Provider {
	if ids == nil {
		return s.Providers
	}
	var out []Provider
	for _, p := range s.Providers {
		for _, id := range ids {
			if p.ID() == id {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

func (s *Service) fanout(ps []Provider) Fanout {
	return Fanout{Providers: ps, Budget: s.QuoteBudget, Now: s.QuoteClock}
}

// Restricted reports whether an advisory refuses trading: compromised and
// blocked do, caution never does.
func Restricted(a *asset.Advisory) bool {
	return a != nil && (a.Status == asset.AdvisoryCompromised || a.Status == asset.AdvisoryBlocked)
}

// AdvisoryCode is the details.code and exclusion reason of a restricted
// advisory: "advisory_" + status.
func AdvisoryCode(a *asset.Advisory) string { return "advisory_" + a.Status }

// advisories returns the advisory lookup, or the fail-closed error when
// the index has not loaded.
func (s *Service) advisories() (func(string) *asset.Advisory, error) {
	if s.Advisories == nil || !s.Advisories.Loaded() {
		return nil, ErrAdvisoriesUnavailable
	}
	return s.Advisories.Get, nil
}

// gate refuses a restricted mint (*AdvisoryError) and fails closed
// (ErrAdvisoriesUnavailable).
func (s *Service) gate(mint string) error {
	get, err := s.advisories()
	if err != nil {
		return err
	}
	if a := get(mint); Restricted(a) {
		return &AdvisoryError{Mint: mint, Advisory: a}
	}
	return nil
}
