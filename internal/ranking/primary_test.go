package ranking

import (
	"fmt"
	"testing"

	"github.com/assetd/assetd/internal/asset"
)

const (
	nat   = asset.KindNative
	wrap  = asset.KindWrapped
	etf   = asset.KindETF
	yield = asset.KindYield
	teq   = asset.KindTokenizedEquity

	share = asset.StockShareRedeemable
	cash  = asset.StockCashRedeemable
	not   = asset.StockNotRedeemable

	byLiq   = asset.StrategyLiquidity
	byExec  = asset.StrategyExecutionQuality
	byStock = asset.StrategyStockRedeemability
)

type primaryCase struct {
	name       string
	strategy   string
	category   string
	cands      []Candidate
	wantMint   string
	wantReason string
}

var primaryCases = []primaryCase{
	// Candidates.
	{
		name:       "single candidate",
		cands:      []Candidate{{Mint: "A", Kind: nat}},
		wantMint:   "A",
		wantReason: ReasonOnlyCandidate,
	},
	{
		name: "non-spot-like variants are not candidates",
		cands: []Candidate{
			{Mint: "A", Kind: etf, Market: active(5e6)},
			{Mint: "B", Kind: nat, Market: active(1e5)},
			{Mint: "C", Kind: yield, Market: active(9e6)},
		},
		wantMint: "B", wantReason: ReasonOnlyCandidate,
	},
	{
		name: "no spot-like variant: all are candidates",
		cands: []Candidate{
			{Mint: "A", Kind: etf, Market: active(1e5)},
			{Mint: "B", Kind: yield, Market: active(5e6)},
		},
		wantMint: "B", wantReason: ReasonLiquidity,
	},

	// Activity gate.
	{
		name: "gate drops known volume below 100",
		cands: []Candidate{
			{Mint: "A", Kind: nat, Market: mkt(2e6, 99.99, 100)},
			{Mint: "B", Kind: nat, Market: mkt(1e6, 10_000, 100)},
		},
		wantMint: "B", wantReason: ReasonActivityFilter,
	},
	{
		name: "gate drops known trades below 5",
		cands: []Candidate{
			{Mint: "A", Kind: nat, Market: mkt(2e6, 100_000, 4)},
			{Mint: "B", Kind: nat, Market: mkt(1e6, 100_000, 50)},
		},
		wantMint: "B", wantReason: ReasonActivityFilter,
	},
	{
		name: "gate keeps exactly 100 USD and 5 trades",
		cands: []Candidate{
			{Mint: "A", Kind: nat, Market: mkt(2e6, 100, 5)},
			{Mint: "B", Kind: nat, Market: mkt(1e6, 100_000, 50)},
		},
		wantMint: "A", wantReason: ReasonLiquidity,
	},
	{
		name: "gate passes unknown activity",
		cands: []Candidate{
			{Mint: "A", Kind: nat, Market: &asset.Market{Liquidity: f(2e6)}},
			{Mint: "B", Kind: nat, Market: active(1e6)},
		},
		wantMint: "A", wantReason: ReasonLiquidity,
	},
	{
		name: "gate keeps all when all would be dropped",
		cands: []Candidate{
			{Mint: "A", Kind: nat, Market: mkt(2e6, 50, 3)},
			{Mint: "B", Kind: nat, Market: mkt(1e6, 25, 2)},
		},
		wantMint: "A", wantReason: ReasonLiquidity,
	},
	{
		name: "gate falls back to fill-quality activity",
		cands: []Candidate{
			{Mint: "A", Kind: nat, Market: &asset.Market{Liquidity: f(2e6)}, Quality: &asset.ExecutionQuality{Volume24hUSD: 50, Trade24h: 2}},
			{Mint: "B", Kind: nat, Market: active(1e6)},
		},
		wantMint: "B", wantReason: ReasonActivityFilter,
	},
	{
		name: "market activity takes precedence over fill quality",
		cands: []Candidate{
			{Mint: "A", Kind: nat, Market: active(2e6), Quality: &asset.ExecutionQuality{Volume24hUSD: 50, Trade24h: 2}},
			{Mint: "B", Kind: nat, Market: active(1e6)},
		},
		wantMint: "A", wantReason: ReasonLiquidity,
	},
	{
		name: "gate without market: fill quality alone decides",
		cands: []Candidate{
			{Mint: "A", Kind: nat, Quality: &asset.ExecutionQuality{Volume24hUSD: 5_000, Trade24h: 4}},
			{Mint: "B", Kind: nat},
		},
		wantMint: "B", wantReason: ReasonActivityFilter,
	},

	// Robust outlier cut. Volumes 1e5, 1.1e5, 1e8: ln(1+x) = 11.5129,
	// 11.6082, 18.4207; median 11.6082; |dev| 0.0953, 0, 6.8125; MAD 0.0953;
	// z = 0.6745*6.8125/0.0953 = 48.2 > 2.5 for C, 0.6745 for A.
	{
		name: "volume outlier is cut",
		cands: []Candidate{
			{Mint: "A", Kind: nat, Market: mkt(10e6, 100_000, 100)},
			{Mint: "B", Kind: nat, Market: mkt(2e6, 110_000, 100)},
			{Mint: "C", Kind: nat, Market: mkt(20e6, 100e6, 100)},
		},
		wantMint: "A", wantReason: ReasonLiquidity,
	},
	// Trades 100, 105, 1e6: same shape, C is the outlier.
	{
		name: "trade outlier is cut",
		cands: []Candidate{
			{Mint: "A", Kind: nat, Market: mkt(10e6, 100_000, 100)},
			{Mint: "B", Kind: nat, Market: mkt(2e6, 100_000, 105)},
			{Mint: "C", Kind: nat, Market: mkt(20e6, 100_000, 1e6)},
		},
		wantMint: "A", wantReason: ReasonLiquidity,
	},
	// A low outlier goes too: 1e5, 1e5, 200 -> MAD 0 -> C flagged.
	{
		name: "low outlier is cut",
		cands: []Candidate{
			{Mint: "A", Kind: nat, Market: mkt(1e6, 100_000, 100)},
			{Mint: "B", Kind: nat, Market: mkt(2e6, 100_000, 100)},
			{Mint: "C", Kind: nat, Market: mkt(20e6, 200, 100)},
		},
		wantMint: "B", wantReason: ReasonLiquidity,
	},
	{
		name: "no outlier cut with two samples",
		cands: []Candidate{
			{Mint: "A", Kind: nat, Market: mkt(1e6, 100_000, 100)},
			{Mint: "B", Kind: nat, Market: mkt(2e6, 100e6, 100)},
		},
		wantMint: "B", wantReason: ReasonLiquidity,
	},
	// C's volume is unknown, so volume has only two positive samples.
	{
		name: "no outlier cut with two positive samples among three",
		cands: []Candidate{
			{Mint: "A", Kind: nat, Market: mkt(1e6, 100_000, 100)},
			{Mint: "B", Kind: nat, Market: mkt(5e6, 1e9, 100)},
			{Mint: "C", Kind: nat, Market: &asset.Market{Liquidity: f(5e5), Trade24h: f(100)}},
		},
		wantMint: "B", wantReason: ReasonLiquidity,
	},
	// Volume flags D (1e9 vs 1e5), trades flag C (1e6 vs 100): the union
	// leaves B alone.
	{
		name: "union of volume and trade outliers",
		cands: []Candidate{
			{Mint: "B", Kind: nat, Market: mkt(1e6, 100_000, 100)},
			{Mint: "C", Kind: nat, Market: mkt(9e6, 100_000, 1e6)},
			{Mint: "D", Kind: nat, Market: mkt(9e6, 1e9, 100)},
		},
		wantMint: "B", wantReason: ReasonActivityFilter,
	},
	// The gate runs first: A (dust) is dropped, leaving two samples.
	{
		name: "outlier cut runs on the gate survivors",
		cands: []Candidate{
			{Mint: "A", Kind: nat, Market: mkt(1e3, 10, 100)},
			{Mint: "B", Kind: nat, Market: mkt(1e6, 100_000, 100)},
			{Mint: "C", Kind: nat, Market: mkt(2e6, 1e9, 100)},
		},
		wantMint: "C", wantReason: ReasonLiquidity,
	},

	// stock_redeemability.
	{
		name:     "stock: share within 5x beats more liquid cash",
		strategy: byStock, category: "equity",
		cands: []Candidate{
			{Mint: "A", Kind: teq, StockVariantTier: cash, Market: active(2e6)},
			{Mint: "B", Kind: teq, StockVariantTier: share, Market: active(6e5)},
		},
		wantMint: "B", wantReason: ReasonStockRedeemabilityOverride,
	},
	{
		name:     "stock: exactly 5x still overrides",
		strategy: byStock, category: "equity",
		cands: []Candidate{
			{Mint: "A", Kind: teq, StockVariantTier: cash, Market: active(5e6)},
			{Mint: "B", Kind: teq, StockVariantTier: share, Market: active(1e6)},
		},
		wantMint: "B", wantReason: ReasonStockRedeemabilityOverride,
	},
	{
		name:     "stock: beyond 5x falls through to liquidity",
		strategy: byStock, category: "equity",
		cands: []Candidate{
			{Mint: "A", Kind: teq, StockVariantTier: cash, Market: active(6e6)},
			{Mint: "B", Kind: teq, StockVariantTier: share, Market: active(1e6)},
		},
		wantMint: "A", wantReason: ReasonLiquidity,
	},
	{
		name:     "stock: higher tier that is also more liquid wins by the override",
		strategy: byStock, category: "equity",
		cands: []Candidate{
			{Mint: "A", Kind: teq, StockVariantTier: share, Market: active(3e6)},
			{Mint: "B", Kind: teq, StockVariantTier: cash, Market: active(1e6)},
		},
		wantMint: "A", wantReason: ReasonStockRedeemabilityOverride,
	},
	{
		name:     "stock: zero or unknown liquidity on both sides",
		strategy: byStock, category: "equity",
		cands: []Candidate{
			{Mint: "A", Kind: teq, StockVariantTier: cash, Market: mkt(0, 100_000, 100)},
			{Mint: "B", Kind: teq, StockVariantTier: share},
		},
		wantMint: "B", wantReason: ReasonStockRedeemabilityZeroLiquidity,
	},
	// Higher tier at 0 liquidity, other side 4 USD: 4/max(0,1) = 4 <= 5.
	{
		name:     "stock: higher tier liquidity floored at 1",
		strategy: byStock, category: "equity",
		cands: []Candidate{
			{Mint: "A", Kind: teq, StockVariantTier: not, Market: mkt(4, 100_000, 100)},
			{Mint: "B", Kind: teq, StockVariantTier: cash, Market: mkt(0, 100_000, 100)},
		},
		wantMint: "B", wantReason: ReasonStockRedeemabilityOverride,
	},
	{
		name:     "stock: missing tier ranks as not_redeemable",
		strategy: byStock, category: "equity",
		cands: []Candidate{
			{Mint: "A", Kind: teq, Market: active(1e6)},
			{Mint: "B", Kind: teq, StockVariantTier: cash, Market: active(9e5)},
		},
		wantMint: "B", wantReason: ReasonStockRedeemabilityOverride,
	},
	{
		name:     "stock: not_redeemable ties with missing",
		strategy: byStock, category: "equity",
		cands: []Candidate{
			{Mint: "A", Kind: teq, Market: active(1e6)},
			{Mint: "B", Kind: teq, StockVariantTier: not, Market: active(9e5)},
		},
		wantMint: "A", wantReason: ReasonLiquidity,
	},
	{
		name:     "stock: same tier falls through",
		strategy: byStock, category: "equity",
		cands: []Candidate{
			{Mint: "A", Kind: teq, StockVariantTier: share, Market: active(1e6)},
			{Mint: "B", Kind: teq, StockVariantTier: share, Market: active(2e6)},
		},
		wantMint: "B", wantReason: ReasonLiquidity,
	},
	{
		name:     "stock: not applied outside equity without tokenized equity",
		strategy: byStock, category: "crypto",
		cands: []Candidate{
			{Mint: "A", Kind: nat, StockVariantTier: cash, Market: active(2e6)},
			{Mint: "B", Kind: wrap, StockVariantTier: share, Market: active(6e5)},
		},
		wantMint: "A", wantReason: ReasonLiquidity,
	},
	{
		name:     "stock: applied outside equity when one side is tokenized equity",
		strategy: byStock, category: "crypto",
		cands: []Candidate{
			{Mint: "A", Kind: nat, Market: active(2e6)},
			{Mint: "B", Kind: teq, StockVariantTier: share, Market: active(6e5)},
		},
		wantMint: "B", wantReason: ReasonStockRedeemabilityOverride,
	},
	{
		name:     "stock: ignored by the liquidity strategy",
		strategy: byLiq, category: "equity",
		cands: []Candidate{
			{Mint: "A", Kind: teq, StockVariantTier: cash, Market: active(2e6)},
			{Mint: "B", Kind: teq, StockVariantTier: share, Market: active(6e5)},
		},
		wantMint: "A", wantReason: ReasonLiquidity,
	},

	// execution_quality.
	{
		name:     "exec: higher score within 3x overrides",
		strategy: byExec,
		cands: []Candidate{
			{Mint: "A", Kind: nat, Market: active(2e6), Quality: eq(35)},
			{Mint: "B", Kind: nat, Market: active(8e5), Quality: eq(80)},
		},
		wantMint: "B", wantReason: ReasonExecutionQualityOverride,
	},
	{
		name:     "exec: exactly 3x still overrides",
		strategy: byExec,
		cands: []Candidate{
			{Mint: "A", Kind: nat, Market: active(3e6), Quality: eq(35)},
			{Mint: "B", Kind: nat, Market: active(1e6), Quality: eq(80)},
		},
		wantMint: "B", wantReason: ReasonExecutionQualityOverride,
	},
	{
		name:     "exec: beyond 3x falls through",
		strategy: byExec,
		cands: []Candidate{
			{Mint: "A", Kind: nat, Market: active(10e6), Quality: eq(35)},
			{Mint: "B", Kind: nat, Market: active(1e6), Quality: eq(90)},
		},
		wantMint: "A", wantReason: ReasonLiquidity,
	},
	{
		name:     "exec: delta below 10 falls through",
		strategy: byExec,
		cands: []Candidate{
			{Mint: "A", Kind: nat, Market: active(1e6), Quality: eq(70)},
			{Mint: "B", Kind: nat, Market: active(9e5), Quality: eq(79.99)},
		},
		wantMint: "A", wantReason: ReasonLiquidity,
	},
	{
		name:     "exec: delta of exactly 10 overrides",
		strategy: byExec,
		cands: []Candidate{
			{Mint: "A", Kind: nat, Market: active(1e6), Quality: eq(70)},
			{Mint: "B", Kind: nat, Market: active(9e5), Quality: eq(80)},
		},
		wantMint: "B", wantReason: ReasonExecutionQualityOverride,
	},
	{
		name:     "exec: neither side eligible falls through",
		strategy: byExec,
		cands: []Candidate{
			{Mint: "A", Kind: nat, Market: active(1e6), Quality: stale(10)},
			{Mint: "B", Kind: nat, Market: active(9e5), Quality: stale(90)},
		},
		wantMint: "A", wantReason: ReasonLiquidity,
	},
	// A's stored score is 90 but its rollup is stale, so it scores 0.
	{
		name:     "exec: an ineligible side scores 0",
		strategy: byExec,
		cands: []Candidate{
			{Mint: "A", Kind: nat, Market: active(1e6), Quality: stale(90)},
			{Mint: "B", Kind: nat, Market: active(9e5), Quality: eq(50)},
		},
		wantMint: "B", wantReason: ReasonExecutionQualityOverride,
	},
	// B is the less liquid side with only 5k USD of fill volume: the
	// override is refused and liquidity decides (same winner, other reason).
	{
		name:     "exec: low fill volume on the less liquid side falls through",
		strategy: byExec,
		cands: []Candidate{
			{Mint: "A", Kind: nat, Market: active(1e6), Quality: eq(80)},
			{Mint: "B", Kind: nat, Market: active(9e5), Quality: &asset.ExecutionQuality{Volume24hUSD: 5_000, Trade24h: 100, FlowSourceCount: 2, AsOf: i64(now.Unix())}},
		},
		wantMint: "A", wantReason: ReasonLiquidity,
	},
	{
		name:     "exec: enough fill volume on the less liquid side overrides",
		strategy: byExec,
		cands: []Candidate{
			{Mint: "A", Kind: nat, Market: active(1e6), Quality: eq(80)},
			{Mint: "B", Kind: nat, Market: active(9e5), Quality: &asset.ExecutionQuality{Volume24hUSD: 20_000, Trade24h: 5, FlowSourceCount: 2, AsOf: i64(now.Unix())}},
		},
		wantMint: "A", wantReason: ReasonExecutionQualityOverride,
	},
	{
		name:     "exec: less liquid side without fill quality falls through",
		strategy: byExec,
		cands: []Candidate{
			{Mint: "A", Kind: nat, Market: active(1e6), Quality: eq(80)},
			{Mint: "B", Kind: nat, Market: active(9e5)},
		},
		wantMint: "A", wantReason: ReasonLiquidity,
	},
	{
		name:     "exec: zero or unknown liquidity on both sides",
		strategy: byExec,
		cands: []Candidate{
			{Mint: "A", Kind: nat, Market: mkt(0, 100_000, 100), Quality: eq(30)},
			{Mint: "B", Kind: nat, Market: &asset.Market{Volume24hUSD: f(100_000)}, Quality: eq(60)},
		},
		wantMint: "B", wantReason: ReasonExecutionQualityZeroLiquidity,
	},
	{
		name:     "exec: ignored by the liquidity strategy",
		strategy: byLiq,
		cands: []Candidate{
			{Mint: "A", Kind: nat, Market: active(2e6), Quality: eq(35)},
			{Mint: "B", Kind: nat, Market: active(8e5), Quality: eq(95)},
		},
		wantMint: "A", wantReason: ReasonLiquidity,
	},
	{
		name:     "exec: unknown strategy behaves as liquidity",
		strategy: "bogus",
		cands: []Candidate{
			{Mint: "A", Kind: nat, Market: active(2e6), Quality: eq(35)},
			{Mint: "B", Kind: nat, Market: active(8e5), Quality: eq(95)},
		},
		wantMint: "A", wantReason: ReasonLiquidity,
	},

	// Default chain.
	{
		name: "default: unknown liquidity ranks below zero",
		cands: []Candidate{
			{Mint: "A", Kind: nat},
			{Mint: "B", Kind: nat, Market: mkt(0, 100_000, 100)},
		},
		wantMint: "B", wantReason: ReasonLiquidity,
	},
	{
		name: "default: stored tier breaks a liquidity tie",
		cands: []Candidate{
			{Mint: "A", Kind: nat, Market: active(1e6)},
			{Mint: "B", Kind: nat, Tier: asset.Tier2, Market: active(1e6)},
		},
		wantMint: "B", wantReason: ReasonTrustTier,
	},
	{
		name: "default: experimental ranks as tier3",
		cands: []Candidate{
			{Mint: "A", Kind: nat, Tier: asset.TierExperimental, Market: mkt(1e6, 100, 100)},
			{Mint: "B", Kind: nat, Tier: asset.Tier3, Market: mkt(1e6, 200, 100)},
		},
		wantMint: "B", wantReason: ReasonVolume24h,
	},
	{
		name: "default: volume breaks a liquidity and tier tie",
		cands: []Candidate{
			{Mint: "A", Kind: nat, Market: mkt(1e6, 100_000, 100)},
			{Mint: "B", Kind: nat, Market: mkt(1e6, 200_000, 100)},
		},
		wantMint: "B", wantReason: ReasonVolume24h,
	},
	{
		name: "default: known volume beats unknown",
		cands: []Candidate{
			{Mint: "A", Kind: nat, Market: &asset.Market{Liquidity: f(1e6)}},
			{Mint: "B", Kind: nat, Market: mkt(1e6, 100, 100)},
		},
		wantMint: "B", wantReason: ReasonVolume24h,
	},
	{
		name: "default: lower curated rank wins",
		cands: []Candidate{
			{Mint: "A", Kind: nat, Market: active(1e6), CuratedRank: 7},
			{Mint: "B", Kind: nat, Market: active(1e6), CuratedRank: 3},
		},
		wantMint: "B", wantReason: ReasonCuratedRank,
	},
	{
		name: "default: ranked beats unranked",
		cands: []Candidate{
			{Mint: "A", Kind: nat, Market: active(1e6)},
			{Mint: "B", Kind: nat, Market: active(1e6), CuratedRank: 40},
		},
		wantMint: "B", wantReason: ReasonCuratedRank,
	},
	{
		name: "default: mint ascending when all else ties",
		cands: []Candidate{
			{Mint: "B", Kind: nat, Market: active(1e6), CuratedRank: -1},
			{Mint: "A", Kind: nat, Market: active(1e6)},
		},
		wantMint: "A", wantReason: ReasonMintLexical,
	},
	{
		name: "default: no market at all ends at mint",
		cands: []Candidate{
			{Mint: "C", Kind: nat},
			{Mint: "B", Kind: nat},
		},
		wantMint: "B", wantReason: ReasonMintLexical,
	},
	// The reason is the one of the final match: B takes over from A on
	// liquidity, then keeps its seat against C on volume.
	{
		name: "reason of the final match",
		cands: []Candidate{
			{Mint: "A", Kind: nat, Market: mkt(1e6, 100_000, 100)},
			{Mint: "B", Kind: nat, Market: mkt(2e6, 200_000, 100)},
			{Mint: "C", Kind: nat, Market: mkt(2e6, 150_000, 100)},
		},
		wantMint: "B", wantReason: ReasonVolume24h,
	},
	// A cycle: B beats A on execution quality (delta 10, ratio 3), C beats
	// B on liquidity (delta 5), A beats C on liquidity (delta 5). Feeding in
	// mint order fixes the result: A vs B -> B, B vs C -> C. Fed C, A, B it
	// would be B.
	{
		name:     "non-transitive overrides are resolved in mint order",
		strategy: byExec,
		cands: []Candidate{
			{Mint: "C", Kind: nat, Market: active(2e6), Quality: eq(45)},
			{Mint: "A", Kind: nat, Market: active(3e6), Quality: eq(40)},
			{Mint: "B", Kind: nat, Market: active(1e6), Quality: eq(50)},
		},
		wantMint: "C", wantReason: ReasonLiquidity,
	},
}

func TestSelectPrimary(t *testing.T) {
	for _, tt := range primaryCases {
		t.Run(tt.name, func(t *testing.T) {
			// Every input order must give the same answer.
			for p := range permutations(len(tt.cands)) {
				cands := make([]Candidate, len(tt.cands))
				for i, j := range p {
					cands[i] = tt.cands[j]
				}
				idx, reason := SelectPrimary(cands, tt.strategy, tt.category, now)
				if idx < 0 || idx >= len(cands) {
					t.Fatalf("order %v: index %d out of range", p, idx)
				}
				if got := cands[idx].Mint; got != tt.wantMint || reason != tt.wantReason {
					t.Fatalf("order %v: got (%s, %s), want (%s, %s)", p, got, reason, tt.wantMint, tt.wantReason)
				}
			}
		})
	}
}

func TestSelectPrimaryEmpty(t *testing.T) {
	if idx, reason := SelectPrimary(nil, byLiq, "", now); idx != -1 || reason != "" {
		t.Errorf("SelectPrimary(nil) = (%d, %q), want (-1, \"\")", idx, reason)
	}
}

// TestSelectPrimaryLarge runs past the stack buffers: 40 candidates with
// ordinary activity, the most liquid wins.
func TestSelectPrimaryLarge(t *testing.T) {
	cands := make([]Candidate, 40)
	for i := range cands {
		cands[i] = Candidate{Mint: fmt.Sprintf("M%02d", i), Kind: asset.KindLST, Market: active(float64(1000 * (i%17 + 1)))}
	}
	cands[33].Market = active(1e9)
	idx, reason := SelectPrimary(cands, byLiq, "", now)
	if idx != 33 || reason != ReasonLiquidity {
		t.Errorf("got (%d, %s), want (33, liquidity)", idx, reason)
	}
}

// permutations yields every permutation of 0..n-1 (Heap's algorithm); only
// the identity and the reversal for n > 6.
func permutations(n int) func(yield func([]int) bool) {
	return func(yield func([]int) bool) {
		p := make([]int, n)
		for i := range p {
			p[i] = i
		}
		if n > 6 {
			if !yield(p) {
				return
			}
			r := make([]int, n)
			for i := range r {
				r[i] = n - 1 - i
			}
			yield(r)
			return
		}
		var gen func(k int) bool
		gen = func(k int) bool {
			if k <= 1 {
				return yield(append([]int(nil), p...))
			}
			for i := 0; i < k-1; i++ {
				if !gen(k - 1) {
					return false
				}
				if k%2 == 0 {
					p[i], p[k-1] = p[k-1], p[i]
				} else {
					p[0], p[k-1] = p[k-1], p[0]
				}
			}
			return gen(k - 1)
		}
		gen(n)
	}
}
