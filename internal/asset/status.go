package asset

import "time"

// Market row statuses: every row of market-snapshots and variant-markets
// says why its market is what it is (docs/prices.md, "A reason for every
// miss"). A null market always comes with a status other than ok.
const (
	MarketOK = "ok"
	// MarketUnknownMint: the registry does not list the mint and no
	// provider or trade knows it.
	MarketUnknownMint = "unknown_mint"
	// MarketNone: the mint is known but has never been priced.
	MarketNone = "no_market"
	// MarketStale: the market was last fetched more than StaleAfter ago.
	MarketStale = "stale"
	// MarketBelowLiquidityFloor: the market's liquidity is known and under
	// LiquidityFloorUSD, so its price is easy to move.
	MarketBelowLiquidityFloor = "below_liquidity_floor"
	// MarketAdvisoryBlocked: an operator advisory blocks the mint.
	MarketAdvisoryBlocked = "advisory_blocked"
)

// StaleAfter is how old (by lastFetchedAt) a market may be before its row
// is stale: ten snapshot refresh periods of the market cache.
const StaleAfter = 10 * time.Minute

// LiquidityFloorUSD is the liquidity under which a market's row is
// below_liquidity_floor.
const LiquidityFloorUSD = 1_000

// MarketStatus is the status of a row: listed says the registry lists the
// mint, m is the row's market (nil: none), adv its advisory, now the
// clock. In order: advisory_blocked, unknown_mint, no_market, stale,
// below_liquidity_floor, ok.
func MarketStatus(listed bool, m *Market, adv *Advisory, now time.Time) string {
	switch {
	case adv != nil && adv.Status == AdvisoryBlocked:
		return MarketAdvisoryBlocked
	case m == nil && !listed:
		return MarketUnknownMint
	case m == nil || m.Price == nil || !(*m.Price > 0):
		return MarketNone
	case m.LastFetchedAt != nil && *m.LastFetchedAt > 0 && now.UnixMilli()-*m.LastFetchedAt > StaleAfter.Milliseconds():
		return MarketStale
	case m.Liquidity != nil && *m.Liquidity < LiquidityFloorUSD:
		return MarketBelowLiquidityFloor
	}
	return MarketOK
}
