package execution

import (
	"context"
	"github.com/assetd/assetd/internal/onchain"
	"math/big"
	"slices"
	"time"

	"github.com/assetd/assetd/internal/registry"
)

// Evaluate constants.
const (
	SideBuy  = "buy"
	SideSell = "sell"
	// MaxAmounts is the most distinct sizes one evaluate call quotes.
	MaxAmounts = 9
	// MinAmountUSD and MaxAmountUSD bound a buy size.
	MinAmountUSD = 1
	MaxAmountUSD = 50_000_000
	// MaxUSDDecimals is the most fractional digits of an amountUsd.
	MaxUSDDecimals = 6
	// USDCDecimals are the decimals of the quote currency.
	USDCDecimals = 6
	// ComparisonVersion names the winner/edge rules.
	ComparisonVersion = "quote-compare-v1"
)

// DefaultLadderUSD are the buy sizes quoted when none is given.
var DefaultLadderUSD = []int64{10_000, 100_000, 1_000_000}

// Token is the evaluated token.
type Token struct {
	Mint     string `json:"mint"`
	Symbol   string `json:"symbol"`
	Name     string `json:"name"`
	Decimals int    `json:"decimals"`
	Verified bool   `json:"verified"`
}

// Amount is an amount of a mint.
type Amount struct {
	Mint      string `json:"mint"`
	Symbol    string `json:"symbol"`
	Decimals  int    `json:"decimals"`
	Amount    string `json:"amount"`
	RawAmount string `json:"rawAmount"`
}

// Fees are a provider's declared fees.
type Fees struct {
	FeeBps  *int    `json:"feeBps"`
	FeeMint *string `json:"feeMint"`
}

// ProviderQuote is one provider's row for one size.
type ProviderQuote struct {
	Provider          string   `json:"provider"`
	Status            string   `json:"status"`
	Reason            *string  `json:"reason,omitempty"`
	Rank              *int     `json:"rank"`
	IsBest            bool     `json:"isBest"`
	Input             *Amount  `json:"input"`
	Output            *Amount  `json:"output"`
	EffectivePrice    *string  `json:"effectivePrice"`
	PriceImpactPct    *float64 `json:"priceImpactPct"`
	PriceImpactSource string   `json:"priceImpactSource"`
	Route             []Hop    `json:"route"`
	ContextSlot       *int64   `json:"contextSlot"`
	Router            *string  `json:"router"`
	Mode              *string  `json:"mode"`
	Fees              *Fees    `json:"fees"`
	QuotedAt          string   `json:"quotedAt"`

	out *big.Int // output raw, nil when unavailable
}

// Edge is how much the best quote beats the runner-up.
type Edge struct {
	RunnerUp          string   `json:"runnerUp"`
	ComparedProviders []string `json:"comparedProviders"`
	OutAmountDiffRaw  string   `json:"outAmountDiffRaw"`
	OutAmountDiff     string   `json:"outAmountDiff"`
	Bps               float64  `json:"bps"`
	USD               float64  `json:"usd"`
}

// RequestAmount is the size a row answers.
type RequestAmount struct {
	Unit      string `json:"unit"` // usd | token
	Amount    string `json:"amount"`
	RawAmount string `json:"rawAmount"`
}

// QuoteRow is one size of an evaluate answer.
type QuoteRow struct {
	Request        RequestAmount    `json:"request"`
	Status         string           `json:"status"`
	Reason         *string          `json:"reason,omitempty"`
	Best           *ProviderQuote   `json:"best"`
	Edge           *Edge            `json:"edge"`
	ProviderQuotes []*ProviderQuote `json:"providerQuotes"`

	usd float64 // the size in USD for buys (edge.usd)
}

// Quote statuses.
const (
	StatusAvailable   = "available"
	StatusUnavailable = "unavailable"
)

// EvaluateRequest is a parsed evaluate request; amounts are the raw query
// strings, validated here against the token's decimals.
type EvaluateRequest struct {
	Mint         string
	Side         string   // buy | sell
	AmountsUSD   []string // buy only
	TokenAmounts []string // sell only
	Providers    []string // nil: all configured
}

// ProviderStats aggregates one provider over an evaluate answer.
type ProviderStats struct {
	Quoted        int      `json:"quoted"`
	Unavailable   int      `json:"unavailable"`
	Wins          int      `json:"wins"`
	SoleQuotes    int      `json:"soleQuotes"`
	MeanEdgeBps   *float64 `json:"meanEdgeBps"`
	MedianEdgeBps *float64 `json:"medianEdgeBps"`
}

// Summary names the best provider across sizes and why.
type Summary struct {
	BestProvider       *string        `json:"bestProvider"`
	BestProviderReason string         `json:"bestProviderReason"`
	ComparableEntries  int            `json:"comparableEntries"`
	MeanEdgeBps        *float64       `json:"meanEdgeBps"`
	MedianEdgeBps      *float64       `json:"medianEdgeBps"`
	MaxEdgeBps         *float64       `json:"maxEdgeBps"`
	MaxEdgeAt          *RequestAmount `json:"maxEdgeAt"`
}

// EvaluateMeta is the meta block of evaluate.
type EvaluateMeta struct {
	Requested         int                       `json:"requested"`
	Available         int                       `json:"available"`
	Unavailable       int                       `json:"unavailable"`
	Deduped           int                       `json:"deduped"`
	UpstreamQuotes    int                       `json:"upstreamQuotes"`
	Limits            map[string]int            `json:"limits"`
	TieBreak          string                    `json:"tieBreak"`
	ComparisonVersion string                    `json:"comparisonVersion"`
	AmountSource      string                    `json:"amountSource"`
	DefaultLadderUSD  []int64                   `json:"defaultLadderUsd"`
	TokenSource       string                    `json:"tokenSource"`
	ProviderStats     map[string]*ProviderStats `json:"providerStats"`
	Summary           Summary                   `json:"summary"`
	Warnings          []string                  `json:"warnings"`
}

// EvaluateResponse is the body of GET /v2/execution/evaluate.
type EvaluateResponse struct {
	Mint      string       `json:"mint"`
	Side      string       `json:"side"`
	Providers []string     `json:"providers"`
	Token     Token        `json:"token"`
	Quotes    []*QuoteRow  `json:"quotes"`
	Meta      EvaluateMeta `json:"meta"`
	// Verdict is the mint's pre-trade verdict (internal/onchain), set by
	// the HTTP layer; it never refuses (refusals are the advisories').
	Verdict *onchain.Verdict `json:"verdict,omitempty"`
}

// size is one requested amount.
type size struct {
	req RequestAmount
	raw *big.Int // input raw
	usd float64  // buy: the USD amount
}

// EvaluatePlan is a validated evaluate request: the token, the sizes and
// the number of upstream quotes it will cost (for the caller's budget).
type EvaluatePlan struct {
	req       EvaluateRequest
	token     Token
	sizes     []size
	deduped   int
	source    string
	providers []Provider
	// configured is how many providers the service has (limits.maxProviders).
	configured int
}

// UpstreamQuotes is what the plan will cost in provider quotes.
func (p *EvaluatePlan) UpstreamQuotes() int { return len(p.sizes) * len(p.providers) }

// PlanEvaluate validates an evaluate request against the registry and the
// advisories without quoting anything.
func (s *Service) PlanEvaluate(req EvaluateRequest) (*EvaluatePlan, error) {
	if req.Side == "" {
		req.Side = SideBuy
	}
	switch {
	case req.Side != SideBuy && req.Side != SideSell:
		return nil, paramError("side", "Invalid side: expected buy or sell")
	case req.Side == SideSell && len(req.AmountsUSD) > 0:
		return nil, paramError("amountUsd", "amountUsd is only valid when side=buy")
	case req.Side == SideBuy && len(req.TokenAmounts) > 0:
		return nil, paramError("tokenAmount", "tokenAmount is only valid when side=sell")
	case req.Side == SideSell && len(req.TokenAmounts) == 0:
		return nil, paramError("tokenAmount", "side=sell needs at least one tokenAmount")
	}
	snap := s.Registry()
	a, v, ok := snap.VariantByMint(req.Mint)
	if !ok {
		return nil, notFound("Unsupported token mint: %s", req.Mint)
	}
	dec, ok := s.decimalsOf(v)
	if !ok {
		return nil, notFound("Unsupported token mint: %s (decimals unknown)", req.Mint)
	}
	if err := s.gate(req.Mint); err != nil {
		return nil, err
	}
	p := &EvaluatePlan{req: req, token: tokenOf(a, v, dec), source: "request", providers: s.providers(req.Providers), configured: len(s.Providers)}
	sizes, deduped, err := parseSizes(req, dec)
	if err != nil {
		return nil, err
	}
	if sizes == nil {
		p.source = "default"
		for _, usd := range DefaultLadderUSD {
			sizes = append(sizes, usdSize(usd))
		}
	}
	p.sizes, p.deduped = sizes, deduped
	return p, nil
}

func tokenOf(a *registry.Asset, v *registry.Variant, decimals int) Token {
	sym := firstNonEmpty(v.Symbol, a.Symbol, v.Mint[:4])
	return Token{Mint: v.Mint, Symbol: sym, Name: firstNonEmpty(v.Name, a.Name, sym), Decimals: decimals, Verified: true}
}

func usdSize(usd int64) size {
	raw := usdRaw(usd)
	return size{req: RequestAmount{Unit: "usd", Amount: FormatRaw(raw, USDCDecimals), RawAmount: raw.String()}, raw: raw, usd: float64(usd)}
}

// parseSizes validates and dedupes the requested amounts (nil, 0, nil for
// none: the default ladder applies).
func parseSizes(req EvaluateRequest, decimals int) ([]size, int, error) {
	in, unit := req.AmountsUSD, "usd"
	if req.Side == SideSell {
		in, unit = req.TokenAmounts, "token"
	}
	if len(in) == 0 {
		return nil, 0, nil
	}
	var out []size
	seen := map[string]bool{}
	deduped := 0
	for _, s := range in {
		var raw *big.Int
		var ok bool
		if unit == "usd" {
			raw, ok = ParseDecimal(s, MaxUSDDecimals, USDCDecimals)
			if !ok {
				return nil, 0, paramError("amountUsd", "Invalid amountUsd %q: expected a decimal number with at most %d decimals", s, MaxUSDDecimals)
			}
			if raw.Cmp(usdRaw(MinAmountUSD)) < 0 || raw.Cmp(usdRaw(MaxAmountUSD)) > 0 {
				return nil, 0, paramError("amountUsd", "amountUsd %s is out of range: %d to %d", s, MinAmountUSD, MaxAmountUSD)
			}
		} else {
			raw, ok = ParseDecimal(s, decimals, decimals)
			if !ok || raw.Sign() == 0 {
				return nil, 0, paramError("tokenAmount", "Invalid tokenAmount %q: expected a positive decimal number with at most %d decimals (the token's)", s, decimals)
			}
		}
		if seen[raw.String()] {
			deduped++
			continue
		}
		seen[raw.String()] = true
		d := decimals
		if unit == "usd" {
			d = USDCDecimals
		}
		sz := size{req: RequestAmount{Unit: unit, Amount: FormatRaw(raw, d), RawAmount: raw.String()}, raw: raw}
		if unit == "usd" {
			sz.usd, _ = new(big.Rat).SetFrac(raw, usdRaw(1)).Float64()
		}
		out = append(out, sz)
	}
	if len(out) > MaxAmounts {
		return nil, 0, paramError(map[string]string{"usd": "amountUsd", "token": "tokenAmount"}[unit], "at most %d distinct amounts per request, got %d", MaxAmounts, len(out))
	}
	return out, deduped, nil
}

// Evaluate quotes the plan and builds the answer.
func (s *Service) Evaluate(ctx context.Context, p *EvaluatePlan) *EvaluateResponse {
	usdc := Token{Mint: USDCMint, Symbol: "USDC", Name: "USD Coin", Decimals: USDCDecimals}
	in, out := usdc, p.token
	if p.req.Side == SideSell {
		in, out = p.token, usdc
	}
	reqs := make([]QuoteRequest, len(p.sizes))
	for i, sz := range p.sizes {
		reqs[i] = QuoteRequest{InputMint: in.Mint, OutputMint: out.Mint, Amount: sz.raw}
	}
	results := s.fanout(p.providers).Run(ctx, reqs)
	ids := make([]string, len(p.providers))
	for i, pr := range p.providers {
		ids[i] = pr.ID()
	}
	resp := &EvaluateResponse{Mint: p.token.Mint, Side: p.req.Side, Providers: ids, Token: p.token, Quotes: make([]*QuoteRow, len(p.sizes))}
	for i, sz := range p.sizes {
		row := buildRow(sz, results[i], in, out, p.req.Side)
		resp.Quotes[i] = row
	}
	resp.Meta = evaluateMeta(resp.Quotes, ids, p)
	return resp
}

// buildRow ranks one size's provider results: the largest output wins,
// ties go to the earlier provider.
func buildRow(sz size, rs []Result, in, out Token, side string) *QuoteRow {
	row := &QuoteRow{Request: sz.req, ProviderQuotes: make([]*ProviderQuote, len(rs)), usd: sz.usd}
	var avail []*ProviderQuote
	noRoute := len(rs) > 0
	firstReason := ""
	for j, r := range rs {
		pq := providerQuote(r, in, out)
		row.ProviderQuotes[j] = pq
		if pq.out != nil {
			avail = append(avail, pq)
			continue
		}
		if r.Reason != ReasonNoRoute {
			noRoute = false
			if firstReason == "" {
				firstReason = r.Reason
			}
		}
	}
	if len(avail) == 0 {
		row.Status = StatusUnavailable
		reason := ReasonError
		switch {
		case len(rs) == 0:
			reason = ReasonError
		case noRoute:
			reason = ReasonNoRoute
		case firstReason != "":
			reason = firstReason
		}
		row.Reason = &reason
		return row
	}
	// Stable sort keeps provider order among equal outputs (tie-break).
	slices.SortStableFunc(avail, func(a, b *ProviderQuote) int { return b.out.Cmp(a.out) })
	for k, pq := range avail {
		rank := k + 1
		pq.Rank = &rank
	}
	best := avail[0]
	best.IsBest = true
	row.Status, row.Best = StatusAvailable, best
	if len(avail) >= 2 {
		row.Edge = edgeOf(best, avail[1], avail, sz, out, side)
	}
	return row
}

func providerQuote(r Result, in, out Token) *ProviderQuote {
	pq := &ProviderQuote{Provider: r.Provider, PriceImpactSource: "unavailable", Route: []Hop{}, QuotedAt: r.QuotedAt.UTC().Format(time.RFC3339Nano)}
	if r.Quote == nil {
		pq.Status = StatusUnavailable
		reason := r.Reason
		pq.Reason = &reason
		return pq
	}
	q := r.Quote
	pq.Status = StatusAvailable
	pq.out = q.OutAmount
	pq.Input = &Amount{Mint: in.Mint, Symbol: in.Symbol, Decimals: in.Decimals, Amount: FormatRaw(q.InAmount, in.Decimals), RawAmount: q.InAmount.String()}
	pq.Output = &Amount{Mint: out.Mint, Symbol: out.Symbol, Decimals: out.Decimals, Amount: FormatRaw(q.OutAmount, out.Decimals), RawAmount: q.OutAmount.String()}
	if q.InAmount.Sign() > 0 {
		// output per unit of input, in UI units.
		r := new(big.Rat).SetFrac(new(big.Int).Mul(q.OutAmount, pow10(in.Decimals)), new(big.Int).Mul(q.InAmount, pow10(out.Decimals)))
		s := ratString(r, 12)
		pq.EffectivePrice = &s
	}
	if q.PriceImpact != nil {
		v := *q.PriceImpact
		pq.PriceImpactPct, pq.PriceImpactSource = &v, "provider"
	}
	if q.Route != nil {
		pq.Route = q.Route
	}
	pq.ContextSlot = q.ContextSlot
	pq.Router, pq.Mode = strPtr(q.Router), strPtr(q.Mode)
	if q.FeeBps != nil || q.FeeMint != "" {
		pq.Fees = &Fees{FeeBps: q.FeeBps, FeeMint: strPtr(q.FeeMint)}
	}
	return pq
}

// EdgeBps is (best/runnerUp − 1)·1e4 computed in 1e6 fixed point and
// reported with 2 decimals.
func EdgeBps(best, runnerUp *big.Int) float64 {
	if runnerUp.Sign() <= 0 {
		return 0
	}
	ppm := new(big.Int).Mul(best, big.NewInt(1_000_000))
	ppm.Quo(ppm, runnerUp)
	ppm.Sub(ppm, big.NewInt(1_000_000))
	return float64(ppm.Int64()) / 100
}

func edgeOf(best, runner *ProviderQuote, avail []*ProviderQuote, sz size, out Token, side string) *Edge {
	diff := new(big.Int).Sub(best.out, runner.out)
	e := &Edge{RunnerUp: runner.Provider, OutAmountDiffRaw: diff.String(), OutAmountDiff: FormatRaw(diff, out.Decimals), Bps: EdgeBps(best.out, runner.out)}
	for _, pq := range avail {
		e.ComparedProviders = append(e.ComparedProviders, pq.Provider)
	}
	if side == SideSell {
		e.USD, _ = new(big.Rat).SetFrac(diff, usdRaw(1)).Float64()
	} else {
		// N·(1 − Y/X)
		f, _ := new(big.Rat).SetFrac(runner.out, best.out).Float64()
		e.USD = round2(sz.usd * (1 - f))
	}
	return e
}
