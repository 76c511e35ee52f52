package execution

import (
	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/ranking"
	"github.com/assetd/assetd/internal/registry"
)

// LinksRequest is a validated links request: exactly one of Mint and
// AssetID.
type LinksRequest struct {
	Mint, AssetID string
	SellMint      string   // "" = default
	Venues        []string // nil = all
	Kinds         []string // nil = all (swap)
	Amount        string   // validated, accepted, appended to no venue URL
}

// LinkAsset is the registry asset of the buy mint.
type LinkAsset struct {
	AssetID string  `json:"assetId"`
	Symbol  *string `json:"symbol"`
}

// LinksResponse is the body of GET /v2/execution/links.
type LinksResponse struct {
	BuyMint  string     `json:"buyMint"`
	SellMint *string    `json:"sellMint"`
	Asset    *LinkAsset `json:"asset"`
	Primary  *string    `json:"primary"`
	Links    []Link     `json:"links"`
	Meta     struct {
		Kinds []string `json:"kinds"`
	} `json:"meta"`
}

// Links builds the swap links. Errors: *NotFoundError for an unknown asset
// or one without a Solana variant, *AdvisoryError for a restricted buy mint
// (or an asset whose every variant is restricted), ErrAdvisoriesUnavailable
// while advisories are not loaded.
func (s *Service) Links(req LinksRequest) (*LinksResponse, error) {
	get, err := s.advisories()
	if err != nil {
		return nil, err
	}
	snap := s.Registry()
	buy := req.Mint
	if req.AssetID != "" {
		res, err := snap.Resolve(req.AssetID)
		if err != nil || res.Singleton() {
			return nil, notFound("Unknown asset: %s", req.AssetID)
		}
		if len(res.Asset.Variants) == 0 {
			return nil, notFound("Asset has no Solana variant: %s", res.AssetID)
		}
		v, restricted := s.primaryTradeable(snap, res.Asset, get)
		if v == nil {
			return nil, &AdvisoryError{Mint: restricted.Mint, Advisory: get(restricted.Mint)}
		}
		buy = v.Mint
	} else if a := get(buy); Restricted(a) {
		return nil, &AdvisoryError{Mint: buy, Advisory: a}
	}
	out := &LinksResponse{BuyMint: buy, Links: []Link{}}
	out.Meta.Kinds = []string{KindSwap}
	var buySym string
	if a, v, ok := snap.VariantByMint(buy); ok {
		out.Asset = &LinkAsset{AssetID: a.AssetID, Symbol: strPtr(firstNonEmpty(v.Symbol, a.Symbol))}
		buySym = NormalizeSymbol(firstNonEmpty(v.Symbol, a.Symbol))
	}
	if req.Kinds != nil && len(req.Kinds) == 0 {
		return out, nil
	}
	sell := req.SellMint
	if sell == "" {
		sell = DefaultSellMint(buy)
	}
	out.SellMint = &sell
	p := Pair{BuyMint: buy, SellMint: sell, BuySymbol: buySym, SellSymbol: sellSymbol(snap, sell)}
	base := s.IconBase
	if base == "" {
		base = DefaultIconBase
	}
	links, primary := BuildLinks(p, req.Venues, base)
	out.Links = links
	if primary != "" {
		out.Primary = &primary
	}
	return out, nil
}

// sellSymbol is the symbol of the sell mint: SOL and USDC by name, else the
// registry's.
func sellSymbol(snap *registry.Snapshot, mint string) string {
	switch mint {
	case SOLMint:
		return "SOL"
	case USDCMint:
		return "USDC"
	}
	if a, v, ok := snap.VariantByMint(mint); ok {
		return NormalizeSymbol(firstNonEmpty(v.Symbol, a.Symbol))
	}
	return ""
}

// primaryTradeable picks the liquidity primary among the asset's variants
// that no advisory restricts. When every variant is restricted it returns
// nil and the first restricted variant.
func (s *Service) primaryTradeable(snap *registry.Snapshot, a *registry.Asset, get func(string) *asset.Advisory) (pick, restricted *registry.Variant) {
	var cands []ranking.Candidate
	var idx []int
	for i := range a.Variants {
		v := &a.Variants[i]
		if Restricted(get(v.Mint)) {
			if restricted == nil {
				restricted = v
			}
			continue
		}
		cands = append(cands, s.candidate(snap, v))
		idx = append(idx, i)
	}
	i, _ := ranking.SelectPrimary(cands, asset.StrategyLiquidity, a.Category, s.now())
	if i < 0 {
		return nil, restricted
	}
	return &a.Variants[idx[i]], nil
}

// candidate is the ranking view of a variant.
func (s *Service) candidate(snap *registry.Snapshot, v *registry.Variant) ranking.Candidate {
	rank := 0
	if r, ok := snap.CuratedRank(v.Mint); ok {
		rank = r + 1
	}
	c := ranking.Candidate{Mint: v.Mint, Kind: v.Kind, StockVariantTier: v.StockVariantTier, CuratedRank: rank}
	if s.Markets != nil {
		c.Market, c.Quality = s.Markets.Market(v.Mint), s.Markets.ExecutionQuality(v.Mint)
	}
	return c
}

func firstNonEmpty(xs ...string) string {
	for _, x := range xs {
		if x != "" {
			return x
		}
	}
	return ""
}

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
