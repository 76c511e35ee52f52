// Package curator is the judgment model behind GET /v2/lists/search-tokens:
// query interpretation, candidate gathering from the registry, the token
// index and a live provider's search, the protected-symbol index, the
// policy gates, the six scoring components, reasons, warnings and badges.
// Judge is pure (no clock, no I/O); Service gathers candidates from memory.
// docs/search-tokens.md documents every constant.
package curator

// Versions reported with every response. They change whenever a gate,
// weight, threshold or vocabulary changes.
const (
	PolicyVersion  = "assetd-policy-2026-11-27.1"
	ScoringVersion = "assetd-scoring-2026-11-27.1"
)

// Policy names.
const (
	PolicyStrict  = "strict"
	PolicyDefault = "default"
	PolicyDegen   = "degen"
)

// PolicyNames lists the policies in documentation order.
var PolicyNames = []string{PolicyStrict, PolicyDefault, PolicyDegen}

// DefaultPolicy is the route's default.
const DefaultPolicy = PolicyStrict

// Component indexes of Weights.
const (
	cMatch = iota
	cCredibility
	cLiquidity
	cActivity
	cRisk
	cFreshness
	nComponents
)

// Policy is a preset of gates and weights.
type Policy struct {
	Name string
	// MinLiquidityUSD gates candidates below it (0: no gate); registry
	// variants are exempt and get a low_liquidity warning instead.
	MinLiquidityUSD float64
	// RequireMarketData gates candidates with no price, liquidity or volume.
	RequireMarketData bool
	// SuppressImpersonation gates impersonation verdicts.
	SuppressImpersonation bool
	// MinAgeDays gates tokens younger than this when their age is known (0: no gate).
	MinAgeDays float64
	// Weights of match quality, claim credibility, liquidity, activity,
	// risk and freshness.
	Weights [nComponents]float64
}

// Policies are the three presets (the reference's values).
var Policies = map[string]Policy{
	PolicyStrict:  {Name: PolicyStrict, MinLiquidityUSD: 10_000, RequireMarketData: true, SuppressImpersonation: true, MinAgeDays: 1, Weights: [nComponents]float64{30, 30, 15, 10, 10, 5}},
	PolicyDefault: {Name: PolicyDefault, MinLiquidityUSD: 1_000, SuppressImpersonation: true, Weights: [nComponents]float64{35, 20, 15, 15, 10, 5}},
	PolicyDegen:   {Name: PolicyDegen, Weights: [nComponents]float64{40, 10, 10, 25, 5, 10}},
}

// Thresholds and constants of the model.
const (
	// TickerWeightBoost multiplies the match and credibility weights for
	// ticker queries.
	TickerWeightBoost = 1.4
	// Penalties multiply the total.
	PenaltyCollision     = 0.85
	PenaltyImpersonation = 0.3

	// Impersonation: a protected-symbol claimant without a registry
	// variant younger than this (unknown age counts as young) or with
	// less liquidity than ImpersonationMaxLiquidityUSD.
	ImpersonationMaxAgeDays      = 90
	ImpersonationMaxLiquidityUSD = 250_000
	// Market dominance: the leader of a symbol needs this much liquidity
	// and DominanceMinRatio times the runner-up's.
	DominanceMinLeaderLiquidityUSD = 250_000
	DominanceMinRatio              = 10

	// Warning and reason thresholds.
	LowLiquidityUSD       = 10_000
	DeepLiquidityUSD      = 1_000_000
	HighActivityUSD       = 250_000
	EstablishedAgeDays    = 90
	NewTokenAgeDays       = 7
	StaleDataMinutes      = 30
	HighBotVolumeRatio    = 0.6
	WeakMarketScore       = 40
	StrongExecutionScore  = 70
	BroadHolderBase       = 10_000
	FreshDataMinutes      = 5
	FreshnessZeroHours    = 24
	FreshnessUnknown      = 30
	RiskInsufficientScore = 50

	// Log scales of the liquidity and activity components.
	LiquidityFloorUSD = 100
	LiquidityCeilUSD  = 10_000_000
	ActivityFloorUSD  = 100
	ActivityCeilUSD   = 50_000_000

	// MaxQueryLen is the longest query (characters).
	MaxQueryLen = 100
	// MaxLimit and DefaultLimit bound results.
	MaxLimit     = 50
	DefaultLimit = 10
	// MaxSuppressed bounds suppressed[] (most relevant first): well above
	// the largest real collision set (181 copies of WIF in the 709k
	// sonarwatch list), and as large as the exact-symbol candidates a
	// search gathers (maxExactCandidates), so a ticker's copies are all
	// listed.
	MaxSuppressed = 500
)

// Attestation weights of claim credibility (capped at 100 in total).
var attestationWeights = map[string]float64{
	AttCuratedList:       40,
	AttRegistryVariant:   20,
	AttMarketDominance:   20,
	AttDeepLiquidity:     15,
	AttCoingeckoListed:   10,
	AttSustainedActivity: 10,
	AttEstablishedAge:    10,
	AttBroadHolderBase:   5,
}

// Attestation kinds.
const (
	AttCuratedList       = "curated_list"
	AttRegistryVariant   = "registry_variant"
	AttMarketDominance   = "market_dominance"
	AttDeepLiquidity     = "deep_liquidity"
	AttCoingeckoListed   = "coingecko_listed"
	AttSustainedActivity = "sustained_activity"
	AttEstablishedAge    = "established_age"
	AttBroadHolderBase   = "broad_holder_base"
)

// Gates (suppression codes), in evaluation order.
const (
	GateTombstoned         = "gate_tombstoned"
	GateAdvisoryBlocked    = "gate_advisory_blocked"
	GateAdvisoryCompromise = "gate_advisory_compromised"
	GateNoMarketData       = "gate_no_market_data"
	GateMinLiquidity       = "gate_min_liquidity"
	GateImpersonation      = "gate_impersonation"
	GateNewToken           = "gate_new_token"
)

// Warnings.
const (
	WarnNoMarketData     = "no_market_data"
	WarnLowLiquidity     = "low_liquidity"
	WarnImpersonation    = "possible_impersonation"
	WarnCollision        = "symbol_collision"
	WarnSuspiciousChars  = "suspicious_characters"
	WarnNewToken         = "new_token"
	WarnStaleData        = "stale_data"
	WarnHighBotVolume    = "high_bot_volume"
	WarnUnverified       = "unverified"
	WarnWeakMarketScore  = "weak_market_score"
	WarnAdvisoryCaution  = "advisory_caution"
	WarnAdvisoryBlocked  = "advisory_blocked"
	WarnAdvisoryCompromi = "advisory_compromised"
)

// Reasons.
const (
	ReasonMintMatch       = "mint_match"
	ReasonExactSymbol     = "exact_symbol_match"
	ReasonExactName       = "exact_name_match"
	ReasonSymbolPrefix    = "symbol_prefix_match"
	ReasonNameMatch       = "name_match"
	ReasonCuratedMember   = "curated_list_member"
	ReasonRegistryVariant = "registry_variant"
	ReasonMarketLeader    = "market_leader"
	ReasonDeepLiquidity   = "deep_liquidity"
	ReasonHighActivity    = "high_activity"
	ReasonEstablished     = "established_token"
	ReasonStrongExecution = "strong_execution_quality"
	ReasonCoingeckoListed = "coingecko_listed"
)

// Intents.
const (
	IntentMint   = "mint"
	IntentTicker = "ticker"
	IntentName   = "name"
)

// Claim verdicts.
const (
	VerdictNone            = "none"
	VerdictProtectedHolder = "protected_holder"
	VerdictCollision       = "collision"
	VerdictImpersonation   = "impersonation"
)
