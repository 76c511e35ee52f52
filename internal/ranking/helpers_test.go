package ranking

import (
	"time"

	"github.com/assetd/assetd/internal/asset"
)

// now is the fixed clock of the tests.
var now = time.Unix(1_700_000_000, 0)

func f(v float64) *float64 { return &v }

func i64(v int64) *int64 { return &v }

// mkt is a market snapshot with known liquidity, 24h volume and trades.
func mkt(liq, vol, trades float64) *asset.Market {
	return &asset.Market{Liquidity: f(liq), Volume24hUSD: f(vol), Trade24h: f(trades)}
}

// active is a market with the given liquidity and ordinary activity
// (100k USD, 100 trades): it passes the activity gate and, shared by every
// candidate, never makes an outlier.
func active(liq float64) *asset.Market { return mkt(liq, 100_000, 100) }

// eq is an eligible, fresh fill-quality rollup with the given stored
// execution score and 100k USD fill volume.
func eq(score float64) *asset.ExecutionQuality {
	return &asset.ExecutionQuality{
		Volume24hUSD: 100_000, Trade24h: 100, FlowSourceCount: 2,
		ExecutionScore: score, IsEligibleForPrimary: true, AsOf: i64(now.Unix()),
	}
}

// stale is eq(score) with an asOf 49h old, so it is no longer eligible.
func stale(score float64) *asset.ExecutionQuality {
	q := eq(score)
	q.AsOf = i64(now.Add(-49 * time.Hour).Unix())
	return q
}
