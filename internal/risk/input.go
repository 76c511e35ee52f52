package risk

import (
	"math"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/market"
)

// Curated lists whose members are exempt from concentration rules, and
// those whose new members count as trusted launches (docs/risk.md).
var (
	ExemptLists  = []string{"currencies", "stocks", "lsts"}
	TrustedLists = []string{"majors", "lsts", "currencies", "rwas", "stocks"}
)

// Markets is the market cache as the input gatherer reads it: the cached
// snapshot and DEX pools of a mint, answered from memory.
type Markets interface {
	Token(mint string) (market.Token, bool)
	DEXMarkets(mint string) ([]market.DEXMarket, time.Time, bool)
}

// Curated answers curated-list membership of a mint.
type Curated interface {
	InCuratedList(mint string, ids ...string) bool
}

// Advisories answers the operator advisory of a mint (nil: none).
type Advisories interface {
	Get(mint string) *asset.Advisory
}

// Gatherer assembles a mint's Input from in-memory readers. Score stays
// pure; Gatherer is the one place that knows where each input comes from.
type Gatherer struct {
	Markets    Markets
	Curated    Curated
	Advisories Advisories
	// Now dates the token age (default time.Now).
	Now func() time.Time
	// Chain returns the on-chain fact warnings of a mint and its top-10
	// holder share when read (nil: none known).
	Chain func(mint string) ([]ChainWarning, *float64)
}

// Input gathers the model's inputs for mint: the cached snapshot, the
// advisory, curated membership and the age of the oldest known pool.
func (g Gatherer) Input(mint string) Input {
	in := Input{Mint: mint}
	if g.Chain != nil {
		in.Chain, in.Top10Share = g.Chain(mint)
	}
	if g.Advisories != nil {
		in.Advisory = g.Advisories.Get(mint)
	}
	if g.Curated != nil {
		in.Exempt = g.Curated.InCuratedList(mint, ExemptLists...)
		in.TrustedList = g.Curated.InCuratedList(mint, TrustedLists...)
	}
	if g.Markets == nil {
		return in
	}
	if tok, ok := g.Markets.Token(mint); ok {
		m := tok.Market
		in.Market = &m
	}
	if pools, _, ok := g.Markets.DEXMarkets(mint); ok {
		oldest := int64(math.MaxInt64)
		for _, p := range pools {
			if p.CreatedAt != nil && *p.CreatedAt > 0 && *p.CreatedAt < oldest {
				oldest = *p.CreatedAt
			}
		}
		if oldest != math.MaxInt64 {
			now := time.Now
			if g.Now != nil {
				now = g.Now
			}
			age := max(0, float64(now().Unix()-oldest)/86400)
			in.TokenAgeDays = &age
		}
	}
	return in
}

// Assess gathers mint's inputs and scores them.
func (g Gatherer) Assess(mint string) Details { return Score(g.Input(mint)) }
