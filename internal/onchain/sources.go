package onchain

import (
	"time"

	"github.com/assetd/assetd/internal/registry"
)

// SnapshotRegistry answers Registry from the current registry snapshot.
type SnapshotRegistry func() *registry.Snapshot

// VerdictRegistry implements Registry: a stablecoin is an asset of the
// stablecoin category or a variant of the stablecoin kind; its issuer is
// the variant's.
func (f SnapshotRegistry) VerdictRegistry(mint string) (listed, stablecoin bool, issuer string) {
	snap := f()
	if snap == nil {
		return false, false, ""
	}
	a, v, ok := snap.VariantByMint(mint)
	if !ok {
		return false, false, ""
	}
	return true, a.Category == "stablecoin" || v.Kind == "stablecoin", v.Issuer
}

// Registry answers what the registry says of a mint for a verdict.
type Registry interface {
	// VerdictRegistry reports whether the registry lists mint, whether it
	// is a stablecoin and who issues it.
	VerdictRegistry(mint string) (listed, stablecoin bool, issuer string)
}

// Judge builds verdicts from the facts in memory and the other in-memory
// readers; each reader is optional.
type Judgement struct {
	Facts    *Service
	Registry Registry
	// Advisory returns the operator advisory of a mint (nil: none).
	Advisory func(mint string) *AdvisoryRef
	// Liquidity returns the pooled liquidity of a mint in USD (nil: unknown).
	Liquidity func(mint string) *float64
	// FirstSeen returns when a mint was first seen trading, unix ms (0:
	// unknown).
	FirstSeen func(mint string) int64
	// Impersonation returns the collision judgment of a mint (nil: none).
	Impersonation func(mint string) *Impersonation
	Now           func() time.Time
}

// Context gathers the context of mint.
func (j Judgement) Context(mint string) Context {
	var c Context
	if j.Registry != nil {
		c.Listed, c.Stablecoin, c.Issuer = j.Registry.VerdictRegistry(mint)
	}
	if j.Advisory != nil {
		c.Advisory = j.Advisory(mint)
	}
	if j.Liquidity != nil {
		c.LiquidityUSD = j.Liquidity(mint)
	}
	if j.FirstSeen != nil {
		c.FirstSeen = j.FirstSeen(mint)
	}
	if j.Impersonation != nil {
		c.Impersonation = j.Impersonation(mint)
	}
	return c
}

// Verdict judges one mint from memory.
func (j Judgement) Verdict(mint string) Verdict {
	now := time.Now
	if j.Now != nil {
		now = j.Now
	}
	status, f := j.Facts.Lookup(mint)
	return Judge(mint, status, f, j.Context(mint), now())
}

// Verdicts judges mints in order; mints not read yet are requested for an
// on-demand read charged to key.
func (j Judgement) Verdicts(key string, mints []string) []Verdict {
	out := make([]Verdict, len(mints))
	var unread []string
	for i, m := range mints {
		out[i] = j.Verdict(m)
		if out[i].Status == StatusNotReadYet {
			unread = append(unread, m)
		}
	}
	if len(unread) > 0 {
		j.Facts.Request(key, unread)
	}
	return out
}

// FactWarnings returns the warnings of mint that rest on a chain fact
// (with its slot) and the top-10 holder share when read: what the risk
// model takes as caps. Only the facts and the registry are consulted.
func (j Judgement) FactWarnings(mint string) ([]Warning, *float64) {
	status, f := j.Facts.Lookup(mint)
	if status != StatusOK || f == nil {
		return nil, nil
	}
	var c Context
	if j.Registry != nil {
		c.Listed, c.Stablecoin, c.Issuer = j.Registry.VerdictRegistry(mint)
	}
	c.Listed = true // not_verified is not a fact
	v := Judge(mint, status, f, c, time.Unix(0, 0))
	var out []Warning
	for _, w := range v.Warnings {
		if w.Evidence.Fact != "" && w.Evidence.Slot != nil {
			out = append(out, w)
		}
	}
	var share *float64
	if f.Holders != nil {
		s := f.Holders.Top10Share
		share = &s
	}
	return out, share
}

// FactWarningCodes returns the codes of mint's fact warnings of severity
// warning or critical (search-tokens adds them to its candidates).
func (j Judgement) FactWarningCodes(mint string) []string {
	ws, _ := j.FactWarnings(mint)
	var out []string
	for _, w := range ws {
		if w.Severity == SeverityWarning || w.Severity == SeverityCritical {
			out = append(out, w.Code)
		}
	}
	return out
}
