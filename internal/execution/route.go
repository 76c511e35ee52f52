package execution

import (
	"context"
	"math"
	"math/big"
	"slices"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/ranking"
	"github.com/assetd/assetd/internal/registry"
)

// Route constants.
const (
	DefaultRouteUSD    = 1_000_000
	DefaultMaxVariants = 4
	MaxMaxVariants     = 6
	// LiquidityFloorUSD and LiquidityFloorShare: a variant whose known
	// liquidity is below max(floor, ceil(share·T)) is not probed.
	LiquidityFloorUSD   = 50_000
	LiquidityFloorShare = 0.01
)

// Variant exclusion reasons.
const (
	ExcludeNonSpotLike      = "non_spot_like"
	ExcludeActivityFilter   = "excluded_by_activity_filter"
	ExcludeNotRedeemable    = "not_redeemable"
	ExcludeBelowLiquidity   = "below_liquidity_floor"
	ExcludeMissingDecimals  = "missing_decimals"
	ExcludeBeyondMaxVariant = "beyond_max_variants"
)

// Parity bases.
const (
	ParityKind            = "kind"
	ParityIssuerAssertion = "issuer_assertion"
	ParityNone            = "none"
)

// Allocation statuses.
const (
	AllocOK                 = "ok"
	AllocNotRequested       = "not_requested"
	AllocNoEligibleVariants = "no_eligible_variants"
	AllocInsufficientQuotes = "insufficient_quotes"
)

// RouteRequest is a parsed route request.
type RouteRequest struct {
	AssetID     string
	AmountUSD   int64
	Providers   []string // nil: all
	MaxVariants int
	Allocate    bool
}

// Excluded is one variant left out of the route, with its reason.
type Excluded struct {
	VariantID string  `json:"variantId"`
	Mint      string  `json:"mint"`
	Symbol    *string `json:"symbol"`
	Kind      string  `json:"kind"`
	Issuer    *string `json:"issuer"`
	Reason    string  `json:"reason"`
}

// Rung is one probe of a variant's curve.
type Rung struct {
	SizeUSD   int64    `json:"sizeUsd"`
	ImpactBps *float64 `json:"impactBps"`
	Provider  *string  `json:"provider"`
	Reason    *string  `json:"reason"`
}

// CurveView is a variant's curve as reported.
type CurveView struct {
	BaseEffectivePrice  *string  `json:"baseEffectivePrice"`
	Rungs               []Rung   `json:"rungs"`
	MaxProvenSizeUSD    *int64   `json:"maxProvenSizeUsd"`
	ParityDivergenceBps *float64 `json:"parityDivergenceBps"`
}

// VariantMarket is the cached market of a variant.
type VariantMarket struct {
	Price        *float64 `json:"price"`
	Liquidity    *float64 `json:"liquidity"`
	Volume24hUSD *float64 `json:"volume24hUSD"`
}

// RouteVariant is one probed variant.
type RouteVariant struct {
	VariantID          string         `json:"variantId"`
	Mint               string         `json:"mint"`
	Symbol             string         `json:"symbol"`
	Name               string         `json:"name"`
	Decimals           int            `json:"decimals"`
	Kind               string         `json:"kind"`
	Issuer             *string        `json:"issuer"`
	StockVariantTier   *string        `json:"stockVariantTier"`
	Rank               int            `json:"rank"`
	ParityBasis        string         `json:"parityBasis"`
	AllocationEligible bool           `json:"allocationEligible"`
	Market             *VariantMarket `json:"market"`
	Quotes             []*QuoteRow    `json:"quotes"`
	Curve              CurveView      `json:"curve"`

	v *registry.Variant
}

// Verification is how a leg's output was checked.
type Verification struct {
	Status   string   `json:"status"` // verified | interpolated
	DeltaBps *float64 `json:"deltaBps"`
	QuotedAt string   `json:"quotedAt"`
}

// RouteLeg is one leg of an allocation.
type RouteLeg struct {
	VariantID       string       `json:"variantId"`
	Mint            string       `json:"mint"`
	Symbol          string       `json:"symbol"`
	AmountUSD       string       `json:"amountUsd"`
	AmountUSDRaw    string       `json:"amountUsdRaw"`
	ShareOfTarget   float64      `json:"shareOfTarget"`
	Provider        *string      `json:"provider"`
	ExpectedOut     Amount       `json:"expectedOut"`
	EffectivePrice  string       `json:"effectivePrice"`
	ImpactBps       float64      `json:"impactBps"`
	Router          *string      `json:"router"`
	Route           []Hop        `json:"route"`
	ShareConfidence string       `json:"shareConfidence"`
	Verification    Verification `json:"verification"`
}

// EdgeVs compares the plan with a baseline variant's full-target quote.
type EdgeVs struct {
	BaselineVariantID string  `json:"baselineVariantId"`
	BaselineMint      string  `json:"baselineMint"`
	BaselineSymbol    string  `json:"baselineSymbol"`
	OutAmountDiffRaw  string  `json:"outAmountDiffRaw"`
	OutAmountDiff     string  `json:"outAmountDiff"`
	Bps               float64 `json:"bps"`
	USD               float64 `json:"usd"`
}

// Allocation is the split of the order across variants.
type Allocation struct {
	Version                 string     `json:"version"`
	TargetUSD               string     `json:"targetUsd"`
	AllocatedUSD            string     `json:"allocatedUsd"`
	UnallocatedUSD          string     `json:"unallocatedUsd"`
	ChunkUSD                int64      `json:"chunkUsd"`
	MinLegUSD               int64      `json:"minLegUsd"`
	Repaired                bool       `json:"repaired"`
	FellBackToSingleVariant bool       `json:"fellBackToSingleVariant"`
	Legs                    []RouteLeg `json:"legs"`
	OutputUnit              struct {
		Symbol   string `json:"symbol"`
		Decimals int    `json:"decimals"`
	} `json:"outputUnit"`
	TotalExpectedOut *struct {
		Amount    string `json:"amount"`
		RawAmount string `json:"rawAmount"`
	} `json:"totalExpectedOut"`
	Edge struct {
		Basis               string  `json:"basis"`
		VsBestSingleVariant *EdgeVs `json:"vsBestSingleVariant"`
		VsPrimaryVariant    *EdgeVs `json:"vsPrimaryVariant"`
	} `json:"edge"`
	PegSpreadBps       float64         `json:"pegSpreadBps"`
	BlendedImpactBps   float64         `json:"blendedImpactBps"`
	BlendedImpactGrade string          `json:"blendedImpactGrade"`
	ShareStability     string          `json:"shareStability"`
	LegIndependence    LegIndependence `json:"legIndependence"`
}

// RouteMeta is the meta block of route.
type RouteMeta struct {
	GeneratedAt       string                    `json:"generatedAt"`
	AssetID           string                    `json:"assetId"`
	Category          string                    `json:"category"`
	Side              string                    `json:"side"`
	TargetUSD         int64                     `json:"targetUsd"`
	ProbeLadderUSD    []int64                   `json:"probeLadderUsd"`
	MaxVariants       int                       `json:"maxVariants"`
	SelectedVariants  []string                  `json:"selectedVariants"`
	ExcludedVariants  []Excluded                `json:"excludedVariants"`
	UpstreamQuotes    int                       `json:"upstreamQuotes"`
	ProviderStats     map[string]*ProviderStats `json:"providerStats"`
	TieBreak          string                    `json:"tieBreak"`
	RoutingVersion    string                    `json:"routingVersion"`
	ComparisonVersion string                    `json:"comparisonVersion"`
	Tuning            Tuning                    `json:"tuning"`
	Warnings          []string                  `json:"warnings"`
}

// RouteResponse is the body of GET /v2/execution/route. Excluded is the
// spec's top-level excluded[]; meta.excludedVariants carries the same rows.
type RouteResponse struct {
	AssetID          string          `json:"assetId"`
	Providers        []string        `json:"providers"`
	Variants         []*RouteVariant `json:"variants"`
	Excluded         []Excluded      `json:"excluded"`
	AllocationStatus string          `json:"allocationStatus"`
	Allocation       *Allocation     `json:"allocation"`
	Meta             RouteMeta       `json:"meta"`
}

// RoutePlan is a validated route request: the asset, the selected and
// excluded variants, and what quoting will cost.
type RoutePlan struct {
	req       RouteRequest
	asset     *registry.Asset
	selected  []*RouteVariant
	excluded  []Excluded
	ladder    []int64
	providers []Provider
	primary   string // mint of the rank-1 variant
}

// UpstreamQuotes estimates the plan's cost in provider quotes: every rung
// of every selected variant with every provider, plus one verification
// per selected variant.
func (p *RoutePlan) UpstreamQuotes() int {
	n := len(p.selected) * len(p.ladder) * len(p.providers)
	if p.req.Allocate {
		n += len(p.selected) * len(p.providers)
	}
	return n
}

// PlanRoute resolves the asset and selects its variants. Errors:
// *NotFoundError for an unknown asset, *AdvisoryError when advisories leave
// no eligible variant, ErrAdvisoriesUnavailable while advisories are not
// loaded.
func (s *Service) PlanRoute(req RouteRequest) (*RoutePlan, error) {
	get, err := s.advisories()
	if err != nil {
		return nil, err
	}
	snap := s.Registry()
	res, err := snap.Resolve(req.AssetID)
	if err != nil || res.Singleton() {
		return nil, notFound("Unknown assetId: %s", req.AssetID)
	}
	if req.AmountUSD == 0 {
		req.AmountUSD = DefaultRouteUSD
	}
	if req.MaxVariants == 0 {
		req.MaxVariants = DefaultMaxVariants
	}
	p := &RoutePlan{req: req, asset: res.Asset, ladder: ProbeLadder(req.AmountUSD), providers: s.providers(req.Providers),
		selected: []*RouteVariant{}, excluded: []Excluded{}}
	ordered := s.rankVariants(snap, res.Asset)
	if len(ordered) > 0 {
		p.primary = ordered[0].Mint
	}
	cands := make([]ranking.Candidate, len(ordered))
	for i, v := range ordered {
		cands[i] = s.candidate(snap, v)
	}
	candidacy := ranking.PrimaryCandidacy(cands)
	floor := max(float64(LiquidityFloorUSD), math.Ceil(LiquidityFloorShare*float64(req.AmountUSD)))
	var restricted *registry.Variant
	for i, v := range ordered {
		reason := ""
		a := get(v.Mint)
		switch {
		case Restricted(a):
			reason = AdvisoryCode(a)
			if restricted == nil {
				restricted = v
			}
		case candidacy[i] == ranking.NotSpotLike:
			reason = ExcludeNonSpotLike
		case candidacy[i] == ranking.DroppedByActivity:
			reason = ExcludeActivityFilter
		case v.Kind == asset.KindTokenizedEquity && v.StockVariantTier != asset.StockShareRedeemable && v.StockVariantTier != asset.StockCashRedeemable:
			reason = ExcludeNotRedeemable
		case cands[i].Market != nil && cands[i].Market.Liquidity != nil && *cands[i].Market.Liquidity < floor:
			reason = ExcludeBelowLiquidity
		case !hasDecimals(s, v):
			reason = ExcludeMissingDecimals
		case len(p.selected) >= req.MaxVariants:
			reason = ExcludeBeyondMaxVariant
		}
		if reason != "" {
			p.excluded = append(p.excluded, Excluded{VariantID: v.VariantID, Mint: v.Mint, Symbol: strPtr(v.Symbol), Kind: v.Kind, Issuer: strPtr(v.Issuer), Reason: reason})
			continue
		}
		p.selected = append(p.selected, s.routeVariant(res.Asset, v, i+1, cands[i].Market))
	}
	if len(p.selected) == 0 && restricted != nil {
		return nil, &AdvisoryError{Mint: restricted.Mint, Advisory: get(restricted.Mint)}
	}
	return p, nil
}

func hasDecimals(s *Service, v *registry.Variant) bool {
	_, ok := s.decimalsOf(v)
	return ok
}

// rankVariants orders the asset's variants: the liquidity primary first,
// then the registry's liquidity order.
func (s *Service) rankVariants(snap *registry.Snapshot, a *registry.Asset) []*registry.Variant {
	n := len(a.Variants)
	cands := make([]ranking.Candidate, n)
	rows := make([]ranking.Row, n)
	for i := range a.Variants {
		cands[i] = s.candidate(snap, &a.Variants[i])
		rows[i] = ranking.Row{Index: i, Mint: cands[i].Mint, StockVariantTier: cands[i].StockVariantTier, Market: cands[i].Market, Quality: cands[i].Quality}
	}
	ranking.SortVariants(rows, asset.StrategyLiquidity)
	prim, _ := ranking.SelectPrimary(cands, asset.StrategyLiquidity, a.Category, s.now())
	out := make([]*registry.Variant, 0, n)
	if prim >= 0 {
		out = append(out, &a.Variants[prim])
	}
	for _, r := range rows {
		if r.Index != prim {
			out = append(out, &a.Variants[r.Index])
		}
	}
	return out
}

func (s *Service) routeVariant(a *registry.Asset, v *registry.Variant, rank int, m *asset.Market) *RouteVariant {
	dec, _ := s.decimalsOf(v)
	tok := tokenOf(a, v, dec)
	rv := &RouteVariant{VariantID: v.VariantID, Mint: v.Mint, Symbol: tok.Symbol, Name: tok.Name, Decimals: tok.Decimals, Kind: v.Kind,
		Issuer: strPtr(v.Issuer), StockVariantTier: strPtr(v.StockVariantTier), Rank: rank, ParityBasis: parityBasis(v), v: v,
		Quotes: []*QuoteRow{}, Curve: CurveView{Rungs: []Rung{}}}
	if m != nil {
		rv.Market = &VariantMarket{Price: m.Price, Liquidity: m.Liquidity, Volume24hUSD: m.Volume24hUSD}
	}
	return rv
}

func parityBasis(v *registry.Variant) string {
	switch v.Kind {
	case asset.KindNative, asset.KindWrapped, asset.KindBridged, "spot", asset.KindStablecoin:
		return ParityKind
	case asset.KindTokenizedEquity:
		if v.StockVariantTier == asset.StockShareRedeemable || v.StockVariantTier == asset.StockCashRedeemable {
			return ParityIssuerAssertion
		}
	}
	return ParityNone
}

// Route probes the selected variants, builds their curves and, when asked,
// allocates the target across them.
func (s *Service) Route(ctx context.Context, p *RoutePlan) *RouteResponse {
	now := s.now()
	ids := make([]string, len(p.providers))
	for i, pr := range p.providers {
		ids[i] = pr.ID()
	}
	tuning := TuningFor(p.asset.Category, now)
	resp := &RouteResponse{AssetID: p.asset.AssetID, Providers: ids, Variants: p.selected, Excluded: p.excluded,
		Meta: RouteMeta{GeneratedAt: now.UTC().Format(time.RFC3339Nano), AssetID: p.asset.AssetID, Category: p.asset.Category, Side: SideBuy,
			TargetUSD: p.req.AmountUSD, ProbeLadderUSD: p.ladder, MaxVariants: p.req.MaxVariants, SelectedVariants: []string{},
			ExcludedVariants: p.excluded, ProviderStats: map[string]*ProviderStats{}, RoutingVersion: RoutingVersion,
			ComparisonVersion: ComparisonVersion, Tuning: tuning, Warnings: []string{}}}
	if len(ids) > 0 {
		resp.Meta.TieBreak = ids[0]
	}
	for _, id := range ids {
		resp.Meta.ProviderStats[id] = &ProviderStats{}
	}
	// Probe every variant's ladder, variants in parallel.
	done := make(chan struct{}, len(p.selected))
	for _, rv := range p.selected {
		resp.Meta.SelectedVariants = append(resp.Meta.SelectedVariants, rv.VariantID)
		go func() {
			defer func() { done <- struct{}{} }()
			s.probe(ctx, p, rv)
		}()
	}
	for range p.selected {
		<-done
	}
	resp.Meta.UpstreamQuotes = len(p.selected) * len(p.ladder) * len(ids)
	for _, rv := range p.selected {
		for _, row := range rv.Quotes {
			for _, pq := range row.ProviderQuotes {
				st := resp.Meta.ProviderStats[pq.Provider]
				if pq.Status == StatusAvailable {
					st.Quoted++
				} else {
					st.Unavailable++
				}
			}
			if row.Best != nil {
				if row.Edge == nil {
					resp.Meta.ProviderStats[row.Best.Provider].SoleQuotes++
				} else {
					resp.Meta.ProviderStats[row.Best.Provider].Wins++
				}
			}
		}
	}
	if !p.req.Allocate {
		resp.AllocationStatus = AllocNotRequested
		return resp
	}
	s.allocate(ctx, p, resp, tuning)
	return resp
}

// probe quotes one variant's ladder (buy, USDC in) and fills its quotes
// and curve.
func (s *Service) probe(ctx context.Context, p *RoutePlan, rv *RouteVariant) {
	usdc := Token{Mint: USDCMint, Symbol: "USDC", Name: "USD Coin", Decimals: USDCDecimals}
	tok := Token{Mint: rv.Mint, Symbol: rv.Symbol, Name: rv.Name, Decimals: rv.Decimals}
	reqs := make([]QuoteRequest, len(p.ladder))
	for i, usd := range p.ladder {
		reqs[i] = QuoteRequest{InputMint: USDCMint, OutputMint: rv.Mint, Amount: usdRaw(usd)}
	}
	results := s.fanout(p.providers).Run(ctx, reqs)
	for i, usd := range p.ladder {
		row := buildRow(usdSize(usd), results[i], usdc, tok, SideBuy)
		rv.Quotes = append(rv.Quotes, row)
	}
}

// curveOf turns a probed variant into the allocator's curve.
func curveOf(rv *RouteVariant, ladder []int64) Curve {
	c := Curve{VariantID: rv.VariantID, Mint: rv.Mint, Symbol: rv.Symbol, Rank: rv.Rank, Decimals: rv.Decimals}
	for i, row := range rv.Quotes {
		if row.Best != nil {
			c.Points = append(c.Points, Point{SizeUSD: ladder[i], Out: row.Best.out})
		} else if row.Reason != nil && *row.Reason != ReasonNoRoute {
			c.DepthUncertain = true
		}
	}
	return c
}

// fillCurve reports the curve view of a variant.
func fillCurve(rv *RouteVariant, c *Curve, ladder []int64) {
	j := 0
	for i, row := range rv.Quotes {
		r := Rung{SizeUSD: ladder[i]}
		if row.Best != nil {
			imp := math.Round(c.PointImpactBps(j)*100) / 100
			r.ImpactBps, r.Provider = &imp, &row.Best.Provider
			j++
		} else {
			r.Reason = row.Reason
		}
		rv.Curve.Rungs = append(rv.Curve.Rungs, r)
	}
	if len(c.Points) > 0 {
		base := rv.Quotes[slices.IndexFunc(rv.Quotes, func(q *QuoteRow) bool { return q.Best != nil })].Best
		rv.Curve.BaseEffectivePrice = base.EffectivePrice
		capUSD := c.Capacity()
		rv.Curve.MaxProvenSizeUSD = &capUSD
	}
}

// allocate builds curves, runs the allocator with verification re-quotes
// and writes the allocation.
func (s *Service) allocate(ctx context.Context, p *RoutePlan, resp *RouteResponse, tuning Tuning) {
	var curves []Curve
	var pool []*RouteVariant
	for _, rv := range p.selected {
		c := curveOf(rv, p.ladder)
		fillCurve(rv, &c, p.ladder)
		if rv.ParityBasis == ParityNone || len(c.Points) == 0 {
			continue
		}
		curves = append(curves, c)
		pool = append(pool, rv)
	}
	if len(curves) == 0 {
		// No parity candidate at all (and none lost to missing decimals)
		// is final; candidates without quotes are worth a retry.
		resp.AllocationStatus = AllocInsufficientQuotes
		candidate := slices.ContainsFunc(p.selected, func(rv *RouteVariant) bool { return rv.ParityBasis != ParityNone })
		if !candidate && !slices.ContainsFunc(p.excluded, func(e Excluded) bool { return e.Reason == ExcludeMissingDecimals }) {
			resp.AllocationStatus = AllocNoEligibleVariants
		}
		return
	}
	target := p.req.AmountUSD
	ejected, div, peg := ParityGate(curves, tuning, target)
	if tuning.MarketClosedMultiplierApplied {
		resp.Meta.Warnings = append(resp.Meta.Warnings, "market_closed_spread_tolerance")
	}
	for i, rv := range pool {
		rv.AllocationEligible = !ejected[i]
		if div[i] != 0 {
			d := div[i]
			rv.Curve.ParityDivergenceBps = &d
		}
		if ejected[i] {
			resp.Meta.Warnings = append(resp.Meta.Warnings, "price_divergence_excluded:"+rv.Mint)
		}
	}
	// One exact re-quote per leg: each verification round is one fan-out.
	type verified struct{ best *ProviderQuote }
	got := map[LegSize]verified{}
	verify := func(legs []LegSize) []*big.Int {
		reqs := make([]QuoteRequest, len(legs))
		for k, l := range legs {
			reqs[k] = QuoteRequest{InputMint: USDCMint, OutputMint: pool[l.Curve].Mint, Amount: usdRaw(l.SizeUSD)}
		}
		rs := s.fanout(p.providers).Run(ctx, reqs)
		resp.Meta.UpstreamQuotes += len(legs) * len(p.providers)
		outs := make([]*big.Int, len(legs))
		for k, l := range legs {
			rv := pool[l.Curve]
			row := buildRow(usdSize(l.SizeUSD), rs[k], Token{Mint: USDCMint, Symbol: "USDC", Decimals: USDCDecimals},
				Token{Mint: rv.Mint, Symbol: rv.Symbol, Decimals: rv.Decimals}, SideBuy)
			if row.Best != nil {
				got[l] = verified{row.Best}
				outs[k] = row.Best.out
			}
		}
		return outs
	}
	plan := BuildPlan(target, curves, ejected, tuning, verify)
	resp.Meta.Warnings = append(resp.Meta.Warnings, plan.Warnings...)
	if len(plan.Legs) == 0 {
		resp.AllocationStatus = AllocInsufficientQuotes
		return
	}
	resp.AllocationStatus = AllocOK
	al := &Allocation{Version: AllocationVersion, TargetUSD: itoa(target), AllocatedUSD: itoa(target - plan.Unallocated),
		UnallocatedUSD: itoa(plan.Unallocated), ChunkUSD: ChunkUSD(target), MinLegUSD: MinLegUSD(target), Repaired: plan.Repaired,
		FellBackToSingleVariant: plan.FellBack, Legs: []RouteLeg{}, PegSpreadBps: peg}
	al.OutputUnit.Symbol = firstNonEmpty(p.asset.Symbol, p.asset.AssetID)
	al.OutputUnit.Decimals = plan.OutDecimals
	al.TotalExpectedOut = &struct {
		Amount    string `json:"amount"`
		RawAmount string `json:"rawAmount"`
	}{FormatRaw(plan.Total, plan.OutDecimals), plan.Total.String()}
	var blended float64
	var allocated int64
	stability := "firm"
	for _, l := range plan.Legs {
		c, rv := &curves[l.Curve], pool[l.Curve]
		leg := RouteLeg{VariantID: rv.VariantID, Mint: rv.Mint, Symbol: rv.Symbol, AmountUSD: itoa(l.AmountUSD),
			AmountUSDRaw: new(big.Rat).SetInt64(l.AmountUSD).FloatString(6), ShareOfTarget: math.Round(float64(l.AmountUSD)/float64(target)*1e4) / 1e4,
			ExpectedOut: Amount{Mint: rv.Mint, Symbol: rv.Symbol, Decimals: rv.Decimals, Amount: FormatRaw(l.Out, rv.Decimals), RawAmount: l.Out.String()},
			Route:       []Hop{}, ShareConfidence: "firm"}
		eff := new(big.Rat).SetFrac(l.Out, new(big.Int).Mul(big.NewInt(l.AmountUSD), pow10(rv.Decimals)))
		leg.EffectivePrice = ratString(eff, 12)
		b := c.Points[0]
		leg.ImpactBps = math.Round(impactBps(l.Out, l.AmountUSD, b.Out, b.SizeUSD)*100) / 100
		blended += leg.ImpactBps * float64(l.AmountUSD)
		allocated += l.AmountUSD
		leg.Verification = Verification{Status: "interpolated", DeltaBps: l.DeltaBps}
		if v, ok := got[LegSize{l.Curve, l.AmountUSD}]; ok && l.Verified {
			leg.Verification.Status, leg.Verification.QuotedAt = "verified", v.best.QuotedAt
			leg.Provider, leg.Router = &v.best.Provider, v.best.Router
			leg.Route = v.best.Route
		} else if l.Verified && plan.FellBack {
			leg.Verification.Status = "verified"
			row := rv.Quotes[len(rv.Quotes)-1]
			if row.Best != nil {
				leg.Provider, leg.Router, leg.Route, leg.Verification.QuotedAt = &row.Best.Provider, row.Best.Router, row.Best.Route, row.Best.QuotedAt
			}
		}
		if l.Soft || c.DepthUncertain || c.ImpactAt(l.AmountUSD) > SoftImpactBps || (leg.Router != nil && *leg.Router == "jupiterz") {
			leg.ShareConfidence = "soft"
		}
		al.Legs = append(al.Legs, leg)
	}
	markTiedMarginals(al.Legs, plan.Legs, curves)
	for _, leg := range al.Legs {
		if leg.ShareConfidence == "soft" {
			stability = "mixed"
		}
	}
	if stability == "mixed" && !slices.ContainsFunc(al.Legs, func(l RouteLeg) bool { return l.ShareConfidence == "firm" }) {
		stability = "soft"
	}
	if stability != "firm" {
		resp.Meta.Warnings = append(resp.Meta.Warnings, "shares_may_move")
	}
	al.ShareStability = stability
	if al.LegIndependence = Independence(al.Legs); !al.LegIndependence.Independent {
		resp.Meta.Warnings = append(resp.Meta.Warnings, "legs_share_liquidity")
	}
	if allocated > 0 {
		al.BlendedImpactBps = math.Round(blended/float64(allocated)*100) / 100
	}
	al.BlendedImpactGrade = Grade(al.BlendedImpactBps)
	if al.BlendedImpactGrade == "poor" || al.BlendedImpactGrade == "avoid" {
		resp.Meta.Warnings = append(resp.Meta.Warnings, "extreme_impact")
	}
	if peg > tuning.PegWarnBps {
		resp.Meta.Warnings = append(resp.Meta.Warnings, "peg_divergence")
	}
	if plan.Unallocated > 0 {
		resp.Meta.Warnings = append(resp.Meta.Warnings, "target_exceeds_probed_depth")
	}
	if slices.ContainsFunc(pool, func(rv *RouteVariant) bool { return rv.ParityBasis == ParityIssuerAssertion }) {
		resp.Meta.Warnings = append(resp.Meta.Warnings, "equity_unit_parity_assumed", "issuer_primary_market_not_quoted")
	}
	al.Edge.Basis = "verified_quotes"
	excluded := slices.Clone(ejected)
	if bi, _ := bestSingle(curves, excluded, target, plan.OutDecimals); bi >= 0 {
		al.Edge.VsBestSingleVariant = edgeVs(plan, curves, pool, bi, target)
	}
	for i, rv := range pool {
		if rv.Mint == p.primary {
			al.Edge.VsPrimaryVariant = edgeVs(plan, curves, pool, i, target)
		}
	}
	resp.Allocation = al
}

// markTiedMarginals marks soft the legs whose next-dollar marginal is
// within SoftMarginalTolerance of another leg's.
func markTiedMarginals(legs []RouteLeg, pl []PlanLeg, curves []Curve) {
	ms := make([]float64, len(pl))
	for i, l := range pl {
		ms[i], _ = marginal(&curves[l.Curve], l.AmountUSD, 1).Float64()
	}
	for i := range ms {
		for j := range ms {
			if i != j && ms[i] > 0 && math.Abs(ms[i]-ms[j])/ms[i] <= SoftMarginalTolerance {
				legs[i].ShareConfidence = "soft"
			}
		}
	}
}

// edgeVs compares the plan's total with curve bi's exact full-target
// quote; nil when that curve has none or the plan is that single leg.
func edgeVs(plan Plan, curves []Curve, pool []*RouteVariant, bi int, target int64) *EdgeVs {
	out, ok := curves[bi].ExactAt(target)
	if !ok || len(plan.Legs) == 1 && plan.Legs[0].Curve == bi {
		return nil
	}
	base := scaleTo(out, curves[bi].Decimals, plan.OutDecimals)
	diff := new(big.Int).Sub(plan.Total, base)
	e := &EdgeVs{BaselineVariantID: pool[bi].VariantID, BaselineMint: pool[bi].Mint, BaselineSymbol: pool[bi].Symbol,
		OutAmountDiffRaw: diff.String(), OutAmountDiff: FormatRaw(diff, plan.OutDecimals), Bps: EdgeBps(plan.Total, base)}
	if plan.Total.Sign() > 0 {
		f, _ := new(big.Rat).SetFrac(base, plan.Total).Float64()
		e.USD = round2(float64(target) * (1 - f))
	}
	return e
}

func itoa(v int64) string { return big.NewInt(v).String() }
