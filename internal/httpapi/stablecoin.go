package httpapi

import (
	"github.com/assetd/assetd/internal/depeg"
	"github.com/assetd/assetd/internal/registry"
)

// StablecoinHealth answers the depeg guard's judgement of a stablecoin
// variant from memory (false: not judged).
type StablecoinHealth interface {
	Health(mint string) (depeg.Health, bool)
}

type stablecoinVariantJSON struct {
	VariantID    string   `json:"variantId"`
	Mint         string   `json:"mint"`
	Tier         string   `json:"tier"`
	DeviationPct *float64 `json:"deviationPct"`
	PriceUSD     *float64 `json:"priceUsd"`
	PegUSD       *float64 `json:"pegUsd"`
	PegCurrency  string   `json:"pegCurrency"`
	LiquidityUSD *float64 `json:"liquidityUsd"`
	TierSince    *int64   `json:"tierSince"`
	UpdatedAt    *int64   `json:"updatedAt"`
	Stale        bool     `json:"stale"`
	Sources      []string `json:"sources"`
	Reason       string   `json:"reason,omitempty"`
}

type stablecoinHealthJSON struct {
	Variants []stablecoinVariantJSON `json:"variants"`
}

// stablecoinHealthBlock is include=stablecoinHealth: the guard's health of
// every stablecoin variant of the asset (an empty list for other assets).
func (s *Server) stablecoinHealthBlock(a *registry.Asset) includeBlock {
	out := stablecoinHealthJSON{Variants: []stablecoinVariantJSON{}}
	if a == nil {
		return includeBlock{OK: true, Data: out}
	}
	for _, c := range depeg.CoinsOf(a) {
		row := stablecoinVariantJSON{VariantID: c.VariantID, Mint: c.Mint, Tier: depeg.TierOK.String(), PegCurrency: c.PegCurrency, Stale: true, Sources: []string{}}
		if s.d.StablecoinHealth != nil {
			if h, ok := s.d.StablecoinHealth.Health(c.Mint); ok {
				row.Tier, row.Stale, row.Reason = h.Tier.String(), h.Stale, h.Reason
				row.DeviationPct, row.PriceUSD, row.PegUSD, row.LiquidityUSD = h.DeviationPct, h.PriceUSD, h.PegUSD, h.LiquidityUSD
				if !h.TierSince.IsZero() {
					ms := h.TierSince.UnixMilli()
					row.TierSince = &ms
				}
				if !h.UpdatedAt.IsZero() {
					ms := h.UpdatedAt.UnixMilli()
					row.UpdatedAt = &ms
				}
				if h.Sources != nil {
					row.Sources = h.Sources
				}
			}
		}
		out.Variants = append(out.Variants, row)
	}
	return includeBlock{OK: true, Data: out}
}
