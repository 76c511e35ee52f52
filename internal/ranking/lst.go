package ranking

import "github.com/assetd/assetd/internal/asset"

// Solana yield/LST variant capping (spec: curated LST rule and the
// variantsMode parameter; reference 3.8).
const (
	// LSTMinLiquidityUSD is the liquidity a yield/LST variant of the solana
	// asset needs to be listed by default.
	LSTMinLiquidityUSD = 250_000
	// LSTMaxVariants caps how many yield/LST variants are listed by default.
	LSTMaxVariants = 500
)

// CapLSTVariants narrows the solana asset's yield/LST variant rows to the
// default set and returns it: rows with market liquidity >= LSTMinLiquidityUSD
// (unknown liquidity fails), at most LSTMaxVariants of them in the liquidity
// order of SortVariants. A row whose mint equals pinMint (the request's
// mint parameter; "" for none) is always kept, replacing the last row when
// the cap is full. all (variantsMode=all) lifts every limit and returns rows
// untouched.
//
// Unless all is set, rows are reordered in place by the liquidity order and
// the result is a prefix of rows (still in that order); the dropped rows
// follow it in the same backing array. Callers pass only the yield/LST
// rows: the asset's other variants are never capped. Restricting yield
// variants to the active LST index set, when known, is the caller's job.
func CapLSTVariants(rows []Row, pinMint string, all bool) []Row {
	if all {
		return rows
	}
	SortVariants(rows, asset.StrategyLiquidity)
	n := 0
	for n < len(rows) && n < LSTMaxVariants {
		if l, ok := liquidity(rows[n].Market); !ok || l < LSTMinLiquidityUSD {
			break // sorted by liquidity desc, unknown last: the rest fail too
		}
		n++
	}
	if pinMint == "" {
		return rows[:n]
	}
	for j := n; j < len(rows); j++ {
		if rows[j].Mint == pinMint {
			if n == LSTMaxVariants {
				n-- // replace the last kept row
			}
			rows[n], rows[j] = rows[j], rows[n]
			return rows[:n+1]
		}
	}
	return rows[:n]
}
