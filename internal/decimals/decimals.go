// Package decimals answers a mint's decimals in one place for every
// consumer (execution, the token-list export, market rows, list members):
// the registry first, then the on-chain facts, the token index and the
// market cache.
package decimals

import (
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/registry"
	"github.com/assetd/assetd/internal/tokenindex"
)

// Max is the most decimals taken as plausible (the execution family's
// bound; no listed token has more).
const Max = 18

// Sources, in the order they are asked.
const (
	SourceRegistry = "registry"
	SourceChain    = "chain"
	SourceTokens   = "token_index"
	SourceMarkets  = "market_cache"
)

// Chain answers the decimals the chain facts hold (onchain.Service).
type Chain interface {
	Decimals(mint string) (int, bool)
}

// Markets answers the market cache's token metadata.
type Markets interface {
	Token(mint string) (market.Token, bool)
}

// Resolver resolves decimals; every source is optional.
type Resolver struct {
	Registry func() *registry.Snapshot
	Chain    Chain
	Tokens   func() *tokenindex.Index
	Markets  Markets
}

func plausible(d *int) bool { return d != nil && *d >= 0 && *d <= Max }

// Decimals returns mint's decimals and whether any source knows them.
func (r *Resolver) Decimals(mint string) (int, bool) {
	d, _, ok := r.Resolve(mint)
	return d, ok
}

// Resolve returns mint's decimals and the source that gave them.
func (r *Resolver) Resolve(mint string) (int, string, bool) {
	if r == nil {
		return 0, "", false
	}
	if r.Registry != nil {
		if snap := r.Registry(); snap != nil {
			if _, v, ok := snap.VariantByMint(mint); ok && plausible(v.Decimals) {
				return *v.Decimals, SourceRegistry, true
			}
		}
	}
	if r.Chain != nil {
		if d, ok := r.Chain.Decimals(mint); ok && plausible(&d) {
			return d, SourceChain, true
		}
	}
	if r.Tokens != nil {
		if ix := r.Tokens(); ix != nil {
			if t, ok := ix.Get(mint); ok && plausible(t.Decimals) {
				return *t.Decimals, SourceTokens, true
			}
		}
	}
	if r.Markets != nil {
		if t, ok := r.Markets.Token(mint); ok && plausible(t.Decimals) {
			return *t.Decimals, SourceMarkets, true
		}
	}
	return 0, "", false
}
