package curator

import (
	"cmp"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/metadata"
	"github.com/assetd/assetd/internal/registry"
	"github.com/assetd/assetd/internal/risk"
	"github.com/assetd/assetd/internal/tokenindex"
)

// Interpretation is how a query was read.
type Interpretation struct {
	Intent                  string `json:"intent"`
	NormalizedQuery         string `json:"normalizedQuery"`
	HadSuspiciousCharacters bool   `json:"hadSuspiciousCharacters"`
}

var tickerRe = regexp.MustCompile(`^[A-Z0-9._-]{1,12}$`)

// Interpret reads a query: a base58 address is a mint; a normalised query
// of one word of [A-Z0-9._-]{1,12} is a ticker; anything else is a name.
func Interpret(q string) Interpretation {
	q = strings.TrimSpace(q)
	if registry.ValidMint(q) {
		return Interpretation{Intent: IntentMint, NormalizedQuery: q}
	}
	n := tokenindex.Normalize(q)
	in := Interpretation{Intent: IntentName, NormalizedQuery: n.Key, HadSuspiciousCharacters: n.Suspicious}
	if tickerRe.MatchString(n.Key) {
		in.Intent = IntentTicker
	}
	return in
}

// RegistryClaim is the registry variant of a candidate mint.
type RegistryClaim struct {
	AssetID   string
	Kind      string
	TrustTier string
	// Claimed are the symbols the variant claims (ClaimedSymbols).
	Claimed []string
}

// Candidate is one mint to judge, with everything known about it from
// memory.
type Candidate struct {
	Mint         string
	Symbol, Name string // claimed metadata (registry, else index, else provider)
	Registry     *RegistryClaim
	CuratedLists []string // curated list ids holding the mint
	CoingeckoID  string
	Market       *asset.Market
	Execution    *asset.ExecutionQuality
	AgeDays      *float64 // age of the oldest known pool; nil unknown
	Advisory     *asset.Advisory
	Tombstoned   bool
	InLists      []string // curated ids and published community slugs
	// Decimals and LogoURI are the token's metadata (registry, else
	// index, else provider; cleaned); the market snapshot's fill gaps.
	Decimals *int
	LogoURI  string
}

// Attestation is one piece of evidence for a claim. Code is the
// reference's name of the kind (the same value).
type Attestation struct {
	Kind   string  `json:"kind"`
	Code   string  `json:"code"`
	Weight float64 `json:"weight"`
	Detail string  `json:"detail,omitempty"`
}

// Claims are what a token claims to be and the evidence for it.
type Claims struct {
	Symbol       *string       `json:"symbol"`
	Name         *string       `json:"name"`
	Attestations []Attestation `json:"attestations"`
	// Verdict is the claim check: none, protected_holder, collision or
	// impersonation; ProtectedBy names what protects the claimed symbol.
	Verdict     string `json:"verdict"`
	ProtectedBy string `json:"protectedBy,omitempty"`
}

// Market is the market block of a result.
type Market struct {
	Price                 *float64 `json:"price"`
	LiquidityUSD          *float64 `json:"liquidityUsd"`
	Volume24hUSD          *float64 `json:"volume24hUsd"`
	MarketCapUSD          *float64 `json:"marketCapUsd"`
	HolderCount           *float64 `json:"holderCount"`
	PriceChange24hPercent *float64 `json:"priceChange24hPercent"`
	AgeDays               *float64 `json:"ageDays"`
	ExecutionScore        *float64 `json:"executionScore"`
	RiskScore             *int     `json:"riskScore"`
	RiskGrade             *string  `json:"riskGrade"`
	DataAsOf              *int64   `json:"dataAsOf"` // unix ms
	Decimals              *int     `json:"decimals"`
	LogoURI               *string  `json:"logoURI"`
}

// Components are the six 0..100 score components.
type Components struct {
	MatchQuality     int `json:"matchQuality"`
	ClaimCredibility int `json:"claimCredibility"`
	Liquidity        int `json:"liquidity"`
	Activity         int `json:"activity"`
	Risk             int `json:"risk"`
	Freshness        int `json:"freshness"`
}

// Score is a result's total and components.
type Score struct {
	Total      int        `json:"total"`
	Components Components `json:"components"`
	Penalty    float64    `json:"penalty"`
}

// Result is one shown candidate.
type Result struct {
	Mint     string          `json:"mint"`
	Claims   Claims          `json:"claims"`
	Market   Market          `json:"market"`
	Score    Score           `json:"score"`
	Reasons  []string        `json:"reasons"`
	Warnings []string        `json:"warnings"`
	Badges   []string        `json:"badges"`
	Verified bool            `json:"verified"`
	InLists  []string        `json:"inLists"`
	Advisory *asset.Advisory `json:"advisory"`
}

// Suppressed is one gated candidate.
type Suppressed struct {
	Mint         string   `json:"mint"`
	Symbol       *string  `json:"symbol"`
	Name         *string  `json:"name"`
	LiquidityUSD *float64 `json:"liquidityUsd"`
	SuppressedBy []string `json:"suppressedBy"`
	Warnings     []string `json:"warnings"`
	Score        int      `json:"score"`
}

// Outcome is the judged candidate set.
type Outcome struct {
	Results    []Result
	Suppressed []Suppressed
	// SuppressedTotal counts every gated candidate (Suppressed is bounded).
	SuppressedTotal int
}

// Judge scores and gates cands for the query under policy p, at now.
// Results are ordered by total desc, liquidity desc, mint asc and cut to
// limit; suppressed candidates the same way (by relevance), cut to
// MaxSuppressed.
func Judge(in Interpretation, cands []Candidate, p Policy, prot *Protected, limit int, now time.Time) Outcome {
	ks := claimKeys(cands)
	verdicts := claimVerdicts(cands, ks, prot)
	var out Outcome
	for i := range cands {
		c := &cands[i]
		r, gates := judgeOne(in, c, ks[i], verdicts[i], p, now)
		if len(gates) > 0 {
			out.Suppressed = append(out.Suppressed, Suppressed{Mint: c.Mint, Symbol: r.Claims.Symbol, Name: r.Claims.Name,
				LiquidityUSD: r.Market.LiquidityUSD, SuppressedBy: gates, Warnings: r.Warnings, Score: r.Score.Total})
			continue
		}
		out.Results = append(out.Results, r)
	}
	slices.SortFunc(out.Results, func(a, b Result) int {
		return cmp.Or(cmp.Compare(b.Score.Total, a.Score.Total), cmp.Compare(val(b.Market.LiquidityUSD), val(a.Market.LiquidityUSD)),
			cmp.Compare(a.Mint, b.Mint))
	})
	if len(out.Results) > limit {
		out.Results = out.Results[:limit]
	}
	slices.SortFunc(out.Suppressed, func(a, b Suppressed) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(val(b.LiquidityUSD), val(a.LiquidityUSD)), cmp.Compare(a.Mint, b.Mint))
	})
	out.SuppressedTotal = len(out.Suppressed)
	if len(out.Suppressed) > MaxSuppressed {
		out.Suppressed = out.Suppressed[:MaxSuppressed]
	}
	if out.Results == nil {
		out.Results = []Result{}
	}
	if out.Suppressed == nil {
		out.Suppressed = []Suppressed{}
	}
	return out
}

// keys are a candidate's normalised claims, computed once per judgment.
type keys struct {
	sym, name tokenindex.Normalized
}

func claimKeys(cands []Candidate) []keys {
	out := make([]keys, len(cands))
	for i := range cands {
		out[i] = keys{tokenindex.Normalize(cands[i].Symbol), tokenindex.Normalize(cands[i].Name)}
	}
	return out
}

// verdict is the claim check of one candidate.
type verdict struct {
	kind        string
	protectedBy string
	dominant    bool // market leader of its symbol in this candidate set
}

func val(p *float64) float64 {
	if p == nil || math.IsNaN(*p) || math.IsInf(*p, 0) {
		return 0
	}
	return *p
}

func finite(p *float64) *float64 {
	if p == nil || math.IsNaN(*p) || math.IsInf(*p, 0) {
		return nil
	}
	return p
}

// claimVerdicts applies the static protected index, then per-query
// market dominance to the symbols it does not protect.
func claimVerdicts(cands []Candidate, ks []keys, prot *Protected) []verdict {
	out := make([]verdict, len(cands))
	groups := map[string][]int{}
	// The protector texts joined lately, reused: impostors of one symbol
	// share its protector.
	var recent [16]struct {
		src source
		by  string
	}
	next := 0
	protector := func(s source) string {
		for i := range min(next, len(recent)) {
			if recent[i].src == s {
				return recent[i].by
			}
		}
		by := prot.protector(s)
		recent[next%len(recent)].src, recent[next%len(recent)].by = s, by
		next++
		return by
	}
	// Keys only listed tokens hold, with more than one holder: the
	// candidates claiming each, settled once all are seen.
	var shared map[*entry][]int
	for i := range cands {
		c := &cands[i]
		if prot.allowed(c.Mint) {
			out[i] = verdict{kind: VerdictNone}
			continue
		}
		symKey := tokenindex.CollisionKey(ks[i].sym.Key)
		e, ok := prot.symbol(symKey)
		if !ok {
			e, ok = prot.name(tokenindex.CollisionKey(ks[i].name.Key))
		}
		if !ok {
			out[i] = verdict{kind: VerdictNone}
			if symKey != "" {
				groups[symKey] = append(groups[symKey], i)
			}
			continue
		}
		if e.first.kind == srcCoingecko && prot.holderCount(e) > 1 {
			if shared == nil {
				shared = map[*entry][]int{}
			}
			shared[e] = append(shared[e], i)
			continue
		}
		if prot.holds(e, c.Mint) {
			out[i] = verdict{kind: VerdictProtectedHolder, protectedBy: protector(e.first)}
			continue
		}
		out[i] = verdict{kind: claimant(c), protectedBy: protector(e.first)}
	}
	for e, g := range shared {
		settleShared(cands, out, prot, e, g, protector(e.first))
	}
	for _, g := range groups {
		if len(g) < 2 {
			continue
		}
		slices.SortFunc(g, func(a, b int) int {
			return cmp.Or(cmp.Compare(liquidity(&cands[b]), liquidity(&cands[a])), cmp.Compare(cands[a].Mint, cands[b].Mint))
		})
		lead, second := liquidity(&cands[g[0]]), liquidity(&cands[g[1]])
		if lead < DominanceMinLeaderLiquidityUSD || lead < DominanceMinRatio*second {
			continue // contested: protects nobody
		}
		out[g[0]] = verdict{kind: VerdictProtectedHolder, protectedBy: "dominance:liquidity", dominant: true}
		for _, i := range g[1:] {
			out[i] = verdict{kind: claimant(&cands[i]), protectedBy: "dominance:liquidity"}
		}
	}
	return out
}

// settleShared judges the candidates g claiming the key of e, which
// several listed tokens hold and nobody else: only the dominant holder
// protects it, the others are collisions, and the claimants that hold
// nothing are judged by claimant. The dominant holder is the market
// leader (the dominance thresholds over the other holders' liquidity),
// else the holder with the oldest known pool when every holder's age is
// known; it can only be told when every holder is a candidate. Otherwise
// the key is contested: every holder is a collision, protected by nobody.
// first is e's first protector (what protects it from non-holders while
// contested).
func settleShared(cands []Candidate, out []verdict, prot *Protected, e *entry, g []int, first string) {
	var holders []int
	for _, i := range g {
		if prot.holds(e, cands[i].Mint) {
			holders = append(holders, i)
		}
	}
	lead, byMarket := -1, false
	if len(holders) == prot.holderCount(e) {
		lead, byMarket = dominantHolder(cands, holders)
	}
	by := ""
	if lead >= 0 {
		by = "coingecko:" + cands[lead].CoingeckoID
	}
	for _, i := range g {
		switch {
		case i == lead:
			out[i] = verdict{kind: VerdictProtectedHolder, protectedBy: by, dominant: byMarket}
		case prot.holds(e, cands[i].Mint):
			out[i] = verdict{kind: VerdictCollision, protectedBy: by}
		default:
			out[i] = verdict{kind: claimant(&cands[i]), protectedBy: cmp.Or(by, first)}
		}
	}
}

// dominantHolder returns the index in cands of the dominant one of the
// holders (-1 when none is), and whether the market told it.
func dominantHolder(cands []Candidate, holders []int) (int, bool) {
	hs := slices.Clone(holders)
	slices.SortFunc(hs, func(a, b int) int { return cmp.Compare(liquidity(&cands[b]), liquidity(&cands[a])) })
	lead, second := liquidity(&cands[hs[0]]), liquidity(&cands[hs[1]])
	if lead >= DominanceMinLeaderLiquidityUSD && lead >= DominanceMinRatio*second {
		return hs[0], true
	}
	if i := solePlainSpelling(cands, hs); i >= 0 {
		return i, false
	}
	for _, i := range hs {
		if cands[i].AgeDays == nil {
			return -1, false
		}
	}
	slices.SortFunc(hs, func(a, b int) int { return cmp.Compare(*cands[b].AgeDays, *cands[a].AgeDays) })
	if *cands[hs[0]].AgeDays > *cands[hs[1]].AgeDays {
		return hs[0], false
	}
	return -1, false
}

// solePlainSpelling returns the one holder whose symbol is spelled
// plainly (ASCII letters and digits only) when every other holder's is
// decorated ("$TRUMP" beside "TRUMP"), else -1. The listing that spells a
// ticker as it is traded is the one a user searching it means; a pool's age
// is weaker evidence (a decorated copy can be the older token).
func solePlainSpelling(cands []Candidate, holders []int) int {
	found := -1
	for _, i := range holders {
		if !plainSymbol(cands[i].Symbol) {
			continue
		}
		if found >= 0 {
			return -1
		}
		found = i
	}
	return found
}

func plainSymbol(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// claimant is the verdict of a mint claiming a protected symbol it does
// not hold: a token the registry or an external listing vouches for is a
// collision; any other is an impersonation unless it is old and liquid.
func claimant(c *Candidate) string {
	if c.Registry == nil && c.CoingeckoID == "" &&
		(c.AgeDays == nil || *c.AgeDays < ImpersonationMaxAgeDays || liquidity(c) < ImpersonationMaxLiquidityUSD) {
		return VerdictImpersonation
	}
	return VerdictCollision
}

func liquidity(c *Candidate) float64 {
	if c.Market == nil {
		return 0
	}
	return val(c.Market.Liquidity)
}

func hasMarketData(m *asset.Market) bool {
	return m != nil && (val(m.Price) > 0 || val(m.Liquidity) > 0 || val(m.Volume24hUSD) > 0)
}

// tokenMeta is the decimals and logo URI of a result: the candidate's
// metadata, else the market snapshot's (cleaned like any external
// metadata).
func tokenMeta(c *Candidate) (*int, *string) {
	dec, logo := c.Decimals, c.LogoURI
	if m := c.Market; m != nil && (dec == nil || logo == "") {
		t := metadata.Token{Decimals: m.Decimals}
		if m.LogoURI != nil {
			t.LogoURI = *m.LogoURI
		}
		t = metadata.Clean(t)
		if dec == nil {
			dec = t.Decimals
		}
		logo = cmp.Or(logo, t.LogoURI)
	}
	return dec, nonEmpty(logo)
}

// logScale maps v onto 0..100 between floor and ceil on a log scale.
func logScale(v, floor, ceil float64) int {
	if v <= floor {
		return 0
	}
	if v >= ceil {
		return 100
	}
	return int(math.Round(100 * math.Log10(v/floor) / math.Log10(ceil/floor)))
}

func ptr[T any](v T) *T { return &v }

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// judgeOne scores c and returns its gates (empty when shown).
func judgeOne(in Interpretation, c *Candidate, k keys, v verdict, p Policy, now time.Time) (Result, []string) {
	r := Result{Mint: c.Mint, Claims: Claims{Symbol: nonEmpty(c.Symbol), Name: nonEmpty(c.Name), Attestations: []Attestation{},
		Verdict: v.kind, ProtectedBy: v.protectedBy}, Verified: c.Registry != nil, InLists: c.InLists, Advisory: c.Advisory,
		Reasons: []string{}, Warnings: []string{}, Badges: []string{}}
	if r.InLists == nil {
		r.InLists = []string{}
	}
	m := c.Market
	liq := liquidity(c)
	var vol float64
	if m != nil {
		r.Market = Market{Price: finite(m.Price), LiquidityUSD: finite(m.Liquidity), Volume24hUSD: finite(m.Volume24hUSD),
			MarketCapUSD: finite(m.MarketCap), HolderCount: finite(m.Holders), PriceChange24hPercent: finite(m.PriceChange24hPercent),
			DataAsOf: m.LastFetchedAt}
		vol = val(m.Volume24hUSD)
	}
	r.Market.AgeDays = finite(c.AgeDays)
	r.Market.Decimals, r.Market.LogoURI = tokenMeta(c)
	if c.Execution != nil && !math.IsNaN(c.Execution.ExecutionScore) {
		r.Market.ExecutionScore = ptr(c.Execution.ExecutionScore)
	}
	rs := risk.Score(risk.Input{Mint: c.Mint, Market: m, Advisory: c.Advisory, TokenAgeDays: c.AgeDays, TrustedList: len(c.CuratedLists) > 0})
	riskComp := RiskInsufficientScore
	if !rs.HasInsufficientData {
		riskComp = rs.Score
		r.Market.RiskScore, r.Market.RiskGrade = ptr(rs.Score), ptr(rs.Grade)
	}

	// Match quality.
	mq, reason := match(in, c, k)
	if reason != "" {
		r.Reasons = append(r.Reasons, reason)
	}
	// Claim credibility.
	att := func(kind, detail string) {
		r.Claims.Attestations = append(r.Claims.Attestations, Attestation{Kind: kind, Code: kind, Weight: attestationWeights[kind], Detail: detail})
	}
	if len(c.CuratedLists) > 0 {
		att(AttCuratedList, strings.Join(c.CuratedLists, ","))
		r.Reasons = append(r.Reasons, ReasonCuratedMember)
	}
	if c.Registry != nil {
		att(AttRegistryVariant, c.Registry.AssetID)
		r.Reasons = append(r.Reasons, ReasonRegistryVariant)
	}
	if v.dominant {
		att(AttMarketDominance, "")
		r.Reasons = append(r.Reasons, ReasonMarketLeader)
	}
	if liq >= DeepLiquidityUSD {
		att(AttDeepLiquidity, "")
		r.Reasons = append(r.Reasons, ReasonDeepLiquidity)
	}
	if c.CoingeckoID != "" {
		att(AttCoingeckoListed, c.CoingeckoID)
		r.Reasons = append(r.Reasons, ReasonCoingeckoListed)
	}
	if vol >= HighActivityUSD {
		att(AttSustainedActivity, "")
		r.Reasons = append(r.Reasons, ReasonHighActivity)
	}
	if c.AgeDays != nil && *c.AgeDays >= EstablishedAgeDays {
		att(AttEstablishedAge, "")
		r.Reasons = append(r.Reasons, ReasonEstablished)
	}
	if m != nil && val(m.Holders) >= BroadHolderBase {
		att(AttBroadHolderBase, "")
	}
	cred := 0.0
	for _, a := range r.Claims.Attestations {
		cred += a.Weight
	}
	cred = min(cred, 100)
	if r.Market.ExecutionScore != nil && *r.Market.ExecutionScore >= StrongExecutionScore {
		r.Reasons = append(r.Reasons, ReasonStrongExecution)
	}
	// Activity, freshness.
	act := float64(logScale(vol, ActivityFloorUSD, ActivityCeilUSD))
	if r.Market.ExecutionScore != nil {
		act = 0.7*act + 0.3*min(max(*r.Market.ExecutionScore, 0), 100)
	}
	fresh := FreshnessUnknown
	var ageOfData time.Duration
	if r.Market.DataAsOf != nil {
		ageOfData = now.Sub(time.UnixMilli(*r.Market.DataAsOf))
		switch {
		case ageOfData <= FreshDataMinutes*time.Minute:
			fresh = 100
		case ageOfData >= FreshnessZeroHours*time.Hour:
			fresh = 0
		default:
			span := float64(FreshnessZeroHours*time.Hour - FreshDataMinutes*time.Minute)
			fresh = int(math.Round(100 * (1 - float64(ageOfData-FreshDataMinutes*time.Minute)/span)))
		}
	}
	comp := Components{MatchQuality: mq, ClaimCredibility: int(math.Round(cred)), Liquidity: logScale(liq, LiquidityFloorUSD, LiquidityCeilUSD),
		Activity: int(math.Round(act)), Risk: riskComp, Freshness: fresh}
	w := p.Weights
	if in.Intent == IntentTicker {
		w[cMatch] *= TickerWeightBoost
		w[cCredibility] *= TickerWeightBoost
	}
	vals := [nComponents]float64{float64(comp.MatchQuality), float64(comp.ClaimCredibility), float64(comp.Liquidity),
		float64(comp.Activity), float64(comp.Risk), float64(comp.Freshness)}
	var sum, wsum float64
	for i := range vals {
		sum += vals[i] * w[i]
		wsum += w[i]
	}
	penalty := 1.0
	switch v.kind {
	case VerdictCollision:
		penalty = PenaltyCollision
	case VerdictImpersonation:
		penalty = PenaltyImpersonation
	}
	r.Score = Score{Total: int(math.Round(sum / wsum * penalty)), Components: comp, Penalty: penalty}

	// Warnings.
	warn := func(s string) { r.Warnings = append(r.Warnings, s) }
	switch {
	case !hasMarketData(m):
		warn(WarnNoMarketData)
	case liq < LowLiquidityUSD:
		warn(WarnLowLiquidity)
	}
	switch v.kind {
	case VerdictImpersonation:
		warn(WarnImpersonation)
	case VerdictCollision:
		warn(WarnCollision)
	}
	if k.sym.Suspicious || k.name.Suspicious {
		warn(WarnSuspiciousChars)
	}
	if c.AgeDays != nil && *c.AgeDays < NewTokenAgeDays {
		warn(WarnNewToken)
	}
	if r.Market.DataAsOf != nil && ageOfData > StaleDataMinutes*time.Minute {
		warn(WarnStaleData)
	}
	if c.Execution != nil && c.Execution.BotVolumeRatio > HighBotVolumeRatio {
		warn(WarnHighBotVolume)
	}
	if c.Registry == nil {
		warn(WarnUnverified)
	}
	if r.Market.RiskScore != nil && *r.Market.RiskScore < WeakMarketScore {
		warn(WarnWeakMarketScore)
	}
	// Badges.
	for _, l := range c.CuratedLists {
		r.Badges = append(r.Badges, "curated:"+l)
	}
	if c.Registry != nil && c.Registry.TrustTier != "" {
		r.Badges = append(r.Badges, c.Registry.TrustTier)
	}
	if r.Market.RiskGrade != nil {
		r.Badges = append(r.Badges, "grade:"+*r.Market.RiskGrade)
	}

	// Gates. Tombstones and blocking advisories are terminal: the row
	// lists only that gate.
	if c.Tombstoned {
		return r, []string{GateTombstoned}
	}
	if c.Advisory != nil {
		switch c.Advisory.Status {
		case asset.AdvisoryBlocked:
			warn(WarnAdvisoryBlocked)
			return r, []string{GateAdvisoryBlocked}
		case asset.AdvisoryCompromised:
			warn(WarnAdvisoryCompromi)
			return r, []string{GateAdvisoryCompromise}
		case asset.AdvisoryCaution:
			warn(WarnAdvisoryCaution)
			r.Badges = append(r.Badges, "advisory:caution")
		}
	}
	// Registry variants and tokens with an external listing id are
	// vouched for without market data: the market gates leave them to
	// their no_market_data / low_liquidity warnings.
	vouched := c.Registry != nil || c.CoingeckoID != ""
	var gates []string
	if p.RequireMarketData && !hasMarketData(m) && !vouched {
		gates = append(gates, GateNoMarketData)
	}
	if p.MinLiquidityUSD > 0 && liq < p.MinLiquidityUSD && !vouched {
		gates = append(gates, GateMinLiquidity)
	}
	if p.SuppressImpersonation && v.kind == VerdictImpersonation {
		gates = append(gates, GateImpersonation)
	}
	if p.MinAgeDays > 0 && c.AgeDays != nil && *c.AgeDays < p.MinAgeDays {
		gates = append(gates, GateNewToken)
	}
	return r, gates
}

// match returns the match quality of c for the query and its reason.
func match(in Interpretation, c *Candidate, k keys) (int, string) {
	q := in.NormalizedQuery
	if in.Intent == IntentMint {
		if c.Mint == q {
			return 100, ReasonMintMatch
		}
		return 0, ""
	}
	sym, name := k.sym.Key, k.name.Key
	exactSym := sym == q
	if c.Registry != nil {
		for _, s := range c.Registry.Claimed {
			exactSym = exactSym || tokenindex.Key(s) == q
		}
	}
	exactName := name == q
	prefix := len(q) >= 2 && strings.HasPrefix(sym, q)
	contains := len(q) >= 3 && strings.Contains(name, q)
	type m struct {
		ok     bool
		score  int
		reason string
	}
	var order []m
	if in.Intent == IntentTicker {
		order = []m{{exactSym, 100, ReasonExactSymbol}, {exactName, 75, ReasonExactName}, {prefix, 55, ReasonSymbolPrefix}, {contains, 45, ReasonNameMatch}}
	} else {
		order = []m{{exactName, 100, ReasonExactName}, {exactSym, 80, ReasonExactSymbol}, {contains, 70, ReasonNameMatch}, {prefix, 55, ReasonSymbolPrefix}}
	}
	for _, o := range order {
		if o.ok {
			return o.score, o.reason
		}
	}
	return 20, ""
}
