package ranking

import (
	"cmp"
	"slices"

	"github.com/assetd/assetd/internal/asset"
)

// Row is one variant row to order. Index is the caller's back-reference
// (typically the row's position in its own slice), so any row type can be
// sorted: build a []Row, call SortVariants, then read the Index values in
// order.
type Row struct {
	Index int
	Mint  string
	// Tier is the row's liquidity tier; empty derives it from
	// Market.Liquidity (the spec orders by the derived tier, so callers
	// normally leave it empty or pass the derived value).
	Tier             string
	StockVariantTier string
	Market           *asset.Market
	Quality          *asset.ExecutionQuality
}

// SortVariants orders rows in place for the /variants sortBy value (an
// unknown value sorts as liquidity):
//
//   - liquidity: market liquidity desc (unknown last), derived liquidity
//     tier, 24h volume desc (unknown last), mint asc.
//   - execution_quality: rows with cached execution quality first, then
//     rows whose stored isEligibleForPrimary is true, then executionScore
//     desc, then fill-quality 24h volume desc, then the liquidity order.
//   - stock_redeemability: share_redeemable, cash_redeemable, then
//     not_redeemable or missing, each tier in the liquidity order.
//
// Index breaks the last tie (equal mints), so the order is total and the
// result is what a stable sort would give, whatever the input order.
// It does not allocate.
func SortVariants(rows []Row, sortBy string) {
	switch sortBy {
	case asset.StrategyExecutionQuality:
		slices.SortFunc(rows, cmpRowsExecution)
	case asset.StrategyStockRedeemability:
		slices.SortFunc(rows, cmpRowsStock)
	default:
		slices.SortFunc(rows, cmpRowsLiquidity)
	}
}

// cmpRowsLiquidity is the default row order.
func cmpRowsLiquidity(a, b Row) int {
	if c := cmpLiquidity(a.Market, b.Market); c != 0 {
		return c
	}
	if c := cmpTier(a.Tier, a.Market, b.Tier, b.Market); c != 0 {
		return c
	}
	if c := cmpVolume(a.Market, b.Market); c != 0 {
		return c
	}
	if c := cmpMint(a.Mint, b.Mint); c != 0 {
		return c
	}
	return cmp.Compare(a.Index, b.Index)
}

// cmpRowsExecution is the execution_quality row order.
func cmpRowsExecution(a, b Row) int {
	aq, bq := a.Quality, b.Quality
	switch {
	case aq != nil && bq == nil:
		return -1
	case aq == nil && bq != nil:
		return 1
	case aq != nil && bq != nil:
		if aq.IsEligibleForPrimary != bq.IsEligibleForPrimary {
			if aq.IsEligibleForPrimary {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(finiteNonNeg(bq.ExecutionScore), finiteNonNeg(aq.ExecutionScore)); c != 0 {
			return c
		}
		if c := cmp.Compare(finiteNonNeg(bq.Volume24hUSD), finiteNonNeg(aq.Volume24hUSD)); c != 0 {
			return c
		}
	}
	return cmpRowsLiquidity(a, b)
}

// cmpRowsStock is the stock_redeemability row order.
func cmpRowsStock(a, b Row) int {
	if c := stockScore(b.StockVariantTier) - stockScore(a.StockVariantTier); c != 0 {
		return c
	}
	return cmpRowsLiquidity(a, b)
}
